"""The organizer's CSV of a crowd campaign's workers, for paying or rejecting them on the platform (issue 10).

One row per worker: the platform's ids, screens submitted (in all and in the current session), active time on them
in seconds (the sum of the judgments' active time; empty when none was recorded), the rater QC outcome now
(``passed``/``failed``, from ``rater_qc.campaign_verdicts``), and what the worker was given when the session ended:
outcome, completion code and time (empty while the session is open).
"""
from __future__ import annotations

import io

from django.db.models import Count, OuterRef, Q, Subquery, Sum

from gecappraise.safe_csv import SafeWriter

from ..models import Assignment, Campaign, Judgment
from . import rater_qc

COLUMNS = (
    "worker_id", "platform", "study_id", "session_id", "screens", "session_screens", "active_seconds",
    "qc_outcome", "qc_why", "completed_at", "outcome", "code",
)


def _workers(campaign: Campaign):
    submitted = (
        Assignment.objects.filter(campaign=campaign, judge=OuterRef("judge"), status=Assignment.Status.SUBMITTED)
        .order_by().values("judge").annotate(n=Count("id")).values("n")
    )
    active = (
        Judgment.objects.filter(assignment__campaign=campaign, assignment__judge=OuterRef("judge"))
        .order_by().values("assignment__judge").annotate(total=Sum("active_time", filter=Q(active_time__isnull=False)))
        .values("total")
    )
    return campaign.crowd_workers.annotate(screens=Subquery(submitted), active=Subquery(active)).order_by(
        "platform", "worker_id"
    )


def crowd_workers_csv(campaign: Campaign) -> str:
    """The CSV text (header ``COLUMNS``), through the safe writer (ids are the workers' own text)."""
    verdicts = {verdict.judge_id: verdict for verdict in rater_qc.campaign_verdicts(campaign)}
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(COLUMNS)
    for worker in _workers(campaign):
        screens = worker.screens or 0
        verdict = verdicts.get(worker.judge_id)
        writer.writerow([
            worker.worker_id, worker.platform, worker.study_id, worker.session_id, screens,
            screens - worker.session_base,
            round(worker.active.total_seconds(), 3) if worker.active is not None else "",
            ("failed" if verdict.excluded else "passed") if verdict else "",
            verdict.why if verdict else "no screens judged",
            worker.completed_at.isoformat() if worker.completed_at else "", worker.outcome, worker.code,
        ])
    return out.getvalue()
