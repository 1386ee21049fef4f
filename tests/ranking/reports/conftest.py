"""Analyses for the renderer tests, computed by the ranking core from in-memory rankings (no database).

``analysis_json`` writes the core's result as ``ranking.runs.finish`` stores it (``ranking.contract.analysis_json``:
campaign, parameters with the judge filter, snapshot first), so the renderers see what they see in the product.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.stats import rankdata

from annotation.services.appraise_xml import parse_appraise_xml
from ranking import contract
from ranking.core.analysis import Analysis, AnalysisParameters, analyze
from ranking.core.prws import ScoredCandidate, Scores, relative_rankings
from ranking.core.rankings import Rankings
from ranking.metric_evaluation import evaluate_metrics
from ranking.metric_files import read_metric_folder
from ranking.metric_loading import MetricInputs

SYSTEMS = ("A&B_<x>", "m$u$", "plain", "sys#3", "under_score", "zeta")
"""System names with characters that HTML, LaTeX and matplotlib's mathtext treat specially."""
SHORT_SYSTEMS = ("alpha", "bravo", "charlie", "delta", "echo", "source")
"""Short system names, as in the demo campaign (plots lay out their labels differently for them)."""
NON_LATIN_SYSTEMS = ("Москва", "系统", "Ελλάδα", "Zu\u0308rich", "Ħal", "plain")
"""System names with letters that pdfLaTeX's T1 fonts lack, and one decomposed (a combining diaeresis)."""
JUDGES = ("ann", "bob", "cyd & co")


def synthetic_rankings(
    rng: np.random.Generator, n_rankings: int = 240, n_segments: int = 60, systems: tuple[str, ...] = SYSTEMS
) -> Rankings:
    """Screens of up to four outputs, system k better the larger k, ranked with noise and ties (close qualities
    share a rank); systems whose outputs agree on a segment share a candidate, as collapsed outputs do."""
    items = []
    for i in range(n_rankings):
        segment = int(rng.integers(n_segments))
        outputs = np.random.default_rng([segment, 7]).integers(0, 4, size=len(systems))
        groups: dict[int, list[str]] = {}
        for system, output in zip(systems, outputs):
            groups.setdefault(int(output), []).append(system)
        shown = list(groups.values())
        if len(shown) < 2:
            continue
        quality = np.array([max(systems.index(s) for s in group) + rng.normal(0, 6) for group in shown])
        ranks = rankdata(-np.round(quality / 3), method="min")
        items.append((JUDGES[i % len(JUDGES)], segment, [(tuple(g), int(r)) for g, r in zip(shown, ranks)]))
    return Rankings.from_items(items)


def analysis_json(
    rankings: Rankings, parameters: AnalysisParameters, metrics: dict | None = None, campaign: str = "synthetic",
    references: MetricInputs | None = None,
) -> dict:
    """The analysis JSON as a run stores it; with the campaign's ``references`` (metric inputs), with the
    ``metrics_computed`` that ``ranking.runs.finish`` adds (M2, GLEU and chrF++: ERRANT is not always installed)."""
    snapshot = {"judgments": int(rankings.ranking_judge.size), "last_judgment_at": "2025-03-04T05:06:07+00:00",
                "last_judgment_id": 4321, "ignored_judgments": {}}
    analysis = analyze(rankings, parameters, metrics=metrics)
    result = contract.analysis_json(analysis, campaign=campaign, snapshot=snapshot)
    if references is not None:
        result["metrics_computed"] = metrics_computed(references, analysis, rankings)
    return result


def metrics_computed(references: MetricInputs, analysis: Analysis, rankings: Rankings,
                     prws: Scores | None = None) -> dict:
    """``metrics_computed`` of M2, GLEU and chrF++ as ``ranking.runs.finish`` adds it (ERRANT is not always
    installed); ``prws``: a PRWS campaign's scores."""
    lines = range(len(references.sources))
    return evaluate_metrics(references, lines, analysis, rankings, prws, metrics=("m2", "gleu", "chrf"))


