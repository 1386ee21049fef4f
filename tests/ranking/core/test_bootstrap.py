"""Unit tests of ranking.core.bootstrap (METHODS 7, G15 §5.2)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranking.core.bootstrap import (
    bootstrap_expected_wins,
    bootstrap_ranking,
    clusters,
    rank_ranges,
    resample_win_matrices,
    sample_ranks,
    trimmed_count,
)
from ranking.core.expected_wins import expected_wins
from ranking.core.pairs import ExpandedPairs, outcome_counts, win_matrix


def make_pairs(rows: list[tuple[int, int, int]]) -> ExpandedPairs:
    first, second, relation = (np.array(column) for column in zip(*rows))
    return ExpandedPairs(first, second, relation.astype(np.int8), np.zeros(len(rows), dtype=np.int64))


# 4 systems: 0 usually beats everyone, 3 usually loses, ties in between.
PAIRS = make_pairs(
    [(0, 1, -1)] * 6 + [(0, 1, 1)] * 2 + [(0, 2, -1)] * 5 + [(0, 2, 0)] * 4 + [(0, 3, -1)] * 7 + [(1, 2, -1)] * 3
    + [(1, 2, 1)] * 3 + [(1, 3, -1)] * 5 + [(1, 3, 0)] * 2 + [(2, 3, -1)] * 4 + [(2, 3, 1)] * 1
)


@pytest.mark.parametrize("n, confidence, drop", [(1000, 0.95, 25), (1000, 0.90, 50), (100, 0.95, 3), (10, 1.0, 0)])
def test_trimmed_count(n, confidence, drop):
    assert trimmed_count(n, confidence) == drop


@pytest.mark.parametrize("n, confidence", [(1000, 0.0), (1000, 1.5), (2, 0.5)])
def test_trimmed_count_rejects_bad_levels(n, confidence):
    with pytest.raises(ValueError):
        trimmed_count(n, confidence)


def test_sample_ranks_best_first_ties_share_best_rank():
    ranks = sample_ranks(np.array([[0.1, 0.9, 0.5], [0.4, 0.4, 0.2]]))
    assert ranks.tolist() == [[3, 1, 2], [1, 1, 3]]


def test_rank_ranges_drop_lowest_and_highest():
    # Four samples, confidence 0.5: one rank dropped at each end.
    samples = np.array([[3.0, 2.0, 1.0], [2.0, 3.0, 1.0], [1.0, 3.0, 2.0], [3.0, 1.0, 2.0]])
    lo, hi = rank_ranges(samples, 0.5)
    # System 0 ranks 1, 2, 3, 1 -> sorted 1 1 2 3 -> [1, 2]; system 1: 2 1 1 3 -> [1, 2]; system 2: 3 3 2 2 -> [2, 3].
    assert lo.tolist() == [1, 1, 2]
    assert hi.tolist() == [2, 2, 3]


def test_rank_ranges_rank_each_sample_without_its_absent_systems():
    """NaN marks a system absent from a sample (G15's ``cluster.py`` reads only the systems a run's scores name): the
    others are ranked without it there, and its range is trimmed from its own samples. Before, an absent system
    scored 0 in such a sample (Expected Wins of no pair) and took the last rank."""
    nan = np.nan
    samples = np.array([[0.9, 0.5, nan], [0.2, 0.3, 0.8], [0.1, 0.9, 0.4], [0.6, nan, 0.7], [0.5, 0.4, 0.3]])
    lo, hi = rank_ranges(samples, 0.6)
    # At 0.6, ceil((n - 0.6 n) / 2) = 1 rank is dropped at each end of 5 or of 4. System 0 ranks 1, 3, 3, 2, 1 ->
    # 1 1 2 3 3 -> [1, 3]; system 1: 2, 2, 1, -, 2 -> 1 2 2 2 -> [2, 2]; system 2: -, 1, 2, 1, 3 -> 1 1 2 3 -> [1, 2].
    assert lo.tolist() == [1, 2, 1]
    assert hi.tolist() == [3, 2, 2]


def test_rank_ranges_need_enough_samples_of_each_system():
    """At 0.95 a range needs 3 samples (one dropped at each end): a system in only 2 of 40 has none."""
    samples = np.tile([0.5, 0.4], (40, 1))
    samples[2:, 1] = np.nan
    with pytest.raises(ValueError, match="2 samples are too few for a 0.95 rank range"):
        rank_ranges(samples, 0.95)
    samples[2, 1] = 0.6
    assert [r.tolist() for r in rank_ranges(samples, 0.95)] == [[1, 2], [1, 2]]


def test_rank_ranges_rejects_bad_shape():
    with pytest.raises(ValueError, match="shape"):
        rank_ranges(np.zeros(5), 0.95)


def test_clusters_of_table_3b_ranges():
    # G15 Table 3b, in rank order: AMU 1, RAC 2-3, CAMB 2-4, CUUI 3-5, POST 4-5, UFC 6-8, ..., NTHU 11-12, IPN 13.
    lo = np.array([1, 2, 2, 3, 4, 6, 6, 7, 7, 10, 9, 11, 13])
    hi = np.array([1, 3, 4, 5, 5, 8, 8, 9, 10, 11, 12, 12, 13])
    assert clusters(np.arange(13), lo, hi).tolist() == [1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 4]


def test_clusters_need_the_upper_end_below_every_lower_end_further_down():
    # System 0 (1-2) ends before system 1 (3) starts, but system 2 further down reaches rank 2: no boundary.
    assert clusters(np.arange(3), np.array([1, 3, 2]), np.array([2, 3, 3])).tolist() == [1, 1, 1]
    assert clusters(np.arange(4), np.array([1, 3, 2, 4]), np.array([1, 3, 3, 4])).tolist() == [1, 2, 2, 3]


def test_clusters_are_indexed_by_system():
    assert clusters(np.array([2, 0, 1]), np.array([2, 3, 1]), np.array([2, 3, 1])).tolist() == [2, 3, 1]


def test_bootstrap_ranking_orders_by_mean_and_reports_both_scores():
    samples = np.array([[0.2, 0.8, 0.5], [0.3, 0.6, 0.7], [0.1, 0.7, 0.6]])
    result = bootstrap_ranking(samples, np.array([0.25, 0.6, 0.65]), ["A", "B", "C"], confidence=1.0)
    assert [row.system for row in result.systems] == ["B", "C", "A"]
    b = result.systems[0]
    assert b.score == pytest.approx(0.7) and b.full_data_score == 0.6
    assert b.range == (1, 2) and result.systems[2].range == (3, 3)
    assert [row.cluster for row in result.systems] == [1, 1, 2]
    by_full = bootstrap_ranking(samples, np.array([0.25, 0.6, 0.65]), ["A", "B", "C"], 1.0, order_by="full")
    assert [row.system for row in by_full.systems] == ["C", "B", "A"]
    assert (result.confidence, result.n_samples) == (1.0, 3)


def test_systems_never_judged_come_last_without_score_range_or_cluster():
    samples = np.array([[0.2, 0.0, 0.5, 0.0], [0.3, 0.0, 0.7, 0.0], [0.1, 0.0, 0.6, 0.0]])
    judged = np.array([True, False, True, False])
    result = bootstrap_ranking(samples, np.array([0.25, 0.0, 0.65, 0.0]), ["A", "B", "C", "D"], 1.0, judged=judged)
    assert [row.system for row in result.systems] == ["C", "A", "B", "D"]
    assert [(row.range, row.cluster) for row in result.systems] == [((1, 1), 1), ((2, 2), 2), (None, None),
                                                                   (None, None)]
    assert all(np.isnan(row.score) and np.isnan(row.full_data_score) for row in result.systems[2:])
    assert [row.judged for row in result.systems] == [True, True, False, False]
    nobody = bootstrap_ranking(samples, np.zeros(4), ["A", "B", "C", "D"], 1.0, judged=np.zeros(4, dtype=bool))
    assert [row.system for row in nobody.systems] == ["A", "B", "C", "D"] and not any(r.judged for r in nobody.systems)


def test_bootstrap_ranking_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="expected samples"):
        bootstrap_ranking(np.zeros((5, 3)), np.zeros(2), ["A", "B", "C"], 0.95)


def test_resamples_keep_the_pair_count_and_unseen_cells_empty():
    wins = resample_win_matrices(PAIRS, 4, 200, np.random.default_rng(1))
    assert wins.shape == (200, 4, 4)
    observed = win_matrix(PAIRS, 4)
    assert np.all(wins[:, observed == 0] == 0)
    ties = outcome_counts(PAIRS, 4)[..., 1].sum()
    assert np.all(wins.sum(axis=(1, 2)) <= len(PAIRS))
    assert wins.sum(axis=(1, 2)).mean() == pytest.approx(len(PAIRS) - ties, rel=0.05)
    assert wins.mean(axis=0) == pytest.approx(observed, abs=0.6)


def test_same_seed_same_samples_and_empty_pairs_rejected():
    a = bootstrap_expected_wins(PAIRS, 4, 50, np.random.default_rng(7))
    b = bootstrap_expected_wins(PAIRS, 4, 50, np.random.default_rng(7))
    assert np.array_equal(a, b)
    with pytest.raises(ValueError, match="no expanded pairs"):
        bootstrap_expected_wins(PAIRS.take(np.zeros(len(PAIRS), dtype=bool)), 4, 10, np.random.default_rng(0))


def test_multinomial_bootstrap_matches_resampling_the_pairs():
    """The cell-count draw has the distribution of drawing P pairs with replacement (METHODS 5)."""
    rng = np.random.default_rng(3)
    n_boot = 4000
    fast = bootstrap_expected_wins(PAIRS, 4, n_boot, rng)
    index = rng.integers(0, len(PAIRS), size=(n_boot, len(PAIRS)))
    naive = np.stack([expected_wins(win_matrix(PAIRS.take(row), 4)) for row in index])
    assert fast.mean(axis=0) == pytest.approx(naive.mean(axis=0), abs=0.01)
    assert fast.std(axis=0) == pytest.approx(naive.std(axis=0), rel=0.08)
    assert fast.mean(axis=0) == pytest.approx(expected_wins(win_matrix(PAIRS, 4)), abs=0.02)


@settings(max_examples=30)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.9, 0.95]))
def test_ranges_contain_a_rank_and_clusters_are_monotone(seed, confidence):
    rng = np.random.default_rng(seed)
    samples = bootstrap_expected_wins(PAIRS, 4, 100, rng)
    result = bootstrap_ranking(samples, expected_wins(win_matrix(PAIRS, 4)), ["a", "b", "c", "d"], confidence)
    numbers = [row.cluster for row in result.systems]
    assert numbers[0] == 1 and all(0 <= b - a <= 1 for a, b in zip(numbers, numbers[1:]))
    assert all(1 <= row.range[0] <= row.range[1] <= 4 for row in result.systems)
