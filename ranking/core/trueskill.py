"""TrueSkill scores of systems from expanded pairwise judgments (G15 §5.1; METHODS 6).

The procedure is the WMT14 adaptation of TrueSkill by Sakaguchi, Post and Van Durme (2014), as G15 ran it
(``scripts/wmt-trueskill/TS.py -n 2 -d 0`` of ``grammatical/evaluation``):

* every system starts at mu = 0, sigma = 0.5; tau = 0 (no dynamics), draw probability 0.25;
* a run takes ``n_iterations = n_pairs + 1`` steps with ``beta = 0.5 * n_iterations / 40``;
* at each step the system ``a`` with the largest sigma plays an opponent ``b != a`` drawn with probability
  proportional to ``exp(-|mu_a - mu_b|)``; one observed judgment of the pair (a, b) is drawn uniformly with
  replacement, and the two ratings get the two-player TrueSkill update for that win or draw;
* score_TS(A) = mu_A after the last step.

Implementation. The judgments of a system pair are held as a *cell*: the counts of its three outcomes (first better,
tie, second better), so drawing a judgment is O(1), and resampling all pairs is one multinomial draw over cells x
outcomes. Cells have the layout of :func:`ranking.core.pairs.outcome_counts`: ``cells[i, j]`` for i < j, zero
elsewhere. Many runs ("chains") go at once in a numba kernel, in parallel over groups of ``LANES`` chains that one
thread advances in lock step; each chain has its own random generator state drawn from the caller's
``numpy.random.Generator``, so results depend only on that generator, never on the number of threads or lanes.
Within a chain, the update's v and w come from power series around the chain's start where they serve
(:func:`_rate_in_chain`): with G15's beta every update of a large campaign falls in their band.

Bootstrap (METHODS 7). G15 ran TrueSkill 1,000 times on the same pairs, each run's own draws being its bootstrap;
:func:`bootstrap_trueskill` does the same by default, which reproduces Table 3c (clusters, scores and rank ranges),
and resamples the pairs first on request (same clusters, wider ranges).

Deviations from the reference scripts:

* among systems with equal largest sigma the one with the highest index plays. The reference takes the
  alphabetically last name, so the two agree when systems are indexed in name order (as ``Rankings`` does).
* the reference crashes when the chosen pair has no judgment; here the opponent is drawn only among systems with a
  judgment against ``a``, and a system without any judgment never plays (its score stays mu = 0).
* the reference's ``trueskill`` package evaluates the normal cdf with a 1e-7 approximation of erfc; here the exact
  ``math.erfc`` is used (the update agrees with the package's SciPy backend to 1e-12).
* the opponent is drawn by rejection sampling, bounded (exact weights after ``MAX_PROPOSALS`` rejections), and the
  random numbers come from xoshiro256**, not Python's ``random``: the same distribution, a different stream.
* where the package's update divides by zero (a draw between ratings ~30 c apart) or degenerates (an upset that
  far: v = -x, w = 0), the update is computed from the ratio Phi / N instead and stays exact.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange
from scipy.special import ndtri

from ranking.core.pairs import ExpandedPairs, compared_in, outcome_counts

MU = 0.0
SIGMA = 0.5
DRAW_PROBABILITY = 0.25
BETA_DIVISOR = 40.0

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
TAIL = -30.0
"""Below this, the update's normal cdf and pdf are replaced by their ratio (:func:`_cdf_over_pdf`): Phi underflows
to 0 near -37.5, and 0/0 is where the reference package raises FloatingPointError."""
MAX_PROPOSALS = 64
"""Rejected opponent proposals before the opponent is drawn exactly (:func:`_opponent`)."""


def beta_for(n_iterations: int | np.ndarray, sigma: float = SIGMA) -> float | np.ndarray:
    """beta = sigma * n_iterations / 40, the performance noise of WMT14's TrueSkill (Sakaguchi et al. 2014)."""
    return sigma * (n_iterations / BETA_DIVISOR)


def draw_margin(beta: float | np.ndarray, draw_probability: float = DRAW_PROBABILITY) -> float | np.ndarray:
    """Draw margin epsilon = Phi^-1((p + 1) / 2) * sqrt(2) * beta of a 1-vs-1 game (``trueskill.calc_draw_margin``)."""
    if not 0.0 <= draw_probability < 1.0:
        raise ValueError(f"draw probability must be in [0, 1), got {draw_probability}")
    return ndtri((draw_probability + 1.0) / 2.0) * _SQRT2 * beta


