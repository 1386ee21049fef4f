"""Tallies over a campaign's judgments, kept between requests and extended by the judgments stored since.

The live dashboard, the campaign page, the leaderboard and active selection ask for per-judge tallies (rater QC,
attention checks, time per screen) on every new judgment; reading every judgment each time costs seconds at
100,000 rankings. A kept tally is cached per campaign with the last judgment id it holds, and the count and id sum
of the judgments up to that id: a call reads one aggregate row, and the rows of the judgments stored since. When a
judgment it holds was deleted (an undo) or one with a lower id committed late, that count and sum differ and the
tally is taken again from all judgments; so is it when its ``basis`` (what else it depends on: decisions,
thresholds) changed. Judgments are never changed in place, only stored or deleted.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.core.cache import cache
from django.db.models import Count, Max, Q, Sum

from ..models import Campaign, Judgment

T = TypeVar("T")

#: How long a kept tally stays cached without a call.
KEPT_SECONDS = 24 * 3600


@dataclass
class _Kept(Generic[T]):
    basis: object
    last_id: int
    count: int
    id_sum: int
    tally: T


def kept_tally(
    campaign: Campaign,
    name: str,
    basis: object,
    start: Callable[[], T],
    add: Callable[[T, int, int], None],
) -> T:
    """The campaign's tally ``name`` over all its judgments now: the kept one extended by ``add(tally, after,
    up_to)`` with the judgments of ids in ``(after, up_to]``, or ``start()`` extended by all of them (module
    docstring). ``basis`` must compare equal while what the tally depends on besides the judgments is unchanged."""
    key = f"kept-tally:{name}:{campaign.pk}:{campaign.created_at.timestamp()}"
    kept: _Kept | None = cache.get(key)
    held = kept.last_id if kept is not None else 0
    totals = Judgment.objects.filter(assignment__campaign=campaign).aggregate(
        last=Max("id"), count=Count("id"), id_sum=Sum("id"),
        held_count=Count("id", filter=Q(id__lte=held)), held_sum=Sum("id", filter=Q(id__lte=held)),
    )
    fresh = kept is None or kept.basis != basis or (kept.count, kept.id_sum) != (totals["held_count"],
                                                                                totals["held_sum"] or 0)
    if fresh:
        kept = _Kept(basis, 0, 0, 0, start())
    last = totals["last"] or 0
    if fresh or last != kept.last_id:
        add(kept.tally, kept.last_id, last)
        kept.last_id, kept.count, kept.id_sum = last, totals["count"], totals["id_sum"] or 0
        cache.set(key, kept, KEPT_SECONDS)
    return kept.tally
