"""A judge's queue of screens: claiming, leases, idempotent submits, flags, undo and repeats (G15 section 4.2).

Contract:
- A campaign's screens come with pool slots (Assignment rows with ``judge`` NULL, see ``screens``); a judge
  claims the first open slot by ``position`` whose screen they have not had, so the judges of one screen are
  distinct (redundancy = distinct judges per screen). Claims lock the slot with ``SELECT ... FOR UPDATE SKIP
  LOCKED`` on PostgreSQL, so two judges never get the same slot, and they lock the judge's membership row of
  the campaign, so one judge's tabs never claim two screens at once; submits take that lock first too. Every
  question of the queue is answered from per-campaign partial indexes of Assignment (the pool by position and by
  screen, leases, slots taken), so its cost does not grow with the campaign's size; ``progress`` counts at most
  ``PROGRESS_CAP`` claimable screens.
- A judge has at most one served screen per campaign; coming back (reload, new tab, next login) gives the same
  one. Assignments given to a judge directly (``judge`` set, status pending) come before pool slots.
- Serving starts a lease (``settings.JUDGE_LEASE_MINUTES``), renewed while the judge works on the page (the page
  calls ``renew_lease`` through the ``judge-lease`` view every quarter lease while its judge is active). A
  non-repeat screen whose lease has run out returns to the pool: another judge may claim it, which gives it a new
  token, and the first judge's page is refused as stale. Until someone claims it, the first judge may still finish it.
  The screen an undo sends back to the judge's pending assignments (``undo_last``) keeps a lease too, the same as
  the undone screen's, and ``renew_lease`` renews the two together: it stays the judge's while they judge the
  undone screen again, and returns to the pool once they stop.
- Ranking campaigns take ranks (``submit_ranking``), PRWS campaigns scores (``submit_scores``); either may be flagged.
  With ``serve_next`` a submit also serves the judge's next screen, in the same transaction (one commit).
- ``Assignment.token`` names one serving of a screen. A submit names the token: the first submit stores one
  Judgment, a repeated submit of the same token (double click, reload, back button, second tab) stores nothing
  and reports the stored one. Tokens change when a screen is claimed or re-served after an undo.
- A served screen does not change (``attention`` changes only screens none of whose assignments left the pool,
  and locks their assignments while it does). A submit also names the candidates it judges, by their keys for
  the serving (``candidate_keys``, from the page); ranks and scores go to those candidates, and a submit whose
  keys are not exactly those of the screen's candidates in display order is refused (``ChangedScreen``).
- Only the judge a screen is served to, under its current token, renews its lease (``renew_lease``).
- Repeats (intra-annotator agreement, G15 section 4.4): after a judge submits an original screen, with
  probability ``campaign.repeat_rate`` the same screen is scheduled for them again, due once they have
  submitted ``REPEAT_GAP_MIN``..``REPEAT_GAP_MAX`` more screens; when the pool runs dry, pending repeats are
  served at once. The draw uses a generator seeded with (campaign seed, slot position): reproducible.
- Active selection (``campaign.selection``): claiming from the pool also asks for more screens when the pool runs
  low (``active_queue.ask_for_screens``); the screens are chosen in the background, never while a judge waits.
- Time: ``served_at``/``submitted_at`` are the server's timestamps, ``Judgment.duration`` is their difference and
  ``Judgment.active_time`` is the client's focused, non-idle time (see ``IDLE_CAP_SECONDS``), clamped to
  ``[0, duration]``.
- Crowd campaigns: a crowd worker's judgment records the session that was current when it was stored
  (``Judgment.crowd_session``), read under the lock of the worker that a switch of sessions takes (lock order:
  membership, assignment, crowd worker).
"""
from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from gecappraise.plurals import counted

from ..models import Assignment, Campaign, CandidateJudgment, CrowdSession, Flag, Judgment
from ..random_streams import campaign_rng
from .active_queue import ask_for_screens
from .presentation import candidate_key

