"""Unit tests of ranking.core.bootstrap (METHODS 7, G15 §5.2)."""
from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranking.core.bootstrap import (
    bootstrap_expected_wins,
    bootstrap_ranking,
    clusters,
    rank_ranges,
    resample_outcome_counts,
    resample_win_matrices,
    sample_ranks,
    trimmed_count,
)
from ranking.core.expected_wins import counts_expected_wins, expected_wins
from ranking.core.pairs import ExpandedPairs, compared_in, outcome_counts, win_matrix
from ranking.core.trueskill import bootstrap_trueskill, pair_cells, resampled_cells

from .test_expected_wins import infer_ew


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


def test_systems_that_only_tied_share_their_ranks_and_cluster():
    """Two systems judged only as ties score alike in every resample. G15's ``eval/cluster.py`` breaks such ties by
    the runs' second value and then by name (later in the alphabet ranks better), which would give B rank 1 and A
    rank 2 in every sample, and so two clusters, from the names alone; tied systems share the best rank instead."""
    pairs = make_pairs([(0, 1, 0)] * 10 + [(0, 2, -1)] * 5 + [(1, 2, -1)] * 5)
    samples = bootstrap_expected_wins(pairs, 3, 200, np.random.default_rng(3))
    result = bootstrap_ranking(samples, counts_expected_wins(outcome_counts(pairs, 3)), ["A", "B", "C"], 0.95)
    assert {row.system: (row.range, row.cluster) for row in result.systems} == {
        "A": ((1, 1), 1), "B": ((1, 1), 1), "C": ((3, 3), 2)}


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


def cluster_py(runs: list[dict[str, float]], confidence: float) -> list[tuple[str, float, tuple[int, int], int]]:
    """G15's ``eval/cluster.py -by-rank -i confidence``, read directly, on runs as ``EW.py`` writes them: each run
    holds the scores of the systems it scores. Each run ranks its own systems (``rank_by_mu``: best first, rank =
    index + 1); a system's mean is over its runs; its ranks are sorted and ``alpha = ceil((n - n * confidence) / 2)``
    of its own n ranks dropped at each end; systems by mean, best first; a cluster closes after a system whose
    upper end is below the lower end of every system after it (``check_boundary``). Rows (system, mean, range,
    cluster)."""
    ranks, scores = defaultdict(list), defaultdict(list)
    for run in runs:
        ranklist = sorted(run, key=lambda name: (run[name], name), reverse=True)
        for name in run:
            ranks[name].append(ranklist.index(name) + 1)
            scores[name].append(run[name])
    order = sorted(scores, key=lambda name: (np.mean(scores[name]), np.std(scores[name]), name), reverse=True)
    ranges = []
    for name in order:
        n = len(ranks[name])
        alpha = int(math.ceil((n - n * 1.0 * confidence) / 2.0))
        clipped = sorted(ranks[name])[alpha:-alpha]
        ranges.append((clipped[0], clipped[-1]))
    rows, cluster = [], 1
    for i, name in enumerate(order):
        rows.append((name, float(np.mean(scores[name])), ranges[i], cluster))
        cluster += i + 1 < len(order) and all(ranges[i][1] < lo for lo, _ in ranges[i + 1:])
    return rows


def test_a_system_absent_from_some_resamples_is_ranked_as_g15_cluster_py_ranks_it():
    """X's one pair (it beat B) is drawn in 12 of the 20 resamples of seed 7 only. EW.py writes the scores of the
    systems a resample compares, and cluster.py ranks each run's systems among themselves: X is first in each of
    its 12 runs (EW 0.5, A at most 0.5 there), so its range is [1, 1]; A and X share the first cluster, B is alone
    in the second. Scored 0 where absent, X took rank 3 in 8 runs: range [1, 3], mean 0.3, one cluster of all."""
    pairs = make_pairs([(0, 1, -1)] * 7 + [(0, 1, 1)] * 3 + [(1, 2, 1)])
    names = ["A", "B", "X"]
    resamples = resample_outcome_counts(outcome_counts(pairs, 3), 20, np.random.default_rng(7))
    runs = [{names[s]: score for s, score in infer_ew(resample).items()} for resample in resamples]
    assert sum("X" in run for run in runs) == 12
    assert all(len(set(run.values())) == len(run) for run in runs), "no tie, which cluster.py breaks by name"
    samples = bootstrap_expected_wins(pairs, 3, 20, np.random.default_rng(7))
    result = bootstrap_ranking(samples, counts_expected_wins(outcome_counts(pairs, 3)), names, 0.9)
    expected = cluster_py(runs, 0.9)
    assert [(row.system, row.range, row.cluster) for row in result.systems] == [
        (name, lo_hi, cluster) for name, _, lo_hi, cluster in expected
    ]
    assert [row.score for row in result.systems] == pytest.approx([mean for _, mean, *_ in expected])
    assert [(row.system, row.range, row.cluster) for row in result.systems] == [
        ("A", (1, 2), 1), ("X", (1, 1), 1), ("B", (2, 3), 2)
    ]
    assert [row.samples for row in result.systems] == [20, 12, 20]


def test_a_system_in_too_few_samples_for_a_range_follows_the_ranked_systems_without_range_or_cluster():
    """At 0.95 a range needs 3 samples (one dropped at each end): C is in 2 of 5, so A and B are ranked from their
    5 samples without C (cluster.py fails on C and leaves no precedent): A ranks 1, 2, 1, 1, 1 -> [1, 1], B 2, 1,
    2, 2, 2 -> [2, 2], two clusters. C follows them, its mean over its own 2 samples above theirs but without range
    or cluster; D was never judged and comes last."""
    nan = np.nan
    samples = np.array([[0.9, 0.5, nan, nan], [0.2, 0.3, 0.8, nan], [0.6, 0.4, nan, nan], [0.7, 0.1, 0.95, nan],
                        [0.8, 0.6, nan, nan]])
    result = bootstrap_ranking(samples, np.array([0.7, 0.4, 0.9, nan]), ["A", "B", "C", "D"], 0.95,
                               judged=np.array([True, True, True, False]))
    assert [(row.system, row.range, row.cluster, row.samples) for row in result.systems] == [
        ("A", (1, 1), 1, 5), ("B", (2, 2), 2, 5), ("C", None, None, 2), ("D", None, None, None)
    ]
    assert result.systems[2].score == pytest.approx(0.875) and result.systems[2].judged
    assert not result.systems[2].ranked and not result.systems[3].judged


def test_resampled_trueskill_leaves_a_system_its_resample_did_not_draw_unscored():
    """With ``resample_pairs``, a run whose resample drew none of X's pairs has no score of X (TS.py rates the
    systems its pairs name), not its initial mu = 0; X is in the other runs."""
    pairs = make_pairs([(0, 1, -1)] * 7 + [(0, 1, 1)] * 3 + [(1, 2, 1)])
    cells = np.broadcast_to(pair_cells(pairs.first, pairs.second, pairs.relation, 3), (40, 3, 3, 3))
    drawn = compared_in(resampled_cells(cells, np.random.default_rng(3)))
    assert 0 < drawn[:, 2].sum() < 40 and drawn[:, :2].all()
    samples = bootstrap_trueskill(pairs.first, pairs.second, pairs.relation, 3, 40, np.random.default_rng(3),
                                  resample_pairs=True)
    np.testing.assert_array_equal(np.isnan(samples), ~drawn)
