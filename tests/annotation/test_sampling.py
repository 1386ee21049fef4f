"""Sampling of ranking screens (METHODS 2, G15 section 4.1): counts, coverage, weights and screen plans."""
from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

from annotation.services.collapsing import collapse_outputs
from annotation.services.sampling import (
    SamplingMethod,
    ScreenPlan,
    coverage_counts,
    expected_coverage,
    plan_screens,
    sampling_weights,
)

multiplicity_lists = st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=14)


def brute_force_counts(multiplicities: list[int], max_chosen: int) -> list[int]:
    """c(j) by enumerating every subset of at most ``max_chosen`` candidates."""
    counts = [0] * (sum(multiplicities) + 1)
    for size in range(min(max_chosen, len(multiplicities)) + 1):
        for subset in combinations(multiplicities, size):
            counts[sum(subset)] += 1
    return counts


def coverage_by_definition(multiplicities: list[int], max_chosen: int) -> Fraction:
    """C straight from METHODS 2 on the full c(j), in exact fractions."""
    counts = coverage_counts(multiplicities, max_chosen).tolist()
    reaching = sum(counts[max_chosen:])
    if reaching == 0:
        return Fraction(sum(multiplicities))
    return Fraction(sum(j * c for j, c in enumerate(counts) if j >= max_chosen), reaching)


def conll14_multiplicity_sets(conll14_dir: Path) -> list[list[int]]:
    """Per sentence, the multiplicities of its collapsed candidates, from the 13 raw output files."""
    files = sorted((conll14_dir / "outputs").iterdir())
    # The files end with a newline: the last split element is an empty artifact, not a sentence.
    columns = [path.read_text(encoding="utf-8").split("\n")[:-1] for path in files]
    return [[len(group) for group in collapse_outputs(outputs)] for outputs in zip(*columns)]


@settings(max_examples=300, deadline=None)
@given(multiplicity_lists, st.integers(min_value=1, max_value=6))
def test_coverage_counts_match_subset_enumeration(multiplicities, max_chosen):
    counts = coverage_counts(multiplicities, max_chosen)
    assert counts.tolist() == brute_force_counts(multiplicities, max_chosen)


@settings(max_examples=300, deadline=None)
@given(multiplicity_lists, st.integers(min_value=1, max_value=6))
def test_expected_coverage_matches_definition(multiplicities, max_chosen):
    assert expected_coverage(multiplicities, max_chosen) == pytest.approx(
        float(coverage_by_definition(multiplicities, max_chosen)), rel=1e-12
    )


def test_coverage_counts_stay_exact_beyond_int64():
    counts = coverage_counts([1] * 200, 100)
    assert counts.dtype == object
    assert counts[100] == comb(200, 100)
    assert counts[37] == comb(200, 37)
    assert coverage_counts([1] * 100, 10).dtype == np.int64


def test_coverage_of_a_hundred_systems_counts_every_subset_of_at_most_five_candidates():
    counts = coverage_counts(list(range(1, 14)) + [9], 5)
    assert sum(counts.tolist()) == sum(comb(14, k) for k in range(6))


@pytest.mark.parametrize(
    ("multiplicities", "expected"),
    [
        ([13], 13.0),  # one candidate covers all 13 systems
        ([1] * 13, 5.0),  # 13 distinct outputs: any 5 cover 5
        ([12, 1], 12.5),  # subsets {12} and {12, 1} reach 5
        ([1] * 8 + [9], 2259 / 219),  # 56 five-subsets of ones (5) + the 9 with 0..4 ones (9..13)
        ([2, 2], 4.0),  # nothing reaches M = 5: all candidates cover N = 4
    ],
)
def test_expected_coverage_by_hand(multiplicities, expected):
    assert expected_coverage(multiplicities, 5) == pytest.approx(expected, rel=1e-15)


