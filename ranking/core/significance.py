"""Head-to-head comparison of systems with sign tests (G15 Table 3d; METHODS 8).

For row R and column C: the share of the non-tie expanded judgments of (R, C) in which C beat R, and a two-sided
sign test of those wins against 1/2 (``scipy.stats.binomtest``), marked at p <= 0.10 (⋆), 0.05 (†), 0.01 (‡).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

SIGNIFICANCE_MARKS = ((0.01, "‡"), (0.05, "†"), (0.10, "⋆"))
"""(threshold, mark) from the strictest level down; G15 Table 3d prints them after the share."""


def significance_mark(p_value: float) -> str:
    """The mark of the strictest level that ``p_value`` reaches (``""`` if none, e.g. NaN)."""
    for threshold, mark in SIGNIFICANCE_MARKS:
        if p_value <= threshold:
            return mark
    return ""


def sign_test_p_values(wins: np.ndarray) -> np.ndarray:
    """Two-sided sign-test p-values (S, S) of W[i, j] wins out of W[i, j] + W[j, i] decided pairs; NaN when none."""
    wins = np.asarray(wins, dtype=np.int64)
    n = wins.shape[0]
    p_values = np.full((n, n), np.nan)
    for i, j in zip(*np.triu_indices(n, k=1)):
        decided = wins[i, j] + wins[j, i]
        if decided:
            p_values[i, j] = p_values[j, i] = binomtest(int(wins[i, j]), int(decided), 0.5).pvalue
    return p_values


@dataclass(frozen=True)
class HeadToHead:
    """Matrices indexed [row, column] over ``systems``: ``wins`` = column beat row, ``losses`` = row beat column;
    ``share`` and ``p_value`` are NaN where the two systems have no decisive comparison (and on the diagonal)."""

    systems: tuple[str, ...]
    wins: np.ndarray
    losses: np.ndarray
    share: np.ndarray
    p_value: np.ndarray


def head_to_head(win_counts: np.ndarray, systems: Sequence[str]) -> HeadToHead:
    """Head-to-head table from a win matrix W[i, j] = times i beat j (``pairs.win_matrix``) (G15 Table 3d)."""
    win_counts = np.asarray(win_counts, dtype=np.int64)
    if win_counts.shape != (len(systems), len(systems)):
        raise ValueError(f"win matrix shape {win_counts.shape} does not match {len(systems)} systems")
    column_wins = win_counts.T
    decided = column_wins + win_counts
    share = np.divide(column_wins, decided, out=np.full(decided.shape, np.nan), where=decided > 0)
    np.fill_diagonal(share, np.nan)
    return HeadToHead(
        systems=tuple(systems),
        wins=column_wins.copy(),
        losses=win_counts.copy(),
        share=share,
        p_value=sign_test_p_values(win_counts),
    )
