"""Expected Wins of a growing set of rankings, kept as outcome counts (G15 §5.1-5.2; METHODS 5, 7).

Win counts per ordered system pair are sufficient statistics for Expected Wins and for its bootstrap (METHODS 5):
a resample of the expanded pairs is a multinomial draw over the outcome cells. A live leaderboard therefore keeps
the outcome counts (``pairs.outcome_counts``, shape (S, S, 3)) of the rankings seen so far, adds the counts of new
rankings as they arrive, and ranks from the counts with the functions the analysis uses
(``bootstrap.resample_outcome_counts``, ``expected_wins.run_expected_wins``, ``bootstrap.bootstrap_ranking``): the
same ranking as the analysis computes from all the pairs, without holding the pairs.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .bootstrap import RankingResult, bootstrap_ranking, resample_outcome_counts
from .expected_wins import counts_expected_wins, run_expected_wins
from .pairs import compared_in, expanded_pairs, outcome_counts
from .rankings import Rankings


def step_counts(rankings: Rankings, ends: Sequence[int]) -> np.ndarray:
    """Outcome counts (len(ends), S, S, 3) of the rankings from ``ends[k - 1]`` (0 for the first) to ``ends[k]``,
    for increasing ``ends``: their cumulative sum is the counts of each prefix.

    ``expanded_pairs`` lists the pairs of each ranking together, rankings in order, and a ranking covering k systems
    gives k(k-1)/2 pairs (METHODS 3), so the pairs of the first e rankings are a prefix of the pairs.
    """
    ends = np.asarray(ends, dtype=np.int64)
    if ends.size and (np.any(np.diff(ends) < 0) or ends[0] < 0 or ends[-1] > rankings.n_rankings):
        raise ValueError(f"checkpoints must increase within 0..{rankings.n_rankings}, got {ends.tolist()}")
    pairs = expanded_pairs(rankings)
    covered = np.bincount(rankings.candidate_ranking[rankings.member_candidate], minlength=rankings.n_rankings)
    pair_end = np.r_[0, np.cumsum(covered * (covered - 1) // 2)]
    bounds = np.r_[0, pair_end[ends]]
    n_systems = rankings.n_systems
    return np.stack(
        [outcome_counts(pairs.take(slice(start, stop)), n_systems) for start, stop in zip(bounds[:-1], bounds[1:])]
    ) if ends.size else np.zeros((0, n_systems, n_systems, 3), dtype=np.int64)


def expected_wins_ranking(
    counts: np.ndarray, names: Sequence[str], n_boot: int, confidence: float, rng: np.random.Generator
) -> RankingResult:
    """The Expected Wins ranking (bootstrap means, rank ranges, clusters; METHODS 7) of the pairs with outcome counts
    ``counts`` (S, S, 3), from ``n_boot`` resamples drawn from ``rng``, as the analysis ranks them: a resample scores
    the systems its pairs compare (``run_expected_wins``), a system in no pair has no score, and one in too few
    resamples no range (``bootstrap.bootstrap_ranking``). Needs S >= 2 and at least one pair."""
    samples = run_expected_wins(resample_outcome_counts(counts, n_boot, rng))
    return bootstrap_ranking(samples, counts_expected_wins(counts), names, confidence, judged=compared_in(counts))


def unresolved_pairs(result: RankingResult) -> list[tuple[str, str]]:
    """The system pairs whose rank ranges overlap (not yet separated by the bootstrap), better-ranked system first;
    a system without a range (never compared, or in too few resamples) is separated from none."""
    rows = result.systems
    return [
        (a.system, b.system)
        for i, a in enumerate(rows)
        for b in rows[i + 1:]
        if not (a.ranked and b.ranked) or (a.range[0] <= b.range[1] and b.range[0] <= a.range[1])
    ]


def cluster_partition(result: RankingResult, names: Sequence[str]) -> tuple[int, ...]:
    """Each system's cluster number, in ``names`` order: two rankings cluster alike when these are equal."""
    cluster = {row.system: row.cluster for row in result.systems}
    return tuple(cluster[name] for name in names)


def stable_since(points: Sequence[int], partitions: Sequence[tuple[int, ...]]) -> int | None:
    """The first of the increasing ``points`` from which every later partition equals the last one; None if empty.

    With points every 100 rankings, the clusters were unchanged over at least ``points[-1] - stable_since(...)``
    rankings.
    """
    if len(points) != len(partitions):
        raise ValueError("one partition per point")
    if not points:
        return None
    first = len(points) - 1
    while first > 0 and partitions[first - 1] == partitions[-1]:
        first -= 1
    return int(points[first])