def test_weights_by_hand():
    pseudo = np.array([10 / (12.5 * 11.5 / 2), 1.0])
    weights = sampling_weights([[13], [1] * 13, [12, 1]], 5)
    assert weights.tolist() == pytest.approx([0.0, pseudo[1] / pseudo.sum(), pseudo[0] / pseudo.sum()])


def test_weights_as_printed_in_g15_keep_one_candidate_sentences():
    pseudo = np.array([10 / 78, 1.0, 10 / (12.5 * 11.5 / 2)])
    weights = sampling_weights([[13], [1] * 13, [12, 1]], 5, min_candidates=1)
    assert weights.tolist() == pytest.approx((pseudo / pseudo.sum()).tolist())


@settings(max_examples=200, deadline=None)
@given(st.lists(multiplicity_lists, min_size=1, max_size=20), st.integers(min_value=2, max_value=6))
def test_weights_are_a_distribution_over_rankable_sentences(sets, max_chosen):
    if all(len(s) < 2 for s in sets):
        with pytest.raises(ValueError, match="no sentence can be sampled"):
            sampling_weights(sets, max_chosen)
        return
    weights = sampling_weights(sets, max_chosen)
    assert weights.shape == (len(sets),)
    assert np.all(weights >= 0)
    assert weights.sum() == pytest.approx(1.0)
    assert ((weights > 0) == np.array([len(s) >= 2 for s in sets])).all()
    expected = [expected_coverage(s, max_chosen) for s in sets]
    pseudo = np.array([comb(max_chosen, 2) / (c * (c - 1) / 2) if len(s) >= 2 else 0.0 for s, c in zip(sets, expected)])
    assert weights == pytest.approx(pseudo / pseudo.sum())


@pytest.mark.parametrize(
    ("sets", "max_chosen", "message"),
    [
        ([[2, 0]], 5, "must be >= 1"),
        ([[2, 1.5]], 5, "integers"),
        ([[2, 1], []], 5, "no candidates"),
        ([], 5, "no sentences"),
        ([[2, 1]], 1, "must be >= 2"),
        ([[13], [5]], 5, "no sentence can be sampled"),
    ],
)
def test_weights_reject_bad_input(sets, max_chosen, message):
    with pytest.raises(ValueError, match=message):
        sampling_weights(sets, max_chosen)


def test_conll14_weights_favour_diverse_sentences(conll14_dir):
    sets = conll14_multiplicity_sets(conll14_dir)
    assert len(sets) == 1312 and all(sum(s) == 13 for s in sets)
    weights = sampling_weights(sets, 5)
    distinct = np.array([len(s) for s in sets])
    assert weights.sum() == pytest.approx(1.0)
    assert (weights[distinct == 1] == 0).all() and (weights[distinct >= 2] > 0).all()
    assert spearmanr(distinct[distinct >= 2], weights[distinct >= 2]).statistic > 0.8
    mean_by_distinct = [weights[distinct == k].mean() for k in range(2, 14)]
    assert mean_by_distinct == sorted(mean_by_distinct)
    assert weights[distinct == 13].max() == weights.max()


def test_conll14_weights_reproduce_the_formula_per_sentence(conll14_dir):
    sets = conll14_multiplicity_sets(conll14_dir)
    weights = sampling_weights(sets, 5)
    coverage = np.array([float(coverage_by_definition(s, 5)) for s in sets])
    pseudo = np.where(np.array([len(s) for s in sets]) >= 2, 10 / (coverage * (coverage - 1) / 2), 0.0)
    assert weights == pytest.approx(pseudo / pseudo.sum(), rel=1e-12)


SETS = [[13], [1] * 13, [12, 1], [3, 3, 3, 4], [6, 7], [2, 2, 2, 2, 2, 3], [13], [5, 5, 1, 1, 1]]
RANKABLE = [i for i, s in enumerate(SETS) if len(s) >= 2]