#: The client stops counting active time after this many seconds without a key press, click, scroll or pointer
#: move, and while the page is hidden or unfocused (static/js/judge.js reads it from the page).
IDLE_CAP_SECONDS = 60
#: A repeat becomes due after the judge has submitted this many more screens (drawn uniformly, inclusive).
REPEAT_GAP_MIN = 5
REPEAT_GAP_MAX = 20
#: The longest flag reason kept (Flag.reason).
FLAG_REASON_MAX = 500
#: ``progress`` counts at most this many claimable screens (a campaign may have a million): a judge's total then
#: reads "N+".
PROGRESS_CAP = 1000
STALE_MESSAGE = (
    "This screen is out of date: it was undone, given to another judge after it was left unanswered, or deleted "
    "with its campaign. Nothing was saved from it."
)
CLOSED_MESSAGE = "This campaign is closed; it takes no more judgments."
REMOVED_MESSAGE = "You are no longer a judge of this campaign, so this screen can no longer be saved."
CHANGED_MESSAGE = (
    "This screen is not the one you were shown: its corrections changed after it was served. Nothing was saved; "
    "open the campaign again to judge the screen as it is now."
)


class QueueError(Exception):
    """A request the queue refuses; the message is meant for the judge and changes nothing."""


class NotAJudge(QueueError):
    """The user is not a judge of the campaign."""


class ForeignScreen(QueueError):
    """The screen belongs to another judge."""


class StaleScreen(QueueError):
    """The token no longer names a served screen (it was undone, or claimed by another judge)."""


class ChangedScreen(QueueError):
    """The submit names other candidates than the screen shows (it changed after it was served)."""


class CampaignClosed(QueueError):
    """The campaign is closed; it takes no more judgments. ``campaign`` is the campaign, where known."""

    def __init__(self, message: str, campaign: Campaign | None = None):
        super().__init__(message)
        self.campaign = campaign


class InvalidRanking(QueueError):
    """The submitted ranks do not fit the screen."""


class InvalidScores(QueueError):
    """The submitted PRWS scores do not fit the screen."""


@dataclass(frozen=True)
class Progress:
    """``done`` screens submitted of ``total`` (submitted + open + still claimable for this judge); with ``more``,
    more than ``PROGRESS_CAP`` screens are still claimable and ``total`` counts only that many of them. ``repeats``
    of the judge's screens (in ``total``) are repeats scheduled so far (G15 section 4.4)."""

    done: int
    total: int
    more: bool = False
    repeats: int = 0

    @property
    def current(self) -> int:
        """The number of the screen being worked on ("screen k of n"), at most ``total``."""
        return min(self.done + 1, self.total)

    @property
    def total_text(self) -> str:
        """``total`` as the judge reads it: "1,234", or "1,234+" when more screens are left."""
        return f"{self.total:,}{'+' * self.more}"

    @property
    def plan_text(self) -> str:
        """The total with the repeats in it shown apart ("32 (30 + 2 repeats)"): the screen number counts repeats
        too, so it never passes the total, and the first part stays as repeats are scheduled."""
        if not self.repeats:
            return self.total_text
        plan = f"{self.total - self.repeats:,}{'+' * self.more}"
        return f"{self.total_text} ({plan} + {counted(self.repeats, 'repeat')})"


@dataclass(frozen=True)
class SubmitResult:
    """The stored judgment, and whether this request stored it (False for a repeated submit); with ``serve_next``,
    ``following`` is the judge's next screen, served in the same transaction (None: nothing left)."""

    assignment: Assignment
    judgment: Judgment
    created: bool
    following: Assignment | None = None


def lease_length() -> timedelta:
    """How long a served screen stays reserved for its judge (``settings.JUDGE_LEASE_MINUTES``)."""
    return timedelta(minutes=settings.JUDGE_LEASE_MINUTES)


def lock_membership(campaign_id: int, judge: AbstractBaseUser) -> bool:
    """Lock the judge's membership row of the campaign (serializes one judge's claims and submits); whether the
    judge is a member. Every transaction of the queue that locks assignments of a judge takes this lock first."""
    membership = Campaign.judges.through.objects.select_for_update().filter(campaign_id=campaign_id, user=judge)
    return membership.exists()


def _closed_now(campaign: Campaign) -> bool:
    """Whether ``campaign`` is closed, read again (and set on it) once the judge's membership row is locked: closing
    locks every membership row of the campaign first (``campaign_closing.close``), so a submit or an undo that waited
    for a close sees it, and one that went first is counted by it."""
    campaign.closed_at = Campaign.objects.filter(pk=campaign.pk).values_list("closed_at", flat=True).first()
    return campaign.closed_at is not None


