"""The metrics computed from a campaign's references are stored by the first analysis and read by the later ones
(``ranking.metric_store``), until references are added; the progress names the metric being computed (and M2's
compilation); the reports and the analyses page say which metrics an analysis used."""
from __future__ import annotations

import io

import numpy as np
import pytest
from django.core.management import call_command

from annotation.services.references import import_references
from annotation.services.textfiles import NamedFile
from ranking import automatic_metrics
from ranking.automatic_metrics import COMPILING_M2, compute_metrics
from ranking.metric_loading import load_metric_inputs
from ranking.models import StoredMetricScores
from ranking.reports.computed_metrics import NAMES
from ranking.reports.provenance import provenance
from ranking.run_status import parameter_items

from .contract_checks import assert_contract, strict_loads
from .factories import synthetic_campaign

pytestmark = pytest.mark.django_db


def analyze(tmp_path, *options: str) -> dict:
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "stored", "--bootstrap", "20", *options, "--out", str(out),
                 stderr=io.StringIO())
    return strict_loads(out.read_text())


def references(campaign, m2: bool = True, *names: str) -> None:
    sources = list(campaign.segments.order_by("line").values_list("source", flat=True))
    gold = "\n".join(f"S {s}\nA 3 4|||Wci|||edit5|||REQUIRED|||-NONE-|||0\n" for s in sources)
    texts = [NamedFile(name, "".join(s.replace("some", "edit5") + " ." * k + "\n" for s in sources).encode())
             for k, name in enumerate(names)]
    import_references(campaign, NamedFile("gold.m2", gold.encode()) if m2 else None, texts)


def counting_scorers(monkeypatch) -> list[str]:
    scored: list[str] = []
    def counted(metric, scorer):
        return lambda inputs, **options: scored.append(metric) or scorer(inputs, **options)

    for metric, scorer in list(automatic_metrics.SCORERS.items()):
        monkeypatch.setitem(automatic_metrics.SCORERS, metric, counted(metric, scorer))
    return scored


def test_a_second_analysis_reads_the_stored_scores_until_references_are_added(tmp_path, monkeypatch):
    campaign = synthetic_campaign("stored", np.random.default_rng(8), n_sentences=15, n_systems=5, n_rankings=60)
    references(campaign, True, "ref0")
    scored = counting_scorers(monkeypatch)
    first = analyze(tmp_path)
    assert {"m2", "gleu", "chrf"} <= set(scored)
    stored = set(StoredMetricScores.objects.filter(campaign=campaign).values_list("metric", flat=True))
    assert stored == set(first["metrics_computed"]["scores"])

    scored.clear()
    second = analyze(tmp_path)
    assert not {"m2", "gleu", "chrf"} & set(scored)  # read, not computed (ERRANT, if skipped, is asked again)
    assert second["metrics_computed"] == first["metrics_computed"]
    fresh, _ = compute_metrics(load_metric_inputs(campaign), ("m2", "gleu", "chrf"))
    for metric, scores in fresh.items():
        assert {s: v["score"] for s, v in second["metrics_computed"]["scores"][metric].items()} == scores.system

    references(campaign, False, "ref1")  # a second reference text: GLEU and chrF++ change, M2 does not
    scored.clear()
    third = analyze(tmp_path)
    assert {"gleu", "chrf"} <= set(scored) and "m2" not in scored
    assert third["metrics_computed"]["scores"]["m2"] == first["metrics_computed"]["scores"]["m2"]
    assert third["metrics_computed"]["scores"]["gleu"] != first["metrics_computed"]["scores"]["gleu"]
    fresh, _ = compute_metrics(load_metric_inputs(campaign), ("gleu", "chrf"))
    for metric, scores in fresh.items():
        assert {s: v["score"] for s, v in third["metrics_computed"]["scores"][metric].items()} == scores.system
    assert StoredMetricScores.objects.filter(campaign=campaign, metric="gleu").count() == 1


def test_a_later_analysis_without_errant_installed_reads_no_test_set(monkeypatch):
    """ERRANT not installed is known without the campaign's outputs and references; the reason is the scorer's.
    Without gold edits the reason stays that ERRANT needs them."""
    from ranking import errant_metric, metric_store

    campaign = synthetic_campaign("stored", np.random.default_rng(12), n_sentences=6, n_systems=3, n_rankings=10)
    monkeypatch.setattr(errant_metric, "installed", lambda: False)
    _, none_yet = metric_store.campaign_metric_scores(campaign, [], ("m2", "errant"))
    assert none_yet["errant"].startswith("ERRANT needs the campaign's gold edits")
    references(campaign, True, "ref0")
    sets = list(campaign.reference_sets.all())
    scores, skipped = metric_store.campaign_metric_scores(campaign, sets)
    assert set(scores) == {"m2", "gleu", "chrf"} and skipped == {"errant": errant_metric.NOT_INSTALLED}
    monkeypatch.setattr(metric_store, "load_metric_inputs", lambda *args: pytest.fail("the test set was read"))
    again, again_skipped = metric_store.campaign_metric_scores(campaign, sets)
    assert {metric: result.system for metric, result in again.items()} == {
        metric: result.system for metric, result in scores.items()} and again_skipped == skipped


