"""The short queue of a campaign with active selection (issue 13), as the judge queue sees it.

A campaign whose ``selection`` is active gets its screens a few at a time: the ranking app chooses them where the
judgments so far leave the system ranking most uncertain and writes them as ordinary screens with pool slots
(``ranking.active_queue``). The judge queue serves them like sampled screens (redundancy, repeats, one served
screen per judge, never a screen twice to one judge) and never waits on the choice: whenever it serves a judge of
such a campaign and fewer than ``REFILL_BELOW`` screens are still open in the pool, it sends ``screens_wanted``,
and a receiver of the ranking app tops the queue up to ``QUEUE_SCREENS`` open screens in the background after the
transaction commits. The two apps meet only in the database and in this signal: ``annotation`` imports nothing of
``ranking``.
"""
from __future__ import annotations

from django.dispatch import Signal

from ..models import Assignment, Campaign

QUEUE_SCREENS = 10
"""Open screens (screens with an unclaimed pool slot) the background refill keeps ahead of the judges."""
REFILL_BELOW = 5
"""The queue asks for more screens when fewer than this many are open."""

screens_wanted = Signal()
"""Sent with ``campaign=`` when a campaign with active selection runs low on open screens."""


def open_screens(campaign: Campaign, cap: int) -> int:
    """How many of the campaign's screens have an unclaimed pool slot, counted up to ``cap`` (from the pool's
    partial index, so the cost does not grow with the campaign)."""
    pool = Assignment.objects.filter(
        campaign=campaign, judge__isnull=True, status=Assignment.Status.PENDING, repeat_of__isnull=True
    )
    return pool.order_by("screen_id").values("screen_id").distinct()[:cap].count()


def ask_for_screens(campaign: Campaign) -> bool:
    """For a campaign with active selection whose open screens ran below ``REFILL_BELOW``: send ``screens_wanted``
    (the refill starts after the current transaction commits); whether it was sent."""
    if campaign.selection != Campaign.Selection.ACTIVE or campaign.closed_at is not None:
        return False
    if open_screens(campaign, REFILL_BELOW) >= REFILL_BELOW:
        return False
    screens_wanted.send(sender=Campaign, campaign=campaign)
    return True