@njit(cache=True)
def _pdf(x: float) -> float:
    return _INV_SQRT_2PI * math.exp(-0.5 * x * x)


@njit(cache=True)
def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / _SQRT2)


@njit(cache=True)
def _cdf_over_pdf(x: float) -> float:
    """Phi(x) / N(x) without underflow: directly above ``TAIL``; below it (x < -30) Laplace's continued fraction of
    the Mills ratio, 1 / (z + 1/(z + 2/(z + 3/(z + ...)))) with z = -x, whose 40 terms are exact to rounding there."""
    if x > TAIL:
        return _cdf(x) / _pdf(x)
    z = -x
    fraction = z
    for k in range(40, 0, -1):
        fraction = z + k / fraction
    return 1.0 / fraction


@njit(cache=True)
def _exact_v_w(t: float, e: float, drawn: bool) -> tuple[float, float]:
    """The update's v and w (:func:`rate_1vs1`) at t = (mu_w - mu_l) / c and e = margin / c."""
    if drawn:
        abs_t = abs(t)
        a = e - abs_t
        b = -e - abs_t
        denom = _cdf(a) - _cdf(b)
        if a > TAIL and denom > 0.0:
            pdf_a = _pdf(a)
            pdf_b = _pdf(b)
            inv_denom = 1.0 / denom
            v = (pdf_b - pdf_a) * inv_denom
            w = v * v + (a * pdf_a - b * pdf_b) * inv_denom
        else:
            # Far apart (or a vanishing draw margin): everything divided by N(a), with N(b) / N(a) = exp(-2 e |t|).
            ratio = math.exp(-2.0 * e * abs_t)
            scaled = _cdf_over_pdf(a) - ratio * _cdf_over_pdf(b)
            v = (ratio - 1.0) / scaled
            w = v * v + (a - b * ratio) / scaled
        if t < 0.0:
            v = -v
    else:
        x = t - e
        v = _pdf(x) / _cdf(x) if x > TAIL else 1.0 / _cdf_over_pdf(x)
        w = v * (v + x)
    return v, w


@njit(cache=True, inline="always")
def _updated(
    mu_w: float, var_w: float, mu_l: float, var_l: float, inv_c: float, c2: float, v: float, w: float
) -> tuple[float, float, float, float]:
    """mu_w += sigma_w^2 / c * v, mu_l -= sigma_l^2 / c * v, sigma^2 *= 1 - sigma^2 / c^2 * w."""
    return (
        mu_w + var_w * inv_c * v,
        var_w * (1.0 - var_w / c2 * w),
        mu_l - var_l * inv_c * v,
        var_l * (1.0 - var_l / c2 * w),
    )


@njit(cache=True)
def _rate_variances(
    mu_w: float, var_w: float, mu_l: float, var_l: float, drawn: bool, beta: float, margin: float
) -> tuple[float, float, float, float]:
    """:func:`rate_1vs1` on variances sigma^2, the form the chains keep (no square roots on their critical path)."""
    c2 = 2.0 * beta * beta + var_w + var_l
    inv_c = 1.0 / math.sqrt(c2)
    v, w = _exact_v_w((mu_w - mu_l) * inv_c, margin * inv_c, drawn)
    return _updated(mu_w, var_w, mu_l, var_l, inv_c, c2, v, w)


SERIES_DEGREE = 6
"""Degree of the power series of the update near the start (:func:`series_tables`)."""
SERIES_BAND = 0.01
"""The series serve where |x - x0| (a win) or |t| (a draw) is at most this."""
SERIES_E_BAND = 1e-8
"""... and, for a draw, where e is within this of e0; the series are first order in e - e0."""
SERIES_E0 = (0.01, 1.0)
"""Values of e0 for which the series were checked (to a few units in the last place, against 40-digit arithmetic, on
the whole band); elsewhere every update is computed directly. G15's parameters give e0 in (0.016, 0.319)."""
_SERIES_STEP = 1e-5
"""Step of the central difference in e of the draw series."""


