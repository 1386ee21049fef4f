"""The optional training phase: practice screens with the organizer's expected ranks and feedback.

A judge answers a campaign's training screens in order, after acknowledging the guidelines and before their
first real screen, and sees after each how their ranking compares with the expected one. Answers are
TrainingAnswer rows, never Judgments, so they are not part of exports or analyses.

Agreement with the expected ranking is the share of candidate pairs ordered alike (G15 section 4.3 pairs):
for pairs ``i < j``, ``sign(r_i - r_j) == sign(e_i - e_j)`` counts as agreement (``<``, ``=`` and ``>`` are
three outcomes, as in the pairwise judgments the analysis uses); a screen with one candidate agrees fully.

In a PRWS campaign the judge scores the training screen with sliders; the scores become ranks as the analysis
reads PRWS scores (METHODS 11: rank = 1 + the number of distinct higher scores on the screen, equal scores tie),
and those ranks are stored and compared with the expected ranking.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max

from gecappraise.plurals import counted

from ..models import Campaign, Candidate, Segment, TrainingAnswer, TrainingCandidate, TrainingScreen

ONE_IS_NOT_RANKED = ("a judge's ranks are checked against the expected ones pair by pair, and one correction alone "
                     "has no pair.")
"""Why a training screen shows at least two corrections (the service and the organizer's form say it)."""


class TrainingError(ValueError):
    """A training screen or answer that does not fit; the message says why."""


def pairwise_agreement(ranks: Sequence[int], expected: Sequence[int]) -> float:
    """Share of pairs ``i < j`` with ``sign(ranks[i] - ranks[j]) == sign(expected[i] - expected[j])``."""
    r, e = np.asarray(ranks), np.asarray(expected)
    if r.shape != e.shape:
        raise TrainingError(f"{counted(r.size, 'rank')} for {counted(e.size, 'candidate')}")
    upper = np.triu_indices(r.size, k=1)
    if upper[0].size == 0:
        return 1.0
    same = np.sign(r[:, None] - r[None, :])[upper] == np.sign(e[:, None] - e[None, :])[upper]
    return float(same.mean())


def add_training_screen(
    campaign: Campaign,
    segment: Segment,
    candidates: Sequence[Candidate],
    expected_ranks: Sequence[int],
    feedback: str = "",
) -> TrainingScreen:
    """Append a training screen showing ``candidates`` (in this order) of ``segment`` with their expected ranks."""
    if segment.campaign_id != campaign.pk:
        raise TrainingError("The sentence belongs to another campaign.")
    if not 2 <= len(candidates) <= campaign.max_candidates:
        raise TrainingError(f"A training screen shows 2 to {campaign.max_candidates} candidates, not "
                            f"{len(candidates)}: {ONE_IS_NOT_RANKED}")
    if len(expected_ranks) != len(candidates):
        raise TrainingError(
            f"{counted(len(expected_ranks), 'expected rank')} for {counted(len(candidates), 'candidate')}."
        )
    if any(not 1 <= rank <= campaign.max_candidates for rank in expected_ranks):
        raise TrainingError(f"Expected ranks go from 1 to {campaign.max_candidates}.")
    if any(candidate.segment_id != segment.pk for candidate in candidates):
        raise TrainingError("Every candidate must be an output of the sentence.")
    if len({candidate.pk for candidate in candidates}) != len(candidates):
        raise TrainingError("A candidate is listed twice.")
    with transaction.atomic():
        last = TrainingScreen.objects.filter(campaign=campaign).aggregate(n=Max("position"))["n"]
        screen = TrainingScreen.objects.create(
            campaign=campaign, segment=segment, position=0 if last is None else last + 1, feedback=feedback
        )
        TrainingCandidate.objects.bulk_create(
            TrainingCandidate(training_screen=screen, candidate=candidate, position=i, expected_rank=rank)
            for i, (candidate, rank) in enumerate(zip(candidates, expected_ranks))
        )
    return screen


def next_training_screen(campaign: Campaign, judge: AbstractBaseUser) -> TrainingScreen | None:
    """The first training screen of ``campaign`` that ``judge`` has not answered, or None."""
    return (
        TrainingScreen.objects.filter(campaign=campaign)
        .exclude(answers__judge=judge)
        .select_related("segment")
        .order_by("position")
        .first()
    )


def answer_training(screen: TrainingScreen, judge: AbstractBaseUser, ranks: Sequence[int]) -> TrainingAnswer:
    """Store the judge's ranks (by position) once; a repeated answer returns the first one unchanged."""
    expected = list(screen.slots.order_by("position").values_list("expected_rank", flat=True))
    top = screen.campaign.max_candidates
    if len(ranks) != len(expected) or any(not 1 <= rank <= top for rank in ranks):
        raise TrainingError(f"Give each of the {len(expected)} corrections a rank from 1 to {top}.")
    answer, _ = TrainingAnswer.objects.get_or_create(
        training_screen=screen,
        judge=judge,
        defaults={"ranks": list(map(int, ranks)), "agreement": pairwise_agreement(ranks, expected)},
    )
    return answer


def ranks_of_scores(scores: Sequence[float]) -> list[int]:
    """Ranks from PRWS scores (METHODS 11): ``1 +`` the number of distinct scores above each one."""
    distinct = sorted(set(scores), reverse=True)
    return [1 + distinct.index(score) for score in scores]


def answer_training_scores(screen: TrainingScreen, judge: AbstractBaseUser, scores: Sequence[float]) -> TrainingAnswer:
    """Store the ranks of the judge's PRWS ``scores`` (``ranks_of_scores``) as their answer, once."""
    if any(not 0 <= score <= 100 for score in scores):
        raise TrainingError("Scores go from 0 to 100.")
    return answer_training(screen, judge, ranks_of_scores(scores))


def remove_training_screen(screen: TrainingScreen) -> None:
    """Delete a training screen with its answers, and close the gap in the positions of the later ones.

    The judge's pages number training screens by ``position + 1`` of ``count()``, so positions stay 0..n-1.
    Later screens move down one at a time, in position order, so that the unique (campaign, position)
    constraint holds after every row.
    """
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=screen.campaign_id).first()
        later = list(
            TrainingScreen.objects.filter(campaign_id=screen.campaign_id, position__gt=screen.position).order_by(
                "position"
            )
        )
        screen.delete()
        for moved in later:
            moved.position -= 1
            moved.save(update_fields=["position"])
