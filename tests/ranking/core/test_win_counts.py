"""Expected Wins from outcome counts: the live leaderboard's numbers are the analysis's numbers."""
from __future__ import annotations

import numpy as np
import pytest

from ranking.core.analysis import full_data_scores
from ranking.core.bootstrap import (
    RankedSystem,
    RankingResult,
    bootstrap_expected_wins,
    bootstrap_ranking,
    resample_outcome_counts,
    resample_win_matrices,
)
from ranking.core.expected_wins import counts_expected_wins, expected_wins
from ranking.core.pairs import counts_win_matrix, expanded_pairs, judged_systems, outcome_counts, win_matrix
from ranking.core.rankings import Rankings
from ranking.core.win_counts import (
    cluster_partition,
    expected_wins_ranking,
    stable_since,
    step_counts,
    unresolved_pairs,
)

SYSTEMS = ("A", "B", "C", "D", "E", "F")


def random_items(rng: np.random.Generator, n: int) -> list:
    """Rankings of 0-5 candidates (0 = a flagged screen), candidates of 1-2 systems, ties allowed."""
    items = []
    for i in range(n):
        shuffled = list(rng.permutation(SYSTEMS))
        shown, size = [], int(rng.integers(0, 6))
        while shuffled and len(shown) < size:
            take = min(len(shuffled), int(rng.integers(1, 3)))
            shown.append((tuple(shuffled[:take]), int(rng.integers(1, 4))))
            shuffled = shuffled[take:]
        items.append((f"judge{i % 3}", int(rng.integers(20)), shown))
    return items


def test_step_counts_are_the_counts_between_ends_and_add_up_to_each_prefix():
    items = random_items(np.random.default_rng(3), 250)
    rankings = Rankings.from_items(items, SYSTEMS)
    ends = [0, 1, 7, 100, 100, 200, 250]
    steps = step_counts(rankings, ends)
    assert steps.shape == (len(ends), 6, 6, 3)
    for start, end, got in zip([0, *ends], ends, steps):
        between = Rankings.from_items(items[start:end], SYSTEMS)
        np.testing.assert_array_equal(got, outcome_counts(expanded_pairs(between), 6))
    for end, got in zip(ends, np.cumsum(steps, axis=0)):
        prefix = Rankings.from_items(items[:end], SYSTEMS)
        np.testing.assert_array_equal(got, outcome_counts(expanded_pairs(prefix), 6))
    assert steps.sum() == len(expanded_pairs(rankings)) > 0


def test_checkpoints_must_increase_within_the_rankings():
    rankings = Rankings.from_items(random_items(np.random.default_rng(1), 10), SYSTEMS)
    with pytest.raises(ValueError, match="increase"):
        step_counts(rankings, [5, 3])
    with pytest.raises(ValueError, match="increase"):
        step_counts(rankings, [11])
    assert step_counts(rankings, []).shape == (0, 6, 6, 3)


def test_counts_give_the_same_wins_draws_and_ranking_as_the_pairs():
    rankings = Rankings.from_items(random_items(np.random.default_rng(5), 300), SYSTEMS)
    pairs = expanded_pairs(rankings)
    counts = outcome_counts(pairs, 6)
    np.testing.assert_array_equal(counts_win_matrix(counts), win_matrix(pairs, 6))
    np.testing.assert_array_equal(
        counts_win_matrix(resample_outcome_counts(counts, 50, np.random.default_rng(8))),
        resample_win_matrices(pairs, 6, 50, np.random.default_rng(8)),
    )
    np.testing.assert_allclose(counts_expected_wins(counts), expected_wins(win_matrix(pairs, 6)))
    live = expected_wins_ranking(counts, SYSTEMS, 200, 0.95, np.random.default_rng(2))
    analysis = bootstrap_ranking(
        bootstrap_expected_wins(pairs, 6, 200, np.random.default_rng(2)), expected_wins(win_matrix(pairs, 6)),
        SYSTEMS, 0.95,
    )
    assert live == analysis


def test_a_rarely_compared_system_and_one_never_compared_rank_as_in_the_analysis():
    """F is in one ranking of 300 (some resamples draw none of its pairs: the analysis ranks each resample without
    it, as G15's cluster.py does) and E in none; the live leaderboard ranks them as the analysis does: F from the
    resamples that score it (or, in too few, without a range), E without score, range or cluster."""
    rng = np.random.default_rng(9)
    items = [item for item in random_items(rng, 300)
             if not any(set(systems) & {"E", "F"} for systems, _ in item[2])]
    items.append(("judge0", 3, [(("F",), 1), (("A",), 2)]))
    rankings = Rankings.from_items(items, SYSTEMS)
    pairs = expanded_pairs(rankings)
    counts = outcome_counts(pairs, 6)
    live = expected_wins_ranking(counts, SYSTEMS, 200, 0.95, np.random.default_rng(2))
    samples = bootstrap_expected_wins(pairs, 6, 200, np.random.default_rng(2))
    analysis = bootstrap_ranking(samples, full_data_scores(pairs, 6, 1)["expected_wins"], SYSTEMS, 0.95,
                                 judged=judged_systems(pairs, 6))
    np.testing.assert_equal(live, analysis)
    rows = {row.system: row for row in live.systems}
    assert 0 < rows["F"].samples < 200 and rows["E"].samples is None and not rows["E"].ranked
    assert all(None not in (rows[name].range, rows[name].cluster) for name in "ABCD")
    unresolved = unresolved_pairs(live)
    assert {("F", "E"), ("B", "E")} <= set(unresolved), "a system without a range is separated from none"


def test_resampling_nothing_is_refused():
    with pytest.raises(ValueError, match="no expanded pairs"):
        resample_outcome_counts(np.zeros((3, 3, 3), dtype=np.int64), 10, np.random.default_rng(0))


def ranking(*rows: tuple[str, tuple[int, int], int]) -> RankingResult:
    systems = tuple(RankedSystem(name, 0.5, 0.5, span, cluster) for name, span, cluster in rows)
    return RankingResult(systems=systems, confidence=0.95, n_samples=100)


def test_unresolved_pairs_are_those_with_overlapping_ranges():
    result = ranking(("A", (1, 1), 1), ("B", (2, 3), 2), ("C", (2, 4), 2), ("D", (4, 4), 2), ("E", (5, 5), 3))
    assert unresolved_pairs(result) == [("B", "C"), ("C", "D")]
    assert cluster_partition(result, ["E", "D", "C", "B", "A"]) == (3, 2, 2, 2, 1)
    unranked = RankingResult(systems=(*result.systems, RankedSystem("F", 0.1, 0.1, None, None, 3)), confidence=0.95,
                             n_samples=100)
    assert unresolved_pairs(unranked) == [("A", "F"), ("B", "C"), ("B", "F"), ("C", "D"), ("C", "F"), ("D", "F"),
                                          ("E", "F")], "a system without a range is separated from none"


def test_stable_since_finds_the_start_of_the_last_run_of_equal_partitions():
    assert stable_since([], []) is None
    assert stable_since([100], [(1, 2)]) == 100
    assert stable_since([100, 200, 300, 400], [(1, 1), (1, 2), (1, 2), (1, 2)]) == 200
    assert stable_since([100, 200, 300], [(1, 2), (1, 2), (2, 1)]) == 300
    assert stable_since([100, 200, 300], [(1, 2), (2, 1), (1, 2)]) == 300
    with pytest.raises(ValueError):
        stable_since([100], [])