def _serve(assignment: Assignment, judge: AbstractBaseUser, now: datetime) -> Assignment:
    """Serve ``assignment`` to ``judge`` now, under a new token and a fresh lease."""
    assignment.judge = judge
    assignment.status = Assignment.Status.SERVED
    assignment.served_at = now
    assignment.lease_expires_at = now + lease_length()
    assignment.token = uuid.uuid4()
    assignment.save(update_fields=["judge", "status", "served_at", "lease_expires_at", "token"])
    return assignment


def _mine(campaign: Campaign, judge: AbstractBaseUser):
    return _mine_by_id(campaign.pk, judge)


def _mine_by_id(campaign_id: int, judge: AbstractBaseUser):
    return Assignment.objects.filter(campaign_id=campaign_id, judge=judge)


#: A judge's assignments that are not submitted, named by status so that the index of the judge's rows
#: (``assignment_judge_rows``) finds them without reading the submitted ones.
_OPEN = (Assignment.Status.PENDING, Assignment.Status.SERVED)


def _assignment_columns() -> str:
    """The Assignment columns the queue's plain SQL reads, named (not ``*``): a prepared statement whose result
    columns changed under it (a migration adding one) would fail on a connection that prepared it before."""
    return ", ".join(connection.ops.quote_name(field.column) for field in Assignment._meta.concrete_fields)


#: The statuses the queue's plain SQL names, as SQL literals rather than parameters: a partial index is used only
#: where the query's condition implies the index's, and a generic plan of a prepared statement (PostgreSQL's once a
#: connection ran it five times and it looks no dearer) knows no parameter's value, so ``status = $2`` could not
#: use the pool's index (``assignment_pool_order``, status 'pending'): such a plan of the claim read the campaign's
#: slots for the first open one, 168 ms at 350,000 assignments, 16 ms with the literal (benchmarks/judge_pages.py).
_STATUSES = {name: f"'{status.value}'" for name, status in (
    ("pending", Assignment.Status.PENDING), ("submitted", Assignment.Status.SUBMITTED),
)}


def _claim(campaign: Campaign, judge: AbstractBaseUser, now: datetime) -> Assignment | None:
    """Lock the first claimable slot by position: an unclaimed slot of a screen the judge has not had, or a
    non-repeat slot of such a screen whose lease ran out before submit (``_CLAIM_SQL``, one statement).

    Each kind is asked for in its own locking CTE (``FOR UPDATE SKIP LOCKED``, from its own partial index:
    ``assignment_pool_order``, ``assignment_leases``) and the earlier one is taken; the other's row lock ends with
    the transaction. SQLite, which has one writer at a time, takes no row locks.
    """
    lock = "FOR UPDATE SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    parameters = {"campaign": campaign.pk, "judge": judge.pk, "now": now}
    sql = _CLAIM_SQL.format(table=Assignment._meta.db_table, columns=_assignment_columns(), lock=lock, **_STATUSES)
    return next(iter(Assignment.objects.raw(sql, parameters)), None)


#: ``_claim`` in one statement: 0.5 ms of CPU and 1.1 ms in all per claim, against 2.6 and 3.4 ms for the two
#: ORM queries it replaces (``benchmarks/claim.py``, 3,000 screens).
#: The screens the judge has had are a ``NOT IN`` (an anti-join took PostgreSQL tens of milliseconds to plan).
_CLAIM_SQL = """
WITH pool AS (
  SELECT id, position FROM {table}
  WHERE campaign_id = %(campaign)s AND judge_id IS NULL AND status = {pending} AND repeat_of_id IS NULL
    AND screen_id NOT IN (SELECT screen_id FROM {table} WHERE campaign_id = %(campaign)s AND judge_id = %(judge)s)
  ORDER BY position, id LIMIT 1 {lock}
), expired AS (
  SELECT id, position FROM {table}
  WHERE campaign_id = %(campaign)s AND lease_expires_at < %(now)s AND repeat_of_id IS NULL
    AND NOT status = {submitted}
    AND screen_id NOT IN (SELECT screen_id FROM {table} WHERE campaign_id = %(campaign)s AND judge_id = %(judge)s)
  ORDER BY position, id LIMIT 1 {lock}
)
SELECT {columns} FROM {table} WHERE id = (
  SELECT id FROM (SELECT id, position FROM pool UNION ALL SELECT id, position FROM expired) AS found
  ORDER BY position, id LIMIT 1
)
"""


