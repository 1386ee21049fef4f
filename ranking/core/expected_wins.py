"""Expected Wins (G15 §5.1, Bojar et al. 2013; METHODS 5).

score_EW(A) = 1/(|S| - 1) * sum_{B != A} win(A, B) / (win(A, B) + win(B, A)),

where win(A, B) is the number of expanded pairs in which A is ranked better than B (ties ignored) and a term with a
zero denominator adds 0. The score is the probability that A beats an opponent drawn uniformly from the others.
"""
from __future__ import annotations

import numpy as np


def expected_wins(wins: np.ndarray) -> np.ndarray:
    """EW scores from win matrices of shape (..., S, S), W[..., a, b] = win(a, b); returns shape (..., S).

    Vectorized over any leading batch dimensions (e.g. B bootstrap samples at once). Needs S >= 2.
    """
    wins = np.asarray(wins, dtype=np.float64)
    if wins.ndim < 2 or wins.shape[-1] != wins.shape[-2]:
        raise ValueError(f"win matrices must have shape (..., S, S), got {wins.shape}")
    n_systems = wins.shape[-1]
    if n_systems < 2:
        raise ValueError("Expected Wins needs at least two systems")
    if np.any(wins < 0):
        raise ValueError("win counts must be non-negative")
    played = wins + np.swapaxes(wins, -1, -2)
    share = np.divide(wins, played, out=np.zeros_like(wins), where=played > 0)
    return share.sum(axis=-1) / (n_systems - 1)
