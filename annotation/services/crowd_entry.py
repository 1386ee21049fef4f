"""The public study link of a crowd campaign: who is opening it, and their campaign-local judge (issue 10).

A link is opened with the platform's parameters: Prolific ``PROLIFIC_PID``, ``STUDY_ID``, ``SESSION_ID``; Mechanical
Turk ``workerId``, ``assignmentId``, ``hitId``; or a generic ``worker``. The worker id names one ``CrowdWorker`` of
the campaign (unique per campaign and platform), whose judge account has no password and no e-mail and judges this
campaign only, so the same id always resumes the same judge. The session id names one of the worker's
``CrowdSession``s (one platform submission each), which becomes their current one. MTurk shows a HIT's preview with
``assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE``: a preview stores nothing. Only ``enter`` stores anything (the study
link calls it on the worker's POST); ``parse_visit`` and ``visited_session`` read.
"""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.http import QueryDict
from django.utils import timezone
from django.utils.crypto import salted_hmac

from ..models import Campaign, CrowdSession, CrowdWorker
from .crowd_completion import session_screens, submitted_screens
from .judge_accounts import delete_accounts

#: MTurk's ``assignmentId`` while a worker previews a HIT they have not accepted.
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
MAX_ID_LENGTH = 64
_ID = re.compile(r"[A-Za-z0-9_.:-]+")

#: Per platform: the parameters of the worker id, the study and the session, in that order.
PARAMETERS = {
    CrowdWorker.Platform.PROLIFIC: ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID"),
    CrowdWorker.Platform.MTURK: ("workerId", "hitId", "assignmentId"),
    CrowdWorker.Platform.GENERIC: ("worker", "study", "session"),
}


class CrowdLinkError(ValueError):
    """The study link was opened with parameters it cannot use; the message says which and why."""


class TooManyNewWorkers(CrowdLinkError):
    """The address opened the link as more new workers in the last hour than ``CROWD_NEW_WORKERS_PER_HOUR``."""


@dataclass(frozen=True)
class Visit:
    """Who opened the study link: ``platform``, ``worker_id`` (empty in an MTurk preview), study and session."""

    platform: str
    worker_id: str
    study_id: str
    session_id: str
    preview: bool = False


def _only_value(query: QueryDict, name: str) -> str:
    """The value of parameter ``name`` ("" when absent); CrowdLinkError when it is given twice with different
    values (a platform's placeholder appended to a link that had a test id: taking either value could make every
    worker one judge)."""
    values = {value.strip() for value in query.getlist(name)}
    if len(values) > 1:
        raise CrowdLinkError(
            f"The study link gives {name} twice, with different values; open the study from the platform's page, "
            "or ask the researcher to fix its link."
        )
    return values.pop() if values else ""


def _checked(name: str, value: str, required: bool) -> str:
    """``value`` of parameter ``name``: at most MAX_ID_LENGTH letters, digits, ``_ . : -``."""
    value = value.strip()
    if not value:
        if required:
            raise CrowdLinkError(f"The study link's parameter {name} is empty.")
        return ""
    if len(value) > MAX_ID_LENGTH:
        raise CrowdLinkError(f"The study link's parameter {name} is longer than {MAX_ID_LENGTH} characters.")
    if not _ID.fullmatch(value):
        raise CrowdLinkError(
            f"The study link's parameter {name} may hold only letters, digits and the characters _ . : -"
        )
    return value


def parse_visit(query: QueryDict) -> Visit:
    """The visit the query string describes, or CrowdLinkError (no worker id, two platforms, a parameter given
    twice with different values, a bad value)."""
    mturk_worker, mturk_hit, mturk_assignment = PARAMETERS[CrowdWorker.Platform.MTURK]
    if _only_value(query, mturk_assignment) == MTURK_PREVIEW:
        hit = _checked(mturk_hit, _only_value(query, mturk_hit), False)
        return Visit(CrowdWorker.Platform.MTURK, "", hit, "", preview=True)
    given = [platform for platform, names in PARAMETERS.items() if names[0] in query]
    if not given:
        raise CrowdLinkError(
            "This study link needs your worker id from the platform: PROLIFIC_PID (Prolific), workerId (Mechanical "
            "Turk) or worker. Open the study from the platform's page."
        )
    if len(given) > 1:
        names = " and ".join(PARAMETERS[platform][0] for platform in given)
        raise CrowdLinkError(f"The study link was given two worker ids ({names}); give only one.")
    platform = given[0]
    worker, study, session = PARAMETERS[platform]
    return Visit(
        platform,
        _checked(worker, _only_value(query, worker), True),
        _checked(study, _only_value(query, study), False),
        _checked(session, _only_value(query, session), False),
    )


def crowd_campaign(key: str) -> Campaign | None:
    """The crowd campaign whose study link has secret ``key`` (None for a wrong key or a campaign not in crowd
    mode)."""
    return Campaign.objects.filter(crowd=True, crowd_key=key).first()


def _username(campaign: Campaign, visit: Visit) -> str:
    """``crowd-<campaign>-<platform>-<worker id>``, or that with a random suffix when another account holds the name
    already (an invite, an import or an admin may have made it before the worker came; the worker would otherwise
    get a server error on every visit)."""
    username = f"crowd-{campaign.pk}-{visit.platform}-{visit.worker_id}"
    if get_user_model().objects.filter(username=username).exists():
        return f"{username}-{secrets.token_hex(4)}"
    return username


