"""The ``metrics_computed`` part of the analysis JSON: metrics computed from the campaign's own references
(``automatic_metrics.py``) and their meta-evaluation against the human ranking.

Per metric: the system scores (with M2's precision and recall); the system-level Spearman and Pearson correlations
with the Expected Wins and the TrueSkill scores (G15 Table 5, through ``core.analysis.metric_correlations``, with
the M2 F-beta sweep of G15 Figure 3 from the metric's own precision and recall and the Williams test between the
metrics); for PRWS campaigns the Pearson correlations with the PRWS means of the rated systems and the Williams
test between the metrics (N19 section 6); the sentence-level WMT relative-ranking tau against the campaign's pairwise judgments
(``core.sentence_tau``). A metric that cannot be computed (no references of its kind) is listed under ``skipped``
with the reason. Campaigns without references have no ``metrics_computed``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .automatic_metrics import METRICS, MetricScores, compute_metrics
from .contract import _metrics, _significance, fields
from .metric_loading import load_metric_inputs

if TYPE_CHECKING:
    from .core.analysis import Analysis
    from .core.rankings import Rankings

NO_PAIR = "no decisive human pair with metric scores"


def _system_scores(scores: MetricScores) -> dict:
    result = {}
    for system, value in sorted(scores.system.items()):
        row = {"score": float(value)}
        if system in scores.precision:
            row.update(precision=float(scores.precision[system]), recall=float(scores.recall[system]))
        result[system] = row
    return result


def _as_uploaded(scores: MetricScores) -> dict[str, tuple[float, ...]]:
    """The scores in the form of uploaded metric files: (F, precision, recall) for M2, (score,) otherwise."""
    if scores.precision:
        return {s: (v, scores.precision[s], scores.recall[s]) for s, v in scores.system.items()}
    return {s: (v,) for s, v in scores.system.items()}


def _sentence_tau(scores: MetricScores, rankings: Rankings) -> dict:
    import numpy as np

    from .core.sentence_tau import relative_ranking_tau

    lines = max((len(values) for values in scores.segments.values()), default=0)
    matrix = np.full((len(rankings.system_names), lines), np.nan)
    for index, system in enumerate(rankings.system_names):
        if system in scores.segments:
            matrix[index] = scores.segments[system]
    tau = relative_ranking_tau(rankings, matrix)
    return fields(
        {"tau": tau.tau, "concordant": tau.concordant, "discordant": tau.discordant, "metric_ties": tau.metric_ties},
        {"tau": NO_PAIR},
    )


def computed_metrics_json(campaign, analysis: Analysis, rankings: Rankings) -> dict | None:
    """``metrics_computed`` for ``analysis`` of ``campaign`` (None when the campaign has no references)."""
    from .core.analysis import metric_correlations, prws_metric_significance

    if not campaign.reference_sets.exists():
        return None
    computed, skipped = compute_metrics(load_metric_inputs(campaign), METRICS)
    result: dict = {"scores": {name: _system_scores(scores) for name, scores in computed.items()}}
    judged = {row.system for row in analysis.rankings["expected_wins"].systems if row.judged}
    uploaded = {
        name: _as_uploaded(scores) for name, scores in computed.items() if judged <= set(scores.system)
    }
    if uploaded:
        decimals = analysis.parameters.correlation_decimals
        for method in ("expected_wins", "trueskill"):
            result[method] = _metrics(metric_correlations(analysis.rankings[method], uploaded, decimals))
    if analysis.prws is not None and computed:
        result["prws"] = _significance(
            prws_metric_significance(analysis.prws, {name: _as_uploaded(s) for name, s in computed.items()})
        )
    result["sentence_tau"] = {name: _sentence_tau(scores, rankings) for name, scores in computed.items()}
    if skipped:
        result["skipped"] = skipped
    return result