def test_stored_scores_give_the_synthetic_systems_of_the_computed_ones():
    campaign = synthetic_campaign("stored", np.random.default_rng(9), n_sentences=12, n_systems=4, n_rankings=30)
    references(campaign, True, "ref0", "ref1")
    computed, _ = compute_metrics(load_metric_inputs(campaign), ("m2", "gleu", "chrf"))
    for metric, scores in computed.items():
        back = automatic_metrics.unpack(metric, *automatic_metrics.pack(scores))
        assert (back.system, back.precision, back.recall, back.counts, back.segments) == (
            scores.system, scores.precision, scores.recall, scores.counts, scores.segments)
        totals = sum(scores.expand_statistics(s) for s in scores.statistics.values()).sum(axis=0)
        back_totals = sum(back.expand_statistics(s) for s in back.statistics.values()).sum(axis=0)
        assert np.array_equal(totals, back_totals)
        assert back.from_statistics(back_totals) == scores.from_statistics(totals)


def test_m2_says_it_compiles_before_scoring_its_first_system(monkeypatch):
    from ranking.core import m2_kernel

    campaign = synthetic_campaign("stored", np.random.default_rng(10), n_sentences=6, n_systems=3, n_rankings=10)
    references(campaign, True)
    inputs = load_metric_inputs(campaign)
    for on_disk, stage in ((False, COMPILING_M2), (True, "metric m2: starting")):
        monkeypatch.setattr(m2_kernel, "compiled_on_disk", lambda on_disk=on_disk: on_disk)
        stages: list[tuple[float, str]] = []
        compute_metrics(inputs, ("m2",), lambda fraction, text, stages=stages: stages.append((fraction, text)))
        assert stages[0] == (0.0, stage)
        assert stages[1][1].startswith("metric m2: sys0 (1 of 3)")


def test_the_compile_check_reads_numbas_cache_files_and_says_compiled_where_numba_lays_them_out_otherwise(
    monkeypatch, tmp_path
):
    from ranking.core import m2_kernel

    kernels = (m2_kernel.lattice_size, m2_kernel.annotator_counts, m2_kernel.weigh_insertions)
    index = tmp_path / "kernel.nbi"
    for kernel in kernels:
        monkeypatch.setattr(kernel._cache._cache_file, "_index_path", str(index))
    assert m2_kernel.compiled_on_disk() is False
    index.write_bytes(b"")
    assert m2_kernel.compiled_on_disk() is True
    index.unlink()
    monkeypatch.setattr(kernels[0], "_cache", object())
    assert m2_kernel.compiled_on_disk() is True, "only a progress stage depends on it"


def test_reports_and_the_analyses_page_name_the_metrics_used(tmp_path):
    campaign = synthetic_campaign("stored", np.random.default_rng(11), n_sentences=10, n_systems=4, n_rankings=30)
    without = analyze(tmp_path)
    assert without["parameters"]["metrics"] == {"uploaded": [], "computed": [], "references": []}
    assert ("Metrics", "none") in provenance(without)
    references(campaign, True, "ref0")
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "scores.bleu").write_text("".join(f"sys{i} 0.{i}\n" for i in range(4)))
    analysis = analyze(tmp_path, "--metrics", str(metrics_dir))
    assert_contract(analysis)
    used = analysis["parameters"]["metrics"]
    assert used["uploaded"] == ["bleu"] and used["references"] == ["gold.m2", "ref0"]
    assert sorted(used["computed"]) == sorted(analysis["metrics_computed"]["scores"])
    names = ", ".join(NAMES[name] for name in used["computed"])  # M2 F0.5, GLEU, chrF++ (and ERRANT if installed)
    assert ("Metrics", f"{names} computed from the campaign's references (gold.m2, ref0); bleu uploaded (--metrics)"
            ) in provenance(analysis)
    run = campaign.analysis_runs.order_by("pk").last()
    items = dict(parameter_items(run.parameters))
    assert items["uploaded metrics"] == "bleu" and items["metrics computed from"] == "gold.m2, ref0"
    assert dict(parameter_items(campaign.analysis_runs.order_by("pk").first().parameters))[
        "metrics computed from"] == "none"
