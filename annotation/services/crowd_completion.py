"""The end of a crowd worker's session: screen limits, the completion code and the platform's completion URL
(issue 10).

A session is one platform submission (``CrowdSession``): the worker judges in their current session, the one whose id
their last visit of the study link named. It ends when the worker has judged the campaign's
``crowd_session_screens`` screens in it, has reached the campaign's ``crowd_campaign_screens`` in all (over all
their sessions), or nothing is left to judge; once its code is given it is over, and its link shows the code again.
Closing the campaign ends every session of its workers at once, by the same rules (``end_sessions_at_close``).
The completion code is

    code = BASE32(HMAC-SHA256(SECRET_KEY, "crowd-completion" | campaign key | platform | worker id | session id
                              | outcome))[:12]

so nobody without the server's secret can make the code of a worker or an outcome, and the code of one worker, or
of one session (Prolific ``SESSION_ID``, MTurk ``assignmentId``), is worth nothing to another. A session in which
the worker submitted no screen gets no code (nothing was left for them: they must not be paid for it), and once a
session's code is given its screens can no longer be undone (nor can an earlier session's from a later one). The
outcome is ``completed``, or with ``crowd_code_encodes_qc`` the worker's rater QC verdict then (``passed`` or
``failed``, ``rater_qc.verdict_for``; an organizer's include or exclude decides), as Appraise encodes it, so the
organizer can approve or reject a submission by its code alone.
"""
from __future__ import annotations

import base64
from datetime import datetime
from urllib.parse import quote

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.crypto import salted_hmac

from ..models import Assignment, Campaign, CrowdSession, CrowdWorker
from ..validators import CODE_PLACEHOLDER
from . import rater_qc
from .queue import Progress, progress

CODE_LENGTH = 12


class Outcome:
    COMPLETED = "completed"
    PASSED = "passed"
    FAILED = "failed"


def current_session_of(campaign: Campaign, judge: AbstractBaseUser) -> CrowdSession | None:
    """``judge``'s current CrowdSession in ``campaign``, with its worker (None in a campaign not in crowd mode, or for
    an invited judge)."""
    if not campaign.crowd or not judge.is_authenticated:
        return None
    return (
        CrowdSession.objects.select_related("worker__campaign", "worker__judge")
        .filter(worker__campaign=campaign, worker__judge=judge, current=True)
        .first()
    )


def submitted_screens(worker: CrowdWorker) -> int:
    """Screens the worker has submitted in the campaign (judged or flagged), in all their sessions."""
    return Assignment.objects.filter(
        campaign=worker.campaign_id, judge=worker.judge_id, status=Assignment.Status.SUBMITTED
    ).count()


def session_screens(session: CrowdSession, submitted: int) -> int:
    """Screens submitted in ``session`` when its worker has ``submitted`` screens in all: those of its earlier
    turns as the current session, and, if it is current, those since it became current again. Never below 0: an
    undo of an earlier session's screen that raced the switch to this one (``undo_refusal`` checks before the
    undo's own transaction) would otherwise count this session below its start."""
    return max(session.screens + (submitted - session.base if session.current else 0), 0)


def uncoded_screens(session: CrowdSession) -> int:
    """Screens submitted in ``session`` that no code stands for yet: its screens (``session_screens``) until its code
    is given, then 0. A session with any gets its code when it ends (``complete``); one without gets none."""
    if session.completed_at is not None:
        return 0
    return session_screens(session, submitted_screens(session.worker))


def campaign_screens_left(campaign: Campaign, submitted: int) -> int | None:
    """Screens a worker with ``submitted`` screens may still judge in the campaign (None: no such limit)."""
    if not campaign.crowd_campaign_screens:
        return None
    return max(campaign.crowd_campaign_screens - submitted, 0)


def limit_reached(session: CrowdSession, submitted: int) -> bool:
    """Whether ``session``, its worker having ``submitted`` screens in all, may hold no more screens: its code was
    given, it holds the campaign's screens per session, or the worker has the campaign's screens per worker."""
    campaign = session.worker.campaign
    if session.completed_at is not None or session_screens(session, submitted) >= campaign.crowd_session_screens:
        return True
    return campaign_screens_left(campaign, submitted) == 0