def next_assignment(
    campaign: Campaign, judge: AbstractBaseUser, now: datetime | None = None
) -> Assignment | None:
    """The screen ``judge`` should work on now, served to them; None when nothing is left for them.

    Order: the screen already served to them (its lease renewed); their own pending assignments that are due
    (direct assignments, and repeats once ``due_after`` screens are submitted), by position; the first
    claimable pool slot; any pending repeat. A closed campaign serves nothing, not even the screen served before it
    closed, which can no longer be submitted.
    """
    now = now or timezone.now()
    with transaction.atomic():
        if not lock_membership(campaign.pk, judge):
            raise NotAJudge("You are not a judge of this campaign.")
        return _next_locked(campaign, judge, now)


def _next_locked(campaign: Campaign, judge: AbstractBaseUser, now: datetime) -> Assignment | None:
    """``next_assignment`` once the judge's membership row is locked. The judge's open assignments of the campaign
    (the served one, pending ones: a few rows) are read in one query."""
    if campaign.closed_at is not None:
        return None
    mine = _mine(campaign, judge)
    held = list(mine.filter(status__in=_OPEN).order_by("position", "id"))
    served = [row for row in held if row.status == Assignment.Status.SERVED]
    if served:
        current = min(served, key=lambda row: (row.served_at, row.pk))
        renew_lease(current, judge, now)
        return current
    pending = [row for row in held if row.status == Assignment.Status.PENDING]
    repeats = [row for row in pending if row.repeat_of_id is not None]
    done = mine.filter(status=Assignment.Status.SUBMITTED).count() if repeats else 0
    own = next((row for row in pending if row.repeat_of_id is None or row.due_after <= done), None)
    if own is not None:
        return _serve(own, judge, now)
    slot = _claim(campaign, judge, now)
    ask_for_screens(campaign)
    if slot is not None:
        return _serve(slot, judge, now)
    return _serve(repeats[0], judge, now) if repeats else None


def progress(campaign: Campaign, judge: AbstractBaseUser, now: datetime | None = None) -> Progress:
    """How far ``judge`` is: screens submitted, and the total they can reach (it shrinks as others claim).

    Claimable screens are the union of the first ``PROGRESS_CAP + 1`` pool screens the judge has not had and the
    first ``PROGRESS_CAP + 1`` such screens whose lease ran out (each side capped: once either exceeds the cap, so
    does their union), so the cost does not grow with the campaign; read with the judge's own counts in one query
    (``_PROGRESS_SQL``).
    """
    now = now or timezone.now()
    parameters = {"campaign": campaign.pk, "judge": judge.pk, "now": now, "limit": PROGRESS_CAP + 1}
    with connection.cursor() as cursor:
        cursor.execute(_PROGRESS_SQL.format(table=Assignment._meta.db_table, **_STATUSES), parameters)
        done, open_, repeats, claimable = cursor.fetchone()
    known = done + open_
    if claimable > PROGRESS_CAP:
        return Progress(done=done, total=known + PROGRESS_CAP, more=True, repeats=repeats)
    return Progress(done=done, total=known + claimable, repeats=repeats)


#: ``progress`` in one statement: the ORM's three queries (the judge's counts, then the two sides of the
#: claimable screens, which sent up to 2,002 screen ids to Python) cost ~4 ms of a serve's CPU, this ~1 ms. The
#: sides use the partial indexes the claim uses (``assignment_pool_*``, ``assignment_leases``), and the judge's
#: screens are a ``NOT IN`` (an anti-join there took PostgreSQL tens of milliseconds to plan), as in ``_CLAIM_SQL``.
_PROGRESS_SQL = """
SELECT
  COUNT(*) FILTER (WHERE mine.status = {submitted}),
  COUNT(*) FILTER (WHERE mine.status <> {submitted}),
  COUNT(*) FILTER (WHERE mine.repeat_of_id IS NOT NULL),
  (SELECT COUNT(*) FROM (
     SELECT screen_id FROM (
       SELECT DISTINCT screen_id FROM {table}
       WHERE campaign_id = %(campaign)s AND judge_id IS NULL AND status = {pending} AND repeat_of_id IS NULL
         AND screen_id NOT IN (SELECT screen_id FROM {table} WHERE campaign_id = %(campaign)s AND judge_id = %(judge)s)
       ORDER BY screen_id LIMIT %(limit)s) AS pool
     UNION
     SELECT screen_id FROM (
       SELECT DISTINCT screen_id FROM {table}
       WHERE campaign_id = %(campaign)s AND lease_expires_at < %(now)s AND repeat_of_id IS NULL
         AND status <> {submitted}
         AND screen_id NOT IN (SELECT screen_id FROM {table} WHERE campaign_id = %(campaign)s AND judge_id = %(judge)s)
       ORDER BY screen_id LIMIT %(limit)s) AS expired
   ) AS claimable)
FROM {table} AS mine
WHERE mine.campaign_id = %(campaign)s AND mine.judge_id = %(judge)s
"""


