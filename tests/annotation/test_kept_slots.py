"""A campaign's slots counted without reading them (``kept_slots``): the kept counts of its original slots follow
every writer and the deletion of a judge's account, and the counts from the indexes agree with counting every slot."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Q, Sum
from django.urls import reverse

from annotation.models import Assignment, Campaign, CampaignSlots, Candidate
from annotation.services import queue
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens
from annotation.services.kept_slots import SlotTotals, slot_totals
from annotation.services.kept_tallies import SubmittedSlots
from annotation.services.screen_jobs import request_screens

from .factories import judge, small_campaign
from .test_kept_tallies import submit_one

pytestmark = pytest.mark.django_db


def counted(campaign: Campaign) -> SlotTotals:
    """The campaign's slot totals counted over every slot of it, as the organizer's pages once counted them."""
    original, submitted = Q(repeat_of__isnull=True), Q(status=Assignment.Status.SUBMITTED)
    taken = Q(judge__isnull=False)
    totals = Assignment.objects.filter(campaign=campaign).aggregate(
        originals=Count("id", filter=original), original_ids=Sum("id", filter=original),
        repeats=Count("id", filter=~original), claimed=Count("id", filter=taken),
        claimed_originals=Count("id", filter=original & taken),
        submitted_originals=Count("id", filter=original & submitted),
        submitted=Count("id", filter=submitted), submitted_ids=Sum("id", filter=submitted),
    )
    slots = SubmittedSlots(totals.pop("submitted"), totals.pop("submitted_ids") or 0)
    return SlotTotals(**{**totals, "original_ids": totals["original_ids"] or 0}, submitted_slots=slots)


def imported(campaign: Campaign, judge_name: str, lines: range) -> None:
    """Judgments of ``judge_name`` of the sentences at ``lines``, imported (each its own screen and slot)."""
    screens = []
    for line in lines:
        shown = Candidate.objects.filter(segment__campaign=campaign, segment__line=line).order_by("id")[:2]
        screens.append(JudgedScreen(line=line, judge=judge_name,
                                    candidates=[JudgedCandidate(c.pk, rank=rank) for rank, c in enumerate(shown, 1)]))
    with transaction.atomic():
        write_judged_screens(campaign, screens)


def test_the_kept_counts_follow_screens_imports_repeats_and_a_deleted_judge():
    campaign = small_campaign("kept", redundancy=2, sampling="uniform", repeat_rate=1.0)
    other = small_campaign("other", sampling="uniform")
    assert slot_totals(campaign) == counted(campaign) and slot_totals(campaign).total == 0
    request_screens(campaign, 5)
    request_screens(other, 3)
    ann, ben = judge("ann", campaign), judge("ben", campaign)
    for rater in (ann, ann, ben):
        submit_one(campaign, rater)
    queue.next_assignment(campaign, ben)
    imported(campaign, "cyd", range(3))
    totals = slot_totals(campaign)
    assert totals == counted(campaign)
    assert (totals.originals, totals.repeats, totals.claimed, totals.submitted_slots.count) == (13, 3, 10, 6)
    assert (totals.claimed_originals, totals.submitted_originals) == (4 + 3, 3 + 3) and totals.total == 16
    get_user_model().objects.get(username="ann").delete()
    assert slot_totals(campaign) == counted(campaign)
    assert (slot_totals(campaign).originals, slot_totals(campaign).repeats) == (11, 1)
    assert slot_totals(other) == counted(other) and slot_totals(other).originals == 3
    assert CampaignSlots.objects.count() == 2


def test_the_admin_deletes_no_slot_and_nothing_of_the_test_set(admin_client):
    """A slot leaves only with its campaign or its judge's account, which the kept counts follow; so does the test
    set: a sentence took its screens and their slots with it (the kept counts did not follow), and a system or an
    output changes the multiplicities the sentences keep for sampling."""
    campaign = small_campaign("admin", sampling="uniform")
    request_screens(campaign, 1)
    slot = Assignment.objects.get(campaign=campaign)
    segment = slot.screen.segment
    candidate = segment.candidates.first()
    rows = {"assignment": slot, "segment": segment, "document": segment.document, "candidate": candidate,
            "output": candidate.outputs.first(), "system": campaign.systems.first()}
    for name, row in rows.items():
        response = admin_client.post(reverse(f"admin:annotation_{name}_delete", args=[row.pk]), {"post": "yes"})
        assert response.status_code == 403, name
        assert type(row).objects.filter(pk=row.pk).exists(), name
    assert slot_totals(campaign) == counted(campaign)
