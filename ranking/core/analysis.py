"""The whole relative-ranking analysis of a set of rankings: an :class:`Analysis` (``ranking.contract`` writes it
as the analysis JSON of PRODUCT.md).

``analyze`` computes, from core ``Rankings``: pair statistics (G15 Table 1), annotator agreement (Table 2), Expected
Wins and TrueSkill rankings with bootstrap ranges and clusters (Tables 3b, 3c), the head-to-head table (3d),
per-judge rankings and their correlations (Tables 7, 6), optionally metric correlations with the M2 beta sweep
(Table 5, Figure 3) and the cross-validated prediction accuracy (Table 4). For a PRWS campaign the rankings are the
relative judgments derived from its scores, and the "prws" part adds the scores' own statistics (N19 Tables 6, 7;
``prws.prws_report``) and, with metrics, the metrics' correlations with the mean scores and the Williams test
between every two metrics (N19 §6).

Bootstrap samples are computed in chunks so that a task queue can spread them over workers. Chunk ``k`` of method
``m`` draws from ``numpy.random.default_rng([seed, m, k])`` and every chunk but the last has ``chunk_size`` samples,
so the samples, and hence the result, depend only on the parameters: computing the chunks in one process or on
many workers gives the same numbers.

Any set of rankings can be analysed, down to none at all: a system without a judgment has no score, range or
cluster; a statistic that the data leave undefined (a pair of systems never compared decisively, agreement with one
judge, a correlation with constant scores) is NaN, or a table is left out with its reason (``skipped``).
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from gecappraise.plurals import counted

from .accuracy import SCORERS, PredictionAccuracy, cross_validated_accuracy
from .agreement import AgreementTable, annotator_agreement
from .bootstrap import RankingResult, bootstrap_ranking
from .correlation import BETA_GRID, MIN_SYSTEMS, BetaSweep, Correlation, beta_sweep, correlate
from .expected_wins import counts_expected_wins
from .metric_scores import score_column
from .pairs import (
    ExpandedPairs,
    PairStatistics,
    expanded_pairs,
    judged_systems,
    outcome_counts,
    pair_statistics,
    unexpanded_pairs,
    win_matrix,
)
from .parameters import METHODS, AnalysisParameters, chunk_sizes
from .per_judge import (
    JudgeCorrelations,
    judge_correlations,
    judge_rankings,
    judge_scores,
    judged_by_judge,
    leave_one_out_scores,
)
from .prws import QUALITY_THRESHOLD, PrwsReport, Scores, prws_report
from .rankings import Rankings
from .significance import HeadToHead, head_to_head
from .trueskill import trueskill_scores
from .williams import WilliamsMatrix, williams_matrix

NEED_TWO_JUDGES = "judge correlations need two judges with pairwise judgments"
PRWS_STREAM = 8
"""The split-half reliability draws from ``default_rng([seed, PRWS_STREAM])`` (2 is per-judge, 7 accuracy)."""

Progress = Callable[[float, str], None]
"""``progress(fraction_done, stage)``, fraction in [0, 1]."""

MetricScores = Mapping[str, Mapping[str, tuple[float, ...]]]
"""``{metric: {system: values}}``; a metric with three values per system is an M2 file (F0.5, precision, recall)."""


def bootstrap_chunk(
    pairs: ExpandedPairs, n_systems: int, method: str, seed: int, chunk: int, size: int
) -> np.ndarray:
    """Score samples (size, S) of chunk ``chunk`` of ``method``'s bootstrap (METHODS 7), NaN for a system a sample
    does not score (``bootstrap.rank_ranges``); all NaN without pairs."""
    if len(pairs) == 0:
        return np.full((size, n_systems), np.nan)
    rng = np.random.default_rng([seed, METHODS.index(method), chunk])
    return SCORERS[method](pairs, n_systems, size, rng)


def bootstrap_samples(
    pairs: ExpandedPairs, n_systems: int, parameters: AnalysisParameters, progress: Progress | None = None
) -> dict[str, np.ndarray]:
    """All chunks of every method computed here, concatenated: ``{method: (B, S)}``."""
    sizes = chunk_sizes(parameters.bootstrap, parameters.chunk_size)
    total, done = len(sizes) * len(METHODS), 0
    samples = {}
    for method in METHODS:
        parts = []
        for chunk, size in enumerate(sizes):
            parts.append(bootstrap_chunk(pairs, n_systems, method, parameters.seed, chunk, size))
            done += 1
            if progress:
                progress(0.8 * done / total, f"bootstrap {method}")
        samples[method] = np.concatenate(parts)
    return samples


def full_data_scores(pairs: ExpandedPairs, n_systems: int, seed: int) -> dict[str, np.ndarray]:
    """Each method's scores on all the pairs: EW exactly, TrueSkill from one run seeded by ``[seed, 1, -1]``; zeros
    without pairs."""
    if len(pairs) == 0:
        return {method: np.zeros(n_systems) for method in METHODS}
    return {
        "expected_wins": counts_expected_wins(outcome_counts(pairs, n_systems)),
        "trueskill": trueskill_scores(
            pairs.first, pairs.second, pairs.relation, n_systems,
            np.random.default_rng([seed, METHODS.index("trueskill"), 2**32 - 1]),
        )[0],
    }


@dataclass(frozen=True)
class MetricSignificance:
    """The Williams test between every two metrics over ``systems`` (METHODS 12, N19 §6), or why it was
    ``skipped`` (then ``williams`` is None)."""

    systems: tuple[str, ...]
    williams: WilliamsMatrix | None
    skipped: str | None = None


@dataclass(frozen=True)
class MetricCorrelations:
    """G15 Table 5 and Figure 3: Spearman and Pearson of each metric with the ``human`` scores (S',) of ``systems``
    (the ranked systems, by name): the Expected Wins bootstrap means of Table 3b, rounded to
    ``AnalysisParameters.correlation_decimals``. ``sweeps`` holds the F-beta sweep of every M2 file (a metric with
    F, precision and recall columns). With fewer than ``MIN_SYSTEMS`` systems every correlation is NaN."""

    systems: tuple[str, ...]
    human: np.ndarray
    correlations: dict[str, Correlation]
    sweeps: dict[str, BetaSweep]
    significance: MetricSignificance


@dataclass(frozen=True)
class PerJudge:
    """Per-judge rankings (G15 Table 7) and the judges' correlations (Table 6), or why those were ``skipped``;
    ``shown`` names, per judge, the systems the judge was shown (some perhaps never beside another system)."""

    rankings: dict[str, RankingResult]
    correlations: JudgeCorrelations | None
    skipped: str | None = None
    shown: dict[str, frozenset[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Analysis:
    """Everything ``analyze`` computes. ``rankings`` holds each method's ranking (Expected Wins, TrueSkill; keyed as
    ``METHODS``). ``accuracy`` (Table 4) is None unless asked for, or when it had to be ``accuracy_skipped``;
    ``prws`` and ``prws_metrics`` are those of a PRWS campaign. ``shown`` names the systems shown in some ranking:
    a system without a score that is in it was judged, but never beside another system (no pair). ``left_out_shown``
    names the systems shown in the judgments rater QC left out (its excluded raters'): a system without a score
    that is in it and not in ``shown`` was judged only by raters rater QC excluded; ``ignored_shown`` likewise
    names those shown in the judgments of the ignored judges (``parameters.ignored_judges``)."""

    parameters: AnalysisParameters
    pairs: PairStatistics
    agreement: AgreementTable
    rankings: dict[str, RankingResult]
    head_to_head: HeadToHead
    per_judge: PerJudge
    metrics: MetricCorrelations | None = None
    accuracy: dict[str, PredictionAccuracy] | None = None
    accuracy_skipped: str | None = None
    prws: PrwsReport | None = None
    prws_metrics: MetricSignificance | None = None
    shown: frozenset[str] = frozenset()
    left_out_shown: frozenset[str] = frozenset()
    ignored_shown: frozenset[str] = frozenset()


def metric_correlations(ranking: RankingResult, metrics: MetricScores, decimals: int | None) -> MetricCorrelations:
    """Spearman and Pearson of each metric's first column with the human scores (G15 Table 5), and the M2 F-beta
    sweep over [0.01, 1] for every metric with (F, precision, recall) columns (Figure 3).

    The human scores are the Expected Wins ``ranking``'s scores, the bootstrap means that Table 3b prints, of the
    ranked systems (those with a rank range), rounded to ``decimals`` (G15's ``latex_correl.pl`` read Table 3b as
    printed). Raises ``ValueError`` naming the metric when it has no score for a ranked system.
    """
    judged = {row.system: row.score for row in ranking.systems if row.ranked}
    systems = tuple(sorted(judged))
    human = np.array([judged[name] for name in systems], dtype=np.float64)
    if decimals is not None:
        human = np.round(human, decimals)
    correlations, sweeps = {}, {}
    for name, scores in sorted(metrics.items()):
        try:
            width = len(next(iter(scores.values()), (None,)))  # one column when no system has a score
            columns = [score_column(scores, systems, k) for k in range(width)]
        except ValueError as exc:
            raise ValueError(f"metric {name!r}: {exc}") from None
        enough = len(systems) >= MIN_SYSTEMS
        correlations[name] = correlate(human, columns[0]) if enough else Correlation(np.nan, np.nan)
        if len(columns) == 3:
            sweeps[name] = (
                beta_sweep(human, columns[1], columns[2], BETA_GRID) if enough
                else BetaSweep(BETA_GRID, np.full(BETA_GRID.size, np.nan), np.full(BETA_GRID.size, np.nan))
            )
    return MetricCorrelations(systems, human, correlations, sweeps, metric_significance(human, systems, metrics))


def metric_significance(human: np.ndarray, systems: Sequence[str], metrics: MetricScores) -> MetricSignificance:
    """The Williams test between every two metrics' Pearson correlations with the human scores (METHODS 12, N19 §6),
    over ``systems``; skipped, with the reason, when there are too few systems or the human scores are constant. A
    constant metric, or two metrics that correlate perfectly with each other, leave only their own pairs undefined
    (``williams.williams_matrix``)."""
    names = sorted(metrics)
    if len(systems) <= 3:
        return MetricSignificance(
            tuple(systems), None,
            f"the Williams test needs more than 3 systems with a human score (and metric scores); {len(systems)} here",
        )
    values = np.vstack([score_column(metrics[name], systems) for name in names])
    try:
        return MetricSignificance(tuple(systems), williams_matrix(human, values, names))
    except ValueError as exc:
        return MetricSignificance(tuple(systems), None, str(exc))


def analyze(
    rankings: Rankings,
    parameters: AnalysisParameters,
    samples: Mapping[str, np.ndarray] | None = None,
    metrics: MetricScores | None = None,
    progress: Progress | None = None,
    prws: Scores | None = None,
    prws_excluded: Collection[str] | None = None,
    prws_threshold: float | None = None,
    left_out_shown: Collection[str] = (),
    ignored_shown: Collection[str] = (),
) -> Analysis:
    """The analysis of ``rankings`` (any number, none included).

    ``samples`` are the bootstrap score samples of each method, as ``bootstrap_samples`` returns them (or as a
    task queue assembled them from ``bootstrap_chunk``); they are computed here when not given. ``prws`` are the
    scores of a PRWS campaign, whose relative judgments ``rankings`` are; ``prws_excluded`` names the raters its
    statistics leave out (None: those failing the Source+error check, ``prws.rater_quality``), whose threshold is
    ``prws_threshold`` (None: N19's 0.7). ``left_out_shown`` names the systems shown in the judgments rater QC left
    out of ``rankings`` (``Analysis.left_out_shown``), ``ignored_shown`` those shown in the judgments of the
    ``parameters.ignored_judges`` (``Analysis.ignored_shown``). Raises ``ValueError`` only for bad input
    (samples of the wrong shape, a metric without a score for a ranked system).
    """
    report = progress or (lambda fraction, stage: None)
    systems, judges = rankings.system_names, rankings.judge_names
    n_systems = len(systems)
    pairs = expanded_pairs(rankings)
    judged = judged_systems(pairs, n_systems)
    if samples is None:
        samples = bootstrap_samples(pairs, n_systems, parameters, report)
    report(0.82, "agreement")
    agreement = annotator_agreement(unexpanded_pairs(rankings), judges)
    full = full_data_scores(pairs, n_systems, parameters.seed)
    ranked = {
        method: bootstrap_ranking(samples[method], full[method], systems, parameters.confidence, judged=judged)
        for method in METHODS
    }
    report(0.88, "per-judge rankings")
    analysis = {
        "parameters": parameters,
        "pairs": pair_statistics(rankings),
        "agreement": agreement,
        "rankings": ranked,
        "head_to_head": head_to_head(win_matrix(pairs, n_systems), systems),
        "per_judge": _per_judge(rankings, pairs, parameters),
        "shown": _names(rankings.shown_systems().any(axis=0), systems),
        "left_out_shown": frozenset(left_out_shown),
        "ignored_shown": frozenset(ignored_shown),
    }
    if metrics:
        analysis["metrics"] = metric_correlations(ranked["expected_wins"], metrics, parameters.correlation_decimals)
    if parameters.accuracy_folds:
        report(0.9, "prediction accuracy")
        if len(pairs) < parameters.accuracy_folds:
            analysis["accuracy_skipped"] = (
                f"{counted(len(pairs), 'pairwise judgment')} cannot fill {parameters.accuracy_folds} folds"
            )
        else:
            analysis["accuracy"] = {
                method: cross_validated_accuracy(
                    pairs, n_systems, SCORERS[method], np.random.default_rng([parameters.seed, 7]),
                    n_folds=parameters.accuracy_folds, n_boot=parameters.accuracy_bootstrap,
                    confidence=parameters.confidence,
                )
                for method in METHODS
            }
    if prws is not None:
        report(0.95, "PRWS statistics")
        threshold = QUALITY_THRESHOLD if prws_threshold is None else prws_threshold
        analysis["prws"] = prws_report(prws, np.random.default_rng([parameters.seed, PRWS_STREAM]), threshold,
                                       excluded=prws_excluded)
        if metrics:
            analysis["prws_metrics"] = prws_metric_significance(analysis["prws"], metrics)
    report(1.0, "done")
    return Analysis(**analysis)


def prws_metric_significance(report: PrwsReport, metrics: MetricScores) -> MetricSignificance:
    """The Williams test between every two metrics' Pearson correlations with the PRWS mean scores (N19 §6,
    Figure 3; METHODS 12), over the rated systems (best mean first) that are not controls and that every metric
    scores."""
    names = report.stats.system_names
    rows = [
        s for s in report.ranked_systems()
        if not report.control[s] and all(names[s] in scores for scores in metrics.values())
    ]
    return metric_significance(report.stats.mean[rows], [names[s] for s in rows], metrics)


def _per_judge(rankings: Rankings, pairs: ExpandedPairs, parameters: AnalysisParameters) -> PerJudge:
    """Per-judge EW rankings at the judge confidence (Table 7) and the judges' correlations (Table 6), each over the
    systems both of its score vectors judged (a system a judge never judged has no score, not 0)."""
    systems, judges = rankings.system_names, rankings.judge_names
    if len(pairs) == 0:
        return PerJudge({}, None, NEED_TWO_JUDGES)
    rng = np.random.default_rng([parameters.seed, len(METHODS)])
    tables = judge_rankings(pairs, systems, judges, parameters.bootstrap, rng, parameters.judge_confidence)
    shown_by = rankings.shown_systems()
    shown = {judge: _names(shown_by[j], systems) for j, judge in enumerate(judges) if judge in tables}
    present = [j for j, judge in enumerate(judges) if judge in tables]
    if len(present) < 2:
        return PerJudge(tables, None, NEED_TWO_JUDGES, shown)
    if len(systems) < MIN_SYSTEMS:
        return PerJudge(tables, None, f"judge correlations need at least {MIN_SYSTEMS} systems", shown)
    own, others = judged_by_judge(pairs, len(systems), len(judges))
    scores = np.where(own, judge_scores(pairs, len(systems), len(judges)), np.nan)[present]
    rest = np.where(others, leave_one_out_scores(pairs, len(systems), len(judges)), np.nan)[present]
    weights = np.bincount(pairs.judge, minlength=len(judges))[present]
    return PerJudge(tables, judge_correlations(scores, rest, weights, [judges[j] for j in present]), shown=shown)


def _names(marked: np.ndarray, systems: Sequence[str]) -> frozenset[str]:
    """The names of the systems marked in the boolean (S,) ``marked``."""
    return frozenset(systems[s] for s in np.flatnonzero(marked))
