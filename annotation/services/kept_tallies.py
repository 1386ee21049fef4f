"""Tallies over a campaign's judgments, kept between requests and extended by the judgments stored since.

The live dashboard, the campaign page, the leaderboard and active selection ask for per-judge tallies (rater QC,
attention checks, judgments and time per screen) on every new judgment; reading every judgment each time costs
seconds at 100,000 rankings. A kept tally is cached per campaign with the last judgment id it holds, how many
judgments it holds and the sum of their slots' ids. It is checked against the campaign's submitted slots
(``submitted_slots``: how many and their id sum, read from a partial index alone, once per request and shared by
every tally the request asks for): each submitted slot has exactly one judgment, so the kept judgments and those
stored after the last one it holds (read by id, a few rows) make up the submitted slots unless judgments it holds
changed. Then the tally reads only the new ones. When a judgment it holds is gone (an undo serves its slot again,
and a new submit of that slot is a new judgment) or one with a lower id committed late, they do not, and the
tally is taken again from all judgments; so is it when its ``basis`` (what else it depends on: decisions,
thresholds) changed. Judgments are never changed in place, only stored or deleted with their slot's status.
A judgment that commits late or is undone while the tally reads the new ones may be seen by some reads and not by
the count, so the count is checked again once they are read, and the tally is kept only when it still holds.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.core.cache import cache
from django.db.models import Count, Max, Sum

from ..models import Assignment, Campaign, Judgment

T = TypeVar("T")

#: How long a kept tally stays cached without a call.
KEPT_SECONDS = 24 * 3600
#: Reads of the submitted slots before a tally that does not match them is taken again from all judgments.
ATTEMPTS = 3


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


@dataclass
class KeptTally(Generic[T]):
    """A tally of the campaign's ``count`` judgments with ids up to ``last_id`` (0: none), whose slots' ids sum to
    ``slot_sum``."""

    basis: object
    tally: T
    last_id: int = 0
    count: int = 0
    slot_sum: int = 0


def judgments_after(campaign: Campaign, after: int) -> dict:
    """The campaign's judgments with an id above ``after``: how many (``n``), the sum of their slots' ids (``sum``),
    the last id (``last``; ``after`` for none)."""
    totals = Judgment.objects.filter(assignment__campaign=campaign, id__gt=after).aggregate(
        n=Count("id"), sum=Sum("assignment_id"), last=Max("id")
    )
    return {"n": totals["n"], "sum": totals["sum"] or 0, "last": totals["last"] or after}


def added_since(campaign: Campaign, last_id: int, count: int, slot_sum: int, slots: SubmittedSlots) -> dict | None:
    """The totals (``judgments_after``) of the judgments stored after ``last_id`` if they are all that changed since
    a tally of ``count`` judgments whose slots' ids sum to ``slot_sum``: with the kept ones they make up the
    submitted ``slots``. None when judgments the tally holds changed (an undo, a late commit). A judgment stored
    between reading the slots and the judgments is caught by reading the slots again."""
    for _ in range(ATTEMPTS):
        added = judgments_after(campaign, last_id)
        if (count + added["n"], slot_sum + added["sum"]) == (slots.count, slots.id_sum):
            return added
        fresh = submitted_slots(campaign)
        if fresh == slots:
            return None
        slots = fresh
    return None


def unchanged(campaign: Campaign, after: int, added: dict) -> bool:
    """Whether the judgments with ids in ``(after, added["last"]]`` are still the ones ``added``
    (``judgments_after`` ``after``) counted: a judgment of a lower id that committed late, or one undone, after they
    were counted changes them, and a read between the count and this check may have seen it."""
    again = Judgment.objects.filter(assignment__campaign=campaign, id__gt=after, id__lte=added["last"]).aggregate(
        n=Count("id"), sum=Sum("assignment_id")
    )
    return (again["n"], again["sum"] or 0) == (added["n"], added["sum"])


def kept_tally(
    campaign: Campaign,
    name: str,
    basis: object,
    start: Callable[[], T],
    add: Callable[[T, int, int], None],
    slots: SubmittedSlots | None = None,
) -> KeptTally[T]:
    """The campaign's tally ``name`` over all its judgments now: the kept one extended by ``add(tally, after,
    up_to)`` with the judgments of ids in ``(after, up_to]``, or ``start()`` extended by all of them (module
    docstring). ``basis`` must compare equal while what the tally depends on besides the judgments is unchanged;
    ``slots`` are the campaign's ``submitted_slots`` (read here when not given).

    A tally is kept only when the judgments ``add`` read are those counted (``unchanged``); otherwise it is taken
    again from all judgments (at most ``ATTEMPTS`` times; the last one is returned, not kept)."""
    slots = submitted_slots(campaign) if slots is None else slots
    key = f"kept-tally:{name}:{campaign.pk}:{campaign.created_at.timestamp()}"
    read: KeptTally | None = cache.get(key)
    for _ in range(ATTEMPTS):
        kept = read if read is not None and read.basis == basis else None
        added = None if kept is None else added_since(campaign, kept.last_id, kept.count, kept.slot_sum, slots)
        if added is None:
            kept, added = KeptTally(basis, start()), judgments_after(campaign, 0)
        elif not added["n"]:
            return kept
        after = kept.last_id
        add(kept.tally, after, added["last"])
        kept.last_id, kept.count, kept.slot_sum = added["last"], kept.count + added["n"], kept.slot_sum + added["sum"]
        if unchanged(campaign, after, added):
            cache.set(key, kept, KEPT_SECONDS)
            return kept
        read = None
    return kept