def _win_series(x0: float) -> np.ndarray:
    """Taylor coefficients in x - x0 of a win's v(x) = N(x) / Phi(x) (row 0) and w = v (v + x) (row 1).

    Since N' = -x N and Phi' = N, v solves v' = -v (x + v) = -w; with v = sum a_k (x - x0)^k this gives
    (k + 1) a_{k+1} = -x0 a_k - a_{k-1} - sum_{i <= k} a_i a_{k-i}, from a_0 = v(x0), and w_k = -(k + 1) a_{k+1}."""
    a = np.zeros(SERIES_DEGREE + 2)
    a[0] = _pdf(x0) / _cdf(x0)
    for k in range(SERIES_DEGREE + 1):
        square = 0.0
        for i in range(k + 1):
            square += a[i] * a[k - i]
        before = a[k - 1] if k >= 1 else 0.0
        a[k + 1] = (-x0 * a[k] - before - square) / (k + 1)
    out = np.empty((2, SERIES_DEGREE + 1))
    for k in range(SERIES_DEGREE + 1):
        out[0, k] = a[k]
        out[1, k] = -(k + 1) * a[k + 1]
    return out


def _draw_series(e: float) -> np.ndarray:
    """Taylor coefficients in s = |t| of a draw's v (row 0, before its sign) and w (row 1) at a fixed e.

    With a = e - s, b = -e - s, D = Phi(a) - Phi(b), A = N(a) / D and B = N(b) / D: v = B - A and
    w = v^2 + a A - b B. Since D' = (B - A) D, A and B solve A' = A (a - B + A) and B' = B (b - B + A) (in s);
    their coefficients follow term by term from A_0 = B_0 = N(e) / (Phi(e) - Phi(-e)), as in :func:`_win_series`."""
    n = SERIES_DEGREE + 1
    big_a = np.zeros(n + 1)
    big_b = np.zeros(n + 1)
    big_a[0] = big_b[0] = _pdf(e) / (_cdf(e) - _cdf(-e))
    for k in range(n):
        sum_a = 0.0
        sum_b = 0.0
        for i in range(k + 1):
            j = k - i
            common = big_a[j] - big_b[j] - (1.0 if j == 1 else 0.0)  # a and b both fall by s
            offset = e if j == 0 else 0.0  # a starts at e, b at -e
            sum_a += big_a[i] * (common + offset)
            sum_b += big_b[i] * (common - offset)
        big_a[k + 1] = sum_a / (k + 1)
        big_b[k + 1] = sum_b / (k + 1)
    out = np.empty((2, n))
    for k in range(n):
        square = 0.0
        for i in range(k + 1):
            square += (big_b[i] - big_a[i]) * (big_b[k - i] - big_a[k - i])
        out[0, k] = big_b[k] - big_a[k]
        out[1, k] = square + e * (big_a[k] + big_b[k]) + (big_b[k - 1] - big_a[k - 1] if k >= 1 else 0.0)
    return out


def series_tables(beta: np.ndarray, margin: np.ndarray, sigma0: float = SIGMA) -> tuple[np.ndarray, np.ndarray]:
    """The series of each chain's updates near its start, (C, 6, SERIES_DEGREE + 1), and e0 = margin / c0 with
    c0^2 = 2 beta^2 + 2 sigma0^2, (C,), for chains with these ``beta`` and ``margin`` (C,).

    Rows: a win's v and w in x - x0 (x0 = -e0, :func:`_win_series`); a draw's v and w in s at e0
    (:func:`_draw_series`) and their derivatives in e (central differences of the coefficients), so that a draw's
    v = sum_k (p_k + (e - e0) d_k) s^k. Where e0 is outside ``SERIES_E0`` the tables are NaN and never used.
    Computed once per distinct e0: a bootstrap's chains share them."""
    beta, margin = np.asarray(beta, dtype=np.float64), np.asarray(margin, dtype=np.float64)
    e0 = margin / np.sqrt(2.0 * beta * beta + 2.0 * sigma0 * sigma0)
    tables = np.full((e0.size, 6, SERIES_DEGREE + 1), np.nan)
    distinct, chains = np.unique(e0, return_inverse=True)
    for k, start in enumerate(distinct):
        if SERIES_E0[0] <= start <= SERIES_E0[1]:
            tables[chains == k] = np.concatenate([
                _win_series(-start),
                _draw_series(start),
                (_draw_series(start + _SERIES_STEP) - _draw_series(start - _SERIES_STEP)) / (2.0 * _SERIES_STEP),
            ])
    return tables, e0


@njit(cache=True, inline="always")
def _horner(coefficients: np.ndarray, y: float) -> float:
    result = coefficients[SERIES_DEGREE]
    for k in range(SERIES_DEGREE - 1, -1, -1):
        result = result * y + coefficients[k]
    return result


