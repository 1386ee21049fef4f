"""GLEU and chrF++ of GMEG-Data's dev systems from their four references, correlated with the PRWS means (N19
section 6) in ``metrics_computed`` of the analysis; printed beside each other in the test's output."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

from annotation.models import Campaign
from annotation.services.references import import_references
from annotation.services.textfiles import NamedFile

from .contract_checks import assert_contract
from .test_prws_analysis import GMEG_SYSTEMS, gmeg_reference

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_gleu_and_chrf_against_prws_means_on_fce(gmeg_dir, tmp_path):
    dev = gmeg_dir / "dev"
    with (dev / "fce-segment-scores.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    reference = tmp_path / "ref"
    reference.write_text("\n".join(gmeg_reference(dev / "fce", rows)) + "\n", encoding="utf-8")
    files = [str(dev / "fce" / name) for name in (*GMEG_SYSTEMS, "source")] + [str(reference)]
    call_command("import_outputs", "--campaign", "fce", "--mode", "prws", "--source", str(dev / "fce" / "source"),
                 *files, stdout=io.StringIO())
    call_command("import_scores", "--campaign", "fce", "--wide", str(dev / "fce-segment-scores.csv"),
                 stdout=io.StringIO())
    import_references(
        Campaign.objects.get(name="fce"), None,
        [NamedFile(f"ref{k}", (dev / "fce" / f"ref{k}").read_bytes()) for k in range(4)],
    )
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "fce", "--bootstrap", "50", "--seed", "1", "--out", str(out),
                 stderr=io.StringIO())
    analysis = json.loads(out.read_text())
    assert_contract(analysis)
    computed = analysis["metrics_computed"]
    assert computed["skipped"] == {"m2": computed["skipped"]["m2"]} and "M2 needs" in computed["skipped"]["m2"]
    prws = computed["prws"]
    assert set(prws["systems"]) == {*GMEG_SYSTEMS, "source", "ref"}
    print("\nfce dev, Pearson with the PRWS means over", len(prws["systems"]), "systems:")
    for name in ("gleu", "chrf"):
        scores = computed["scores"][name]
        print(f"  {name}: r = {prws['correlations'][name]:.3f}; "
              + ", ".join(f"{s} {scores[s]['score']:.4f}" for s in sorted(scores)))
        assert -1 <= prws["correlations"][name] <= 1
    assert computed["scores"]["gleu"]["ref"]["score"] > computed["scores"]["gleu"]["source"]["score"]
