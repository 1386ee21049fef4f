"""PRWS campaigns through the product (N19 §4.2-4.3, METHODS 11): outputs and scores imported with the commands,
loaded from PostgreSQL, analysed by `manage.py analyze`.

The GMEG check (../shared/data/gmeg/README.md): GMEG-Data's dev outputs and its released per-output mean ratings,
imported as one rating per (sentence, system), give each system's mean score of ``DOMAIN-corpus-scores.csv`` and its
share of sentences left unchanged (N19 Table 6's "No change"). It checks the plumbing (import and averaging), not
rater QC: the simulated raters below (and tests/ranking/core/test_prws.py, tests/annotation/test_rater_qc.py) do.
"""
from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from django.core.management import call_command

from annotation.models import Campaign, Flag, System
from annotation.services.importing import import_outputs
from annotation.services.score_import import import_scores
from annotation.services.textfiles import NamedFile
from ranking.core.prws import QUALITY_THRESHOLD, system_scores
from ranking.loading import load_scores

from .contract_checks import assert_contract, assert_reports_render, strict_loads

pytestmark = pytest.mark.django_db

GMEG_SYSTEMS = ("amu", "lstm", "lstm-r", "marian", "nus", "transformer")


def read_lines(path: Path) -> list[str]:
    return [line.rstrip() for line in path.read_text(encoding="utf-8").split("\n")[:-1]]


def gmeg_reference(folder: Path, scores: list[dict[str, str]]) -> list[str]:
    """The "ref" system of the segment scores, line by line.

    N19 §4.2 rated as Reference "a randomly chosen human correction" and GMEG does not say which of ref0-ref3 it
    was. Outputs were collapsed when rated, so identical sentences have identical scores: a reference equal to an
    output whose score differs from the ref score cannot have been the one. Each line takes the first reference that
    is consistent in that way (one exists on every line of fce and wiki).
    """
    outputs = {name: read_lines(folder / name) for name in (*GMEG_SYSTEMS, "source")}
    refs = [read_lines(folder / f"ref{k}") for k in range(4)]
    chosen = []
    for line, row in enumerate(scores):
        consistent = [
            ref[line] for ref in refs
            if not row["ref"] or all(row[name] == row["ref"] for name in outputs if outputs[name][line] == ref[line])
        ]
        assert consistent, f"line {line}: no reference fits the scores"
        chosen.append(consistent[0])
    return chosen


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["fce", "wiki"])
def test_gmeg_means_and_unchanged_shares(gmeg_dir, tmp_path, domain):
    """The GMEG check tests the plumbing, not rater quality control: GMEG-Data releases each output's mean rating
    (already averaged over its raters), imported here as one rating per (sentence, system), so this checks that the
    import and the averaging reproduce the released corpus means (``DOMAIN-corpus-scores.csv``) and the unchanged
    shares. With one "rater" and no control system, QC excludes nobody and the sentence-level split-half
    reliability cannot be computed (both asserted below). Rater QC and split-half reliability are tested on
    simulated raters of known behaviour: ``test_simulated_raters_through_import_and_analysis`` in this module
    (through import and analysis), tests/ranking/core/test_prws.py (``test_quality_control_rates_and_exclusion``,
    ``test_reliability_on_simulated_ratings``) and tests/annotation/test_rater_qc.py (the live rater QC)."""
    dev = gmeg_dir / "dev"
    segment_csv = dev / f"{domain}-segment-scores.csv"
    with segment_csv.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    reference = tmp_path / "ref"
    reference.write_text("\n".join(gmeg_reference(dev / domain, rows)) + "\n", encoding="utf-8")
    files = [str(dev / domain / name) for name in (*GMEG_SYSTEMS, "source")] + [str(reference)]
    call_command("import_outputs", "--campaign", domain, "--mode", "prws", "--source", str(dev / domain / "source"),
                 *files, stdout=io.StringIO())
    out = io.StringIO()
    call_command("import_scores", "--campaign", domain, "--wide", str(segment_csv), stdout=out)
    rated = [line for line, row in enumerate(rows) if any(row.values())]
    assert len(rows) - len(rated) == {"fce": 6, "wiki": 12}[domain], "the README's count of empty rows"

    analysis_file = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", domain, "--bootstrap", "100", "--seed", "1", "--out", str(analysis_file),
                 stderr=io.StringIO())
    prws = json.loads(analysis_file.read_text())["prws"]
    by_system = {row["system"]: row for row in prws["systems"]}
    with (dev / f"{domain}-corpus-scores.csv").open(encoding="utf-8") as handle:
        corpus = {row["system"]: float(row["score"]) for row in csv.DictReader(handle)}
    assert set(by_system) == set(corpus) == {*GMEG_SYSTEMS, "source", "ref"}
    source = read_lines(dev / domain / "source")
    outputs = {name: read_lines(dev / domain / name) for name in (*GMEG_SYSTEMS, "source")}
    outputs["ref"] = read_lines(reference)
    for system, mean in corpus.items():
        row = by_system[system]
        assert abs(row["mean"] - mean) < 1e-6, system
        assert row["sentences"] == len(rated)
        unchanged = sum(outputs[system][line] == source[line] for line in rated)
        assert row["unchanged_pct"] == pytest.approx(100 * unchanged / len(rated), abs=1e-9), system
        assert row["meaning_changed_pct"] == 0.0
    assert by_system["source"]["unchanged_pct"] == 100.0
    assert [row["system"] for row in prws["systems"]][0] == "ref", "the reference is the upper bound"
    assert prws["excluded_raters"] == [] and prws["raters"] == 1
    assert prws["reliability"]["sentence"]["pearson"] is None, "one rating per output cannot be split"
    assert by_system["amu"]["unchanged_pct"] == max(by_system[s]["unchanged_pct"] for s in GMEG_SYSTEMS), (
        "AMU changes the fewest sentences of the six systems (N19 Table 6)"
    )


