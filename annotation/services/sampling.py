"""Sampling sentences and candidates for ranking screens (METHODS 2, G15 section 4.1).

Pure functions on multiplicities; no database. For sentence i the N system outputs are collapsed into candidates
(METHODS 1); ``U_i`` is the multiset of the candidates' multiplicities (how many systems produced each), summing to
N. M is the most candidates one screen shows. The candidates are treated as distinct items.

- ``c_i(j)`` = number of subsets S of the candidates with ``|S| <= M`` whose multiplicities sum to j.
- ``C_i = sum_{j=M..N} c_i(j) j / sum_{j=M..N} c_i(j)``, the expected number of systems a screen covers; when no
  subset reaches ``j >= M``, ``C_i = N`` (all candidates together).
- ``p'_i = binom(M, 2) / binom(C_i, 2)`` with ``binom(x, 2) = x (x - 1) / 2`` for real x; ``p_i = p'_i / sum_k p'_k``.

A screen shows ``min(M, #candidates)`` candidates of one sentence. A screen with one candidate yields no pairwise
judgment, so every sampling method here needs a sentence with at least two candidates (G15's data does hold 27
one-candidate screens, of the sentences all 13 systems left alike; they carry no information for the rankings).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import chain
from math import comb

import numpy as np

from gecappraise.plurals import counted

#: A sentence needs this many candidates to be shown on a ranking screen: one candidate gives no pair.
MIN_RANKABLE_CANDIDATES = 2

_INT64_MAX = np.iinfo(np.int64).max


class SamplingMethod(StrEnum):
    """How sentences are drawn for screens; the values are those of ``Campaign.Sampling``."""

    DIVERSITY = "diversity"
    UNIFORM = "uniform"
    FULL = "full"


@dataclass(frozen=True, slots=True)
class ScreenPlan:
    """One planned screen: ``segment`` indexes the multiplicity sets given to ``plan_screens``; ``candidates``
    index that sentence's candidates (positions in its multiplicity set), in display order."""

    segment: int
    candidates: tuple[int, ...]


def coverage_counts(multiplicities: Sequence[int], max_chosen: int) -> np.ndarray:
    """``c(j)`` for ``j = 0..N``: the subsets of at most ``max_chosen`` candidates whose multiplicities sum to j.

    METHODS 2 / G15 section 4.1. The empty subset counts once at ``j = 0``. Counted exactly by a dynamic program
    over (number chosen, sum), never by enumerating subsets. The result is int64 when the number of subsets,
    ``sum_{k <= M} binom(n, k)``, fits in int64 (every entry, and every intermediate of the program, counts a
    part of those subsets, so none can overflow); otherwise it holds exact Python ints (dtype object).
    """
    values = _validated_multiplicities(multiplicities)
    if max_chosen < 0:
        raise ValueError(f"max_chosen must be >= 0, got {max_chosen}")
    return _subset_sum_counts(_value_counts(values), len(values), max_chosen, int(values.sum()))


def expected_coverage(multiplicities: Sequence[int], max_chosen: int) -> float:
    """``C = sum_{j=M..N} c(j) j / sum_{j=M..N} c(j)``, or N when no subset of at most M candidates covers M
    systems (METHODS 2 / G15 section 4.1)."""
    values = _validated_multiplicities(multiplicities)
    if values.size == 0:
        raise ValueError("a sentence needs at least one candidate")
    _check_max_chosen(max_chosen, least=1)
    small = np.bincount(values[values < max_chosen], minlength=max_chosen)[1:]
    return _expected_coverage_from_key((len(values), int(values.sum()), *small.tolist()), max_chosen)


def sampling_weights(
    multiplicity_sets: Sequence[Sequence[int]],
    max_chosen: int,
    min_candidates: int = MIN_RANKABLE_CANDIDATES,
) -> np.ndarray:
    """``p_i = p'_i / sum_k p'_k`` with ``p'_i = binom(M, 2) / binom(C_i, 2)`` (METHODS 2 / G15 section 4.1).

    ``p'_i = 0`` when ``C_i < 2`` or when sentence i has fewer than ``min_candidates`` candidates. With the default
    of 2 (a one-candidate screen yields no pair) the weights are nonzero exactly for sentences with two or more
    candidates: those have ``C_i >= 2``. ``min_candidates=1`` gives G15's formula as printed, under which a sentence
    that all N systems leave alike has ``C_i = N`` and a small nonzero weight. Raises ValueError when no sentence
    can be sampled.
    """
    _check_max_chosen(max_chosen, least=2)
    coverage = _expected_coverages(multiplicity_sets, max_chosen)
    lengths = np.fromiter(map(len, multiplicity_sets), dtype=np.int64, count=len(multiplicity_sets))
    sampleable = (coverage >= 2.0) & (lengths >= min_candidates)
    if not sampleable.any():
        raise ValueError(
            f"no sentence can be sampled: none has at least {min_candidates} candidates and covers 2 or more systems"
        )
    pseudo = np.zeros(len(coverage))
    pseudo[sampleable] = comb(max_chosen, 2) / (coverage[sampleable] * (coverage[sampleable] - 1.0) / 2.0)
    return pseudo / pseudo.sum()