def synthetic_metrics(rng: np.random.Generator) -> dict:
    """An M2 file (F0.5, precision, recall) and a one-column metric, both loosely following system quality."""
    precision = np.clip(0.2 + 0.1 * np.arange(len(SYSTEMS)) + rng.normal(0, 0.08, len(SYSTEMS)), 0.05, 0.95)
    recall = np.clip(0.4 - 0.04 * np.arange(len(SYSTEMS)) + rng.normal(0, 0.05, len(SYSTEMS)), 0.02, 0.9)
    f05 = 1.25 * precision * recall / (0.25 * precision + recall)
    return {
        "m2": {s: (float(f), float(p), float(r)) for s, f, p, r in zip(SYSTEMS, f05, precision, recall)},
        "bleu": {s: (float(v),) for s, v in zip(SYSTEMS, rng.normal(0.5, 0.1, len(SYSTEMS)))},
    }


def synthetic_references(rng: np.random.Generator, n_segments: int = 60,
                         systems: tuple[str, ...] = SYSTEMS) -> MetricInputs:
    """A test set of ``n_segments`` lines with two errors each ("have" for "has", "a" for "an"), one M2 annotator's
    gold edits and the reference text of their corrections; system k corrects each error with probability
    (k + 1) / (len(systems) + 1), following its quality in :func:`synthetic_rankings`."""
    sources = [f"line {n} he have a error here ." for n in range(n_segments)]
    corrections = ((3, "have", "has"), (4, "a", "an"))
    outputs = {}
    for k, system in enumerate(systems):
        fixed = rng.random((n_segments, len(corrections))) < (k + 1) / (len(systems) + 1)
        outputs[system] = [
            " ".join(new if fixed[n, e] else old for e, (_, old, new) in enumerate(corrections)).join(
                (f"line {n} he ", " error here ."))
            for n in range(n_segments)
        ]
    gold = [{0: [(start, start + 1, old, (new,)) for start, old, new in corrections]} for _ in sources]
    types = [{0: ["SVA", "ArtOrDet"]} for _ in sources]
    reference = [f"line {n} he has an error here ." for n in range(n_segments)]
    return MetricInputs("synthetic", sources, outputs, gold=gold, gold_types=types, references={"ref0": reference})


@pytest.fixture(scope="session")
def computed_analysis() -> dict:
    """An analysis of a campaign with references: uploaded metrics and the ``metrics_computed`` of M2, GLEU and
    chrF++, with their F-beta sweeps and Williams tests against the Expected Wins and TrueSkill scores."""
    rng = np.random.default_rng(15)
    parameters = AnalysisParameters(bootstrap=100, seed=7)
    return analysis_json(synthetic_rankings(rng), parameters, metrics=synthetic_metrics(rng),
                         references=synthetic_references(rng))


@pytest.fixture(scope="session")
def full_analysis() -> dict:
    """Every part of the analysis: metrics with a beta sweep and the cross-validated accuracy (Table 4)."""
    rng = np.random.default_rng(11)
    parameters = AnalysisParameters(bootstrap=200, seed=3, accuracy_folds=3, accuracy_bootstrap=20)
    return analysis_json(synthetic_rankings(rng), parameters, metrics=synthetic_metrics(rng))


@pytest.fixture(scope="session")
def plain_analysis() -> dict:
    """An analysis without metrics or accuracy."""
    return analysis_json(synthetic_rankings(np.random.default_rng(12)), AnalysisParameters(bootstrap=200, seed=4))


@pytest.fixture(scope="session")
def short_names_analysis() -> dict:
    """An analysis of systems with short names (``SHORT_SYSTEMS``)."""
    rankings = synthetic_rankings(np.random.default_rng(13), systems=SHORT_SYSTEMS)
    return analysis_json(rankings, AnalysisParameters(bootstrap=100, seed=5))


@pytest.fixture(scope="session")
def non_latin_analysis() -> dict:
    """A campaign named in Cyrillic whose systems have Cyrillic, CJK, Greek and Maltese names, and one name saved
    decomposed, as macOS saves file names ("Zu" + U+0308 + "rich")."""
    rankings = synthetic_rankings(np.random.default_rng(16), n_rankings=60, systems=NON_LATIN_SYSTEMS)
    return analysis_json(rankings, AnalysisParameters(bootstrap=20, seed=1), campaign="Оценка")


