"""Rank ranges and clusters by bootstrap resampling (G15 §5.2, Koehn 2012; METHODS 7).

Repeat B times: resample the expanded pairs with replacement (same count), recompute the scores, rank the systems
(1 = best). Each system's rank range drops the ceil((B - confidence * B) / 2) lowest and highest of its B sorted ranks.
Its reported score is the mean over the B samples (what G15 Table 3b prints); the full-data score is kept too.
Systems are ordered by that mean; walking down the order, a cluster closes after system i when the upper end of
i's range is smaller than the lower end of every system below it.

A system a sample does not score is NaN there (a resample that drew none of its pairs): as G15's ``eval/cluster.py``
reads the runs that ``EW.py`` and ``TS.py`` wrote, each sample ranks only the systems it scores, and a system's mean
and range are taken over its own samples (:func:`rank_ranges`). A system in too few samples for a rank range
(:func:`rankable`; ``cluster.py`` fails there) is listed after the ranked systems without range or cluster.

:func:`bootstrap_ranking` serves any scoring method (Expected Wins, TrueSkill); :func:`bootstrap_expected_wins`
resamples Expected Wins without materializing resamples, since win counts are sufficient statistics (METHODS 5).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.stats import rankdata

from ranking.core.expected_wins import Opponents, run_expected_wins
from ranking.core.pairs import ExpandedPairs, counts_win_matrix, outcome_counts
from ranking.core.parameters import has_rank_range, trimmed_count


@dataclass(frozen=True)
class RankedSystem:
    """One row of a ranking table (G15 Table 3b/3c/7): ranks and cluster are 1-based, ``range`` is (lo, hi).

    ``samples``: how many of the bootstrap samples rank the system (``score`` is their mean, NaN for none). A
    system in too few of them for a rank range has no range and no cluster (None). A system that was never judged
    (no expanded pair) has no score (NaN), no range and no cluster, and ``samples`` is None.
    """

    system: str
    score: float
    full_data_score: float
    range: tuple[int, int] | None
    cluster: int | None
    samples: int | None = None

    @property
    def judged(self) -> bool:
        """Whether the system has a judgment (an expanded pair), so that the bootstrap sampled it."""
        return self.samples is not None

    @property
    def ranked(self) -> bool:
        """Whether the system has a rank range and a cluster."""
        return self.range is not None


@dataclass(frozen=True)
class RankingResult:
    """Systems in rank order (best first, never-judged systems last) with the bootstrap's confidence level and
    number of samples."""

    systems: tuple[RankedSystem, ...]
    confidence: float
    n_samples: int


def sample_ranks(score_samples: np.ndarray) -> np.ndarray:
    """Rank each sample's systems, 1 = highest score; shape (B, S) -> (B, S). Tied systems share the best rank."""
    return rankdata(-np.asarray(score_samples, dtype=np.float64), method="min", axis=-1).astype(np.int64)