SOURCE = [f"this is sentence number {i} with a error in it ." for i in range(12)]


def prws_campaign() -> Campaign:
    """Four systems of increasing quality on 12 sentences, the source as a system (kind input) and a Source+error
    control; "good" leaves sentences 0-3 unchanged, so it collapses with the source there."""
    outputs = {
        "bad": [s.replace("sentence", "sentense") for s in SOURCE],
        "fair": [s.replace("a error", "the error") if i % 2 else s.replace("this", "This")
                 for i, s in enumerate(SOURCE)],
        "good": [s if i < 4 else s.replace("a error", "an error") for i, s in enumerate(SOURCE)],
        "Source+error": [s.replace("is", "are") for s in SOURCE],
    }
    text = lambda lines: ("\n".join(lines) + "\n").encode()
    campaign = import_outputs(
        "sim", NamedFile("source", text(SOURCE)), [NamedFile(n, text(lines)) for n, lines in outputs.items()],
        source_is_system=True, mode=Campaign.Mode.PRWS,
    )
    System.objects.filter(campaign=campaign, name="Source+error").update(kind=System.Kind.CONTROL)
    return campaign


QUALITY = {"source": 50.0, "bad": 30.0, "fair": 60.0, "good": 80.0, "Source+error": 20.0}


def simulated_csv(rng: np.random.Generator) -> tuple[str, list[tuple[str, int, str, float, bool]]]:
    """Long-form ratings by 6 careful raters and 2 careless ones (who score the control above the source)."""
    rows = []
    for rater in [f"careful{k}" for k in range(6)] + ["careless0", "careless1"]:
        for line in range(12):
            for system, quality in QUALITY.items():
                if system == "good" and line < 4:
                    continue  # the same sentence as the source: rated once, through "source"
                score = quality + rng.normal(0, 8)
                if rater.startswith("careless") and system == "Source+error":
                    score = 95.0
                meaning_changed = system == "bad" and line < 6
                rows.append((rater, line, system, round(float(np.clip(score, 0, 100)), 1), meaning_changed))
    text = "rater,segment,system,score,meaning_changed\n" + "".join(
        f"{r},{line},{s},{v},{int(m)}\n" for r, line, s, v, m in rows
    )
    return text, rows


def expected_means(rows, kept: set[str], line_systems) -> dict[str, float]:
    """Each system's mean, computed here from the CSV rows: candidate means over the kept raters, then the mean
    over sentences; "good" shares the source's ratings on lines 0-3."""
    ratings = defaultdict(list)
    for rater, line, system, score, _ in rows:
        if rater in kept:
            ratings[(line, system)].append(score)
    means = {}
    for system in QUALITY:
        per_sentence = [np.mean(ratings[(line, line_systems(line, system))]) for line in range(12)]
        means[system] = float(np.mean(per_sentence))
    return means


