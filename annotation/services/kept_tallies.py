"""Tallies over a campaign's judgments, kept between requests and extended by the judgments stored since.

The live dashboard, the campaign page, the leaderboard and active selection ask for per-judge tallies (rater QC,
attention checks, judgments and time per screen) on every new judgment; reading every judgment each time costs
seconds at 100,000 rankings. A kept tally is cached per campaign with the last judgment id it holds, how many
judgments it holds, the sum of their slots' ids and the ids of the last ``RECENT`` of them. It is checked against
the campaign's submitted slots (``submitted_slots``: how many and their id sum, read from a partial index alone,
once per request and shared by every tally the request asks for): each submitted slot has exactly one judgment, so
the kept judgments and those stored since make up the submitted slots unless judgments it holds changed. Then the
tally reads only the new ones.

Judgments stored since are those after the last id it holds and, among its recent ones, those it does not hold:
concurrent submits take their ids in one order and commit in another, so under load a judgment often commits
after one of a higher id was counted (a late commit); it is found among the recent ids and added by itself. When a
judgment it holds is gone (an undo serves its slot again, and a new submit of that slot is a new judgment) or one
committed later than ``RECENT`` judgments after it, the counts do not add up and the tally is taken again from all
judgments; so is it when its ``basis`` (what else it depends on: decisions, thresholds) changed. Judgments are
never changed in place, only stored or deleted with their slot's status. A judgment that commits late or is undone
while the tally reads the new ones may be seen by some reads and not by the count, so the count is checked again
once they are read, and the tally is kept only when it still holds. On PostgreSQL a tally reads in one snapshot
(``one_snapshot``), where the count and the reads always agree: under a steady stream of submits, reads in
separate snapshots each saw more judgments than the slots read before them, and three attempts in a row could
fail, sending every tally back to all judgments (``benchmarks/dashboard_under_load.py``).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Count, Max, QuerySet, Sum

from ..models import Assignment, Campaign, Judgment

T = TypeVar("T")

#: How long a kept tally stays cached without a call.
KEPT_SECONDS = 24 * 3600
#: Reads of the submitted slots before a tally that does not match them is taken again from all judgments.
ATTEMPTS = 3
#: How many of the last judgments a tally holds it keeps the ids of, to find the judgments that commit late among
#: them: more than the submits that can be in flight at once (each commits within its request).
RECENT = 1000


@contextmanager
def one_snapshot() -> Iterator[None]:
    """The block's reads in one snapshot of the database (PostgreSQL: a REPEATABLE READ, READ ONLY transaction): the
    submitted slots and the judgments read after them agree, however many submits commit meanwhile. Inside a
    transaction already, or on SQLite (whose writers take the database one at a time), the block reads as the
    enclosing code does."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


@dataclass(frozen=True)
class SubmittedSlots:
    """A campaign's submitted slots at one moment: how many and the sum of their ids, read from the partial index
    ``assignment_submitted`` alone."""

    count: int
    id_sum: int


def submitted_slots(campaign: Campaign) -> SubmittedSlots:
    """The campaign's submitted slots now (one aggregate on an index, whatever the campaign's size)."""
    slots = Assignment.objects.filter(campaign=campaign, status=Assignment.Status.SUBMITTED).aggregate(
        n=Count("id"), sum=Sum("id")
    )
    return SubmittedSlots(slots["n"], slots["sum"] or 0)


@dataclass(kw_only=True)
class Held:
    """The judgments a kept count holds: those with ids up to ``last_id`` (0: none) it counted, ``count`` of them,
    whose slots' ids sum to ``slot_sum``, and the ids of the last ``RECENT`` of them (``recent``, in order)."""

    last_id: int = 0
    count: int = 0
    slot_sum: int = 0
    recent: tuple[int, ...] = ()

    @property
    def floor(self) -> int:
        """The id below its recent ones: judgments above it that it does not hold are new or committed late."""
        return self.recent[0] - 1 if self.recent else self.last_id


@dataclass
class KeptTally(Held, Generic[T]):
    """A tally of the campaign's judgments it holds (``Held``); ``basis`` is what else it depends on."""

    basis: object
    tally: T


def counted_judgments(campaign: Campaign) -> QuerySet[Judgment]:
    """The campaign's judgments as the tallies count them: through their slots, which are submitted (a slot is
    submitted exactly while it has a judgment), so that PostgreSQL finds the campaign's slots in the partial index
    ``assignment_submitted`` rather than among all its slots, pool and served ones (or every campaign's)."""
    return Judgment.objects.filter(assignment__campaign=campaign, assignment__status=Assignment.Status.SUBMITTED)


def judgments_after(campaign: Campaign, after: int) -> dict:
    """The campaign's judgments with an id above ``after``: how many (``n``), the sum of their slots' ids (``sum``),
    the last id (``last``; ``after`` for none)."""
    totals = counted_judgments(campaign).filter(id__gt=after).aggregate(
        n=Count("id"), sum=Sum("assignment_id"), last=Max("id")
    )
    return {"n": totals["n"], "sum": totals["sum"] or 0, "last": totals["last"] or after}


def unchanged(campaign: Campaign, after: int, added: dict) -> bool:
    """Whether the judgments with ids in ``(after, added["last"]]`` are still the ones ``added``
    (``judgments_after`` ``after``) counted: a judgment of a lower id that committed late, or one undone, after they
    were counted changes them, and a read between the count and this check may have seen it."""
    again = counted_judgments(campaign).filter(id__gt=after, id__lte=added["last"]).aggregate(
        n=Count("id"), sum=Sum("assignment_id")
    )
    return (again["n"], again["sum"] or 0) == (added["n"], added["sum"])


