"""The organizer's CSV of a crowd campaign's workers' sessions, for paying or rejecting them on the platform
(issue 10).

One row per session, that is per platform submission (Prolific ``SESSION_ID``, MTurk ``assignmentId``), by worker
and then in the order the sessions began. The columns, in order:

- ``worker_id``, ``platform``, ``study_id``, ``session_id``: the platform's ids;
- ``screens``: the screens the worker submitted in all their sessions (the same on each of the worker's rows);
  ``session_screens``: those submitted in this session;
- ``active_seconds``: the worker's active time on their screens in seconds, in all their sessions (the same on
  each of the worker's rows; empty when none was recorded);
- ``qc_outcome``, ``qc_why``: the worker's rater QC outcome now (``passed``/``failed``, from
  ``rater_qc.campaign_verdicts``) and why. Rater QC judges a worker on all their judgments, not a session on its
  own, so these are the worker's, the same on each of their rows; what a session's code encodes is ``outcome``;
- ``completed_at``, ``outcome``, ``code``: what the worker was given when the session ended (empty while it is
  open);
- ``started_at``: when the session began (empty for a session older than the records of sessions, when it is not
  known);
- ``session_active_seconds``: the worker's active time in this session alone, the sum of the recorded active time
  of the judgments stored in it (``Judgment.crowd_session``), for paying per session. Empty when none of them
  has one, and when not every screen of the session is attributed to it (judgments stored before migration 0023
  that it could not attribute): a sum of part of a session's screens would read as the whole.

New columns come at the end, so a reader by position keeps its columns.

The download (``crowd_workers_export``) reads the CSV and the snapshot of the campaign's judgments it names in one
snapshot of the database, so the file holds exactly the judgments it names.
"""
from __future__ import annotations

import io
from datetime import timedelta

from django.db.models import Count, OuterRef, Prefetch, Q, Subquery, Sum

from gecappraise.safe_csv import SafeWriter

from ..models import Assignment, Campaign, CrowdSession, Judgment, JudgmentSnapshot
from . import rater_qc
from .crowd_completion import session_screens
from .kept_tallies import one_snapshot

COLUMNS = (
    "worker_id", "platform", "study_id", "session_id", "screens", "session_screens", "active_seconds",
    "qc_outcome", "qc_why", "completed_at", "outcome", "code", "started_at", "session_active_seconds",
)


def _workers(campaign: Campaign):
    """The campaign's crowd workers with their submitted screens (``screens``), active time (``active``) and
    sessions (in the order they began, each with its ``judged`` judgments and their ``active`` time,
    ``CrowdSessionQuerySet.with_judged_time``)."""
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
        .prefetch_related(Prefetch("sessions", queryset=CrowdSession.objects.with_judged_time().order_by("id")))
        .order_by("platform", "worker_id")
    )


def _time(value) -> str:
    return value.isoformat() if value else ""


def _seconds(active: timedelta | None) -> float | str:
    """``active`` in seconds (to the millisecond), or empty when not known."""
    return round(active.total_seconds(), 3) if active is not None else ""


def _session_active(session: CrowdSession, screens: int) -> float | str:
    """The session's active seconds (``session_active_seconds``), when every screen of it is one of its judgments;
    else empty."""
    return _seconds(session.active) if session.judged == screens else ""


def crowd_workers_csv(campaign: Campaign) -> str:
    """The CSV text (header ``COLUMNS``, a row per session), through the safe writer (ids are the workers' own
    text)."""
    verdicts = {verdict.judge_id: verdict for verdict in rater_qc.campaign_verdicts(campaign)}
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(COLUMNS)
    for worker in _workers(campaign):
        screens = worker.screens or 0
        active = _seconds(worker.active)
        verdict = verdicts.get(worker.judge_id)
        for session in worker.sessions.all():
            in_session = session_screens(session, screens)
            writer.writerow([
                worker.worker_id, worker.platform, session.study_id, session.session_id, screens, in_session, active,
                ("failed" if verdict.excluded else "passed") if verdict else "",
                verdict.why if verdict else "no screens judged",
                _time(session.completed_at), session.outcome, session.code, _time(session.started_at),
                _session_active(session, in_session),
            ])
    return out.getvalue()


def crowd_workers_export(campaign: Campaign) -> tuple[JudgmentSnapshot, str]:
    """The campaign's judgments now (``JudgmentQuerySet.snapshot``) and ``crowd_workers_csv``, both read in one
    snapshot of the database (``kept_tallies.one_snapshot``): the CSV's screens, times and verdicts are those of the
    judgments the snapshot names, however many are stored meanwhile."""
    with one_snapshot():
        return Judgment.objects.of_campaign(campaign).snapshot(), crowd_workers_csv(campaign)