def assignment_for(token: uuid.UUID, judge: AbstractBaseUser) -> Assignment:
    """The assignment named by ``token`` if it is ``judge``'s and was served; raise StaleScreen/ForeignScreen,
    NotAJudge once the judge is no longer a judge of its campaign (removed since), or CampaignClosed while it is
    not submitted and its campaign is closed. Membership is read in the same query."""
    member = Campaign.judges.through.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=judge.pk)
    assignment = (
        Assignment.objects.select_related("screen__campaign", "screen__segment")
        .annotate(judge_is_member=Exists(member))
        .filter(token=token)
        .first()
    )
    if assignment is None or assignment.status == Assignment.Status.PENDING:
        raise StaleScreen(STALE_MESSAGE)
    if assignment.judge_id != judge.pk:
        raise ForeignScreen("This screen is assigned to another judge.")
    if not assignment.judge_is_member:
        raise NotAJudge(REMOVED_MESSAGE)
    if assignment.status == Assignment.Status.SERVED and assignment.screen.campaign.closed_at is not None:
        raise CampaignClosed(CLOSED_MESSAGE, assignment.screen.campaign)
    return assignment


def renew_lease(assignment: Assignment, judge: AbstractBaseUser, now: datetime | None = None) -> bool:
    """Extend the lease of ``assignment`` once half of it has passed, if it is still served to ``judge`` under the
    token it was read with (a screen given to another judge since, or undone, keeps its lease), and with it the
    lease of the judge's pending screen of the campaign that an undo sent back (``undo_last``), if they still have
    it.

    Renewing only past half the lease saves a write (and a commit) on most page views and heartbeats; with the
    page's heartbeat every quarter lease, the lease never has less than a quarter of its length left while the
    judge is active. Returns whether it was renewed.
    """
    now = now or timezone.now()
    if assignment.lease_expires_at is not None and assignment.lease_expires_at - now > lease_length() / 2:
        return False
    expires = now + lease_length()
    renewed = Assignment.objects.filter(
        pk=assignment.pk, token=assignment.token, judge=judge, status=Assignment.Status.SERVED
    ).update(lease_expires_at=expires)
    if renewed:
        assignment.lease_expires_at = expires
        _mine_by_id(assignment.campaign_id, judge).filter(
            status=Assignment.Status.PENDING, lease_expires_at__isnull=False
        ).update(lease_expires_at=expires)
    return bool(renewed)


def candidate_keys(assignment: Assignment) -> list[str]:
    """The keys of the candidates ``assignment``'s screen shows, in display order, for its current serving."""
    shown = assignment.screen.slots.order_by("position").values_list("candidate_id", flat=True)
    return [candidate_key(assignment.token, pk) for pk in shown]


def _shown_slots(assignment: Assignment, shown: Sequence[str]) -> list[tuple[int, int]]:
    """The screen's (position, candidate id) slots, if ``shown`` are exactly their keys in order; else ChangedScreen."""
    slots = list(assignment.screen.slots.order_by("position").values_list("position", "candidate_id"))
    if list(shown) != [candidate_key(assignment.token, pk) for _, pk in slots]:
        raise ChangedScreen(CHANGED_MESSAGE)
    return slots


def clamp_active_time(active: timedelta | None, duration: timedelta) -> timedelta | None:
    """The client's active time, clamped to ``[0, duration]`` (a client cannot claim more than it was served)."""
    if active is None:
        return None
    return max(timedelta(0), min(active, duration))