def rank_ranges(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Rank ranges (lo, hi), 1-based, of each system from bootstrap *score* samples of shape (B, S) (METHODS 7).

    Each system's B ranks are sorted; the :func:`trimmed_count` lowest and highest are dropped; lo and hi are the
    smallest and largest remaining ranks. Higher scores are better.

    A NaN score marks a system absent from that sample (its run had no pair of it): as G15's ``cluster.py`` reads
    each run's scores, the sample ranks its other systems without it, and the system's range is taken over the n
    samples that have it, dropping :func:`trimmed_count` of n at each end. Raises ``ValueError`` when a system has
    too few samples for a range (:func:`ranking.core.parameters.has_rank_range`).
    """
    samples = np.asarray(samples, dtype=np.float64)
    if samples.ndim != 2 or samples.shape[0] == 0:
        raise ValueError(f"score samples must have shape (B, S) with B >= 1, got {samples.shape}")
    present = ~np.isnan(samples)
    n_present = present.sum(axis=0)
    drop = np.array([trimmed_count(int(n), confidence) for n in n_present], dtype=np.int64)
    ranks = np.where(present, sample_ranks(np.where(present, samples, -np.inf)), np.iinfo(np.int64).max)
    ranks = np.sort(ranks, axis=0)
    systems = np.arange(samples.shape[1])
    return ranks[drop, systems], ranks[n_present - 1 - drop, systems]


def rankable(samples: np.ndarray, confidence: float) -> np.ndarray:
    """Boolean (S,): the systems of score samples (B, S) that are in enough samples (not NaN) for a rank range at
    ``confidence`` (:func:`ranking.core.parameters.has_rank_range`), which :func:`rank_ranges` needs."""
    counts = np.count_nonzero(~np.isnan(np.asarray(samples, dtype=np.float64)), axis=0)
    return np.array([has_rank_range(int(n), confidence) for n in counts], dtype=bool)


def clusters(order: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Cluster number (from 1) of each system, indexed like ``lo``/``hi`` (METHODS 7; WMT ``cluster.py -by-rank``).

    ``order`` lists system indices best first. Walking down it, a cluster closes after the system at position k when
    ``hi[order[k]] < min(lo[order[k+1:]])``.
    """
    order = np.asarray(order, dtype=np.int64)
    lo_in_order = np.asarray(lo)[order]
    hi_in_order = np.asarray(hi)[order]
    lowest_below = np.minimum.accumulate(lo_in_order[::-1])[::-1][1:]
    closes = hi_in_order[:-1] < lowest_below
    cluster_in_order = np.r_[1, 1 + np.cumsum(closes)]
    result = np.empty(order.size, dtype=np.int64)
    result[order] = cluster_in_order
    return result


def bootstrap_ranking(
    score_samples: np.ndarray,
    full_scores: np.ndarray,
    names: Sequence[str],
    confidence: float,
    order_by: Literal["mean", "full"] = "mean",
    judged: np.ndarray | None = None,
) -> RankingResult:
    """Ranking table from bootstrap score samples (B, S) and full-data scores (S,) (METHODS 7).

    ``score`` is the mean over the samples that score the system (NaN marks the others, module docstring).
    Systems are ordered by that mean (``order_by="mean"``, G15 Table 3b) or by the full-data score
    (``order_by="full"``); ties keep ``names`` order. Ranges from :func:`rank_ranges`, clusters from
    :func:`clusters` along that order.

    ``judged`` (S,) bool marks the systems with a judgment (default: all). The others have no score, range or
    cluster (:class:`RankedSystem`) and come last in ``names`` order; the judged systems in enough samples for a
    rank range (:func:`rankable`) are ranked among themselves, so their ranges and clusters are those of the ranked
    systems' table. The judged systems in too few samples follow them in the same order, without range or cluster.
    """
    score_samples = np.asarray(score_samples, dtype=np.float64)
    full_scores = np.asarray(full_scores, dtype=np.float64)
    if score_samples.ndim != 2 or score_samples.shape[1] != len(names) or full_scores.shape != (len(names),):
        raise ValueError(
            f"expected samples (B, {len(names)}) and full scores ({len(names)},), "
            f"got {score_samples.shape} and {full_scores.shape}"
        )
    judged = np.ones(len(names), dtype=bool) if judged is None else np.asarray(judged, dtype=bool)
    if judged.shape != (len(names),):
        raise ValueError(f"judged must mark each of the {len(names)} systems, got shape {judged.shape}")
    scored = ~np.isnan(score_samples)
    n_scored = scored.sum(axis=0)
    mean = np.divide(np.where(scored, score_samples, 0.0).sum(axis=0), n_scored,
                     out=np.full(len(names), np.nan), where=n_scored > 0)
    key = np.nan_to_num(mean if order_by == "mean" else full_scores, nan=-np.inf)
    ranked = judged & rankable(score_samples, confidence)
    present = np.flatnonzero(ranked)
    rows = []
    if present.size:
        order = np.argsort(-key[present], kind="stable")
        lo, hi = rank_ranges(score_samples[:, present], confidence)
        cluster = clusters(order, lo, hi)
        rows = [
            RankedSystem(names[s], float(mean[s]), float(full_scores[s]), (int(lo[k]), int(hi[k])), int(cluster[k]),
                         int(n_scored[s]))
            for k, s in zip(order, present[order])
        ]
    unranked = np.flatnonzero(judged & ~ranked)
    rows += [RankedSystem(names[s], float(mean[s]), float(full_scores[s]), None, None, int(n_scored[s]))
             for s in unranked[np.argsort(-key[unranked], kind="stable")]]
    rows += [RankedSystem(names[s], np.nan, np.nan, None, None) for s in np.flatnonzero(~judged)]
    return RankingResult(systems=tuple(rows), confidence=confidence, n_samples=score_samples.shape[0])


def resample_win_matrices(pairs: ExpandedPairs, n_systems: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Win matrices (B, S, S) of B resamples (with replacement, P draws each) of the expanded pairs.

    A resample of P pairs is a multinomial draw of P over the outcome cells (system pair x {<, =, >}) with the observed
    cell shares as probabilities, ties included, so drawing the cell counts directly has exactly the distribution of
    resampling the pairs while costing O(B * cells) instead of O(B * P).
    """
    if len(pairs) == 0:
        raise ValueError("no expanded pairs to resample")
    return counts_win_matrix(resample_outcome_counts(outcome_counts(pairs, n_systems), n_boot, rng))


def resample_outcome_counts(counts: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Outcome counts (B, S, S, 3) of B resamples of the P expanded pairs whose ``outcome_counts`` (S, S, 3) are
    ``counts``.

    The same draws as :func:`resample_win_matrices` on those pairs (which calls this), for callers that keep only the
    counts, e.g. of a growing set of judgments, and for the systems each resample compares (Expected Wins' |S|).
    """
    n_pairs = int(counts.sum())
    if n_pairs == 0:
        raise ValueError("no expanded pairs to resample")
    flat = counts.reshape(-1)
    cells = np.flatnonzero(flat)
    resampled = np.zeros((n_boot, flat.size), dtype=np.int64)
    resampled[:, cells] = rng.multinomial(n_pairs, flat[cells] / n_pairs, size=n_boot)
    return resampled.reshape(n_boot, *counts.shape)


def bootstrap_expected_wins(
    pairs: ExpandedPairs, n_systems: int, n_boot: int, rng: np.random.Generator, opponents: Opponents = "all"
) -> np.ndarray:
    """Expected Wins scores (B, S) of B bootstrap resamples of the expanded pairs (METHODS 5, 7), each over the
    systems its resample compares, NaN for a system the resample does not score
    (:func:`ranking.core.expected_wins.run_expected_wins`: G15's ``EW.py``, or ``EW.pl`` with ``"beaten"``).

    ``opponents`` as in :func:`ranking.core.expected_wins.expected_wins`.
    """
    return run_expected_wins(resample_outcome_counts(outcome_counts(pairs, n_systems), n_boot, rng), opponents)