def synthetic_scores(rng: np.random.Generator, n_segments: int = 40, raters: tuple[str, ...] = JUDGES) -> Scores:
    """PRWS scores: every rater scores every system's output of every segment, system k better the larger k (the
    last, a Source+error control, worst), with noise, clipped to 0-100; unchanged outputs are the source."""
    systems = SYSTEMS[:4] + ("Source+error",)
    quality = {name: 30.0 + 15.0 * k for k, name in enumerate(SYSTEMS[:4])} | {"Source+error": 15.0}
    items = []
    for segment in range(n_segments):
        for rater in raters:
            items.append((rater, segment, [
                ScoredCandidate((name,), float(np.clip(round(quality[name] + rng.normal(0, 18)), 0, 100)),
                                meaning_changed=bool(rng.random() < 0.1), unchanged=name == SYSTEMS[0])
                for name in systems
            ]))
    return Scores.from_items(items, source_systems=[SYSTEMS[0]], control_systems=["Source+error"])


@pytest.fixture(scope="session")
def prws_analysis() -> dict:
    """The analysis of a PRWS campaign: its relative judgments and its score statistics."""
    scores = synthetic_scores(np.random.default_rng(14))
    parameters = AnalysisParameters(bootstrap=100, seed=6)
    snapshot = {"judgments": 120, "last_judgment_at": "2025-03-04T05:06:07+00:00", "last_judgment_id": 120,
                "ignored_judgments": {}}
    return contract.analysis_json(analyze(relative_rankings(scores), parameters, prws=scores), campaign="prws",
                                  snapshot=snapshot)


@pytest.fixture(scope="session")
def prws_computed_analysis() -> dict:
    """The analysis of a PRWS campaign with references: ``metrics_computed`` with the Williams test between the
    metrics on the PRWS means and N19's synthetic systems."""
    scores = synthetic_scores(np.random.default_rng(16))
    rankings = relative_rankings(scores)
    analysis = analyze(rankings, AnalysisParameters(bootstrap=50, seed=8), prws=scores)
    snapshot = {"judgments": 120, "last_judgment_at": "2025-03-04T05:06:07+00:00", "last_judgment_id": 120,
                "ignored_judgments": {}}
    result = contract.analysis_json(analysis, campaign="prws", snapshot=snapshot)
    references = synthetic_references(np.random.default_rng(17), n_segments=40, systems=SYSTEMS[:4])
    return {**result, "metrics_computed": metrics_computed(references, analysis, rankings, scores)}


@pytest.fixture(scope="session")
def prws_unrated_analysis(prws_analysis) -> dict:
    """``prws_analysis`` with a system nobody rated listed last, as the analysis JSON lists it (null numbers with the
    reason, no distribution; tests/ranking/test_prws_analysis.py)."""
    unrated = {"system": "fair", "mean": None, "z_mean": None, "sentences": 0, "ratings": 0, "unchanged_pct": None,
               "meaning_changed_pct": None, "control": False, "reason": "no rating of this system"}
    prws = prws_analysis["prws"]
    return {**prws_analysis, "prws": {**prws, "systems": [*prws["systems"], unrated]}}


@pytest.fixture(scope="session")
def prws_undistributed_analysis(prws_unrated_analysis) -> dict:
    """``prws_unrated_analysis`` as stored before the PRWS score distributions were part of the JSON."""
    prws = prws_unrated_analysis["prws"]
    systems = [{key: value for key, value in row.items() if key != "distribution"} for row in prws["systems"]]
    return {**prws_unrated_analysis, "prws": {**prws, "systems": systems}}


@pytest.fixture(scope="session")
def conll14_analysis(conll14_dir: Path) -> dict:
    """G15's analysis of the CoNLL-14 judgments with the metric files (1,000 bootstrap samples, seed 1)."""
    results = parse_appraise_xml((conll14_dir / "judgments.xml").read_bytes())
    rankings = Rankings.from_items((item.user, item.src_id, item.translations) for item in results.items)
    metrics = read_metric_folder(str(conll14_dir / "metrics"), rankings.system_names)
    return analysis_json(rankings, AnalysisParameters(), metrics=metrics, campaign="conll14")