def may_serve_after_submit(campaign: Campaign, judge: AbstractBaseUser) -> bool:
    """Whether the submit ``judge`` is making may serve them another screen (always, but for a crowd worker whose
    session is full with this submit)."""
    session = current_session_of(campaign, judge)
    return session is None or not limit_reached(session, submitted_screens(session.worker) + 1)


def session_progress(session: CrowdSession, progress: Progress) -> Progress:
    """The worker's progress in ``session`` ("screen 3 of 8"), from their ``progress`` in the campaign
    (``queue.progress``): the session's screens submitted, of as many as the session may hold, or fewer when the
    campaign has fewer left for the worker (the screens they can still reach, and what the campaign's screens per
    worker leave them); ``more`` when the screens they can reach bound it and there are more. Repeats are not told
    apart: the campaign's count of them is not the session's."""
    campaign = session.worker.campaign
    done = session_screens(session, progress.done)
    allowed = campaign.crowd_session_screens - done
    per_worker = campaign_screens_left(campaign, progress.done)
    if per_worker is not None:
        allowed = min(allowed, per_worker)
    reachable = progress.total - progress.done
    return Progress(done=done, total=done + max(min(allowed, reachable), 0), more=progress.more and reachable < allowed)


def may_finish(session: CrowdSession) -> bool:
    """Whether ``session``, its worker's current one, serves them nothing more now, so that they may end it
    (``complete``, the done page's Finish button): its campaign is closed, or its progress (``session_progress`` of
    ``queue.progress``) has nothing left in it, the session being full (the limits ``limit_reached`` checks) or no
    screen left that they could reach. It only reads: the done page asks it on GET too."""
    campaign = session.worker.campaign
    if campaign.closed_at is not None:
        return True
    left = session_progress(session, progress(campaign, session.worker.judge))
    return left.done >= left.total


def completion_code(campaign: Campaign, platform: str, worker_id: str, session_id: str, outcome: str) -> str:
    """The code of ``outcome`` for the worker's session (the formula in the module's docstring)."""
    value = "|".join((campaign.crowd_key, platform, worker_id, session_id, outcome))
    digest = salted_hmac("gecappraise.crowd-completion", value, algorithm="sha256").digest()
    return base64.b32encode(digest).decode("ascii")[:CODE_LENGTH]


def outcome_of(worker: CrowdWorker) -> str:
    """``completed``, or with ``crowd_code_encodes_qc`` the worker's rater QC outcome (``passed``/``failed``: failed
    when the analyses exclude the rater)."""
    campaign = worker.campaign
    return _outcome(campaign, campaign.crowd_code_encodes_qc and rater_qc.verdict_for(campaign, worker.judge).excluded)


def _outcome(campaign: Campaign, excluded: bool) -> str:
    """The outcome a code of ``campaign`` encodes for a worker whom rater QC ``excluded`` (or not)."""
    if not campaign.crowd_code_encodes_qc:
        return Outcome.COMPLETED
    return Outcome.FAILED if excluded else Outcome.PASSED


def _give_code(session: CrowdSession, worker: CrowdWorker, outcome: str, now: datetime) -> None:
    """Set ``session``'s ``outcome``, its code and its completion time ``now`` (not saved)."""
    session.outcome = outcome
    session.code = completion_code(worker.campaign, worker.platform, worker.worker_id, session.session_id, outcome)
    session.completed_at = now


def complete(session: CrowdSession) -> CrowdSession:
    """End ``session``: its outcome and code (over its session id) are fixed at the first call and kept by later
    ones. A session without a submitted screen is not ended and gets no code (``code`` stays empty): a later visit,
    when screens are left, goes on with it."""
    with transaction.atomic():
        locked = CrowdSession.objects.select_for_update().select_related("worker__campaign", "worker__judge").get(
            pk=session.pk
        )
        if uncoded_screens(locked) > 0:
            _give_code(locked, locked.worker, outcome_of(locked.worker), timezone.now())
            locked.save(update_fields=["outcome", "code", "completed_at"])
    return locked


