"""Serving screens of an active campaign on synthetic data, shared by ``tests/ranking/core/test_active.py`` and
``benchmarks/active_choice.py``: a large test set's screen options and a simulated judge's ranking of a screen."""
from __future__ import annotations

import numpy as np

from ranking.core.active import RunningTrueSkill, ScreenOptions


def collapsed_test_set(sentences: int, systems: int, rng: np.random.Generator) -> ScreenOptions:
    """Each sentence's candidates with a realistic spread of collapse: 2 to 40 distinct outputs, most systems
    sharing a few frequent ones (their labels drawn geometrically)."""
    distinct = rng.integers(2, 41, size=sentences)
    labels = np.minimum(rng.geometric(0.25, size=(sentences, systems)) - 1, distinct[:, None] - 1)
    return ScreenOptions.from_labels(labels)


def observe_random_ranking(belief: RunningTrueSkill, options: ScreenOptions, screen: int, shown: np.ndarray,
                           rng: np.random.Generator) -> None:
    """Update ``belief`` by a judge's ranking of screen ``screen``'s ``shown`` candidates in random order (ranks
    1 to the number shown; the systems of a candidate share its rank, the others are not compared)."""
    members = slice(options.offsets[screen], options.offsets[screen + 1])
    rank_of = np.zeros(options.n_candidates[screen], dtype=np.int64)
    rank_of[shown] = rng.permutation(shown.size) + 1
    rank = rank_of[options.member_candidate[members]]
    systems = options.member_system[members][rank > 0]
    rank = rank[rank > 0]
    a, b = np.triu_indices(systems.size, 1)
    belief.observe(systems[a], systems[b], np.sign(rank[a] - rank[b]))
