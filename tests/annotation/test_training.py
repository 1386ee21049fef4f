"""Training screens: pairwise agreement with the expected ranking, checks on what organizers enter, answers."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.models import Judgment, TrainingAnswer
from annotation.services.training import (
    TrainingError,
    add_training_screen,
    answer_training,
    next_training_screen,
    pairwise_agreement,
    ranks_of_scores,
)

from .factories import candidate_of, judge, small_campaign

ranks = st.lists(st.integers(1, 5), min_size=2, max_size=5)


def brute_force_agreement(r, e):
    pairs = [(i, j) for i in range(len(r)) for j in range(i + 1, len(r))]
    return sum(np.sign(r[i] - r[j]) == np.sign(e[i] - e[j]) for i, j in pairs) / len(pairs)


@given(st.data())
def test_agreement_is_the_share_of_pairs_ordered_alike(data):
    r = data.draw(ranks)
    e = data.draw(st.lists(st.integers(1, 5), min_size=len(r), max_size=len(r)))
    assert pairwise_agreement(r, e) == pytest.approx(brute_force_agreement(r, e))
    assert pairwise_agreement(r, e) == pytest.approx(pairwise_agreement(e, r))
    assert pairwise_agreement(r, r) == 1.0


def test_agreement_examples():
    assert pairwise_agreement([1, 2, 3], [3, 2, 1]) == 0.0
    assert pairwise_agreement([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / 3)
    assert pairwise_agreement([4], [1]) == 1.0
    with pytest.raises(TrainingError):
        pairwise_agreement([1, 2], [1, 2, 3])


@pytest.mark.django_db
def test_training_screens_are_checked_and_answered_once():
    campaign = small_campaign()
    other = small_campaign("other")
    segment = campaign.segments.get(line=4)
    shown = [candidate_of(campaign, 4, name) for name in ("ZEPHYRSYS", "INPUT")]
    with pytest.raises(TrainingError, match="another campaign"):
        add_training_screen(campaign, other.segments.get(line=4), shown, [1, 2])
    with pytest.raises(TrainingError, match="^1 expected rank for 2 candidates.$"):
        add_training_screen(campaign, segment, shown, [1])
    with pytest.raises(TrainingError, match="from 1 to 5"):
        add_training_screen(campaign, segment, shown, [1, 6])
    with pytest.raises(TrainingError, match="output of the sentence"):
        add_training_screen(campaign, segment, [shown[0], candidate_of(campaign, 3, "INPUT")], [1, 2])
    with pytest.raises(TrainingError, match="twice"):
        add_training_screen(campaign, segment, [shown[0], shown[0]], [1, 2])
    first = add_training_screen(campaign, segment, shown, [1, 2], feedback="ok")
    with pytest.raises(TrainingError, match="^A training screen shows 2 to 5 candidates, not 1: a judge's ranks are "
                       "checked against the expected ones pair by pair, and one correction alone has no pair.$"):
        add_training_screen(campaign, segment, shown[:1], [1])
    second = add_training_screen(campaign, campaign.segments.get(line=5),
                                 [candidate_of(campaign, 5, "INPUT"), candidate_of(campaign, 5, "ZEPHYRSYS")], [2, 1])
    assert (first.position, second.position) == (0, 1)
    ann = judge("ann", campaign)
    assert next_training_screen(campaign, ann) == first
    with pytest.raises(TrainingError):
        answer_training(first, ann, [1, 9])
    answer = answer_training(first, ann, [2, 1])
    assert answer.agreement == 0.0
    assert answer_training(first, ann, [1, 2]).ranks == [2, 1], "the first answer stands"
    assert next_training_screen(campaign, ann) == second
    assert TrainingAnswer.objects.count() == 1 and not Judgment.objects.exists()


def test_prws_scores_become_ranks_as_the_analysis_reads_them():
    assert ranks_of_scores([90, 60, 60, 90, 10]) == [1, 2, 2, 1, 3]
    assert ranks_of_scores([50.5]) == [1]
