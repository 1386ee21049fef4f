"""A campaign's slots counted without reading them: the original slots from the counts kept with them
(``CampaignSlots``), the slots judges took (originals and repeats apart) and the submitted ones from their partial
indexes alone (``assignment_taken``, ``assignment_submitted``), so that the organizer's page and each poll of its
dashboard read as much at 1,000,000 slots as at a hundred, beyond the slots judges have taken.

The kept counts change only where original slots are written or deleted, in the same transaction: the screen
writers add theirs (``count_written_slots``, under the campaign's lock); deleting a judge's account, which deletes
its slots, takes them off (``forget_judge_slots``, before the deletion). Submits change no kept count (a repeat is
written by a submit, and counted from the index), so concurrent submits cannot make them drift.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Count, F, Q, Sum

from ..models import Assignment, Campaign, CampaignSlots
from .kept_tallies import SubmittedSlots, submitted_slots


def count_written_slots(campaign: Campaign, ids: Sequence[int]) -> None:
    """Add the original slots of ``ids``, just written, to the campaign's kept counts (in the transaction that wrote
    them, under the campaign's lock, which every writer of its slots holds)."""
    if not ids:
        return
    kept = CampaignSlots.objects.filter(campaign=campaign)
    if not kept.update(originals=F("originals") + len(ids), original_ids=F("original_ids") + sum(ids)):
        CampaignSlots.objects.create(campaign=campaign, originals=len(ids), original_ids=sum(ids))


def forget_judge_slots(sender: type, instance, **kwargs) -> None:
    """Take the original slots of the judge ``instance``, whose account is being deleted with them, off their
    campaigns' kept counts (the user model's ``pre_delete``, in the deletion's transaction)."""
    rows = (
        Assignment.objects.filter(judge=instance, repeat_of__isnull=True).values("campaign")
        .annotate(n=Count("id"), ids=Sum("id")).order_by().values_list("campaign", "n", "ids")
    )
    for campaign_id, n, ids in rows:
        CampaignSlots.objects.filter(campaign_id=campaign_id).update(
            originals=F("originals") - n, original_ids=F("original_ids") - ids
        )


@dataclass(frozen=True)
class SlotTotals:
    """A campaign's slots at one moment: the ``originals`` (non-repeat) and the sum of their ids, ``repeats``;
    of all of them those ``claimed`` (given to a judge) and ``submitted`` (``submitted_slots``), and of the
    originals those ``claimed_originals`` and ``submitted_originals``."""

    originals: int
    original_ids: int
    repeats: int
    claimed: int
    claimed_originals: int
    submitted_originals: int
    submitted_slots: SubmittedSlots

    @property
    def total(self) -> int:
        """All the campaign's slots, repeats included."""
        return self.originals + self.repeats


def slot_totals(campaign: Campaign) -> SlotTotals:
    """The campaign's ``SlotTotals``: the kept counts, one aggregate over the index of the slots judges took and the
    submitted slots from theirs (every slot with a judge is in the first: repeats always have one)."""
    kept = CampaignSlots.objects.filter(campaign=campaign).values_list("originals", "original_ids").first()
    original = Q(repeat_of__isnull=True)
    # Counting a column of the index (never null), not the id, which it does not hold.
    taken = Assignment.objects.filter(campaign=campaign, judge__isnull=False).aggregate(
        claimed=Count("campaign"), claimed_originals=Count("campaign", filter=original),
        submitted_originals=Count("campaign", filter=original & Q(status=Assignment.Status.SUBMITTED)),
    )
    originals, original_ids = kept or (0, 0)
    return SlotTotals(originals, original_ids, taken["claimed"] - taken["claimed_originals"], taken["claimed"],
                      taken["claimed_originals"], taken["submitted_originals"], submitted_slots(campaign))