@njit(cache=True, inline="always")
def _series_v_w(t: float, e: float, drawn: bool, tables: np.ndarray, e0: float) -> tuple[float, float, bool]:
    """v and w from the chain's series (:func:`series_tables`) and True, or False where (t, e) is outside their
    band (or the tables are NaN)."""
    if drawn:
        s = abs(t)
        de = e - e0
        if s <= SERIES_BAND and abs(de) <= SERIES_E_BAND:
            v = _horner(tables[2], s) + de * _horner(tables[4], s)
            w = _horner(tables[3], s) + de * _horner(tables[5], s)
            return (-v if t < 0.0 else v), w, w == w
    else:
        dx = t - e + e0
        if abs(dx) <= SERIES_BAND:
            w = _horner(tables[1], dx)
            return _horner(tables[0], dx), w, w == w
    return 0.0, 0.0, False


@njit(cache=True, inline="always")
def _rate_in_chain(
    mu_w: float,
    var_w: float,
    mu_l: float,
    var_l: float,
    drawn: bool,
    beta: float,
    margin: float,
    tables: np.ndarray,
    e0: float,
) -> tuple[float, float, float, float]:
    """:func:`_rate_variances`, with v and w from the chain's series (:func:`series_tables`) where they serve.

    Why: with G15's beta = sigma0 (n + 1) / 40, c ~ beta sqrt(2) dwarfs the ratings, so every update of a run sees
    t = (mu_w - mu_l) / c below ~1e-3 and e = margin / c within ~1e-10 of its start: a polynomial near the start
    gives v and w to a few units in the last place (a draw's better than the direct formula, whose N(b) - N(a)
    cancels), without erfc, exp and a division on the chain's critical path (a quarter of a step's CPU time,
    ``benchmarks/analysis.py``)."""
    c2 = 2.0 * beta * beta + var_w + var_l
    inv_c = 1.0 / math.sqrt(c2)
    t = (mu_w - mu_l) * inv_c
    e = margin * inv_c
    v, w, served = _series_v_w(t, e, drawn, tables, e0)
    if not served:
        v, w = _exact_v_w(t, e, drawn)
    return _updated(mu_w, var_w, mu_l, var_l, inv_c, c2, v, w)


@njit(cache=True)
def rate_1vs1(
    mu_winner: float, sigma_winner: float, mu_loser: float, sigma_loser: float, drawn: bool, beta: float, margin: float
) -> tuple[float, float, float, float]:
    """Two-player TrueSkill update (Herbrich et al. 2007), tau = 0; returns (mu_w, sigma_w, mu_l, sigma_l).

    c^2 = 2 beta^2 + sigma_w^2 + sigma_l^2, t = (mu_w - mu_l) / c, e = margin / c.
    Win:  v = N(t - e) / Phi(t - e),  w = v (v + t - e).
    Draw: v = sign(t) (N(-e - |t|) - N(e - |t|)) / (Phi(e - |t|) - Phi(-e - |t|)),
          w = v^2 + ((e - |t|) N(e - |t|) + (e + |t|) N(e + |t|)) / (Phi(e - |t|) - Phi(-e - |t|)).
    mu_w += sigma_w^2 / c * v,  mu_l -= sigma_l^2 / c * v,  sigma^2 *= 1 - sigma^2 / c^2 * w.
    For a draw the two players are interchangeable. Where Phi underflows (an upset or a draw between ratings more
    than ~30 c apart), the ratios are computed from Phi / N (:func:`_cdf_over_pdf`) instead, so the update stays
    finite and exact where the ``trueskill`` package divides by zero (or falls back to v = -x, w = 0).
    """
    mu_w, var_w, mu_l, var_l = _rate_variances(
        mu_winner, sigma_winner * sigma_winner, mu_loser, sigma_loser * sigma_loser, drawn, beta, margin
    )
    return mu_w, math.sqrt(var_w), mu_l, math.sqrt(var_l)


