"""Unit tests of ranking.core.expected_wins (METHODS 5, G15 §5.1)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ranking.core.bootstrap import bootstrap_expected_wins, resample_outcome_counts
from ranking.core.expected_wins import counts_expected_wins, expected_wins
from ranking.core.pairs import ExpandedPairs, compared_systems, counts_win_matrix, outcome_counts

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


def counts_of(pairs: list[tuple[int, int, int]], n_systems: int) -> np.ndarray:
    """Outcome counts (S, S, 3) of (first, second, relation) pairs, first < second, relation -1 (first better), 0, 1."""
    counts = np.zeros((n_systems, n_systems, 3), dtype=np.int64)
    for first, second, relation in pairs:
        counts[first, second, relation + 1] += 1
    return counts


def test_counts_count_as_opponents_only_the_systems_their_pairs_compare():
    # A beat B twice, B beat A once, C tied with A; D is in no pair: |S| = 3 (A, B, C), as infer_EW.py collects it.
    counts = counts_of([(0, 1, -1), (0, 1, -1), (0, 1, 1), (0, 2, 0)], 4)
    assert compared_systems(counts) == 3
    assert counts_expected_wins(counts) == pytest.approx([(2 / 3) / 2, (1 / 3) / 2, 0.0, 0.0])
    assert expected_wins(counts_win_matrix(counts)) == pytest.approx([(2 / 3) / 3, (1 / 3) / 3, 0.0, 0.0])
    assert compared_systems(np.stack([counts, np.zeros_like(counts)])).tolist() == [3, 0]


def infer_ew(counts: np.ndarray) -> dict[int, float]:
    """WMT's infer_EW.py, written out from its text, on one resample's outcome counts: the systems are those in a
    pair of the resample, each scored by its win rates summed over the others and divided by their number less 1."""
    win: dict[tuple[int, int], int] = {}
    systems = set()
    for first, second, cell in zip(*np.nonzero(counts)):
        systems |= {first, second}
        if cell != 1:
            better, worse = (first, second) if cell == 0 else (second, first)
            win[better, worse] = win.get((better, worse), 0) + int(counts[first, second, cell])
    scores = {}
    for a in systems:
        rate = 0.0
        for b in systems - {a}:
            if win.get((a, b), 0) + win.get((b, a), 0):
                rate += win.get((a, b), 0) / (win.get((a, b), 0) + win.get((b, a), 0))
        scores[a] = rate / (len(systems) - 1)
    return scores


def test_each_bootstrap_resample_is_scored_as_infer_ew_scores_it():
    """Few pairs, so that resamples leave systems out: each resample's scores are infer_EW.py's on that resample."""
    pairs = [(0, 1, -1), (0, 1, 1), (1, 2, 0), (2, 3, -1), (0, 3, 1), (1, 4, -1)]
    counts = counts_of(pairs, 6)
    resamples = resample_outcome_counts(counts, 300, np.random.default_rng(4))
    scores = counts_expected_wins(resamples)
    assert len(set(compared_systems(resamples).tolist())) > 1, "no resample left a system out"
    for resample, row in zip(resamples, scores):
        expected = infer_ew(resample)
        assert row.tolist() == pytest.approx([expected.get(system, 0.0) for system in range(6)])


def test_a_system_never_judged_changes_no_other_systems_scores():
    rng = np.random.default_rng(9)
    first = rng.integers(0, 3, 200)
    second = (first + rng.integers(1, 3, 200)) % 3
    low, high = np.minimum(first, second), np.maximum(first, second)
    pairs = ExpandedPairs(low, high, rng.integers(-1, 2, 200).astype(np.int8), np.zeros(200, dtype=np.int64))
    without = bootstrap_expected_wins(pairs, 3, 100, np.random.default_rng(1))
    with_unjudged = bootstrap_expected_wins(pairs, 4, 100, np.random.default_rng(1))
    np.testing.assert_allclose(with_unjudged[:, :3], without)
    np.testing.assert_allclose(counts_expected_wins(outcome_counts(pairs, 4))[:3],
                               counts_expected_wins(outcome_counts(pairs, 3)))
