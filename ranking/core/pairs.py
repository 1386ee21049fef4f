"""Rankings to pairwise judgments (G15 §4.3, Table 1; METHODS 3).

*Unexpanded* pairs: one per two shown candidates of a screen (WMT style), keyed by (segment, first candidate name,
second candidate name) with the names in lexicographic order. *Expanded* pairs: one per two systems covered by a
screen; systems of one candidate, or of candidates with equal rank, tie. A screen covering k systems yields
k(k-1)/2 expanded pairs.

Relations are int8: -1 = the first is ranked better (``<``), 0 = tie (``=``), +1 = the second is ranked better.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ranking.core.rankings import Rankings

BETTER_FIRST, TIE, BETTER_SECOND = -1, 0, 1


def pairs_within_groups(group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All row positions (i, j), i < j, with ``group[i] == group[j]``; rows of one group must be contiguous.

    Vectorized: row i pairs with the rows after it up to its group's end, so no loop over groups is needed.
    """
    group = np.asarray(group)
    n = group.size
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy()
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    sizes = np.diff(np.r_[starts, n])
    partners_after = np.repeat(starts + sizes, sizes) - np.arange(n) - 1
    first = np.repeat(np.arange(n), partners_after)
    block_start = np.repeat(np.cumsum(partners_after) - partners_after, partners_after)
    second = first + 1 + (np.arange(first.size) - block_start)
    return first, second


