"""Migration 0028 (``Segment.multiplicities``): existing segments get their candidates' system counts, counted from
their outputs as screen planning counted them on each request; a new import and a control candidate keep the same."""
from __future__ import annotations

import numpy as np
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotation.models import Segment
from annotation.services.attention import add_attention_checks
from annotation.services.screens import create_screens

from .candidates_reference import segment_candidates
from .factories import small_campaign

BEFORE = [("annotation", "0027_guidelines_limit_wording")]
AFTER = [("annotation", "0028_segment_multiplicities")]


def kept(campaign) -> list[list[int]]:
    return list(Segment.objects.filter(campaign=campaign).order_by("line").values_list("multiplicities", flat=True))


@pytest.mark.django_db(transaction=True)
def test_segments_keep_their_candidates_system_counts_and_migrating_counts_them_alike(back_at_the_latest):
    controls = small_campaign("controls", sampling="uniform", control_share=0.5, seed=3)
    create_screens(controls, 12)
    assert add_attention_checks(controls, 1.0, np.random.default_rng(1), system_name="attention") > 0
    plain = small_campaign("plain")
    counted = {campaign.name: segment_candidates(campaign)[2] for campaign in (controls, plain)}
    assert counted["plain"] == [[1, 1, 2], [1, 1, 1, 1], [1, 1, 2], [3, 1], [1, 1, 1, 1], [2, 1, 1]]
    assert sum(map(len, counted["controls"])) > sum(map(len, counted["plain"])), "control candidates were added"
    assert {campaign.name: kept(campaign) for campaign in (controls, plain)} == counted
    MigrationExecutor(connection).migrate(BEFORE)
    MigrationExecutor(connection).migrate(AFTER)
    assert {campaign.name: kept(campaign) for campaign in (controls, plain)} == counted
