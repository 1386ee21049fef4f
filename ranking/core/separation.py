"""How many more judgments the unresolved system pairs need to be separated (issue 13, the organizer's dashboard).

Each expanded pair of systems a and b (METHODS 3) is one comparison ``x``: +1 when a wins, -1 when b wins, 0 for a
tie. From the ``n`` comparisons so far, with ``w`` wins of a and ``l`` of b (half a win added to each, so that
one-sided counts give no zero variance), the mean and variance of ``x`` are

    delta = (w - l) / n,        s^2 = (w + l) / n - delta^2.

The comparisons needed to tell ``delta`` from 0 by a two-sided test at level ``1 - confidence`` with power
``power`` (the normal approximation of the one-sample test of a mean; e.g. Chow, Shao and Wang, *Sample Size
Calculations in Clinical Research*, section 3.1) are

    n* = ((z_{(1 + confidence) / 2} + z_{power}) * s / |delta|)^2,

so the pair needs ``max(0, n* - n)`` more. The campaign's judgments so far compared the pair ``n / J`` times each
(``J`` judgments analysed); at that rate the pair needs ``ceil(max(0, n* - n) * J / n)`` more judgments. Every
judgment compares several pairs at once, so the separations proceed side by side and the campaign needs about the
largest of the pairs' numbers (``all``).

This is an approximation: the dashboard separates pairs by overlapping bootstrap rank ranges of Expected Wins
(METHODS 7), which also depend on the two systems' results against the others; a pair's direct comparisons are the
most direct evidence about their order. A pair never compared, or whose comparisons so far balance out (the
estimate exceeds ``cap`` judgments), has no estimate (``None`` with the reason).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

CONFIDENCE = 0.95
POWER = 0.8
CAP = 10_000_000
"""Estimates above this many judgments are reported as none: the pair looks tied so far."""
NEVER_COMPARED = "never compared yet"
LOOKS_TIED = "its comparisons so far balance out: it may be a tie"


@dataclass(frozen=True)
class PairEstimate:
    """More judgments pair (first, second) needs (None, with ``reason``, when there is no estimate)."""

    first: int
    second: int
    judgments: int | None
    reason: str | None = None


def comparisons_needed(wins: float, losses: float, ties: float, confidence: float = CONFIDENCE,
                       power: float = POWER) -> float:
    """n* of the module docstring for a pair with these counts (``inf`` when the smoothed wins and losses are
    equal)."""
    won, lost = wins + 0.5, losses + 0.5
    n = won + lost + ties
    delta = (won - lost) / n
    if delta == 0.0:
        return math.inf
    spread = math.sqrt(max((won + lost) / n - delta * delta, 0.0))
    z = norm.ppf((1.0 + confidence) / 2.0) + norm.ppf(power)
    return (z * spread / abs(delta)) ** 2


def more_judgments(counts: np.ndarray, pairs: list[tuple[int, int]], judgments: int, confidence: float = CONFIDENCE,
                   power: float = POWER, cap: int = CAP) -> list[PairEstimate]:
    """The estimate of each pair (a, b) of system indices from outcome counts ``counts`` (S, S, 3) of
    ``judgments`` rankings (``core.pairs.outcome_counts``: cell (i, j, 0) counts i beating j for i < j)."""
    counts = np.asarray(counts)
    estimates = []
    for a, b in pairs:
        i, j = min(a, b), max(a, b)
        first_wins, ties, second_wins = (float(x) for x in counts[i, j])
        wins, losses = (first_wins, second_wins) if a == i else (second_wins, first_wins)
        n = wins + losses + ties
        if n == 0 or judgments < 1:
            estimates.append(PairEstimate(a, b, None, NEVER_COMPARED))
            continue
        more = max(0.0, comparisons_needed(wins, losses, ties, confidence, power) - n) * judgments / n
        if not more <= cap:
            estimates.append(PairEstimate(a, b, None, LOOKS_TIED))
            continue
        estimates.append(PairEstimate(a, b, int(math.ceil(more))))
    return estimates