def _ordered(
    a: np.ndarray, b: np.ndarray, rank_a: np.ndarray, rank_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order each pair so that a < b and give the relation of the ordered pair (-1: first better)."""
    swap = a > b
    first = np.where(swap, b, a)
    second = np.where(swap, a, b)
    relation = np.sign(np.where(swap, rank_b - rank_a, rank_a - rank_b)).astype(np.int8)
    return first, second, relation


class _PairRows:
    """Pairs held as parallel arrays, one row per pair; ``len`` is the number of pairs."""

    relation: np.ndarray

    def __len__(self) -> int:
        return int(self.relation.size)


@dataclass(frozen=True)
class UnexpandedPairs(_PairRows):
    """One row per two candidates shown on one screen; ``first < second`` index ``Rankings.candidate_names``."""

    ranking: np.ndarray
    judge: np.ndarray
    segment: np.ndarray
    first: np.ndarray
    second: np.ndarray
    relation: np.ndarray


@dataclass(frozen=True)
class ExpandedPairs(_PairRows):
    """One row per two systems covered by one screen: system indices ``first < second``, relation, judge index."""

    first: np.ndarray
    second: np.ndarray
    relation: np.ndarray
    judge: np.ndarray

    def take(self, index: np.ndarray) -> ExpandedPairs:
        """The pairs selected by an integer index or boolean mask (e.g. a cross-validation fold or one judge)."""
        return ExpandedPairs(self.first[index], self.second[index], self.relation[index], self.judge[index])


def unexpanded_pairs(rankings: Rankings) -> UnexpandedPairs:
    """Every two candidates of every screen, names in lexicographic order (METHODS 3)."""
    i, j = pairs_within_groups(rankings.candidate_ranking)
    ranking = rankings.candidate_ranking[i]
    first, second, relation = _ordered(
        rankings.candidate_name[i], rankings.candidate_name[j], rankings.candidate_rank[i], rankings.candidate_rank[j]
    )
    return UnexpandedPairs(
        ranking=ranking,
        judge=rankings.ranking_judge[ranking],
        segment=rankings.ranking_segment[ranking],
        first=first,
        second=second,
        relation=relation,
    )


def expanded_pairs(rankings: Rankings) -> ExpandedPairs:
    """Every two systems covered by every screen, system indices ordered, ties within a rank group (METHODS 3)."""
    member_ranking = rankings.candidate_ranking[rankings.member_candidate]
    i, j = pairs_within_groups(member_ranking)
    rank = rankings.candidate_rank[rankings.member_candidate]
    first, second, relation = _ordered(rankings.member_system[i], rankings.member_system[j], rank[i], rank[j])
    return ExpandedPairs(first=first, second=second, relation=relation, judge=rankings.ranking_judge[member_ranking[i]])


def win_matrix(pairs: ExpandedPairs, n_systems: int) -> np.ndarray:
    """W[i, j] = number of expanded pairs in which system i is ranked better than system j; ties ignored (METHODS 5).

    Read off the outcome counts: ``counts_win_matrix(outcome_counts(pairs, n_systems))``.
    """
    return counts_win_matrix(outcome_counts(pairs, n_systems))


def compared_in(counts: np.ndarray) -> np.ndarray:
    """Boolean (..., S): the systems that the pairs with outcome counts (..., S, S, 3) compare, i.e. that occur in
    at least one pair, ties included."""
    counted = np.asarray(counts).sum(axis=-1) > 0
    return counted.any(axis=-1) | counted.any(axis=-2)


def compared_systems(counts: np.ndarray) -> np.ndarray:
    """The number of systems (...) that the pairs with outcome counts (..., S, S, 3) compare (:func:`compared_in`):
    |S| of Expected Wins, METHODS 5."""
    return np.count_nonzero(compared_in(counts), axis=-1)


def judged_systems(pairs: ExpandedPairs, n_systems: int) -> np.ndarray:
    """Boolean (S,): the systems that occur in at least one of the expanded pairs (ties included)."""
    return np.bincount(np.r_[pairs.first, pairs.second], minlength=n_systems) > 0


def outcome_counts(pairs: ExpandedPairs, n_systems: int) -> np.ndarray:
    """C[i, j, r + 1] = number of expanded pairs (i, j), i < j, with relation r in (-1, 0, +1); shape (S, S, 3).

    These counts are sufficient statistics for every pair-based score of METHODS 5 (and for resampling the pairs).
    """
    cell = (pairs.first * n_systems + pairs.second) * 3 + (pairs.relation.astype(np.int64) + 1)
    return np.bincount(cell, minlength=n_systems * n_systems * 3).reshape(n_systems, n_systems, 3)


def counts_win_matrix(counts: np.ndarray) -> np.ndarray:
    """Win matrices (..., S, S) from outcome counts (..., S, S, 3): W[i, j] = C[i, j, 0] + C[j, i, 2], since cell
    (i, j, 0) counts i beating j and (i, j, 2) j beating i (METHODS 5); :func:`win_matrix` is this of
    :func:`outcome_counts`."""
    counts = np.asarray(counts)
    return counts[..., 0] + np.swapaxes(counts[..., 2], -1, -2)


@dataclass(frozen=True)
class PairStatistics:
    """G15 Table 1 per judge (arrays of shape (J,), in ``judges`` order); totals via :meth:`total`."""

    judges: tuple[str, ...]
    rankings: np.ndarray
    """Rankings (screens) of each judge, skipped ones included."""
    unexpanded: np.ndarray
    """Unexpanded pairwise judgments of each judge: one per two candidates shown on one of the judge's screens."""
    unexpanded_ties: np.ndarray
    """Those of ``unexpanded`` whose two candidates have the same rank (Table 1's parentheses)."""
    expanded: np.ndarray
    """Expanded pairwise judgments of each judge: one per two systems covered by one of the judge's screens."""
    expanded_ties: np.ndarray
    """Those of ``expanded`` whose two systems tie: they share a candidate, or their candidates have the same rank."""

    COLUMNS = ("rankings", "unexpanded", "unexpanded_ties", "expanded", "expanded_ties")

    def total(self) -> dict[str, int]:
        """Column totals, keyed as in the analysis JSON (``rankings``, ``unexpanded``, ..., ``expanded_ties``)."""
        return {name: int(getattr(self, name).sum()) for name in self.COLUMNS}

    def per_judge(self) -> dict[str, dict[str, int]]:
        """``{judge: {column: count}}`` as in the analysis JSON."""
        return {
            judge: {name: int(getattr(self, name)[j]) for name in self.COLUMNS} for j, judge in enumerate(self.judges)
        }


def pair_statistics(rankings: Rankings) -> PairStatistics:
    """Rankings, unexpanded and expanded pairs, and their ties, per judge (G15 Table 1)."""
    n = rankings.n_judges
    unexpanded = unexpanded_pairs(rankings)
    expanded = expanded_pairs(rankings)
    return PairStatistics(
        judges=rankings.judge_names,
        rankings=rankings.rankings_per_judge(),
        unexpanded=np.bincount(unexpanded.judge, minlength=n),
        unexpanded_ties=np.bincount(unexpanded.judge[unexpanded.relation == TIE], minlength=n),
        expanded=np.bincount(expanded.judge, minlength=n),
        expanded_ties=np.bincount(expanded.judge[expanded.relation == TIE], minlength=n),
    )
