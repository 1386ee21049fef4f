"""The end of a crowd worker's session: screen limits, the completion code and the platform's completion URL
(issue 10).

A session ends when the worker has judged the campaign's ``crowd_session_screens`` screens in it, has reached the
campaign's ``crowd_campaign_screens`` in all, or nothing is left to judge. The completion code is

    code = BASE32(HMAC-SHA256(SECRET_KEY, "crowd-completion" | campaign key | platform | worker id | session id
                              | outcome))[:12]

so nobody without the server's secret can make the code of a worker or an outcome, and the code of one worker, or
of one session (Prolific ``SESSION_ID``, MTurk ``assignmentId``), is worth nothing to another. A session in which
the worker submitted no screen gets no code (nothing was left for them: they must not be paid for it), and once a
session's code is given its screens can no longer be undone. The outcome is ``completed``, or with
``crowd_code_encodes_qc`` the worker's rater QC verdict then (``passed`` or ``failed``, ``rater_qc.verdict_for``;
an organizer's include or exclude decides), as Appraise encodes it, so the organizer can approve or reject a
submission by its code alone.
"""
from __future__ import annotations

import base64
from urllib.parse import quote

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from ..models import Assignment, Campaign, CrowdWorker
from . import rater_qc

CODE_LENGTH = 12
CODE_PLACEHOLDER = "{code}"


class Outcome:
    COMPLETED = "completed"
    PASSED = "passed"
    FAILED = "failed"


def crowd_worker_of(campaign: Campaign, judge: AbstractBaseUser) -> CrowdWorker | None:
    """``judge``'s CrowdWorker in ``campaign`` (None in a campaign not in crowd mode, or for an invited judge)."""
    if not campaign.crowd or not judge.is_authenticated:
        return None
    return CrowdWorker.objects.filter(campaign=campaign, judge=judge).first()


def submitted_screens(worker: CrowdWorker) -> int:
    """Screens the worker has submitted in the campaign (judged or flagged)."""
    return Assignment.objects.filter(
        campaign=worker.campaign_id, judge=worker.judge_id, status=Assignment.Status.SUBMITTED
    ).count()


def limit_reached(worker: CrowdWorker, submitted: int) -> bool:
    """Whether a worker with ``submitted`` screens has judged all their session may hold: the campaign's screens per
    session since the session began, or its screens per worker (0: no such limit)."""
    campaign = worker.campaign
    if submitted - worker.session_base >= campaign.crowd_session_screens:
        return True
    return bool(campaign.crowd_campaign_screens) and submitted >= campaign.crowd_campaign_screens


def may_serve_after_submit(campaign: Campaign, judge: AbstractBaseUser) -> bool:
    """Whether the submit ``judge`` is making may serve them another screen (always, but for a crowd worker whose
    session is full with this submit)."""
    worker = crowd_worker_of(campaign, judge)
    return worker is None or not limit_reached(worker, submitted_screens(worker) + 1)


def completion_code(campaign: Campaign, platform: str, worker_id: str, session_id: str, outcome: str) -> str:
    """The code of ``outcome`` for the worker's session (the formula in the module's docstring)."""
    value = "|".join((campaign.crowd_key, platform, worker_id, session_id, outcome))
    digest = salted_hmac("gecappraise.crowd-completion", value, algorithm="sha256").digest()
    return base64.b32encode(digest).decode("ascii")[:CODE_LENGTH]


def outcome_of(worker: CrowdWorker) -> str:
    """``completed``, or with ``crowd_code_encodes_qc`` the worker's rater QC outcome (``passed``/``failed``: failed
    when the analyses exclude the rater)."""
    if not worker.campaign.crowd_code_encodes_qc:
        return Outcome.COMPLETED
    return Outcome.FAILED if rater_qc.verdict_for(worker.campaign, worker.judge).excluded else Outcome.PASSED


def session_screens(worker: CrowdWorker) -> int:
    """Screens the worker has submitted in their current session."""
    return submitted_screens(worker) - worker.session_base


def complete(worker: CrowdWorker) -> CrowdWorker:
    """End the worker's session: its outcome and code are fixed at the first call and kept by later ones. A session
    without a submitted screen is not ended and gets no code (``code`` stays empty): a later visit, when screens
    are left, goes on with it."""
    with transaction.atomic():
        locked = CrowdWorker.objects.select_for_update().select_related("campaign", "judge").get(pk=worker.pk)
        if locked.completed_at is None and session_screens(locked) > 0:
            locked.outcome = outcome_of(locked)
            locked.code = completion_code(
                locked.campaign, locked.platform, locked.worker_id, locked.session_id, locked.outcome
            )
            locked.completed_at = timezone.now()
            locked.save(update_fields=["outcome", "code", "completed_at"])
    return locked


def may_undo(campaign: Campaign, judge: AbstractBaseUser) -> bool:
    """Whether ``judge`` may undo their last screen: always, but for a crowd worker whose session's code has been
    given (the code stands for the screens submitted then)."""
    worker = crowd_worker_of(campaign, judge)
    return worker is None or worker.completed_at is None


def completion_url(worker: CrowdWorker) -> str | None:
    """The campaign's completion URL with the worker's code in place of ``{code}`` (None when none is set, or when
    the session has no code)."""
    template = worker.campaign.crowd_completion_url
    if not template or not worker.code:
        return None
    return template.replace(CODE_PLACEHOLDER, quote(worker.code, safe=""))
