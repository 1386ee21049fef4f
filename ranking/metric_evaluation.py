"""The ``metrics_computed`` part of the analysis JSON: metrics computed from the campaign's own references
(``automatic_metrics.py``) and their meta-evaluation against the human ranking.

Per metric: the system scores (with M2's precision and recall); the system-level Spearman and Pearson correlations
with the Expected Wins and the TrueSkill scores (G15 Table 5, through ``core.analysis.metric_correlations``, with
the M2 F-beta sweep of G15 Figure 3 from the metric's own precision and recall and the Williams test between the
metrics); for PRWS campaigns the Pearson correlations with the PRWS means of the rated systems and the Williams test
between the metrics (N19 section 6); the sentence-level WMT relative-ranking tau against the campaign's pairwise
judgments (``core.sentence_tau``). For PRWS campaigns, N19's synthetic systems (section 5.2, after Graham and Liu
2016; ``core.synthetic_systems``): ``SYNTHETIC_SYSTEMS`` systems mixing the sentences of two real systems at 10-90%,
drawn from ``default_rng([seed, SYNTHETIC_STREAM])``, their human score the mean of their sentences' PRWS scores,
their metric score the metric of their sentences; each metric's Pearson correlation with the human scores over the
real systems alone and with the synthetic systems added. A metric that cannot be computed (no references of its
kind) is listed under ``skipped`` with the reason. Campaigns without references have no ``metrics_computed``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .automatic_metrics import METRICS, MetricScores, compute_metrics
from .contract import _metrics, _significance, fields
from .metric_loading import MetricInputs

if TYPE_CHECKING:
    from .core.analysis import Analysis, Progress
    from .core.prws import Scores
    from .core.rankings import Rankings

NO_PAIR = "no decisive human pair with metric scores"
SYNTHETIC_SYSTEMS = 674
"""Synthetic systems per campaign, as N19 section 5.2 draws per domain."""
SYNTHETIC_STREAM = 0x5E
"""The synthetic systems draw from ``default_rng([seed, SYNTHETIC_STREAM])``."""
SYNTHETIC_RANKING_ONLY = "synthetic systems need sentence-level human scores (a PRWS campaign)"
SYNTHETIC_TWO_SYSTEMS = "synthetic systems need two real systems or more"
CONSTANT = "the scores of one side are constant"


def _system_scores(scores: MetricScores) -> dict:
    result = {}
    for system, value in sorted(scores.system.items()):
        row = {"score": float(value)}
        if system in scores.precision:
            row.update(precision=float(scores.precision[system]), recall=float(scores.recall[system]))
        if system in scores.types:
            row["types"] = {error_type: list(counts) for error_type, counts in scores.types[system].items()}
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


def _pearson(x, y) -> dict:
    import numpy as np

    from .core.correlation import MIN_SYSTEMS, correlate

    if len(x) < MIN_SYSTEMS:
        return fields({"pearson": None, "systems": len(x)}, {"pearson": f"fewer than {MIN_SYSTEMS} systems"})
    value = correlate(np.asarray(x), np.asarray(y)).pearson
    return fields({"pearson": value, "systems": len(x)}, {"pearson": CONSTANT})


def _synthetic(lines: Sequence[int], computed: dict[str, MetricScores], scores: Scores, seed: int) -> dict:
    """The ``synthetic`` part: per metric, Pearson's r with the sentence-mean human scores over the real systems
    and over the real and ``SYNTHETIC_SYSTEMS`` synthetic systems (N19 section 5.2), on the campaign's segment
    ``lines``. ``systems`` is the number of synthetic systems built: 0, with the reason, when no metric had two real
    systems with human scores to mix."""
    import numpy as np

    from .core.prws import sentence_means
    from .core.synthetic_systems import plan_synthetic_systems, synthetic_human_scores, synthetic_metric_scores

    human_all = sentence_means(scores, lines)
    index = {name: i for i, name in enumerate(scores.system_names)}
    result: dict = {"systems": 0, "seed": seed, "correlations": {}}
    for name, metric in sorted(computed.items()):
        systems = [s for s in sorted(metric.statistics) if s in index and not np.all(np.isnan(human_all[index[s]]))]
        human = human_all[[index[s] for s in systems]]
        real_human = np.nanmean(human, axis=1) if systems else np.zeros(0)
        real_metric = [metric.system[s] for s in systems]
        row = {"real": _pearson(real_human, real_metric)}
        if len(systems) < 2:
            row["with_synthetic"] = fields({"pearson": None, "systems": len(systems)},
                                           {"pearson": SYNTHETIC_TWO_SYSTEMS})
        else:
            plan = plan_synthetic_systems(len(systems), len(lines), SYNTHETIC_SYSTEMS,
                                          np.random.default_rng([seed, SYNTHETIC_STREAM]))
            result["systems"] = max(result["systems"], len(plan.first))
            keep = ~np.isnan(synthetic_human_scores(human, plan))
            synthetic_human = synthetic_human_scores(human, plan)[keep]
            synthetic_metric = synthetic_metric_scores(
                lambda s, metric=metric, systems=systems: metric.expand_statistics(metric.statistics[systems[s]]),
                plan, metric.from_statistics,
            )[keep]
            row["with_synthetic"] = _pearson(np.concatenate([real_human, synthetic_human]),
                                             np.concatenate([real_metric, synthetic_metric]))
        result["correlations"][name] = row
    if result["systems"] == 0:
        result["reason"] = SYNTHETIC_TWO_SYSTEMS
    return result


def computed_metrics_json(
    campaign, reference_sets: Sequence, analysis: Analysis, rankings: Rankings, prws_scores: Scores | None = None,
    progress: Progress | None = None,
) -> dict | None:
    """``metrics_computed`` for ``analysis`` of ``campaign`` with the metrics of its ``reference_sets`` (None
    without any), stored or computed (``metric_store``); ``prws_scores`` are a PRWS campaign's scores (the raters
    the analysis left out are left out here too); ``progress`` hears each metric and system as it is scored
    (``automatic_metrics.compute_metrics``)."""
    from .metric_store import campaign_metric_scores

    if not reference_sets:
        return None
    lines = list(campaign.segments.order_by("line").values_list("line", flat=True))
    computed, skipped = campaign_metric_scores(campaign, reference_sets, progress=progress)
    return evaluate_scores(computed, skipped, lines, analysis, rankings, prws_scores)


def evaluate_metrics(
    inputs: MetricInputs, lines: Sequence[int], analysis: Analysis, rankings: Rankings,
    prws_scores: Scores | None = None, progress: Progress | None = None, metrics: Sequence[str] = METRICS,
) -> dict:
    """``metrics_computed`` (module docstring) from the campaign's metric ``inputs`` and its segment ``lines`` (in
    the inputs' order), without the database: ``computed_metrics_json`` of a campaign with references."""
    computed, skipped = compute_metrics(inputs, metrics, progress)
    return evaluate_scores(computed, skipped, lines, analysis, rankings, prws_scores)


def evaluate_scores(
    computed: dict[str, MetricScores], skipped: dict[str, str], lines: Sequence[int], analysis: Analysis,
    rankings: Rankings, prws_scores: Scores | None = None,
) -> dict:
    """``metrics_computed`` from the ``computed`` metrics' scores and the reasons of those ``skipped``."""
    from .core.analysis import metric_correlations, prws_metric_significance

    result: dict = {"scores": {name: _system_scores(scores) for name, scores in computed.items()}}
    judged = {row.system for row in analysis.rankings["expected_wins"].systems if row.ranked}
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
    if analysis.prws is not None and prws_scores is not None and computed:
        kept = prws_scores.for_judges(~analysis.prws.quality.excluded)
        result["synthetic"] = _synthetic(lines, computed, kept, analysis.parameters.seed)
    elif computed:
        result["synthetic"] = {"reason": SYNTHETIC_RANKING_ONLY}
    if skipped:
        result["skipped"] = skipped
    return result
