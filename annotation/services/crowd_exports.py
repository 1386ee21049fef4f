"""The organizer's CSV of a crowd campaign's workers' sessions, for paying or rejecting them on the platform
(issue 10).

One row per session, that is per platform submission (Prolific ``SESSION_ID``, MTurk ``assignmentId``), by worker
and then in the order the sessions began: the platform's ids, screens the worker submitted in all and in this
session, the worker's active time on their screens in seconds (the sum of their judgments' active time in all
sessions; empty when none was recorded), the worker's rater QC outcome now (``passed``/``failed``, from
``rater_qc.campaign_verdicts``), what the worker was given when the session ended (completion time, outcome and
code; empty while the session is open), and when the session began (empty for a session older than the records of
sessions, when it is not known).
"""
from __future__ import annotations

import io

from django.db.models import Count, OuterRef, Prefetch, Q, Subquery, Sum

from gecappraise.safe_csv import SafeWriter

from ..models import Assignment, Campaign, CrowdSession, Judgment
from . import rater_qc
from .crowd_completion import session_screens

COLUMNS = (
    "worker_id", "platform", "study_id", "session_id", "screens", "session_screens", "active_seconds",
    "qc_outcome", "qc_why", "completed_at", "outcome", "code", "started_at",
)


def _workers(campaign: Campaign):
    """The campaign's crowd workers with their submitted screens (``screens``), active time (``active``) and
    sessions (in the order they began)."""
    submitted = (
        Assignment.objects.filter(campaign=campaign, judge=OuterRef("judge"), status=Assignment.Status.SUBMITTED)
        .order_by().values("judge").annotate(n=Count("id")).values("n")
    )
    active = (
        Judgment.objects.filter(assignment__campaign=campaign, assignment__judge=OuterRef("judge"))
        .order_by().values("assignment__judge").annotate(total=Sum("active_time", filter=Q(active_time__isnull=False)))
        .values("total")
    )
    return (
        campaign.crowd_workers.annotate(screens=Subquery(submitted), active=Subquery(active))
        .prefetch_related(Prefetch("sessions", queryset=CrowdSession.objects.order_by("id")))
        .order_by("platform", "worker_id")
    )


def _time(value) -> str:
    return value.isoformat() if value else ""


def crowd_workers_csv(campaign: Campaign) -> str:
    """The CSV text (header ``COLUMNS``, a row per session), through the safe writer (ids are the workers' own
    text)."""
    verdicts = {verdict.judge_id: verdict for verdict in rater_qc.campaign_verdicts(campaign)}
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(COLUMNS)
    for worker in _workers(campaign):
        screens = worker.screens or 0
        active = round(worker.active.total_seconds(), 3) if worker.active is not None else ""
        verdict = verdicts.get(worker.judge_id)
        for session in worker.sessions.all():
            writer.writerow([
                worker.worker_id, worker.platform, session.study_id, session.session_id, screens,
                session_screens(session, screens), active,
                ("failed" if verdict.excluded else "passed") if verdict else "",
                verdict.why if verdict else "no screens judged",
                _time(session.completed_at), session.outcome, session.code, _time(session.started_at),
            ])
    return out.getvalue()