def pair_cells(first: np.ndarray, second: np.ndarray, relation: np.ndarray, n_systems: int) -> np.ndarray:
    """Outcome counts per system pair, shape (S, S, 3): ``cells[i, j] = (#i better, #tie, #j better)`` for i < j.

    ``first``/``second`` are system indices in ``[0, n_systems)``, ``relation`` is -1 (first ranked better), 0 (tie)
    or +1 (second better), as ``ExpandedPairs`` holds them (METHODS 3); a pair with first > second is counted in the
    cell (second, first) with its relation reversed. The arrays are validated and oriented here, then counted by
    :func:`ranking.core.pairs.outcome_counts` (the one definition of the counts).
    Raises ``ValueError`` on arrays of different lengths, indices out of range, first == second, or other relations.
    """
    first = np.asarray(first)
    second = np.asarray(second)
    relation = np.asarray(relation)
    if not (first.ndim == second.ndim == relation.ndim == 1 and first.shape == second.shape == relation.shape):
        raise ValueError("first, second and relation must be 1-d arrays of the same length")
    if n_systems < 2:
        raise ValueError(f"need at least 2 systems, got n_systems={n_systems}")
    for name, values in (("first", first), ("second", second), ("relation", relation)):
        if values.size and not np.issubdtype(values.dtype, np.integer):
            raise ValueError(f"{name} must hold integers, got dtype {values.dtype}")
    if first.size and (min(first.min(), second.min()) < 0 or max(first.max(), second.max()) >= n_systems):
        raise ValueError(f"system indices must lie in [0, {n_systems})")
    if np.any(first == second):
        raise ValueError("a pair must compare two different systems (first == second found)")
    if not np.isin(relation, (-1, 0, 1)).all():
        raise ValueError("relation must be -1 (first better), 0 (tie) or +1 (second better)")
    swap = first > second
    relation = relation.astype(np.int64)
    oriented = ExpandedPairs(
        first=np.where(swap, second, first).astype(np.int64),
        second=np.where(swap, first, second).astype(np.int64),
        relation=np.where(swap, -relation, relation),
        judge=np.zeros(first.size, dtype=np.int64),
    )
    return outcome_counts(oriented, n_systems)


def _validated_cells(cells: np.ndarray) -> np.ndarray:
    cells = np.asarray(cells)
    if cells.ndim != 4 or cells.shape[1] != cells.shape[2] or cells.shape[3] != 3 or cells.shape[1] < 2:
        raise ValueError(f"cells must have shape (C, S, S, 3) with S >= 2, got {cells.shape}")
    if cells.size and not np.issubdtype(cells.dtype, np.integer):
        raise ValueError(f"cells must hold integer counts, got dtype {cells.dtype}")
    if np.any(cells < 0):
        raise ValueError("cells must hold non-negative counts")
    if np.any(cells[:, ~np.triu(np.ones(cells.shape[1:3], dtype=bool), k=1)]):
        raise ValueError("cells must be zero on and below the diagonal (counts for i < j only)")
    return cells.astype(np.int64, copy=False)