def test_simulated_raters_through_import_and_analysis(tmp_path):
    campaign = prws_campaign()
    text, rows = simulated_csv(np.random.default_rng(5))
    scores_file = tmp_path / "scores.csv"
    scores_file.write_text(text, encoding="utf-8")
    call_command("import_scores", "--campaign", "sim", str(scores_file), stdout=io.StringIO())

    scores = load_scores(campaign)
    assert scores.system_names == ("Source+error", "bad", "fair", "good", "source")
    assert [scores.system_names[i] for i in scores.source_systems] == ["source"]
    assert [scores.system_names[i] for i in scores.control_systems] == ["Source+error"]
    assert scores.n_ratings == len(rows) and scores.screen_judge.size == 8 * 12
    assert int(scores.candidate_unchanged.sum()) == 12, "the source's candidate on each line"

    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "sim", "--bootstrap", "200", "--seed", "3", "--out", str(out),
                 stderr=io.StringIO())
    analysis = json.loads(out.read_text())
    prws = analysis["prws"]
    assert [(r["rater"], r["screens"], r["rate"]) for r in prws["excluded_raters"]] == [
        ("careless0", 12, 0.0), ("careless1", 12, 0.0)
    ]
    careful = [r for r in prws["quality"]["raters"] if r["rater"].startswith("careful")]
    assert len(careful) == 6 and all(r["rate"] >= QUALITY_THRESHOLD for r in careful)
    kept = {f"careful{k}" for k in range(6)}
    means = expected_means(rows, kept, lambda line, system: "source" if system == "good" and line < 4 else system)
    assert [row["system"] for row in prws["systems"]] == ["good", "fair", "source", "bad", "Source+error"]
    for row in prws["systems"]:
        assert row["mean"] == pytest.approx(means[row["system"]], abs=1e-9)
        assert row["sentences"] == 12
    by_system = {row["system"]: row for row in prws["systems"]}
    assert by_system["good"]["unchanged_pct"] == pytest.approx(100 * 4 / 12)
    assert by_system["bad"]["meaning_changed_pct"] == pytest.approx(50.0)
    assert by_system["Source+error"]["control"] and not by_system["good"]["control"]
    assert prws["reliability"]["splits"] == 100
    assert prws["reliability"]["system"]["pearson"] > 0.95

    assert analysis["pairs"]["rankings"] == 6 * 12, "the careless raters' screens are left out"
    assert analysis["pairs"]["unexpanded"] == 6 * (4 * 3 + 8 * 6), "3 candidates on lines 0-3, 4 on the others"
    ew = [row["system"] for row in analysis["expected_wins"]["systems"]]
    assert ew == ["good", "fair", "source", "bad"], "EW from the scores' relative judgments; no control"
    assert set(analysis["trueskill"]["systems"][0]) >= {"system", "score", "range", "cluster"}


def test_flagged_screens_and_metrics(tmp_path):
    campaign = prws_campaign()
    import_scores(campaign, "".join(
        f"r{k},{line},{system},{QUALITY[system] + k},0\n"
        for k in range(3) for line in range(4, 12) for system in ("bad", "fair", "good", "source")
    ).encode())
    judgment = campaign.screens.first().assignments.get().judgment
    judgment.items.all().delete()
    Flag.objects.create(judgment=judgment, reason="garbled")
    scores = load_scores(campaign)
    assert scores.screen_judge.size == 24 and np.bincount(scores.rating_screen, minlength=24).min() == 0
    stats = system_scores(scores)
    assert stats.sentences[scores.system_names.index("good")] == 8
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "scores.m1").write_text("bad 0.1\nfair 0.5\ngood 0.7\nsource 0.4\n")
    (metrics_dir / "scores.m2x").write_text("bad 0.6\nfair 0.2\ngood 0.1\nsource 0.9\n")
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "sim", "--bootstrap", "100", "--metrics", str(metrics_dir),
                 "--out", str(out), stderr=io.StringIO())
    analysis = json.loads(out.read_text())
    assert analysis["pairs"]["rankings"] == 24, "the flagged screen is a skipped ranking"
    williams = analysis["prws"]["metrics"]
    assert williams["systems"] == ["good", "fair", "source", "bad"] and williams["df"] == 1
    assert williams["p_values"]["m1"]["m2x"] < 0.5 < williams["p_values"]["m2x"]["m1"]
    assert williams["correlations"]["m1"] > 0.9 > williams["correlations"]["m2x"]