def _locked_for_submit(token: uuid.UUID, judge: AbstractBaseUser, served: Assignment | None) -> Assignment:
    """The assignment served as ``token``, locked after the judge's membership row (the claims' lock order); raise
    StaleScreen, ForeignScreen, or NotAJudge when the judge has no membership row (removed from the campaign).

    ``served`` is the assignment as the caller read it (``assignment_for``, with its screen and campaign), or None
    to read it here. Its screen and campaign do not change; its own row is read again under the lock, by id and
    token, so a serving that was undone or claimed by another judge since is refused.
    """
    if served is None:
        served = Assignment.objects.select_related("screen__campaign").filter(token=token).first()
    if served is None:
        raise StaleScreen(STALE_MESSAGE)
    lock = "FOR UPDATE" if connection.features.has_select_for_update else ""
    token_value = Assignment._meta.get_field("token").get_db_prep_value(token, connection)  # SQLite: hex text
    parameters = {"campaign": served.campaign_id, "judge": judge.pk, "id": served.pk, "token": token_value}
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_MEMBERSHIP_SQL.format(table=Campaign.judges.through._meta.db_table, lock=lock), parameters)
        if cursor.fetchone() is None:
            raise NotAJudge(REMOVED_MESSAGE)
    sql = _LOCK_ASSIGNMENT_SQL.format(table=Assignment._meta.db_table, columns=_assignment_columns(), lock=lock)
    locked = Assignment.objects.raw(sql, parameters)
    assignment = next(iter(locked), None)
    if assignment is None or assignment.status == Assignment.Status.PENDING:
        raise StaleScreen(STALE_MESSAGE)
    if assignment.judge_id != judge.pk:
        raise ForeignScreen("This screen is assigned to another judge; nothing was saved.")
    assignment.screen = served.screen
    return assignment


#: ``_locked_for_submit``'s two locks as plain SQL: the ORM's compilation of them (a subquery, a lock of one table
#: of a join) cost more CPU than the rest of a submit's queries (``benchmarks/load.py``).
_LOCK_MEMBERSHIP_SQL = "SELECT 1 FROM {table} WHERE campaign_id = %(campaign)s AND user_id = %(judge)s {lock}"
_LOCK_ASSIGNMENT_SQL = "SELECT {columns} FROM {table} WHERE id = %(id)s AND token = %(token)s {lock}"


def _store(assignment: Assignment, campaign: Campaign, now: datetime, active_time: timedelta | None) -> Judgment:
    """Mark ``assignment`` submitted now and store its Judgment; in a crowd campaign, in the judge's current session
    (``CrowdSessionQuerySet.current_pk_locked``)."""
    duration = now - assignment.served_at
    assignment.status = Assignment.Status.SUBMITTED
    assignment.submitted_at = now
    assignment.lease_expires_at = None
    assignment.save(update_fields=["status", "submitted_at", "lease_expires_at"])
    session = CrowdSession.objects.current_pk_locked(campaign.pk, assignment.judge_id) if campaign.crowd else None
    return Judgment.objects.create(
        assignment=assignment, duration=duration, active_time=clamp_active_time(active_time, duration),
        crowd_session_id=session,
    )


def _finish(
    token: uuid.UUID,
    judge: AbstractBaseUser,
    write: Callable[[Assignment, Campaign, Callable[[], Judgment]], Judgment],
    active_time: timedelta | None,
    now: datetime | None,
    serve_next: bool,
    served: Assignment | None,
) -> SubmitResult:
    """Store a judgment of the screen served as ``token`` once: ``write(assignment, campaign, store)`` checks what
    was submitted, calls ``store()`` for the Judgment and adds its rows. With ``serve_next`` the judge's next screen
    is served in the same transaction (one commit for both). ``served``: see ``_locked_for_submit``."""
    now = now or timezone.now()
    with transaction.atomic():
        assignment = _locked_for_submit(token, judge, served)
        if assignment.status == Assignment.Status.SUBMITTED:
            return SubmitResult(assignment, assignment.judgment, created=False)
        campaign = assignment.screen.campaign
        if _closed_now(campaign):
            raise CampaignClosed(CLOSED_MESSAGE, campaign)
        judgment = write(assignment, campaign, lambda: _store(assignment, campaign, now, active_time))
        following = _next_locked(campaign, judge, now) if serve_next else None
    return SubmitResult(assignment, judgment, created=True, following=following)


def _check_ranks(ranks: Sequence[int], slots: int, top: int) -> list[int]:
    if len(ranks) != slots:
        raise InvalidRanking(f"Give every one of the {slots} corrections a rank (got {len(ranks)}).")
    try:
        values = [int(rank) for rank in ranks]
    except (TypeError, ValueError):
        raise InvalidRanking("Ranks must be whole numbers.") from None
    bad = [rank for rank in values if not 1 <= rank <= top]
    if bad:
        raise InvalidRanking(f"Ranks go from 1 (best) to {top} (worst); got {bad[0]}.")
    return values