def delete_judge(sender: type[CrowdWorker], instance: CrowdWorker, **kwargs) -> None:
    """Receiver of CrowdWorker's ``post_delete`` (its campaign was deleted): the worker's judge account goes too. It
    judged that campaign only and has no password; left, it was an account of no campaign whose Judging page took
    it for an invited judge's and offered it a password."""
    delete_accounts(get_user_model().objects.filter(pk=instance.judge_id))


def address_key(address: str) -> str:
    """What is kept of a worker's address: a hash keyed by the server's secret (the address cannot be read back)."""
    return salted_hmac("gecappraise.crowd-address", address, algorithm="sha256").hexdigest()


def _check_new_worker_limit(campaign: Campaign, origin: str) -> None:
    """Refuse a new worker from ``origin`` when it made ``CROWD_NEW_WORKERS_PER_HOUR`` already in the last hour
    (0: no limit). Each new worker holds a screen for the lease: ids made up by one sender would otherwise hold
    every screen of the study, and the real workers would find none."""
    limit = settings.CROWD_NEW_WORKERS_PER_HOUR
    recent = CrowdWorker.objects.filter(
        campaign=campaign, created_from=origin, created_at__gte=timezone.now() - timedelta(hours=1)
    )
    if limit and recent.count() >= limit:
        raise TooManyNewWorkers(
            "Too many new workers opened this study from your network in the last hour. Please try again later."
        )


def enter(campaign: Campaign, visit: Visit, address: str = "") -> CrowdSession:
    """The worker's CrowdSession that ``visit`` names, from the client ``address``: their current one after the visit,
    but for a session whose code was given, which is over (its code is shown again) and leaves the current one as
    it was.

    The worker and their judge are made on the first visit (concurrent first visits make one); a new worker past
    the address's hourly limit raises TooManyNewWorkers. A visit naming the session id of one of the worker's open
    sessions makes it current again and goes on with it; a new session id starts a new session, with no screens and
    no completion yet; a visit without a session id goes on with the current session."""
    if visit.preview:
        raise ValueError("A preview makes no worker.")
    found = _find(campaign, visit)
    if found is None:
        origin = address_key(address)
        _check_new_worker_limit(campaign, origin)
        found = _create(campaign, visit, origin)
    return _open_session(found, visit)


def visited_session(campaign: Campaign, visit: Visit) -> CrowdSession | None:
    """The session of ``campaign``'s study a visit names, as stored: the worker's session that the visit's session id
    names, or their current one when it names none. None for a preview, a worker the study does not know, or a
    session id none of the worker's sessions has (a visit that would start a new session, or, once the study is
    closed, that it refuses). Stores nothing, and leaves the worker's current session as it was."""
    if visit.preview:
        return None
    worker = _find(campaign, visit)
    if worker is None:
        return None
    if not visit.session_id:
        return worker.sessions.filter(current=True).first()
    return worker.sessions.filter(session_id=visit.session_id).first()


def _find(campaign: Campaign, visit: Visit) -> CrowdWorker | None:
    return (
        CrowdWorker.objects.select_related("judge")
        .filter(campaign=campaign, platform=visit.platform, worker_id=visit.worker_id)
        .first()
    )


def _create(campaign: Campaign, visit: Visit, origin: str) -> CrowdWorker:
    """Make the worker's judge, CrowdWorker and first session (current); if a concurrent visit made them first,
    theirs."""
    try:
        with transaction.atomic():
            judge = get_user_model()(username=_username(campaign, visit))
            judge.set_unusable_password()
            judge.save()
            campaign.judges.add(judge)
            worker = CrowdWorker.objects.create(
                campaign=campaign, platform=visit.platform, worker_id=visit.worker_id, judge=judge, created_from=origin,
            )
            worker.sessions.create(session_id=visit.session_id, study_id=visit.study_id)
            return worker
    except IntegrityError:
        found = _find(campaign, visit)
        if found is None:
            raise
        return found


def _open_session(worker: CrowdWorker, visit: Visit) -> CrowdSession:
    """The visit's session, made the worker's current one unless it is over (see ``enter``), under a lock of the
    worker: the current session that is left keeps the screens submitted in it, and the one taken up counts on from
    the worker's submitted screens now. A submit reads the worker's current session under the same lock
    (``CrowdSessionQuerySet.current_pk_locked``), so its judgment goes to the session whose screens count it."""
    with transaction.atomic():
        CrowdWorker.objects.select_for_update().filter(pk=worker.pk).get()
        current = worker.sessions.get(current=True)
        if not visit.session_id or visit.session_id == current.session_id:
            return current
        named = worker.sessions.filter(session_id=visit.session_id).first()
        if named is not None and named.completed_at is not None:
            return named
        submitted = submitted_screens(worker)
        current.screens = session_screens(current, submitted)
        current.current = False
        current.save(update_fields=["screens", "current"])
        if named is None:
            return worker.sessions.create(session_id=visit.session_id, study_id=visit.study_id, base=submitted)
        named.current = True
        named.base = submitted
        named.save(update_fields=["current", "base"])
        return named
