"""GLEU and chrF++ of GMEG-Data's dev systems (fce and wiki) from their four references, correlated with the PRWS
means (N19 section 6) in ``metrics_computed`` of the analysis, without and with 674 synthetic systems (N19 section
5.2), in the JSON and the HTML report; printed beside each other in the test's output."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

from annotation.models import Campaign
from annotation.services.references import import_references
from annotation.services.textfiles import NamedFile
from ranking.reports.formats import render_report

from .contract_checks import assert_contract
from .test_prws_analysis import GMEG_SYSTEMS, gmeg_reference

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.mark.parametrize("domain", ["fce", "wiki"])
def test_gleu_and_chrf_against_prws_means(gmeg_dir, tmp_path, domain):
    dev = gmeg_dir / "dev"
    with (dev / f"{domain}-segment-scores.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    reference = tmp_path / "ref"
    reference.write_text("\n".join(gmeg_reference(dev / domain, rows)) + "\n", encoding="utf-8")
    files = [str(dev / domain / name) for name in (*GMEG_SYSTEMS, "source")] + [str(reference)]
    call_command("import_outputs", "--campaign", domain, "--mode", "prws", "--source", str(dev / domain / "source"),
                 *files, stdout=io.StringIO())
    call_command("import_scores", "--campaign", domain, "--wide", str(dev / f"{domain}-segment-scores.csv"),
                 stdout=io.StringIO())
    import_references(
        Campaign.objects.get(name=domain), None,
        [NamedFile(f"ref{k}", (dev / domain / f"ref{k}").read_bytes()) for k in range(4)],
    )
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", domain, "--bootstrap", "50", "--seed", "1", "--out", str(out),
                 stderr=io.StringIO())
    analysis = json.loads(out.read_text())
    assert_contract(analysis)
    computed = analysis["metrics_computed"]
    assert set(computed["skipped"]) == {"m2", "errant"} and "M2 needs" in computed["skipped"]["m2"]
    assert "ERRANT needs the campaign's gold edits" in computed["skipped"]["errant"]
    prws = computed["prws"]
    assert set(prws["systems"]) == {*GMEG_SYSTEMS, "source", "ref"}
    print(f"\n{domain} dev, Pearson with the PRWS means over", len(prws["systems"]), "systems:")
    for name in ("gleu", "chrf"):
        scores = computed["scores"][name]
        print(f"  {name}: r = {prws['correlations'][name]:.3f}; "
              + ", ".join(f"{s} {scores[s]['score']:.4f}" for s in sorted(scores)))
        assert -1 <= prws["correlations"][name] <= 1
    assert computed["scores"]["gleu"]["ref"]["score"] > computed["scores"]["gleu"]["source"]["score"]
    synthetic = computed["synthetic"]
    assert synthetic["systems"] == 674 and synthetic["seed"] == 1
    print(f"with {synthetic['systems']} synthetic systems (N19 section 5.2):")
    for name in ("gleu", "chrf"):
        row = synthetic["correlations"][name]
        assert row["real"]["pearson"] == pytest.approx(prws["correlations"][name], abs=1e-9)
        assert row["real"]["systems"] == len(prws["systems"])
        assert len(prws["systems"]) < row["with_synthetic"]["systems"] <= len(prws["systems"]) + 674
        assert 0 < row["with_synthetic"]["pearson"] <= 1
        print(f"  {name}: r = {row['real']['pearson']:.3f} real only, {row['with_synthetic']['pearson']:.3f} with them")
    html = render_report(analysis, "html")
    assert "with 674 synthetic systems added (N19 §5.2)" in html
    for name in ("gleu", "chrf"):
        row = synthetic["correlations"][name]
        assert f"<td class=\"num\">{row['with_synthetic']['pearson']:.3f}</td>" in html
