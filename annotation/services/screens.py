"""Creating a campaign's screens and their pool of assignment slots (METHODS 2, G15 section 4.1).

Screens are planned by ``sampling.plan_screens`` from the campaign's sampling method, M and seed, and written
with ``redundancy`` unclaimed Assignment slots each (``judge`` is NULL until a judge claims one; see
``queue``). A batch of screens is reproducible: its random generator is seeded with the campaign's seed and
the number of the batch's first screen, so the same seed and the same calls give the same screens.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np
from django.db import transaction
from django.db.models import Count, Max

from ..models import Assignment, Campaign, Candidate, Screen, ScreenCandidate, Segment
from .sampling import plan_screens


def segment_candidates(campaign: Campaign) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """The campaign's segments in line order with their candidates (by id) and each candidate's system count."""
    segment_ids = list(Segment.objects.filter(campaign=campaign).order_by("line").values_list("id", flat=True))
    candidates: dict[int, list[int]] = defaultdict(list)
    multiplicities: dict[int, list[int]] = defaultdict(list)
    rows = (
        Candidate.objects.filter(segment__campaign=campaign)
        .annotate(n=Count("outputs"))
        .order_by("segment_id", "id")
        .values_list("segment_id", "id", "n")
    )
    for segment_id, candidate_id, n in rows:
        candidates[segment_id].append(candidate_id)
        multiplicities[segment_id].append(n)
    return segment_ids, [candidates[s] for s in segment_ids], [multiplicities[s] for s in segment_ids]


def next_screen_number(campaign: Campaign) -> int:
    """The number the campaign's next screen gets (screens are numbered 0, 1, ... in creation order)."""
    last = Screen.objects.filter(campaign=campaign).aggregate(n=Max("number"))["n"]
    return 0 if last is None else last + 1


def next_slot_position(campaign: Campaign) -> int:
    """The position the campaign's next assignment slot gets (slots are handed out in position order)."""
    last = Assignment.objects.filter(screen__campaign=campaign).aggregate(n=Max("position"))["n"]
    return 0 if last is None else last + 1


def create_screens(campaign: Campaign, count: int | None = None) -> list[Screen]:
    """Plan and write ``count`` more screens (all rankable sentences once for full coverage with None).

    Each screen gets ``campaign.redundancy`` pool slots, handed out in screen order.
    """
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        first = next_screen_number(campaign)
        segment_ids, candidates, multiplicities = segment_candidates(campaign)
        rng = np.random.default_rng([campaign.seed, first])
        plans = plan_screens(multiplicities, count, campaign.max_candidates, campaign.sampling, rng)
        screens = Screen.objects.bulk_create(
            Screen(campaign=campaign, segment_id=segment_ids[plan.segment], number=first + i)
            for i, plan in enumerate(plans)
        )
        ScreenCandidate.objects.bulk_create(
            (
                ScreenCandidate(screen=screen, candidate_id=candidates[plan.segment][index], position=position)
                for screen, plan in zip(screens, plans)
                for position, index in enumerate(plan.candidates)
            ),
            batch_size=10000,
        )
        start = next_slot_position(campaign)
        Assignment.objects.bulk_create(
            (
                Assignment(screen=screen, position=start + i * campaign.redundancy + copy)
                for i, screen in enumerate(screens)
                for copy in range(campaign.redundancy)
            ),
            batch_size=10000,
        )
    return screens
