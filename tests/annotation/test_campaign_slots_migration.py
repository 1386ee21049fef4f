"""Migration 0029 (``CampaignSlots``): existing campaigns get the count and id sum of their original slots, as
counting every slot gives them, repeats and other campaigns' slots left out."""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotation.models import CampaignSlots
from annotation.services.kept_slots import slot_totals
from annotation.services.screen_jobs import request_screens

from .factories import judge, small_campaign
from .test_kept_slots import counted, imported
from .test_kept_tallies import submit_one

BEFORE = [("annotation", "0028_segment_multiplicities")]
AFTER = [("annotation", "0029_campaign_slots")]


@pytest.mark.django_db(transaction=True)
def test_migrating_counts_each_campaigns_original_slots(back_at_the_latest):
    repeated = small_campaign("repeated", redundancy=2, sampling="uniform", repeat_rate=1.0)
    request_screens(repeated, 5)
    ann = judge("ann", repeated)
    for _ in range(3):
        submit_one(repeated, ann)
    imported(repeated, "cyd", range(2))
    other = small_campaign("other", sampling="uniform")
    request_screens(other, 3)
    empty = small_campaign("empty")
    expected = {campaign.name: counted(campaign) for campaign in (repeated, other, empty)}
    assert expected["repeated"].repeats > 0 and expected["empty"].originals == 0
    MigrationExecutor(connection).migrate(BEFORE)
    MigrationExecutor(connection).migrate(AFTER)
    assert {campaign.name: slot_totals(campaign) for campaign in (repeated, other, empty)} == expected
    assert CampaignSlots.objects.filter(campaign=empty).count() == 0, "no row: no slot yet"