def end_session_at_last_submit(campaign: Campaign, judge: AbstractBaseUser) -> None:
    """End ``judge``'s current session of ``campaign`` (``complete``) after a submit that served them nothing next:
    their session is full, or nothing is left for them. The code is so given by that POST, and the done page's GET
    then only shows it (a worker who finds their session over when they come back ends it by the done page's POST).
    Nothing for an invited judge."""
    session = current_session_of(campaign, judge)
    if session is not None:
        complete(session)


def sessions_ending_at_close(campaign: Campaign, workers: dict[int, CrowdWorker] | None = None) -> list[CrowdSession]:
    """The sessions of ``campaign``'s crowd workers that a close would end with a code now: those not over in which
    the worker submitted a screen. ``workers``: the campaign's workers by id, when the caller has read them."""
    if workers is None:
        workers = {worker.pk: worker for worker in campaign.crowd_workers.all()}
    submitted = dict(
        Assignment.objects.filter(campaign=campaign, status=Assignment.Status.SUBMITTED)
        .order_by().values_list("judge").annotate(n=Count("id")).values_list("judge", "n")
    )
    open_sessions = CrowdSession.objects.filter(worker__campaign=campaign, completed_at__isnull=True).order_by("pk")
    return [
        session for session in open_sessions
        if session_screens(session, submitted.get(workers[session.worker_id].judge_id, 0)) > 0
    ]


def end_sessions_at_close(campaign: Campaign) -> int:
    """End every session of ``campaign``'s crowd workers that is not over, as ``complete`` ends one, at once: those in
    which the worker submitted a screen get their outcome and code (with ``crowd_code_encodes_qc``, from the
    workers' rater QC verdicts now, ``rater_qc.campaign_verdicts``); a session without a submitted screen gets no
    code and stays open. Returns how many sessions got a code.

    Called by ``campaign_closing.close`` in the transaction that closes the campaign, once it holds the locks that
    keep submits and session switches out (the workers' rows among them), so that the crowd-workers CSV is complete
    at the close, whether or not a worker comes back to the study link."""
    workers = {worker.pk: worker for worker in campaign.crowd_workers.all()}
    for worker in workers.values():
        worker.campaign = campaign
    ending = sessions_ending_at_close(campaign, workers)
    if not ending:
        return 0
    excluded = set()
    if campaign.crowd_code_encodes_qc:
        excluded = {verdict.judge_id for verdict in rater_qc.campaign_verdicts(campaign) if verdict.excluded}
    now = timezone.now()
    for session in ending:
        worker = workers[session.worker_id]
        _give_code(session, worker, _outcome(campaign, worker.judge_id in excluded), now)
    CrowdSession.objects.bulk_update(ending, ["outcome", "code", "completed_at"])
    return len(ending)


def held_screen_refusal(campaign: Campaign, judge: AbstractBaseUser) -> str | None:
    """Why ``judge`` may not open, submit or flag the screen they hold, or None when they may: a crowd worker may not
    once their current session's code was given. That happens to a screen held at the close of the campaign, opened
    again since: the code stands for the screens submitted before the close, and a screen submitted now would count
    in a session that is over. A new session (the study link with its session id) goes on, with that screen."""
    session = current_session_of(campaign, judge)
    if session is None or session.completed_at is None:
        return None
    return (
        "Your session is complete and its code was given, so this screen can no longer be sent in it; nothing was "
        "saved. To go on, open the study again from the platform (a new session)."
    )


def undo_refusal(campaign: Campaign, judge: AbstractBaseUser) -> str | None:
    """Why ``judge`` may not undo their last screen, or None when they may: a crowd worker may not once their
    session's code was given (the code stands for the screens submitted then), nor when their last screen was
    submitted before their current session became current (it counts in another session, or in this one's earlier
    turn, as it was)."""
    session = current_session_of(campaign, judge)
    if session is None:
        return None
    if session.completed_at is not None:
        return "Your session is complete and its code was given: its screens cannot be changed."
    if submitted_screens(session.worker) <= session.base:
        return "Your last screen was submitted before you opened this session's study link: it cannot be changed now."
    return None


def completion_url(session: CrowdSession) -> str | None:
    """The campaign's completion URL with the session's code in place of ``{code}`` (None when none is set, or when
    the session has no code)."""
    template = session.worker.campaign.crowd_completion_url
    if not template or not session.code:
        return None
    return template.replace(CODE_PLACEHOLDER, quote(session.code, safe=""))