def plan_screens(
    multiplicity_sets: Sequence[Sequence[int]],
    n_screens: int | None,
    max_chosen: int,
    method: SamplingMethod | str,
    rng: np.random.Generator,
) -> list[ScreenPlan]:
    """Plan ranking screens, reproducibly from ``rng`` (METHODS 2 / G15 section 4.1).

    Sentences (one multiplicity set per segment, candidates in the caller's order) are drawn by ``method``:

    - ``diversity``: sentence i with probability ``p_i`` of ``sampling_weights``, with replacement across screens;
    - ``uniform``: uniformly among the rankable sentences, with replacement;
    - ``full``: every rankable sentence once, in random order. ``n_screens=None`` plans them all; an integer k
      plans the first k of that order (k distinct sentences), and more than there are is an error.

    Only sentences with at least two candidates are rankable, for every method. Each screen then shows
    ``min(M, #candidates)`` of the sentence's candidates chosen uniformly without replacement, in random order.
    """
    method = _sampling_method(method)
    _check_max_chosen(max_chosen, least=2)
    lengths = np.fromiter(map(len, multiplicity_sets), dtype=np.int64, count=len(multiplicity_sets))
    rankable = np.flatnonzero(lengths >= MIN_RANKABLE_CANDIDATES)
    if n_screens is None and method is not SamplingMethod.FULL:
        raise ValueError(f"n_screens is required for {method.value} sampling (only full coverage plans all)")
    if n_screens is not None and n_screens < 0:
        raise ValueError(f"n_screens must be >= 0, got {n_screens}")
    if method is SamplingMethod.DIVERSITY:
        weights = sampling_weights(multiplicity_sets, max_chosen)
        segments = rng.choice(len(weights), size=n_screens, p=weights)
    else:
        if rankable.size == 0:
            raise ValueError("no sentence can be sampled: none has at least 2 candidates")
        if method is SamplingMethod.UNIFORM:
            segments = rng.choice(rankable, size=n_screens)
        else:
            if n_screens is not None and n_screens > rankable.size:
                raise ValueError(
                    f"full coverage has {counted(rankable.size, 'rankable sentence')}; ask for at most that many "
                    "screens or None"
                )
            segments = rng.permutation(rankable)[:n_screens]
    return _choose_candidates(segments, lengths, max_chosen, rng)


def _choose_candidates(
    segments: np.ndarray, lengths: np.ndarray, max_chosen: int, rng: np.random.Generator
) -> list[ScreenPlan]:
    """For each drawn segment, ``min(M, n)`` of its n candidates, uniformly without replacement, in random order.

    Screens are grouped by n (in increasing n) and each group draws one independent permutation per screen
    (``Generator.permuted`` along rows); its first ``min(M, n)`` entries are a uniformly random ordered choice.
    """
    chosen: list[tuple[int, ...] | None] = [None] * len(segments)
    counts = lengths[segments]
    for n in np.unique(counts):
        rows = np.flatnonzero(counts == n)
        orders = rng.permuted(np.tile(np.arange(n), (rows.size, 1)), axis=1)[:, : min(max_chosen, int(n))]
        for row, order in zip(rows.tolist(), orders.tolist()):
            chosen[row] = tuple(order)
    return [ScreenPlan(int(segment), candidates) for segment, candidates in zip(segments.tolist(), chosen)]


def _expected_coverages(multiplicity_sets: Sequence[Sequence[int]], max_chosen: int) -> np.ndarray:
    """``C_i`` for every sentence, computed once per distinct key (see ``_expected_coverage_from_key``).

    The key of a sentence is (#candidates, N, how many candidates have multiplicity 1, 2, .., M-1); the CoNLL-14
    sentences have a few dozen distinct keys, so most sentences reuse a computed value.
    """
    if len(multiplicity_sets) == 0:
        raise ValueError("no sentences given")
    lengths = np.fromiter(map(len, multiplicity_sets), dtype=np.int64, count=len(multiplicity_sets))
    if lengths.min() < 1:
        raise ValueError(f"sentence {int(np.argmin(lengths))} has no candidates")
    flat = _validated_multiplicities(list(chain.from_iterable(multiplicity_sets)))
    sentence_of = np.repeat(np.arange(len(lengths)), lengths)
    totals = np.add.reduceat(flat, np.concatenate(([0], np.cumsum(lengths)[:-1])))
    is_small = flat < max_chosen
    small = np.bincount(
        sentence_of[is_small] * max_chosen + flat[is_small], minlength=len(lengths) * max_chosen
    ).reshape(len(lengths), max_chosen)[:, 1:]
    keys, inverse = np.unique(np.column_stack((lengths, totals, small)), axis=0, return_inverse=True)
    coverage = np.array([_expected_coverage_from_key(tuple(key), max_chosen) for key in keys.tolist()])
    return coverage[inverse.ravel()]