def resampled_cells(cells: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A bootstrap resample of the pairs behind each ``cells[k]`` (C, S, S, 3): same count, drawn with replacement.

    Drawing N pairs uniformly with replacement is a multinomial draw of N over the (pair, outcome) cells with
    probabilities count / N, done here in one ``rng.multinomial`` call for all k. Returns the same shape.
    """
    cells = _validated_cells(cells)
    flat = cells.reshape(cells.shape[0], -1)
    n_pairs = flat.sum(axis=1)
    if np.any(n_pairs == 0):
        raise ValueError("cannot resample an empty set of pairs")
    return rng.multinomial(n_pairs, flat / n_pairs[:, None]).reshape(cells.shape)


_ROT_7 = np.uint64(7)
_ROT_45 = np.uint64(45)
_SHIFT_17 = np.uint64(17)
_SHIFT_11 = np.uint64(11)
_FIVE = np.uint64(5)
_NINE = np.uint64(9)
_BITS = np.uint64(64)
_TWO_TO_MINUS_53 = 2.0**-53


@njit(cache=True, inline="always")
def _rotl(x: np.uint64, k: np.uint64) -> np.uint64:
    return (x << k) | (x >> (_BITS - k))


@njit(cache=True, inline="always")
def _uniform(states: np.ndarray, row: int) -> float:
    """A double in [0, 1) from the top 53 bits of xoshiro256** (Blackman and Vigna 2018), advancing the generator
    state ``states[row]`` (4 words).

    Written here for speed: numba's own ``np.random.random()`` cost 6 ns per call in a bare loop and about 13 ns in
    the chain kernel (it looks up a per-thread state on every call), 30 of a step's 55 ns before the update; this
    generator costs ~1 ns and keeps each chain's stream in its own state, independent of threads.
    """
    s0, s1, s2, s3 = states[row, 0], states[row, 1], states[row, 2], states[row, 3]
    result = _rotl(s1 * _FIVE, _ROT_7) * _NINE
    t = s1 << _SHIFT_17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, _ROT_45)
    states[row, 0], states[row, 1], states[row, 2], states[row, 3] = s0, s1, s2, s3
    return float(result >> _SHIFT_11) * _TWO_TO_MINUS_53


#: Slack of :func:`_below_exp`'s bounds, a few units in the last place of 1: it covers the rounding of the bounds
#: and of ``math.exp``, so the bounds decide only where ``u < math.exp(-d)`` would decide the same.
_SQUEEZE_SLACK = 1e-15


@njit(cache=True, inline="always")
def _below_exp(u: float, d: float) -> bool:
    """``u < math.exp(-d)`` for d >= 0, decided without the exponential where its bounds settle it:
    1 - d <= exp(-d) <= 1 - d + d^2 / 2 (a squeeze). Most opponent proposals are accepted or refused by the bounds;
    only a band of width d^2 / 2 evaluates ``exp``. The decisions, and so the runs, are those of the plain test."""
    lower = 1.0 - d
    if u < lower - _SQUEEZE_SLACK:
        return True
    if u > lower + 0.5 * d * d + _SQUEEZE_SLACK:
        return False
    return u < math.exp(-d)


@njit(cache=True, inline="always")
def _opponent(a: int, mu: np.ndarray, total: np.ndarray, states: np.ndarray, row: int) -> int:
    """An opponent b != a with ``total[row, a, b] > 0``, drawn with probability proportional to
    exp(-|mu_a - mu_b|), ``mu = mu[row]`` (METHODS 6); ``a`` must have one. Uniforms from ``states[row]``.

    By rejection: propose b uniformly among the other systems and accept it with probability exp(-|mu_a - mu_b|)
    (<= 1) if the pair has a judgment, ~1.2 proposals per step instead of S weights per step. After
    ``MAX_PROPOSALS`` rejections (ratings far apart, where acceptance is rare) the opponent is drawn exactly by
    :func:`_opponent_by_weights`. Either way the opponent has exactly the reference's distribution.
    """
    n = mu.shape[1]
    for _ in range(MAX_PROPOSALS):
        b = int(_uniform(states, row) * (n - 1))
        if b >= a:
            b += 1
        if total[row, a, b] > 0 and _below_exp(_uniform(states, row), abs(mu[row, a] - mu[row, b])):
            return b
    return _opponent_by_weights(a, mu, total, states, row)


@njit(cache=True)
def _opponent_by_weights(a: int, mu: np.ndarray, total: np.ndarray, states: np.ndarray, row: int) -> int:
    """The opponent of :func:`_opponent` drawn from the weights exp(-(|mu_a - mu_b| - d)), d the nearest opponent's
    distance (so the largest weight is 1 and none underflows unnoticed)."""
    n = mu.shape[1]
    nearest = math.inf
    for b in range(n):
        if b != a and total[row, a, b] > 0:
            nearest = min(nearest, abs(mu[row, a] - mu[row, b]))
    weights = np.zeros(n)
    for b in range(n):
        if b != a and total[row, a, b] > 0:
            weights[b] = math.exp(nearest - abs(mu[row, a] - mu[row, b]))
    r = _uniform(states, row) * weights.sum()
    chosen = a
    for b in range(n):
        if weights[b] > 0.0:
            chosen = b
            r -= weights[b]
            if r < 0.0:
                break
    return chosen


LANES = 4
"""Chains that one thread advances in lock step (:func:`_run_lanes`)."""


@njit(cache=True)
def _judgment_tables(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """From the outcome counts ``cells`` (L, S, S, 3), the judgments of each ordered pair (a, b) of chain l:
    ``better[l, a, b]`` (a ranked better), ``better_or_tie[l, a, b]`` (a better or tied), ``total[l, a, b]`` (all)."""
    n_lanes, n = cells.shape[0], cells.shape[1]
    better = np.zeros((n_lanes, n, n))
    better_or_tie = np.zeros((n_lanes, n, n))
    total = np.zeros((n_lanes, n, n))
    for lane in range(n_lanes):
        for i in range(n):
            for j in range(i + 1, n):
                better[lane, i, j] = cells[lane, i, j, 0]
                better[lane, j, i] = cells[lane, i, j, 2]
                better_or_tie[lane, i, j] = cells[lane, i, j, 0] + cells[lane, i, j, 1]
                better_or_tie[lane, j, i] = cells[lane, i, j, 2] + cells[lane, i, j, 1]
                total[lane, i, j] = total[lane, j, i] = better_or_tie[lane, i, j] + cells[lane, i, j, 2]
    return better, better_or_tie, total


class ChainSettings(NamedTuple):
    """What the kernels take of each chain, row k for chain k (:func:`chain_settings`): its number of steps, its beta
    and draw margin, and the series of its updates near its start, ``tables`` around ``e0`` (:func:`series_tables`)."""

    n_iterations: np.ndarray
    beta: np.ndarray
    margin: np.ndarray
    tables: np.ndarray
    e0: np.ndarray


def chain_settings(n_iterations: np.ndarray) -> ChainSettings:
    """The settings of chains of ``n_iterations`` steps each (C,): beta from :func:`beta_for`, the draw margin from
    :func:`draw_margin`, and their series (:func:`series_tables`)."""
    beta = beta_for(n_iterations)
    margin = draw_margin(beta)
    return ChainSettings(n_iterations, beta, margin, *series_tables(beta, margin))


@njit(cache=True)
def _chain_rows(chains: ChainSettings, lo: int, hi: int) -> ChainSettings:
    """The settings of chains ``lo`` to ``hi - 1``."""
    return ChainSettings(chains.n_iterations[lo:hi], chains.beta[lo:hi], chains.margin[lo:hi], chains.tables[lo:hi],
                         chains.e0[lo:hi])


@njit(cache=True)
def _run_lanes(
    cells: np.ndarray,
    chains: ChainSettings,
    mu0: float,
    sigma0: float,
    states: np.ndarray,
    mu_out: np.ndarray,
) -> None:
    """TrueSkill runs (METHODS 6) of L chains: chain l on the outcome counts ``cells[l]`` (L, S, S, 3) with the
    settings ``chains`` row l (its ``n_iterations`` steps, beta, draw margin and the update's series), with uniforms
    from the xoshiro256** state ``states[l]``; writes its final mu to ``mu_out[l]``. Ratings are kept as mu and
    sigma^2.

    Step: the system ``a`` with the largest sigma^2 (the highest index among equals; a system without judgments
    never plays) meets the opponent drawn by :func:`_opponent` on one of the pair's judgments drawn uniformly.

    The chains advance in lock step (step k of each, then step k + 1). Each chain does the same operations in the
    same order as alone, so its result is unchanged; but a step is a chain of dependent operations (the next
    player depends on the variances this step writes), which keeps a core waiting on each result, while steps of
    different chains are independent and the core overlaps them (~20% less CPU time per step with 2 to 4 lanes
    here). Written by hand because neither NumPy nor numba interleaves sequential loops; the chains' state is
    indexed in place rather than through per-chain views, whose reference counting cost more than the overlap saved.
    """
    n_lanes, n = cells.shape[0], cells.shape[1]
    better, better_or_tie, total = _judgment_tables(cells)
    mu = np.full((n_lanes, n), mu0)
    var = np.full((n_lanes, n), sigma0 * sigma0)
    key = np.empty((n_lanes, n))
    steps = np.zeros(n_lanes, dtype=np.int64)
    for lane in range(n_lanes):
        for s in range(n):
            key[lane, s] = var[lane, s] if total[lane, s].sum() > 0 else -1.0
            if key[lane, s] >= 0.0:
                steps[lane] = chains.n_iterations[lane]
    for k in range(steps.max()):
        for lane in range(n_lanes):
            if k >= steps[lane]:
                continue
            a = 0
            largest = key[lane, 0]
            for s in range(1, n):
                if key[lane, s] >= largest:
                    largest = key[lane, s]
                    a = s
            b = _opponent(a, mu, total, states, lane)
            r = _uniform(states, lane) * total[lane, a, b]
            if r < better[lane, a, b]:
                winner, loser, drawn = a, b, False
            elif r < better_or_tie[lane, a, b]:
                winner, loser, drawn = a, b, True
            else:
                winner, loser, drawn = b, a, False
            mu_w, var_w, mu_l, var_l = _rate_in_chain(
                mu[lane, winner], var[lane, winner], mu[lane, loser], var[lane, loser], drawn, chains.beta[lane],
                chains.margin[lane], chains.tables[lane], chains.e0[lane]
            )
            mu[lane, winner] = mu_w
            mu[lane, loser] = mu_l
            var[lane, winner] = key[lane, winner] = var_w
            var[lane, loser] = key[lane, loser] = var_l
    mu_out[:] = mu


@njit(parallel=True, cache=True)
def _run_chains(
    cells: np.ndarray,
    states: np.ndarray,
    chains: ChainSettings,
    mu0: float,
    sigma0: float,
) -> np.ndarray:
    """Runs chain k on ``cells[k]`` (C, S, S, 3) with generator state ``states[k]`` (4 words) and the settings
    ``chains`` row k; returns mu (C, S).
    Groups of ``LANES`` chains (:func:`_run_lanes`) run in parallel."""
    n_chains = states.shape[0]
    out = np.empty((n_chains, cells.shape[1]))
    for group in prange((n_chains + LANES - 1) // LANES):
        lo = group * LANES
        hi = min(lo + LANES, n_chains)
        _run_lanes(cells[lo:hi], _chain_rows(chains, lo, hi), mu0, sigma0, states[lo:hi], out[lo:hi])
    return out


def run_trueskill_chains(cells: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """TrueSkill scores (METHODS 6) of independent runs, run k on the outcome counts ``cells[k]``; shape (C, S).

    ``cells`` (C, S, S, 3) as from :func:`pair_cells` (a broadcast view is fine). Run k takes its number of pairs
    + 1 iterations, with beta from :func:`beta_for` and the draw margin from :func:`draw_margin`, and returns mu
    after the last step.

    Randomness: run k's xoshiro256** generator starts from row k of ``rng.integers(0, 2**64, size=(C, 4))``. The
    result is a function of ``cells`` and ``rng``'s state only: the same state gives the same scores bit for bit,
    whatever the number of threads; the runs are independent.
    """
    cells = _validated_cells(cells)
    states = rng.integers(0, 2**64, size=(cells.shape[0], 4), dtype=np.uint64)
    states[~states.any(axis=1), 0] = 1  # the all-zero state is xoshiro's one fixed point
    return _run_chains(cells, states, chain_settings(cells.sum(axis=(1, 2, 3)) + 1), MU, SIGMA)


def trueskill_run_samples(cells: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """TrueSkill (METHODS 6) of one run on each row's pairs (:func:`run_trueskill_chains`); (C, S, S, 3) -> (C, S).

    NaN for a system that the row's pairs do not compare, which would keep its initial mu = 0 (G15's ``TS.py``
    rates the systems its input pairs name).
    """
    return np.where(compared_in(cells), run_trueskill_chains(cells, rng), np.nan)


def trueskill_scores(
    first: np.ndarray,
    second: np.ndarray,
    relation: np.ndarray,
    n_systems: int,
    rng: np.random.Generator,
    n_runs: int = 1,
) -> np.ndarray:
    """``n_runs`` independent TrueSkill runs (METHODS 6) on all the given pairs; mu after the last step, (n_runs, S).

    Arrays as for :func:`pair_cells`. Each run is random; see :func:`run_trueskill_chains` for the seeding.
    """
    if n_runs < 1:
        raise ValueError(f"n_runs must be at least 1, got {n_runs}")
    cells = pair_cells(first, second, relation, n_systems)
    return run_trueskill_chains(np.broadcast_to(cells, (n_runs, *cells.shape)), rng)


def bootstrap_trueskill(
    first: np.ndarray,
    second: np.ndarray,
    relation: np.ndarray,
    n_systems: int,
    n_boot: int,
    rng: np.random.Generator,
    resample_pairs: bool = False,
) -> np.ndarray:
    """TrueSkill score samples for rank ranges and clusters (METHODS 6, 7), shape (n_boot, S).

    By default each sample is one TrueSkill run on all the pairs: the run's own random draws of judgments (with
    replacement) are its bootstrap. This is what G15 did (its ``Makefile`` runs ``TS.py`` 1,000 times on the same
    ``pairs.tup.txt``), and it reproduces Table 3c's rank ranges exactly. ``resample_pairs=True`` first resamples the
    expanded pairs with replacement (same count; :func:`resampled_cells`), as the Expected Wins bootstrap does; that
    adds the data's sampling variance and widens some ranges (CoNLL-14: RAC 3-5, POST 3-5, UMC 6-9), with the same
    clusters. With resampling, ``rng`` gives the multinomial draws first, then the run seeds. A system that a
    sample's pairs do not compare (never judged, or not drawn by its resample) is NaN there
    (:func:`trueskill_run_samples`).
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    cells = np.broadcast_to(pair_cells(first, second, relation, n_systems), (n_boot, n_systems, n_systems, 3))
    if resample_pairs:
        cells = resampled_cells(cells, rng)
    return trueskill_run_samples(cells, rng)
