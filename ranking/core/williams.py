"""Williams test for the difference between two dependent correlations that share one variable (N19 §6,
Figure 3; METHODS 12).

Williams (1959), as Graham and Baldwin (2014, eq. 1) apply it to metrics: with r12 = r(human, metric 1),
r13 = r(human, metric 2), r23 = r(metric 1, metric 2) over n systems,

    K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23
    t = (r12 - r13) sqrt((n - 1)(1 + r23)) / sqrt(2 K (n - 1)/(n - 3) + (r12 + r13)^2 / 4 * (1 - r23)^3)

which follows Student's t with n - 3 degrees of freedom; the one-sided p-value P(T >= t) tests whether metric 1
correlates better with the humans than metric 2. The script Graham and Baldwin published used n - 2 degrees of
freedom until 30/11/2014, so ``df_offset=2`` reproduces tables made with it; the statistic is the same.

Where the test is undefined:

- |r23| = 1 (one metric is an affine function of the other): then r13 = r12 (r23 = 1) or r13 = -r12 (r23 = -1),
  K = 0, and both the numerator (through r12 - r13 or 1 + r23) and the denominator vanish: t is 0/0. Rounding
  turns the 0/0 into anything (identical metrics gave t = 0, p = 0.5), so |r23| within ``PERFECT_TOLERANCE`` of 1
  counts as 1 and t is NaN. With |r23| < 1 the only 0/0 is excluded: K = 0 and r12 + r13 = 0 together give a
  non-zero numerator (t = +-inf, p = 0 or 1, the human scores being a linear function of the two metrics).
- a constant metric (or constant human scores) has no correlation at all: in :func:`williams_matrix` its row and
  column are NaN (``WilliamsMatrix.constant``) and the other pairs are tested as usual.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import t as student_t

from .correlation import pearson_r

DF_OFFSETS = (3, 2)
"""Degrees of freedom n - 3 (Williams 1959) or n - 2 (the early script)."""
PERFECT_TOLERANCE = 1e-9
"""|r23| >= 1 - PERFECT_TOLERANCE counts as a perfect correlation between the two metrics (module docstring): the
correlation of a metric with an affine copy of itself comes out of floating point within about 1e-15 of +-1."""


@dataclass(frozen=True)
class WilliamsResult:
    """The t statistic, its degrees of freedom and the one-sided p-value that r12 > r13."""

    t: float
    df: int
    p_value: float


def _check(n: int, df_offset: int) -> None:
    if df_offset not in DF_OFFSETS:
        raise ValueError(f"df_offset must be 3 (n - 3 degrees of freedom) or 2 (n - 2), got {df_offset}")
    if n <= 3:
        raise ValueError(f"the Williams test needs more than 3 systems, got n = {n}")


def williams_t(r12: np.ndarray | float, r13: np.ndarray | float, r23: np.ndarray | float, n: int) -> np.ndarray:
    """Williams' t for r12 > r13 (formula in the module docstring); broadcasts its correlation arguments.

    K is the determinant of the three variables' correlation matrix: a negative K (beyond rounding) means the
    correlations are impossible together and is refused. NaN where |r23| is 1 within ``PERFECT_TOLERANCE`` (the
    test is undefined there) and where an argument is NaN."""
    r12, r13, r23 = (np.asarray(r, dtype=np.float64) for r in (r12, r13, r23))
    if np.any(np.abs(np.stack(np.broadcast_arrays(r12, r13, r23))) > 1):
        raise ValueError("correlations must lie in [-1, 1]")
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    if np.any(k < -1e-12):
        raise ValueError("these three correlations cannot occur together (their correlation matrix has K < 0)")
    k = np.maximum(k, 0.0)
    numerator = (r12 - r13) * np.sqrt((n - 1) * (1 + r23))
    denominator = np.sqrt(2 * k * (n - 1) / (n - 3) + (r12 + r13) ** 2 / 4 * (1 - r23) ** 3)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(perfectly_correlated(r23), np.nan, numerator / denominator)


def perfectly_correlated(r23: np.ndarray | float) -> np.ndarray:
    """Where |r23| is 1 within ``PERFECT_TOLERANCE``: one metric is an affine function of the other."""
    return np.abs(np.asarray(r23, dtype=np.float64)) >= 1 - PERFECT_TOLERANCE


def williams_test(r12: float, r13: float, r23: float, n: int, df_offset: int = 3) -> WilliamsResult:
    """The Williams test that r(human, metric 1) = ``r12`` exceeds r(human, metric 2) = ``r13`` given
    r(metric 1, metric 2) = ``r23`` over ``n`` systems; one-sided p-value with n - ``df_offset`` degrees of freedom.
    t and p are NaN when |r23| is 1 (module docstring)."""
    _check(n, df_offset)
    t = float(williams_t(r12, r13, r23, n))
    df = n - df_offset
    return WilliamsResult(t=t, df=df, p_value=float(student_t.sf(t, df)))


@dataclass(frozen=True)
class WilliamsMatrix:
    """Pearson's r of each metric with the human scores, and the (k, k) matrices of t and one-sided p-values:
    cell (i, j) tests that metric i correlates better than metric j (N19 Figure 3). NaN on the diagonal; in the row
    and column of a ``constant`` metric (k,), whose correlation is NaN too; and where two metrics are ``perfectly``
    correlated with each other ((k, k), |r| = 1 within ``PERFECT_TOLERANCE``), where the test is undefined."""

    names: tuple[str, ...]
    correlation: np.ndarray
    t: np.ndarray
    p_value: np.ndarray
    df: int
    constant: np.ndarray
    perfectly: np.ndarray


def williams_matrix(
    human: np.ndarray, metrics: np.ndarray, names: Sequence[str], df_offset: int = 3
) -> WilliamsMatrix:
    """The Williams test over every ordered pair of metrics (N19 §6): ``human`` (n,) system scores, ``metrics``
    (k, n) each metric's scores of the same systems in the same order. A constant metric leaves only its own row
    and column undefined; constant human scores leave every pair undefined and raise ``ValueError``.

    The correlations are Pearson's r as ``correlation.pearson_r`` computes them, the r of the metric correlations
    reported beside this matrix (``correlation.correlate``): ``numpy.corrcoef`` squares the raw scores, which
    overflows for scores near 1e308 and loses every digit for subnormal ones (it gave r = 0.0 and 1.0 where
    Pearson's r is 0.354 and 0.548)."""
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metrics, dtype=np.float64)
    if h.ndim != 1 or m.ndim != 2 or m.shape[1] != h.size:
        raise ValueError(f"need human scores (n,) and metric scores (k, n); got {h.shape} and {m.shape}")
    if len(names) != m.shape[0]:
        raise ValueError(f"{len(names)} names for {m.shape[0]} metrics")
    if not (np.all(np.isfinite(h)) and np.all(np.isfinite(m))):
        raise ValueError("scores must be finite numbers")
    n = h.size
    _check(n, df_offset)
    if np.all(h == h[0]):
        raise ValueError("the human scores are constant: no metric's correlation with them is defined")
    rows = np.vstack([h, m])
    r = pearson_r(rows[:, None, :], rows[None, :, :])
    constant = np.all(m == m[:, :1], axis=1) | np.isnan(r[0, 1:])
    with_human, between = r[0, 1:].copy(), r[1:, 1:].copy()
    with_human[constant] = np.nan
    between[constant, :] = np.nan
    between[:, constant] = np.nan
    perfectly = perfectly_correlated(between)
    np.fill_diagonal(perfectly, False)
    t = williams_t(with_human[:, None], with_human[None, :], between, n)
    np.fill_diagonal(t, np.nan)
    df = n - df_offset
    return WilliamsMatrix(tuple(names), with_human, t, student_t.sf(t, df), df, constant, perfectly)
