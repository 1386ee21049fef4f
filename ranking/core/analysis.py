"""The whole relative-ranking analysis of a set of rankings, as the analysis JSON of PRODUCT.md.

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
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np

from .accuracy import SCORERS, cross_validated_accuracy
from .agreement import annotator_agreement
from .bootstrap import bootstrap_ranking
from .correlation import BETA_GRID, beta_sweep, correlate
from .expected_wins import expected_wins
from .metric_scores import score_column
from .pairs import ExpandedPairs, expanded_pairs, pair_statistics, unexpanded_pairs, win_matrix
from .parameters import METHODS, AnalysisParameters, chunk_sizes
from .per_judge import judge_correlations, judge_rankings, judge_scores, leave_one_out_scores
from .prws import Scores, prws_report
from .rankings import Rankings
from .significance import head_to_head
from .trueskill import trueskill_scores
from .williams import williams_matrix

PRWS_STREAM = 8
"""The split-half reliability draws from ``default_rng([seed, PRWS_STREAM])`` (2 is per-judge, 7 accuracy)."""

Progress = Callable[[float, str], None]
"""``progress(fraction_done, stage)``, fraction in [0, 1]."""

MetricScores = Mapping[str, Mapping[str, tuple[float, ...]]]
"""``{metric: {system: values}}``; a metric with three values per system is an M2 file (F0.5, precision, recall)."""


def bootstrap_chunk(
    pairs: ExpandedPairs, n_systems: int, method: str, seed: int, chunk: int, size: int
) -> np.ndarray:
    """Score samples (size, S) of chunk ``chunk`` of ``method``'s bootstrap (METHODS 7)."""
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
    """Each method's scores on all the pairs: EW exactly, TrueSkill from one run seeded by ``[seed, 1, -1]``."""
    return {
        "expected_wins": expected_wins(win_matrix(pairs, n_systems)),
        "trueskill": trueskill_scores(
            pairs.first, pairs.second, pairs.relation, n_systems,
            np.random.default_rng([seed, METHODS.index("trueskill"), 2**32 - 1]),
        )[0],
    }


def metric_correlations(human: np.ndarray, systems: tuple[str, ...], metrics: MetricScores) -> dict:
    """Spearman and Pearson of each metric's first column with the human scores (G15 Table 5), and the M2 F-beta
    sweep over [0.01, 1] for every metric with (F, precision, recall) columns (Figure 3).

    ``beta_sweep`` is the sweep of the metric named ``m2`` (the combined gold standard), as the JSON contract has it;
    ``beta_sweeps`` holds every M2 file's sweep (G15 Figure 3 plots one curve per annotator and the combination).
    """
    correlations, sweeps = {}, {}
    for name, scores in sorted(metrics.items()):
        correlation = correlate(human, score_column(scores, systems))
        correlations[name] = {"spearman": correlation.spearman, "pearson": correlation.pearson}
        if len(next(iter(scores.values()))) == 3:
            sweep = beta_sweep(human, score_column(scores, systems, 1), score_column(scores, systems, 2), BETA_GRID)
            sweeps[name] = [
                {"beta": float(b), "spearman": float(s), "pearson": float(p)}
                for b, s, p in zip(sweep.betas, sweep.spearman, sweep.pearson)
            ]
    result = {"metrics": correlations, "beta_sweeps": sweeps, "metric_significance": metric_significance(
        human, systems, metrics)}
    if "m2" in sweeps:
        result["beta_sweep"] = sweeps["m2"]
    return result


def metric_significance(human: np.ndarray, systems: Sequence[str], metrics: MetricScores) -> dict:
    """The Williams test between every two metrics' Pearson correlations with the human scores (METHODS 12, N19 §6),
    over ``systems``; a note instead when there are too few systems or a score vector is constant."""
    names = sorted(metrics)
    if len(systems) <= 3:
        return {"systems": list(systems), "skipped": "the Williams test needs more than 3 systems with metric scores"}
    values = np.vstack([score_column(metrics[name], systems) for name in names])
    try:
        return {"systems": list(systems), **williams_matrix(human, values, names).as_dict()}
    except ValueError as exc:
        return {"systems": list(systems), "skipped": str(exc)}


