"""The automatic metrics of a campaign's systems, computed once and stored (``models.StoredMetricScores``).

A metric's scores depend only on the systems' outputs (written once, with the campaign), the reference sets it reads
(``automatic_metrics.REFERENCE_KIND``) and its scorer (``automatic_metrics.SCORES_VERSION``): the first analysis
computes them, every later one reads them (from PostgreSQL, so web, Celery and command processes share them and a
Redis flush loses nothing). Adding an M2 file makes M2 and ERRANT computed again, adding a reference text GLEU and
chrF++; a metric that cannot be computed (no references of its kind) is asked again each time, and ERRANT with gold
edits but not installed is skipped without reading the test set (0.3 s of each later analysis of CoNLL-14).
"""
from __future__ import annotations

from collections.abc import Sequence

from annotation.models import Campaign, ReferenceSet

from . import errant_metric
from .automatic_metrics import (
    METRICS,
    REFERENCE_KIND,
    SCORES_VERSION,
    MetricScores,
    Progress,
    compute_metrics,
    pack,
    unpack,
)
from .metric_loading import load_metric_inputs
from .models import StoredMetricScores


def references_key(metric: str, reference_sets: Sequence[ReferenceSet]) -> str:
    """The ids, ascending, of the reference sets ``metric`` reads among ``reference_sets`` ("" for none)."""
    return ",".join(str(pk) for pk in sorted(r.pk for r in reference_sets if r.kind == REFERENCE_KIND[metric]))


def campaign_metric_scores(
    campaign: Campaign, reference_sets: Sequence[ReferenceSet], metrics: Sequence[str] = METRICS,
    progress: Progress | None = None,
) -> tuple[dict[str, MetricScores], dict[str, str]]:
    """``automatic_metrics.compute_metrics`` of the campaign's systems against ``reference_sets``, in the order of
    ``metrics``: the scores stored for these references are read, the others computed (``progress`` hears those)
    and stored, replacing the metric's scores of other references."""
    keys = {metric: references_key(metric, reference_sets) for metric in metrics}
    rows = StoredMetricScores.objects.filter(campaign=campaign, version=SCORES_VERSION, metric__in=metrics)
    found = {row.metric: unpack(row.metric, row.details, bytes(row.data))
             for row in rows if keys[row.metric] and row.references == keys[row.metric]}
    missing = [metric for metric in metrics if metric not in found]
    skipped = {"errant": errant_metric.NOT_INSTALLED} if (
        "errant" in missing and keys["errant"] and not errant_metric.installed()) else {}
    missing = [metric for metric in missing if metric not in skipped]
    if missing:
        computed, unavailable = compute_metrics(load_metric_inputs(campaign, reference_sets), missing, progress)
        skipped.update(unavailable)
        for metric, scores in computed.items():
            details, data = pack(scores)
            StoredMetricScores.objects.filter(campaign=campaign, metric=metric).delete()
            StoredMetricScores.objects.bulk_create([StoredMetricScores(
                campaign=campaign, metric=metric, references=keys[metric], version=SCORES_VERSION, details=details,
                data=data,
            )], ignore_conflicts=True)
        found.update(computed)
    return ({metric: found[metric] for metric in metrics if metric in found},
            {metric: skipped[metric] for metric in metrics if metric in skipped})
