"""G15 Table 5 and Figure 3 from the product's own metrics: CoNLL-14 with its gold M2 and references imported,
`manage.py analyze` adds ``metrics_computed``: M2, GLEU and chrF++ per system, their correlations with Expected Wins
and TrueSkill (printed beside G15's published ones, which G15 computed from its own M2 files), the F-beta sweep
from the computed precision and recall, and the sentence-level relative-ranking tau against the 2,319 rankings."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from annotation.services.references import import_references
from annotation.services.textfiles import NamedFile

from .contract_checks import assert_contract, strict_loads
from .core.test_conll14_reproduction import TABLE_5_M2
from .factories import conll14_campaign
from .test_metrics_conll14 import OFFICIAL_M2

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_metrics_computed_in_the_analysis(conll14_dir, tmp_path):
    campaign = conll14_campaign(conll14_dir)
    gold = conll14_dir / "gold"
    import_references(
        campaign,
        NamedFile("conll14st-test.m2", (gold / "conll14st-test.m2").read_bytes()),
        [NamedFile(name, (gold / name).read_bytes()) for name in ("ref0", "ref1")],
    )
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "conll14", "--bootstrap", "300", "--seed", "1", "--out", str(out),
                 stderr=io.StringIO())
    analysis = strict_loads(out.read_text())
    assert_contract(analysis)
    computed = analysis["metrics_computed"]
    assert {s: round(v["score"], 4) for s, v in computed["scores"]["m2"].items()} == {
        s: f for s, (f, _, _) in OFFICIAL_M2.items()
    }
    sweep = {row["beta"]: row for row in computed["expected_wins"]["beta_sweeps"]["m2"]}
    print("\nG15 Table 5, M2 against Expected Wins: beta, computed (Spearman, Pearson), published")
    for beta, published in TABLE_5_M2.items():
        row = sweep[beta]
        print(f"  {beta:<5} ({row['spearman']:.3f}, {row['pearson']:.3f})  {published}")
        assert row["spearman"] == pytest.approx(published[0], abs=0.06)
        assert row["pearson"] == pytest.approx(published[1], abs=0.06)
    print("system level (Spearman, Pearson) with EW and TS; sentence-level tau:")
    for name in ("m2", "gleu", "chrf"):
        ew = computed["expected_wins"]["metrics"][name]
        ts = computed["trueskill"]["metrics"][name]
        tau = computed["sentence_tau"][name]
        print(f"  {name:5s} EW ({ew['spearman']:.3f}, {ew['pearson']:.3f})  TS ({ts['spearman']:.3f}, "
              f"{ts['pearson']:.3f})  tau {tau['tau']:.3f} ({tau['concordant']} / {tau['discordant']})")
        assert tau["concordant"] + tau["discordant"] > 10000
    assert computed["sentence_tau"]["m2"]["tau"] > 0 and computed["sentence_tau"]["gleu"]["tau"] > 0
    assert json.loads(json.dumps(computed)) == computed