def _expected_coverage_from_key(key: tuple[int, ...], max_chosen: int) -> float:
    """C from (n candidates, N systems, counts of multiplicities 1..M-1), by complement.

    Counting the subsets with sum ``j >= M`` directly needs c(j) up to N. Their complement is small: a subset
    with sum ``< M`` holds only candidates of multiplicity ``< M``. With ``K = min(M, n)``, all subsets of size
    ``<= K`` number ``T0 = sum_{k<=K} binom(n, k)`` and their sums add up to ``T1 = N sum_{k=1..K} binom(n-1, k-1)``
    (each candidate lies in ``binom(n-1, k-1)`` of the k-subsets). So
    ``C = (T1 - sum_{j<M} c(j) j) / (T0 - sum_{j<M} c(j))``, with c(j) for ``j < M`` from the same dynamic
    program restricted to the small multiplicities and sums below M. Work is independent of N, which makes
    100,000 sentences of 100 systems fast; the tests check it against the direct formula on ``coverage_counts``.
    """
    n, total, *small = key
    top = min(max_chosen, n)
    all_subsets = sum(comb(n, k) for k in range(top + 1))
    all_sums = total * sum(comb(n - 1, k - 1) for k in range(1, top + 1))
    low = _subset_sum_counts(
        {value: count for value, count in enumerate(small, start=1) if count},
        sum(small),
        max_chosen,
        max_chosen - 1,
    ).tolist()
    reaching = all_subsets - sum(low)
    if reaching == 0:
        return float(total)
    return (all_sums - sum(j * count for j, count in enumerate(low))) / reaching


def _subset_sum_counts(value_counts: dict[int, int], n_items: int, max_chosen: int, max_sum: int) -> np.ndarray:
    """Number of subsets of at most ``max_chosen`` of the items with each sum ``0..max_sum`` (sums above dropped).

    ``value_counts`` maps a multiplicity to how many items have it. The table ``dp[k, s]`` counts subsets of k
    items with sum s; items of one value v (r of them) enter together: choosing t of them multiplies in
    ``binom(r, t)`` ways and adds ``t v`` to the sum, so the loop runs over distinct values, not items.
    """
    top = min(max_chosen, n_items)
    bound = sum(comb(n_items, k) for k in range(top + 1))
    table = np.zeros((top + 1, max_sum + 1), dtype=np.int64 if bound <= _INT64_MAX else object)
    table[0, 0] = 1
    for value, count in value_counts.items():
        before = table.copy()
        for taken in range(1, min(count, top) + 1):
            shift = taken * value
            if shift > max_sum:
                break
            table[taken:, shift:] += comb(count, taken) * before[: top + 1 - taken, : max_sum + 1 - shift]
    return table.sum(axis=0)


def _value_counts(values: np.ndarray) -> dict[int, int]:
    """Map each distinct multiplicity to how many candidates have it."""
    distinct, counts = np.unique(values, return_counts=True)
    return dict(zip(distinct.tolist(), counts.tolist()))


def _validated_multiplicities(multiplicities: Sequence[int]) -> np.ndarray:
    """The multiplicities as an int64 array; each must be an integer >= 1."""
    values = np.asarray(multiplicities)
    if values.ndim != 1 or (values.size and values.dtype.kind not in "iu"):
        raise ValueError("multiplicities must be a flat sequence of integers")
    values = values.astype(np.int64)
    if values.size and values.min() < 1:
        raise ValueError(f"multiplicities must be >= 1, got {int(values.min())}")
    return values


def _check_max_chosen(max_chosen: int, least: int) -> None:
    if max_chosen < least:
        raise ValueError(f"M (max candidates on a screen) must be >= {least}, got {max_chosen}")


def _sampling_method(method: SamplingMethod | str) -> SamplingMethod:
    try:
        return SamplingMethod(method)
    except ValueError:
        choices = ", ".join(m.value for m in SamplingMethod)
        raise ValueError(f"unknown sampling method {method!r}; choose one of {choices}") from None