@dataclass(frozen=True)
class Stored:
    """The judgments stored since a kept tally: ``late`` ids among its recent ones (and their slots' ``late_sum``),
    and the totals (``judgments_after``) of those ``after`` its last id. ``window`` judgments, whose slots' ids sum
    to ``window_sum``, have ids in ``(floor, last_id]``: those the reads looked at besides the ones after."""

    late: tuple[int, ...]
    late_sum: int
    after: dict
    floor: int
    window: int = 0
    window_sum: int = 0


def _adds_up(kept: Held, slots: SubmittedSlots, *stored: tuple[int, int]) -> bool:
    """Whether the judgments ``kept`` holds and those ``stored`` (how many, the sum of their slots' ids) are the
    submitted ``slots``."""
    return (kept.count + sum(n for n, _ in stored), kept.slot_sum + sum(total for _, total in stored)) == (
        slots.count, slots.id_sum)


def stored_since(campaign: Campaign, kept: Held, slots: SubmittedSlots) -> Stored | None:
    """The judgments stored since ``kept`` if, with those it holds, they make up the submitted ``slots``; None when
    judgments it holds changed (an undo, a commit later than its recent ids). The recent ids are read only when the
    counts do not add up without them. A judgment stored between reading the slots and the judgments is caught by
    reading the slots again."""
    held = set(kept.recent)
    for _ in range(ATTEMPTS):
        after = judgments_after(campaign, kept.last_id)
        if _adds_up(kept, slots, (after["n"], after["sum"])):
            return Stored((), 0, after, kept.last_id)
        window = dict(_judgments_between(campaign, kept.floor, kept.last_id).values_list("id", "assignment_id"))
        if not held <= window.keys():
            return None
        late = tuple(sorted(window.keys() - held))
        late_sum = sum(window[pk] for pk in late)
        if late and _adds_up(kept, slots, (len(late), late_sum), (after["n"], after["sum"])):
            return Stored(late, late_sum, after, kept.floor, len(window), sum(window.values()))
        fresh = submitted_slots(campaign)
        if fresh == slots:
            return None
        slots = fresh
    return None


def _judgments_between(campaign: Campaign, after: int, up_to: int) -> QuerySet[Judgment]:
    """The campaign's judgments with ids in ``(after, up_to]``, found by their ids and their slots' primary keys: a
    range of about ``RECENT`` judgments. Not through ``counted_judgments``: joined with the campaign's
    submitted slots in their partial index, PostgreSQL read every submitted slot of the campaign again for each
    judgment of the range (390 blocks for 30 judgments at 1,000,000 screens)."""
    return Judgment.objects.filter(assignment__campaign=campaign, id__gt=after, id__lte=up_to)


def recent_ids(campaign: Campaign, held: Held, stored: Stored) -> tuple[int, ...]:
    """The ids of the last ``RECENT`` judgments ``held`` holds once it holds those ``stored`` since: its recent
    ones, the late ones and the last ``RECENT`` of those after its last id."""
    after = _judgments_between(campaign, held.last_id, stored.after["last"]).order_by("-id")
    return tuple(sorted({*held.recent, *stored.late, *after.values_list("id", flat=True)[:RECENT]}))[-RECENT:]


def kept_tally(
    campaign: Campaign,
    name: str,
    basis: object,
    start: Callable[[], T],
    add: Callable[[T, int, int], None],
    slots: SubmittedSlots | None = None,
) -> KeptTally[T]:
    """The campaign's tally ``name`` over all its judgments now: the kept one extended by ``add(tally, after,
    up_to)`` with the judgments of ids in ``(after, up_to]`` (each late one by itself, then the new ones), or
    ``start()`` extended by all of them (module docstring). ``basis`` must compare equal while what the tally
    depends on besides the judgments is unchanged; ``slots`` are the campaign's ``submitted_slots`` (read here when
    not given).

    A tally is kept only when the judgments ``add`` read are those counted (``unchanged``); otherwise the kept one
    is extended again (at most ``ATTEMPTS`` times; the last one is returned, not kept). Reads in one snapshot
    (``one_snapshot``); ``slots`` read before it are read again there when the tally does not match them."""
    with one_snapshot():
        slots = submitted_slots(campaign) if slots is None else slots
        key = f"kept-tally:{name}:{campaign.pk}:{campaign.created_at.timestamp()}"
        for _ in range(ATTEMPTS):
            read: KeptTally | None = cache.get(key)
            kept = read if read is not None and read.basis == basis else None
            stored = None if kept is None else stored_since(campaign, kept, slots)
            if stored is None:
                kept, stored = KeptTally(basis, start()), Stored((), 0, judgments_after(campaign, 0), 0)
            elif not stored.late and not stored.after["n"]:
                return kept
            _add_stored(campaign, kept, stored, add)
            after = stored.after
            if unchanged(campaign, stored.floor, {"n": stored.window + after["n"],
                                                  "sum": stored.window_sum + after["sum"], "last": kept.last_id}):
                cache.set(key, kept, KEPT_SECONDS)
                return kept
        return kept


def _add_stored(campaign: Campaign, kept: KeptTally[T], stored: Stored, add: Callable[[T, int, int], None]) -> None:
    """Extend ``kept`` by the judgments ``stored`` since: each late one by itself, then the new ones; keep the ids
    of its last ``RECENT`` judgments."""
    after = stored.after
    for pk in stored.late:
        add(kept.tally, pk - 1, pk)
    if after["n"]:
        add(kept.tally, kept.last_id, after["last"])
    kept.recent = recent_ids(campaign, kept, stored)
    kept.count += len(stored.late) + after["n"]
    kept.slot_sum += stored.late_sum + after["sum"]
    kept.last_id = after["last"]
