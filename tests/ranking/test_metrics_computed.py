"""``metrics_computed`` in an analysis of a small campaign with references: valid under the contract, reports
render, scores match the metric functions, and a campaign without references has no such key."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from django.core.management import call_command

from annotation.services.references import import_references
from annotation.services.textfiles import NamedFile

from .contract_checks import assert_contract, assert_reports_render, strict_loads
from .factories import synthetic_campaign

pytestmark = pytest.mark.django_db


def analyze(tmp_path) -> dict:
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "metrics", "--bootstrap", "50", "--out", str(out), stderr=io.StringIO())
    return strict_loads(out.read_text())


def test_metrics_computed_follow_the_contract(tmp_path):
    campaign = synthetic_campaign("metrics", np.random.default_rng(5), n_sentences=20, n_systems=6, n_rankings=80)
    assert "metrics_computed" not in analyze(tmp_path)
    sources = list(campaign.segments.order_by("line").values_list("source", flat=True))
    gold = "\n".join(f"S {s}\nA 3 4|||Wci|||edit5|||REQUIRED|||-NONE-|||0\n" for s in sources)
    reference = "".join(s.replace("some", "edit5") + "\n" for s in sources)
    import_references(campaign, NamedFile("gold.m2", gold.encode()), [NamedFile("ref0", reference.encode())])
    analysis = analyze(tmp_path)
    assert_contract(analysis)
    reports = assert_reports_render(analysis)
    computed = analysis["metrics_computed"]
    assert 'id="metrics-computed"' in reports["html"] and "M2 F0.5" in reports["html"]
    m2_sys5 = computed["scores"]["m2"]["sys5"]
    assert f"{m2_sys5['score']:.4f} (P {m2_sys5['precision']:.4f}, R {m2_sys5['recall']:.4f})" in reports["html"]
    assert computed["synthetic"] == {"reason": "synthetic systems need sentence-level human scores (a PRWS campaign)"}
    assert "Synthetic systems: synthetic systems need sentence-level human scores" in reports["html"]
    rows = list(csv.DictReader(io.StringIO(reports["csv"])))
    (recall,) = [r for r in rows if r["section"] == "computed_score" and r["metric"] == "m2"
                 and r["system"] == "sys5" and r["key"] == "recall"]
    assert float(recall["value"]) == m2_sys5["recall"]
    (ew_m2,) = [r for r in rows if r["section"] == "computed_correlation" and r["metric"] == "m2"
                and r["method"] == "expected_wins"]
    assert float(ew_m2["spearman"]) == computed["expected_wins"]["metrics"]["m2"]["spearman"]
    assert {r["metric"] for r in rows if r["section"] == "computed_sentence_tau"} == {"m2", "gleu", "chrf"}
    assert [name for name in computed["scores"] if name != "errant"] == ["chrf", "gleu", "m2"]  # sorted names
    assert "errant" in computed["scores"] or "not installed" in computed["skipped"]["errant"] \
        or "spaCy English model" in computed["skipped"]["errant"]
    m2 = computed["scores"]["m2"]
    edited = [line for line in campaign.systems.get(name="sys5").outputs.order_by("segment__line")
              .values_list("candidate__text", flat=True)]
    expected = sum("edit5" in line for line in edited)
    assert m2["sys5"]["recall"] == pytest.approx(expected / len(sources))
    assert m2["sys5"]["precision"] == 1.0 and m2["sys0"]["recall"] == 0.0
    assert set(computed["expected_wins"]["metrics"]) == {"m2", "gleu", "chrf"}
    assert computed["expected_wins"]["metrics"]["m2"]["spearman"] > 0
    tau = computed["sentence_tau"]["m2"]
    assert tau["concordant"] + tau["discordant"] > 0 and -1 <= tau["tau"] <= 1
    json.dumps(computed, allow_nan=False)


def test_metric_progress_reaches_the_run_row_per_metric_and_system():
    from ranking.core.parameters import AnalysisParameters
    from ranking.models import AnalysisRun
    from ranking.run_status import run_status
    from ranking.runs import METRICS_SHARE, create_run, execute_in_process, progress_recorder

    campaign = synthetic_campaign("metrics", np.random.default_rng(6), n_sentences=12, n_systems=4, n_rankings=40)
    sources = list(campaign.segments.order_by("line").values_list("source", flat=True))
    import_references(campaign, None, [NamedFile("ref0", "".join(s + "\n" for s in sources).encode())])
    run = create_run(campaign, AnalysisParameters(bootstrap=20, seed=3))
    record = progress_recorder(run.pk)
    seen = []

    def watch(fraction, stage):
        record(fraction, stage)
        status = run_status(AnalysisRun.objects.get(pk=run.pk))
        seen.append((status["progress"], status["stage"]))

    execute_in_process(run, progress=watch)
    percents = [percent for percent, _ in seen]
    assert percents == sorted(percents) and percents[-1] == 100.0
    systems = sorted(campaign.systems.exclude(kind="control").values_list("name", flat=True))
    metric_stages = [stage for _, stage in seen if stage.startswith("metric ")]
    total = 4 * len(systems)  # m2, gleu, chrf, errant
    assert "metric m2: skipped" in metric_stages  # no M2 file
    assert [s for s in metric_stages if s.startswith("metric gleu:")] == ["metric gleu: starting"] + [
        f"metric gleu: {system} ({len(systems) + k + 1} of {total})" for k, system in enumerate(systems)
    ]
    assert all(percent >= 100 * (1 - METRICS_SHARE) for percent, stage in seen if stage.startswith("metric "))
    assert all(percent < 100 * (1 - METRICS_SHARE) for percent, stage in seen if not stage.startswith("metric "))


@pytest.mark.parametrize("rated, built", [(("fair",), 0), (("fair", "bad"), 674)])
def test_synthetic_systems_report_how_many_were_built(tmp_path, rated, built):
    """D11: with one rated real system there is nothing to mix: "systems" used to say 674 all the same."""
    from annotation.services.score_import import import_scores

    from .test_prws_analysis import SOURCE, prws_campaign

    campaign = prws_campaign()
    import_scores(campaign, "".join(
        f"r0,{line},{system},{40 + 10 * k},0\n" for line in range(12) for k, system in enumerate(rated)
    ).encode())
    reference = "".join(s.replace("a error", "an error") + "\n" for s in SOURCE)
    import_references(campaign, None, [NamedFile("ref0", reference.encode())])
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "sim", "--bootstrap", "20", "--out", str(out), stderr=io.StringIO())
    analysis = strict_loads(out.read_text())
    assert_contract(analysis)
    synthetic = analysis["metrics_computed"]["synthetic"]
    assert synthetic["systems"] == built
    if built:
        assert "reason" not in synthetic
    else:
        assert synthetic["reason"] == "synthetic systems need two real systems or more"
        assert all(row["with_synthetic"]["systems"] == 1 for row in synthetic["correlations"].values())
        reports = assert_reports_render(analysis)
        assert "Synthetic systems: synthetic systems need two real systems or more" in reports["html"]
