"""Unit tests of ranking.core.expected_wins (METHODS 5, G15 §5.1)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ranking.core.expected_wins import expected_wins

WINS = np.array([[0, 3, 1], [1, 0, 0], [1, 2, 0]])


def test_hand_computed_scores():
    # A: (3/4 + 1/2) / 2; B: (1/4 + 0/2) / 2; C: (1/2 + 2/2) / 2.
    assert expected_wins(WINS) == pytest.approx([0.625, 0.125, 0.75])


def test_zero_denominator_adds_zero():
    wins = np.array([[0, 2, 0], [2, 0, 0], [0, 0, 0]])
    # A and B never met C: their terms against C add 0, but the divisor stays |S| - 1 = 2.
    assert expected_wins(wins) == pytest.approx([0.25, 0.25, 0.0])


def test_beaten_divides_by_opponents_beaten_at_least_once():
    wins = np.array([[0, 3, 0], [1, 0, 2], [4, 1, 0]])
    # A beat only B: 3/4 over 1 opponent; B beat A and C: (1/4 + 2/3) / 2; C beat both: (4/4 + 1/3) / 2.
    assert expected_wins(wins, "beaten") == pytest.approx([0.75, (0.25 + 2 / 3) / 2, (1 + 1 / 3) / 2])
    assert expected_wins(wins, "all") == pytest.approx([0.375, (0.25 + 2 / 3) / 2, (1 + 1 / 3) / 2])
    assert expected_wins(np.zeros((2, 2)), "beaten").tolist() == [0.0, 0.0]


def test_batch_dimensions_are_vectorized():
    batch = np.stack([WINS, WINS.T, 2 * WINS]).reshape(3, 1, 3, 3)
    scores = expected_wins(batch)
    assert scores.shape == (3, 1, 3)
    assert scores[0, 0] == pytest.approx(expected_wins(WINS))
    assert scores[1, 0] == pytest.approx(expected_wins(WINS.T))
    assert scores[2, 0] == pytest.approx(scores[0, 0])


@pytest.mark.parametrize(
    "wins, opponents, message",
    [
        (np.zeros((2, 3)), "all", "shape"),
        (np.zeros(3), "all", "shape"),
        (np.zeros((1, 1)), "all", "two systems"),
        (-np.ones((2, 2)), "all", "non-negative"),
        (np.zeros((2, 2)), "some", "opponents"),
    ],
)
def test_bad_input_raises(wins, opponents, message):
    with pytest.raises(ValueError, match=message):
        expected_wins(wins, opponents)


win_matrices = st.integers(2, 7).flatmap(lambda n: arrays(np.int64, (n, n), elements=st.integers(0, 50)))


@given(win_matrices, st.randoms(use_true_random=False))
def test_relabelling_systems_permutes_scores(wins, random):
    order = list(range(wins.shape[0]))
    random.shuffle(order)
    perm = np.array(order)
    for opponents in ("all", "beaten"):
        assert expected_wins(wins[np.ix_(perm, perm)], opponents) == pytest.approx(expected_wins(wins, opponents)[perm])


@given(win_matrices)
def test_scores_are_probabilities_averaging_one_half_when_all_pairs_met(wins):
    np.fill_diagonal(wins, 0)
    scores = expected_wins(wins)
    assert np.all((scores >= 0) & (scores <= 1))
    met = wins + wins.T
    if np.all(met[~np.eye(len(wins), dtype=bool)] > 0):
        assert scores.mean() == pytest.approx(0.5)