@pytest.mark.parametrize("method", list(SamplingMethod))
def test_same_seed_same_plans_other_seed_other_plans(method):
    n_screens = None if method is SamplingMethod.FULL else 40
    first = plan_screens(SETS, n_screens, 5, method, np.random.default_rng(7))
    again = plan_screens(SETS, n_screens, 5, method.value, np.random.default_rng(7))
    other = plan_screens(SETS, n_screens, 5, method, np.random.default_rng(8))
    assert first == again
    assert first != other
    assert all(isinstance(plan, ScreenPlan) for plan in first)


@pytest.mark.parametrize("method", list(SamplingMethod))
def test_screens_show_distinct_candidates_of_rankable_sentences(method):
    n_screens = None if method is SamplingMethod.FULL else 300
    plans = plan_screens(SETS, n_screens, 5, method, np.random.default_rng(3))
    for plan in plans:
        n = len(SETS[plan.segment])
        assert plan.segment in RANKABLE
        assert len(plan.candidates) == min(5, n)
        assert len(set(plan.candidates)) == len(plan.candidates)
        assert all(0 <= c < n for c in plan.candidates)


def test_full_coverage_shows_every_rankable_sentence_once():
    plans = plan_screens(SETS, None, 5, "full", np.random.default_rng(11))
    assert sorted(plan.segment for plan in plans) == RANKABLE
    assert [plan.segment for plan in plans] != RANKABLE  # shuffled, for this seed
    first_three = plan_screens(SETS, 3, 5, "full", np.random.default_rng(11))
    assert [p.segment for p in first_three] == [p.segment for p in plans[:3]]
    with pytest.raises(ValueError, match="at most that many"):
        plan_screens(SETS, len(RANKABLE) + 1, 5, "full", np.random.default_rng(11))


def test_candidate_order_is_uniformly_random():
    plans = plan_screens([[1, 1, 1]], 6000, 5, "uniform", np.random.default_rng(5))
    orders = Counter(plan.candidates for plan in plans)
    assert len(orders) == 6  # all permutations of three candidates appear
    assert all(abs(count - 1000) < 150 for count in orders.values())


def test_candidates_are_a_uniform_choice_of_m():
    plans = plan_screens([[1] * 8], 8000, 3, "uniform", np.random.default_rng(9))
    shown = Counter(c for plan in plans for c in plan.candidates)
    assert sorted(shown) == list(range(8))
    assert all(abs(count - 3000) < 250 for count in shown.values())  # 8000 * 3 / 8 each


def test_diversity_draws_follow_the_weights():
    weights = sampling_weights(SETS, 5)
    plans = plan_screens(SETS, 20000, 5, "diversity", np.random.default_rng(2))
    frequency = np.bincount([p.segment for p in plans], minlength=len(SETS)) / 20000
    assert frequency == pytest.approx(weights, abs=0.015)


def test_uniform_draws_only_rankable_sentences_evenly():
    plans = plan_screens(SETS, 6000, 5, "uniform", np.random.default_rng(4))
    frequency = Counter(p.segment for p in plans)
    assert sorted(frequency) == RANKABLE
    assert all(abs(count - 1000) < 150 for count in frequency.values())


@pytest.mark.parametrize(
    ("n_screens", "method", "sets", "message"),
    [
        (None, "diversity", SETS, "n_screens is required"),
        (-1, "uniform", SETS, ">= 0"),
        (5, "random", SETS, "unknown sampling method"),
        (5, "uniform", [[13], [4]], "no sentence can be sampled"),
        (5, "diversity", [[13], [4]], "no sentence can be sampled"),
    ],
)
def test_plans_reject_bad_input(n_screens, method, sets, message):
    with pytest.raises(ValueError, match=message):
        plan_screens(sets, n_screens, 5, method, np.random.default_rng(0))


def test_coverage_rejects_bad_input():
    with pytest.raises(ValueError, match="max_chosen must be >= 0"):
        coverage_counts([2, 1], -1)
    with pytest.raises(ValueError, match="at least one candidate"):
        expected_coverage([], 5)
    with pytest.raises(ValueError, match="integers"):
        coverage_counts([True, False], 2)