def submit_ranking(
    token: uuid.UUID,
    judge: AbstractBaseUser,
    ranks: Sequence[int],
    shown: Sequence[str],
    active_time: timedelta | None = None,
    now: datetime | None = None,
    serve_next: bool = False,
    served: Assignment | None = None,
) -> SubmitResult:
    """Store ``ranks`` (by display position, 1 = best .. M, ties allowed) of the candidates whose keys are ``shown``
    (``candidate_keys`` of the serving, as the page posts them) for the screen served as ``token``.

    Idempotent per token: a repeated submit returns the stored judgment with ``created`` False and ignores the
    repeated ranks. Raises StaleScreen, ForeignScreen, CampaignClosed, ChangedScreen (``shown`` are not the
    screen's candidates in display order) or InvalidRanking, storing nothing. ``serve_next``: see SubmitResult;
    ``served``: the assignment as ``assignment_for`` read it, if the caller has it (it is not read again).
    """

    def write(assignment: Assignment, campaign: Campaign, store: Callable[[], Judgment]) -> Judgment:
        if campaign.mode != Campaign.Mode.RANKING:
            raise InvalidRanking("This campaign scores outputs (PRWS); it takes no ranks.")
        slots = _shown_slots(assignment, shown)
        values = _check_ranks(ranks, len(slots), campaign.max_candidates)
        judgment = store()
        CandidateJudgment.objects.bulk_create(
            CandidateJudgment(judgment=judgment, candidate_id=candidate, position=position, rank=rank)
            for (position, candidate), rank in zip(slots, values)
        )
        _schedule_repeat(assignment)
        return judgment

    return _finish(token, judge, write, active_time, now, serve_next, served)


def _check_scores(scores: Sequence[float], meaning_changed: Sequence[bool], slots: int) -> list[float]:
    if len(scores) != slots or len(meaning_changed) != slots:
        raise InvalidScores(f"Score every one of the {slots} corrections (got {len(scores)}).")
    try:
        values = [float(score) for score in scores]
    except (TypeError, ValueError):
        raise InvalidScores("Scores must be numbers.") from None
    bad = [score for score in values if not 0 <= score <= 100]
    if bad:
        raise InvalidScores(f"Scores go from 0 (completely ungrammatical) to 100 (perfect); got {bad[0]:g}.")
    return values


def _check_first_values(first_values: Sequence[float | None] | None, slots: int) -> list[float | None]:
    if first_values is None:
        return [None] * slots
    if len(first_values) != slots:
        raise InvalidScores(f"Give the first value of every one of the {slots} sliders (got {len(first_values)}).")
    if any(value is not None and not 0 <= value <= 100 for value in first_values):
        raise InvalidScores("A slider's first value goes from 0 to 100.")
    return list(first_values)


def submit_scores(
    token: uuid.UUID,
    judge: AbstractBaseUser,
    scores: Sequence[float],
    meaning_changed: Sequence[bool],
    shown: Sequence[str],
    active_time: timedelta | None = None,
    now: datetime | None = None,
    serve_next: bool = False,
    first_values: Sequence[float | None] | None = None,
    served: Assignment | None = None,
) -> SubmitResult:
    """Store PRWS ``scores`` (0-100) and ``meaning_changed`` boxes, by display position, of the candidates whose
    keys are ``shown`` for the screen served as ``token`` (N19 section 4.2, METHODS 11). Each slider was moved:
    its first value after moving (``first_values``, None where unknown) and its last (the score) are stored.

    Idempotent per token like ``submit_ranking``: a repeated submit returns the stored judgment with ``created``
    False. Raises StaleScreen, ForeignScreen, CampaignClosed, ChangedScreen or InvalidScores (also for a ranking
    campaign), storing nothing. ``serve_next`` and ``served`` as in ``submit_ranking``.
    """

    def write(assignment: Assignment, campaign: Campaign, store: Callable[[], Judgment]) -> Judgment:
        if campaign.mode != Campaign.Mode.PRWS:
            raise InvalidScores("This campaign ranks outputs; it takes no scores.")
        slots = _shown_slots(assignment, shown)
        values = _check_scores(scores, meaning_changed, len(slots))
        firsts = _check_first_values(first_values, len(slots))
        judgment = store()
        CandidateJudgment.objects.bulk_create(
            CandidateJudgment(
                judgment=judgment, candidate_id=candidate, position=position, score=score, meaning_changed=bool(box),
                slider_first=first, slider_last=score,
            )
            for (position, candidate), score, box, first in zip(slots, values, meaning_changed, firsts)
        )
        _schedule_repeat(assignment)
        return judgment

    return _finish(token, judge, write, active_time, now, serve_next, served)


