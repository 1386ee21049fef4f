"""Where a campaign's unserved screens start (``ServedPrefix``), kept so that the organizer's list of screens not
served yet (``screen_list``) reads the unserved screens only, not the served ones before them.

Judges are given slots in position order, which is screen number order (``screens.write_screens``), so the screens
served so far are the first ones: a list of the unserved screens that walked the screen numbers from 0 checked each
served screen first (0.25 s at 200,000 served screens, growing with them). Every screen numbered below the kept
``below`` has a slot with a judge; the list reads from there.

- ``served_below`` moves ``below`` forward to the first unserved screen once ``MOVE_AFTER`` screens or more were
  served past it (fewer cost the list less to read than a write and its commit). When it moves, it takes the row's
  lock first and reads the screens after that, so it sees a deletion that committed before, and one that comes
  later waits for it.
- Only deleting a judge's account makes a served screen unserved (a slot never loses its judge otherwise; slots
  are deleted only with their judge or their campaign): ``forget_judge_screens`` moves ``below`` back to the first
  of the judge's screens in the deletion's transaction, under the same lock (the user model's ``pre_delete``).
"""
from __future__ import annotations

from django.db import transaction
from django.db.models import F, Min, Subquery, Value
from django.db.models.functions import Coalesce, Least

from ..models import Assignment, Campaign, Screen, ServedPrefix

#: Served screens past ``below`` from which the list moves it forward: the list reads these few after it until then.
MOVE_AFTER = 1_000


def _kept_and_first_unserved(campaign_id: int) -> tuple[int, int]:
    """The kept ``below`` (0 without a row) and the number of the campaign's first unserved screen from there on,
    or, when none is, the number its next screen will get: one statement, so a screen written meanwhile is in
    neither count and never passed."""
    kept = Coalesce(Subquery(ServedPrefix.objects.filter(campaign_id=campaign_id).values("below")), 0)
    screens = Screen.objects.filter(campaign_id=campaign_id)
    first = screens.filter(number__gte=kept).unserved().order_by("number").values("number")[:1]
    last = screens.order_by("-number").values("number")[:1]
    row = Campaign.objects.filter(pk=campaign_id).values_list(kept, Subquery(first), Subquery(last)).get()
    below, found, last_number = row
    if found is not None:
        return below, found
    return below, below if last_number is None else last_number + 1


def served_below(campaign: Campaign) -> int:
    """A number below which every screen of ``campaign`` is served, fewer than ``MOVE_AFTER`` screens before the
    first unserved one (``below``, moved there when it was further back)."""
    kept, first = _kept_and_first_unserved(campaign.pk)
    if first - kept < MOVE_AFTER:
        return kept
    ServedPrefix.objects.get_or_create(campaign=campaign)
    with transaction.atomic():
        locked = ServedPrefix.objects.filter(campaign=campaign)
        locked.update(below=F("below"))
        first = _kept_and_first_unserved(campaign.pk)[1]
        locked.update(below=first)
    return first


def forget_judge_screens(sender: type, instance, **kwargs) -> None:
    """Move ``below`` back to the first screen of the judge ``instance`` in each of their campaigns: their account is
    being deleted with its slots, and a screen that only they were given is unserved again (the user model's
    ``pre_delete``, in the deletion's transaction, which holds each row's lock until it commits)."""
    rows = (
        Assignment.objects.filter(judge=instance).values("campaign").annotate(first=Min("screen__number"))
        .order_by().values_list("campaign", "first")
    )
    for campaign_id, first in rows:
        ServedPrefix.objects.get_or_create(campaign_id=campaign_id)
        ServedPrefix.objects.filter(campaign_id=campaign_id).update(below=Least(F("below"), Value(first)))