def test_systems_nobody_rated_are_listed_without_numbers(tmp_path):
    """D10: "fair" has no rating and "bad" only ratings by a rater the quality check excludes (Source+error scored
    above Source): both used to be missing from prws.systems; now they come last with null numbers and the reason,
    and every report shows them as "–" with it."""
    prws_campaign()
    careful = [f"r{k},{line},{system},{score},0" for k in range(3) for line in range(4, 12)
               for system, score in (("good", 80), ("source", 50), ("Source+error", 20))]
    careless = [f"careless,{line},{system},{score},0" for line in range(4, 8)
                for system, score in (("source", 30), ("Source+error", 70), ("bad", 40))]
    scores_file = tmp_path / "scores.csv"
    scores_file.write_text("\n".join(careful + careless) + "\n", encoding="utf-8")
    call_command("import_scores", "--campaign", "sim", str(scores_file), stdout=io.StringIO())
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "sim", "--bootstrap", "20", "--out", str(out), stderr=io.StringIO())
    analysis = strict_loads(out.read_text())
    assert_contract(analysis)
    prws = analysis["prws"]
    assert [row["rater"] for row in prws["excluded_raters"]] == ["careless"]
    assert [(row["system"], row["mean"]) for row in prws["systems"]] == [
        ("good", 80.0), ("source", 50.0), ("Source+error", 20.0), ("bad", None), ("fair", None)
    ]
    bad, fair = prws["systems"][3:]
    assert fair == {"system": "fair", "mean": None, "z_mean": None, "sentences": 0, "ratings": 0,
                    "unchanged_pct": None, "meaning_changed_pct": None, "control": False,
                    "reason": "no rating of this system"}
    assert bad["reason"] == "rated only by raters whom the quality check excluded" and bad["sentences"] == 0
    reports = assert_reports_render(analysis)
    assert "</sup> no rating of this system.</span>" in reports["html"]
    assert "no rating of this system" in reports["latex"] and "quality check excluded" in reports["latex"]
    rows = csv.DictReader(io.StringIO(reports["csv"]))
    (row,) = [r for r in rows if r["section"] == "prws" and r["system"] == "fair"]
    assert (row["mean"], row["reason"]) == ("–", "no rating of this system")


def test_raters_excluded_without_a_control_screen_are_listed_as_excluded(tmp_path):
    """A rater rater QC excluded who never saw Source beside Source+error (excluded by hand here; or by the time
    checks) was left out of every PRWS statistic, but not listed in ``prws.excluded_raters``, which only held raters
    with such screens: the analysis of a campaign whose only rater was excluded said ``"ratings": 0`` and
    ``"excluded_raters": []``. Every excluded rater is listed now, the rate null with the reason where there was no
    such screen."""
    from annotation.services import rater_qc

    campaign = prws_campaign()
    rows = [f"only,{line},{system},{score},0" for line in range(4, 8) for system, score in (("good", 80), ("bad", 30))]
    rows += [f"checked,{line},{system},{score},0" for line in range(4, 8)
             for system, score in (("source", 30), ("Source+error", 70))]
    scores_file = tmp_path / "scores.csv"
    scores_file.write_text("\n".join(rows) + "\n", encoding="utf-8")
    call_command("import_scores", "--campaign", "sim", str(scores_file), stdout=io.StringIO())
    rater_qc.decide(campaign, "only", "exclude")
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "sim", "--bootstrap", "20", "--out", str(out), stderr=io.StringIO())
    analysis = strict_loads(out.read_text())
    assert_contract(analysis)
    prws = analysis["prws"]
    assert prws["ratings"] == 0 and prws["raters"] == 0
    assert prws["excluded_raters"] == [
        {"rater": "checked", "screens": 4, "rate": 0.0},
        {"rater": "only", "screens": 0, "rate": None, "reason": "no screen showed both Source and Source+error"},
    ]
    assert [row["rater"] for row in prws["quality"]["raters"]] == ["checked"]
    assert sorted(row["rater"] for row in analysis["rater_qc"]["excluded"]) == ["checked", "only"]
    assert_reports_render(analysis)