def flag_screen(
    token: uuid.UUID,
    judge: AbstractBaseUser,
    reason: str,
    active_time: timedelta | None = None,
    now: datetime | None = None,
    serve_next: bool = False,
    served: Assignment | None = None,
) -> SubmitResult:
    """Store a flag (Appraise ``skipped``) with ``reason`` instead of ranks; idempotent per token like a submit.

    Flagged screens give no pairs, so they are never scheduled for a repeat. ``serve_next`` and ``served`` as in
    ``submit_ranking``.
    """
    reason = reason.strip()
    if not reason:
        raise InvalidRanking("Say why you flag this screen.")
    if len(reason) > FLAG_REASON_MAX:
        raise InvalidRanking(f"Keep the reason under {FLAG_REASON_MAX} characters.")

    def write(assignment: Assignment, campaign: Campaign, store: Callable[[], Judgment]) -> Judgment:
        judgment = store()
        Flag.objects.create(judgment=judgment, reason=reason)
        return judgment

    return _finish(token, judge, write, active_time, now, serve_next, served)


def _schedule_repeat(assignment: Assignment) -> Assignment | None:
    """With probability ``repeat_rate``, show an original screen to its judge again later (G15 section 4.4)."""
    campaign = assignment.screen.campaign
    if campaign.repeat_rate <= 0 or assignment.repeat_of_id is not None or assignment.repeats.exists():
        return None
    rng = campaign_rng(campaign, "repeats", assignment.position)
    if rng.random() >= campaign.repeat_rate:
        return None
    done = _mine(campaign, assignment.judge).filter(status=Assignment.Status.SUBMITTED).count()
    gap = int(rng.integers(REPEAT_GAP_MIN, REPEAT_GAP_MAX + 1))
    return Assignment.objects.create(
        screen=assignment.screen,
        judge=assignment.judge,
        position=assignment.position,
        repeat_of=assignment,
        due_after=done + gap,
    )


def last_submitted(campaign: Campaign, judge: AbstractBaseUser) -> Assignment | None:
    """The judge's most recently submitted assignment in ``campaign``; screens judged elsewhere and imported (no
    ``submitted_at``) are none of them."""
    return (
        _mine(campaign, judge)
        .filter(status=Assignment.Status.SUBMITTED, submitted_at__isnull=False)
        .order_by("-submitted_at", "-id")
        .first()
    )


def undo_last(
    campaign: Campaign, judge: AbstractBaseUser, token: uuid.UUID, now: datetime | None = None
) -> Assignment:
    """Delete the judgment of the judge's last submitted screen (named by ``token``) and serve it again.

    The screen gets a new token, so a re-post of the undone submit is refused as stale; the screen served
    since goes back to the judge's pending assignments (under a new token too) with the undone screen's lease,
    which ``renew_lease`` renews with it: it comes next while the judge goes on, and returns to the pool once
    its lease runs out. Raises QueueError when ``token`` is not the judge's last submitted screen of
    ``campaign``.
    """
    now = now or timezone.now()
    with transaction.atomic():
        lock_membership(campaign.pk, judge)
        last = last_submitted(campaign, judge)
        if last is None or last.token != token:
            raise QueueError("Only the last screen you submitted can be undone, before you submit the next one.")
        if _closed_now(campaign):
            raise CampaignClosed("This campaign is closed; its judgments can no longer change.", campaign)
        for served in _mine(campaign, judge).filter(status=Assignment.Status.SERVED).select_for_update():
            served.status = Assignment.Status.PENDING
            served.served_at = None
            served.token = uuid.uuid4()
            served.lease_expires_at = now + lease_length()
            served.save(update_fields=["status", "served_at", "token", "lease_expires_at"])
        Judgment.objects.filter(assignment=last).delete()
        last.submitted_at = None
        return _serve(last, judge, now)
