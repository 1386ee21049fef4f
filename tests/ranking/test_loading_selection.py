"""Which judgments an analysis loads: screens the organizer excluded never, and ``after`` an id only the newer ones."""
from __future__ import annotations

import numpy as np
import pytest

from annotation.models import CandidateJudgment, Judgment, Screen
from annotation.services.outputs import candidate_systems
from ranking.core.pairs import expanded_pairs
from ranking.loading import load_rankings, load_scores

from .factories import synthetic_campaign

pytestmark = pytest.mark.django_db


def test_an_excluded_screen_is_left_out_of_the_rankings_and_put_back_in():
    campaign = synthetic_campaign("exclusion", np.random.default_rng(4), n_rankings=30)
    everything = load_rankings(campaign)
    screen = Screen.objects.filter(campaign=campaign).order_by("number")[3]
    screen.excluded = True
    screen.save(update_fields=["excluded"])
    without = load_rankings(campaign)
    assert without.n_rankings == everything.n_rankings - 1
    assert len(expanded_pairs(without)) < len(expanded_pairs(everything))
    screen.excluded = False
    screen.save(update_fields=["excluded"])
    assert load_rankings(campaign).n_rankings == everything.n_rankings


def test_after_loads_only_the_judgments_with_a_higher_id():
    campaign = synthetic_campaign("after", np.random.default_rng(5), n_rankings=30)
    ids = list(
        Judgment.objects.filter(assignment__screen__campaign=campaign).order_by("id").values_list("id", flat=True)
    )
    newer = load_rankings(campaign, after=ids[9])
    assert newer.n_rankings == len(ids) - 10
    between = load_rankings(campaign, after=ids[9], up_to=ids[19])
    assert between.n_rankings == 10
    assert load_scores(campaign, after=ids[-1]).n_ratings == 0


def test_candidate_systems_of_chosen_candidates_only():
    campaign = synthetic_campaign("chosen", np.random.default_rng(6), n_rankings=10)
    everything = candidate_systems(campaign)
    judged = CandidateJudgment.objects.filter(judgment__assignment__screen__campaign=campaign).values("candidate_id")
    chosen = candidate_systems(campaign, judged)
    assert set(chosen) == set(judged.values_list("candidate_id", flat=True)) < set(everything)
    assert all(chosen[pk] == everything[pk] for pk in chosen)
