"""Expected Wins (G15 §5.1, Bojar et al. 2013; METHODS 5).

score_EW(A) = 1/(|S| - 1) * sum_{B != A} win(A, B) / (win(A, B) + win(B, A)),

where win(A, B) is the number of expanded pairs in which A is ranked better than B (ties ignored) and a term with a
zero denominator adds 0. The score is the probability that A beats an opponent drawn uniformly from the others.

S is the set of systems compared in the pairs scored (in at least one pair, ties included), as WMT's ``infer_EW.py``
(Sakaguchi et al. 2014, whose TrueSkill G15 ran too) collects it from the judgments, and for each bootstrap resample
from that resample: a campaign's system no judgment has shown yet is not an opponent, and does not lower the others'
scores (:func:`counts_expected_wins`; the paper's |S| is the systems evaluated, which on CoNLL-14 are all compared).

G15's per-judge rankings (Table 7, and the correlations of Table 6) were computed by another script of the paper's
release (``EW.pl``) that averages over the opponents A beat at least once instead of all |S| - 1 others; where a
judge's data leave some win(A, B) = 0 this raises A's score (judge 1: INPUT 0.332 instead of 0.304). Those published
numbers reproduce only with that divisor, offered here as ``opponents="beaten"``. With win(A, B) > 0 for all pairs,
as on the full CoNLL-14 data, both agree.

A bootstrap resample (or training run) scores only some systems, as G15's scripts write them
(:func:`run_expected_wins`): ``EW.py`` those its pairs compare, ``EW.pl`` those that beat another at least once (the
keys of its win table). ``eval/cluster.py`` and ``EW.pl`` rank each run's scored systems among themselves.
"""
from __future__ import annotations

from typing import Literal

import numpy as np

from .pairs import compared_in, compared_systems, counts_win_matrix

Opponents = Literal["all", "beaten"]


def expected_wins(
    wins: np.ndarray, opponents: Opponents = "all", compared: np.ndarray | int | None = None
) -> np.ndarray:
    """EW scores from win matrices of shape (..., S, S), W[..., a, b] = win(a, b); returns shape (..., S).

    ``opponents="all"`` divides by |S| - 1 (METHODS 5), |S| being ``compared`` (shape (...) or a number: the systems
    compared in the pairs the matrices count, ``pairs.compared_systems``; default: every system of the matrix);
    ``"beaten"`` by the number of opponents with win(a, b) > 0 (G15 Table 7; a system that beat nobody scores 0).
    Vectorized over leading batch dimensions (e.g. B bootstrap samples at once). Needs S >= 2.
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
    total = share.sum(axis=-1)
    if opponents == "all":
        systems = np.asarray(n_systems if compared is None else compared)
        return total / np.maximum(systems - 1, 1)[..., None]
    if opponents == "beaten":
        beaten = np.count_nonzero(wins > 0, axis=-1)
        return np.divide(total, beaten, out=np.zeros_like(total), where=beaten > 0)
    raise ValueError(f"opponents must be 'all' or 'beaten', got {opponents!r}")


def counts_expected_wins(counts: np.ndarray, opponents: Opponents = "all") -> np.ndarray:
    """EW scores (..., S) of the pairs with outcome counts (..., S, S, 3) (``pairs.outcome_counts``): of the win
    matrices they hold (``pairs.counts_win_matrix``), over the systems they compare (``pairs.compared_systems``)."""
    return expected_wins(counts_win_matrix(counts), opponents, compared_systems(counts))


def run_expected_wins(counts: np.ndarray, opponents: Opponents = "all") -> np.ndarray:
    """EW scores (..., S) of each run's pairs with outcome counts (..., S, S, 3) as G15's scripts write them:
    :func:`counts_expected_wins`, NaN for a system the run does not score.

    With ``opponents="all"`` a run scores the systems its pairs compare (``EW.py``, like WMT's ``infer_EW.py``,
    collects them from its pairs, ties included); with ``"beaten"`` those that beat another system at least once in
    it (``EW.pl`` ranks the keys of its win table, which only wins fill), i.e. those with a score above 0.
    """
    scores = counts_expected_wins(counts, opponents)
    scored = compared_in(counts) if opponents == "all" else scores > 0
    return np.where(scored, scores, np.nan)