def analyze(
    rankings: Rankings,
    parameters: AnalysisParameters,
    samples: Mapping[str, np.ndarray] | None = None,
    metrics: MetricScores | None = None,
    progress: Progress | None = None,
    prws: Scores | None = None,
) -> dict:
    """The analysis JSON (PRODUCT.md "Command line and JSON contract") of ``rankings``.

    ``samples`` are the bootstrap score samples of each method, as ``bootstrap_samples`` returns them (or as a
    task queue assembled them from ``bootstrap_chunk``); they are computed here when not given. ``prws`` are the
    scores of a PRWS campaign, whose relative judgments ``rankings`` are; they add the "prws" key.
    """
    report = progress or (lambda fraction, stage: None)
    systems, judges = rankings.system_names, rankings.judge_names
    n_systems = len(systems)
    pairs = expanded_pairs(rankings)
    if len(pairs) == 0:
        raise ValueError("there are no pairwise judgments to analyse")
    if samples is None:
        samples = bootstrap_samples(pairs, n_systems, parameters, report)
    stats = pair_statistics(rankings)
    result: dict = {
        "parameters": parameters.as_dict(),
        "pairs": {**stats.total(), "per_judge": stats.per_judge()},
    }
    report(0.82, "agreement")
    result["agreement"] = annotator_agreement(unexpanded_pairs(rankings), judges).as_dict()
    full = full_data_scores(pairs, n_systems, parameters.seed)
    for method in METHODS:
        ranking = bootstrap_ranking(samples[method], full[method], systems, parameters.confidence)
        result[method] = {**ranking.as_dict(), "bootstrap": int(samples[method].shape[0])}
    ew_order = [row["system"] for row in result["expected_wins"]["systems"]]
    result["head_to_head"] = head_to_head(win_matrix(pairs, n_systems), systems).as_dict(ew_order)
    report(0.88, "per-judge rankings")
    result["per_judge"] = _per_judge(rankings, pairs, parameters)
    if metrics:
        # G15 correlated the metrics with Table 3b as printed: EW scores rounded to 3 decimals. Pearson's r moves in
        # its third decimal with that rounding (M2 F1.0: 0.610 rounded, 0.608 unrounded), so the product does the same.
        result.update(metric_correlations(np.round(full["expected_wins"], 3), systems, metrics))
    if parameters.accuracy_folds:
        report(0.9, "prediction accuracy")
        result["accuracy"] = {
            method: cross_validated_accuracy(
                pairs, n_systems, SCORERS[method], np.random.default_rng([parameters.seed, 7]),
                n_folds=parameters.accuracy_folds, n_boot=parameters.accuracy_bootstrap,
                confidence=parameters.confidence,
            ).as_dict()
            for method in METHODS
        }
    if prws is not None:
        report(0.95, "PRWS statistics")
        result["prws"] = prws_report(prws, np.random.default_rng([parameters.seed, PRWS_STREAM]))
        if metrics:
            result["prws"]["metrics"] = prws_metric_significance(result["prws"]["systems"], metrics)
    report(1.0, "done")
    return result


def prws_metric_significance(systems: list[dict], metrics: MetricScores) -> dict:
    """Pearson's r of each metric with the PRWS mean scores and the Williams test between every two metrics
    (N19 §6, Figure 3; METHODS 12), over the rated systems that are not controls and that every metric scores."""
    rows = [row for row in systems if not row["control"] and all(row["system"] in m for m in metrics.values())]
    human = np.array([row["mean"] for row in rows])
    return metric_significance(human, [row["system"] for row in rows], metrics)


def _per_judge(rankings: Rankings, pairs: ExpandedPairs, parameters: AnalysisParameters) -> dict:
    """Per-judge EW rankings at the judge confidence (Table 7) and the judges' correlations (Table 6)."""
    systems, judges = rankings.system_names, rankings.judge_names
    rng = np.random.default_rng([parameters.seed, len(METHODS)])
    tables = judge_rankings(pairs, systems, judges, parameters.bootstrap, rng, parameters.judge_confidence)
    result: dict = {"rankings": {judge: table.as_dict() for judge, table in tables.items()}}
    present = [j for j, judge in enumerate(judges) if judge in tables]
    if len(present) >= 2:
        scores = judge_scores(pairs, len(systems), len(judges))[present]
        rest = leave_one_out_scores(pairs, len(systems), len(judges))[present]
        weights = np.bincount(pairs.judge, minlength=len(judges))[present]
        table = judge_correlations(scores, rest, weights, [judges[j] for j in present])

        def matrix(values: np.ndarray) -> dict:
            return {
                a: {b: (None if np.isnan(values[i, k]) else float(values[i, k])) for k, b in enumerate(table.judges)}
                for i, a in enumerate(table.judges)
            }

        result["correlations"] = {
            "spearman": matrix(table.spearman),
            "pearson": matrix(table.pearson),
            "rest": {
                judge: {"spearman": float(s), "pearson": float(p)}
                for judge, s, p in zip(table.judges, table.rest_spearman, table.rest_pearson)
            },
            "weighted_mean_rest": {"spearman": table.mean_rest_spearman, "pearson": table.mean_rest_pearson},
        }
    return result
