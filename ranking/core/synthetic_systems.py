"""Synthetic systems for system-level metric meta-evaluation (N19 section 5.2, after Graham and Liu 2016,
"hybrid super-sampling").

A synthetic system takes two distinct real systems a and b and a share p in {0.1, ..., 0.9}: a random p of the
sentences (rounded) come from a, the rest from b. Its human score is the mean of the human scores of the sentences
it took (sentences without a human score left out); its metric score is the metric computed on the sentences it
took, from per-sentence sufficient statistics that add up over a corpus (GLEU's n-gram counts, chrF's character
and word n-gram counts). With many such systems a correlation rests on more than a handful of points.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

SHARES = np.arange(1, 10) / 10
"""The shares of sentences taken from the first system."""


@dataclass(frozen=True)
class SyntheticPlan:
    """``first``/``second`` (n,): the two real systems of each synthetic system; ``from_first`` (n, N): which
    sentences come from the first."""

    first: np.ndarray
    second: np.ndarray
    from_first: np.ndarray


def plan_synthetic_systems(n_systems: int, n_sentences: int, count: int, rng: np.random.Generator) -> SyntheticPlan:
    """``count`` synthetic systems mixing two of ``n_systems`` real systems; raises ``ValueError`` with fewer than
    two."""
    if n_systems < 2:
        raise ValueError("synthetic systems need two real systems or more")
    first = rng.integers(n_systems, size=count)
    second = (first + rng.integers(1, n_systems, size=count)) % n_systems
    shares = rng.choice(SHARES, size=count)
    from_first = np.zeros((count, n_sentences), dtype=bool)
    for k in range(count):
        from_first[k, rng.permutation(n_sentences)[: int(round(shares[k] * n_sentences))]] = True
    return SyntheticPlan(first, second, from_first)


def synthetic_human_scores(human: np.ndarray, plan: SyntheticPlan) -> np.ndarray:
    """Mean human score (S, N; NaN where a sentence has none) of each synthetic system's sentences (NaN if none)."""
    chosen = np.where(plan.from_first, human[plan.first], human[plan.second])
    rated = ~np.isnan(chosen)
    totals = np.where(rated, chosen, 0.0).sum(axis=1)
    counts = rated.sum(axis=1)
    return np.divide(totals, counts, out=np.full(counts.shape, np.nan), where=counts > 0)


def synthetic_metric_scores(
    statistics: np.ndarray | Callable[[int], np.ndarray], plan: SyntheticPlan, score: Callable[[np.ndarray], float]
) -> np.ndarray:
    """The metric of each synthetic system: ``score`` of the sum of its sentences' statistics.

    ``statistics`` is (S, N, K) or a function giving system s's (N, K) statistics; it is asked for each system once,
    so large statistics (GLEU's, per iteration of its reference draws) are built one system at a time.
    """
    system_statistics = statistics.__getitem__ if isinstance(statistics, np.ndarray) else statistics
    totals: np.ndarray | None = None
    for system in np.union1d(plan.first, plan.second):
        weights = (plan.from_first & (plan.first == system)[:, None]) | (
            ~plan.from_first & (plan.second == system)[:, None]
        )
        rows = np.flatnonzero(weights.any(axis=1))
        stats = np.asarray(system_statistics(int(system)), dtype=np.float64)
        if totals is None:
            totals = np.zeros((len(plan.first), stats.shape[1]))
        totals[rows] += weights[rows].astype(np.float64) @ stats
    if totals is None:
        return np.zeros(0)
    return np.array([score(row) for row in totals])
