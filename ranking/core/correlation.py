"""Correlation of system scores: human ranking vs metrics and judge vs judge (G15 §6, Tables 5, 6, Figure 3;
METHODS 10).

Spearman's rho and Pearson's r (``scipy.stats``) between two score vectors over the same systems. M2 F_beta for any
beta from a system's precision P and recall R: F_beta = (1 + beta^2) P R / (beta^2 P + R), 0 when P or R is 0.

Reproducing G15 Table 5: the human scores are the three-decimal EW scores of Table 3b, G15's bootstrap means as
printed (``latex_correl.pl`` reads them); Pearson's r moves in the third decimal with unrounded or re-bootstrapped
scores. The row "M2 F0.18" prints the maximum of each column over the beta grid 0.01, 0.02, ..., 1.00
(Spearman peaks at beta = 0.18, Pearson at 0.17 with 0.701), see :meth:`BetaSweep.best_spearman` and
:meth:`BetaSweep.best_pearson`.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import ConstantInputWarning, NearConstantInputWarning, pearsonr, rankdata

MIN_SYSTEMS = 3
"""Correlations of score vectors need this many systems."""
BETA_GRID = np.round(np.arange(1, 101) / 100.0, 2)
"""The betas of G15 Figure 3 and Table 5: 0.01, 0.02, ..., 1.00."""


@dataclass(frozen=True)
class Correlation:
    """Spearman's rho and Pearson's r of two score vectors; NaN when a vector is constant."""

    spearman: float
    pearson: float


def _check_pair(x: np.ndarray, y: np.ndarray) -> None:
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"score vectors cover different numbers of systems: {x.shape[-1]} and {y.shape[-1]}")
    if x.shape[-1] < MIN_SYSTEMS:
        raise ValueError(f"correlations need scores of at least {MIN_SYSTEMS} systems")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("scores must be finite numbers")


def unit_scaled(values: np.ndarray) -> np.ndarray:
    """``values`` times a power of two per vector (last axis) that brings its largest magnitude into [0.5, 1).

    A power of two scales a float exactly (unless a value far below the largest falls under the smallest normal
    number, where it was negligible beside it), and Pearson's r is unchanged by a positive factor, so r of the scaled
    vectors is r of the given ones. Unscaled, ``scipy.stats.pearsonr`` centres the raw scores: scores of both signs
    near 1e308 overflow there (r = 0.0 for a metric whose Pearson r with the human scores is -0.954).
    """
    largest = np.max(np.abs(values), axis=-1, keepdims=True, initial=0.0)
    return np.ldexp(values, -np.frexp(largest)[1])


def pearson_r(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r along the last axis, broadcasting x against y (``scipy.stats.pearsonr`` of :func:`unit_scaled`
    vectors): r = sum (x - mean x)(y - mean y) / sqrt(sum (x - mean x)^2 sum (y - mean y)^2); NaN where a vector is
    constant (r is undefined)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (ConstantInputWarning, NearConstantInputWarning))
        return np.asarray(pearsonr(unit_scaled(np.asarray(x, dtype=np.float64)),
                                   unit_scaled(np.asarray(y, dtype=np.float64)), axis=-1).statistic)


def _spearman_pearson(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise Spearman (Pearson of average ranks) and Pearson along the last axis, broadcasting x against y;
    NaN where a vector is constant (its correlation is undefined)."""
    return pearson_r(rankdata(x, axis=-1), rankdata(y, axis=-1)), pearson_r(x, y)


def correlate(scores_a: np.ndarray, scores_b: np.ndarray) -> Correlation:
    """Spearman's rho and Pearson's r between two score vectors over the same systems (same order)."""
    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError("correlate takes two 1-d score vectors")
    _check_pair(a, b)
    spearman, pearson = _spearman_pearson(a, b)
    return Correlation(spearman=float(spearman), pearson=float(pearson))


def fbeta(precision: np.ndarray, recall: np.ndarray, beta: np.ndarray | float) -> np.ndarray:
    """M2 F_beta = (1 + beta^2) P R / (beta^2 P + R), 0 where P or R is 0 (METHODS 10); broadcasts its arguments."""
    p = np.asarray(precision, dtype=np.float64)
    r = np.asarray(recall, dtype=np.float64)
    b2 = np.asarray(beta, dtype=np.float64) ** 2
    if np.any(p < 0) or np.any(r < 0) or np.any(b2 < 0):
        raise ValueError("precision, recall and beta must be non-negative")
    numerator = (1.0 + b2) * p * r
    denominator = b2 * p + r
    defined = (p > 0) & (r > 0)
    return np.divide(numerator, denominator, out=np.zeros(np.broadcast(numerator, denominator).shape), where=defined)


@dataclass(frozen=True)
class BetaSweep:
    """Spearman and Pearson of human scores against M2 F_beta for each beta (G15 Figure 3)."""

    betas: np.ndarray
    spearman: np.ndarray
    pearson: np.ndarray

    def at(self, beta: float) -> Correlation:
        """The correlations at one beta of the grid."""
        index = np.flatnonzero(np.isclose(self.betas, beta))
        if index.size == 0:
            raise ValueError(f"beta {beta} is not in the sweep")
        return Correlation(spearman=float(self.spearman[index[0]]), pearson=float(self.pearson[index[0]]))

    def best_spearman(self) -> tuple[float, float]:
        """(beta, rho) of the highest Spearman; among equal maxima the largest beta (G15 scans from 1.00 down)."""
        return self._best(self.spearman)

    def best_pearson(self) -> tuple[float, float]:
        """(beta, r) of the highest Pearson; among equal maxima the largest beta."""
        return self._best(self.pearson)

    def _best(self, values: np.ndarray) -> tuple[float, float]:
        candidates = np.flatnonzero(values == np.nanmax(values))
        best = candidates[np.argmax(self.betas[candidates])]
        return float(self.betas[best]), float(values[best])


def beta_sweep(
    human: np.ndarray, precision: np.ndarray, recall: np.ndarray, betas: np.ndarray = BETA_GRID
) -> BetaSweep:
    """Correlate human scores (S,) with F_beta of per-system precision and recall (S,) for every beta (Figure 3).

    Reads nothing from disk; vectorized over the betas.
    """
    h = np.asarray(human, dtype=np.float64)
    betas = np.asarray(betas, dtype=np.float64).reshape(-1)
    f = fbeta(np.asarray(precision)[None, :], np.asarray(recall)[None, :], betas[:, None])
    _check_pair(h, f)
    spearman, pearson = _spearman_pearson(h[None, :], f)
    return BetaSweep(betas=betas, spearman=spearman, pearson=pearson)
