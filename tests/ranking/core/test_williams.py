"""Unit tests of ranking.core.williams (METHODS 12, N19 §6; Graham and Baldwin 2014)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import pearsonr
from scipy.stats import t as student_t

from ranking.core.williams import PERFECT_TOLERANCE, williams_matrix, williams_t, williams_test


def test_t_equals_the_formula_worked_by_hand():
    # r12 = 0.65, r13 = 0.55, r23 = 0.3, n = 50, step by step from Graham and Baldwin (2014), eq. 1:
    # K = 1 - 0.4225 - 0.3025 - 0.09 + 2 * 0.65 * 0.55 * 0.3 = 0.3995
    # 2 K (n - 1) / (n - 3) = 0.799 * 49 / 47 = 0.833
    # (r12 + r13)^2 / 4 * (1 - r23)^3 = 0.36 * 0.343 = 0.12348
    # numerator = 0.1 * sqrt(49 * 1.3) = 0.1 * 7.981228 = 0.7981228
    # t = 0.7981228 / sqrt(0.95648) = 0.7981228 / 0.9779980 = 0.81608
    result = williams_test(0.65, 0.55, 0.3, 50)
    assert result.t == pytest.approx(0.81608, abs=1e-5)
    assert result.df == 47
    # One-sided p-value of t = 0.816 with 47 degrees of freedom (t tables: between 0.20 at t = 0.849 and 0.25 at
    # t = 0.680).
    assert 0.20 < result.p_value < 0.25
    assert result.p_value == pytest.approx(student_t.sf(0.8160781865, 47), rel=1e-9)


def test_the_n_minus_2_option_changes_only_the_degrees_of_freedom():
    three, two = williams_test(0.9, 0.7, 0.6, 12), williams_test(0.9, 0.7, 0.6, 12, df_offset=2)
    assert two.t == three.t and (three.df, two.df) == (9, 10)
    assert two.p_value < three.p_value, "more degrees of freedom: a thinner tail for the same positive t"
    assert two.p_value == pytest.approx(student_t.sf(three.t, 10))


@pytest.mark.parametrize(
    "args, message",
    [
        ((0.5, 0.4, 0.3, 3), "more than 3"),
        ((0.5, 0.4, 0.3, 10, 4), "df_offset"),
        ((1.5, 0.4, 0.3, 10), r"\[-1, 1\]"),
        ((0.9, -0.9, 0.9, 10), "cannot occur together"),
    ],
)
def test_bad_input_is_refused(args, message):
    with pytest.raises(ValueError, match=message):
        williams_test(*args)


correlation = st.floats(-0.95, 0.95, allow_nan=False)


@given(correlation, correlation, correlation, st.integers(5, 200))
def test_swapping_the_metrics_negates_t(r12, r13, r23, n):
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    if k <= 1e-9:  # the three correlations are not those of any three variables
        return
    forward, backward = williams_test(r12, r13, r23, n), williams_test(r13, r12, r23, n)
    assert forward.t == pytest.approx(-backward.t, abs=1e-9)
    assert forward.p_value + backward.p_value == pytest.approx(1.0)
    assert 0.0 <= forward.p_value <= 1.0
    assert (forward.t > 0) == (r12 > r13) or r12 == r13


@given(st.floats(0.0, 0.4), st.floats(0.01, 0.09), st.integers(6, 100))
def test_a_larger_lead_is_more_significant(r13, lead, n):
    r12, r23 = r13 + lead, 0.5
    assert williams_test(r12 + 0.05, r13, r23, n).p_value < williams_test(r12, r13, r23, n).p_value


def test_matrix_cells_are_the_pairwise_tests():
    rng = np.random.default_rng(3)
    human = rng.normal(size=12)
    metrics = np.vstack([human + rng.normal(scale=s, size=12) for s in (0.3, 0.8, 1.5)])
    matrix = williams_matrix(human, metrics, ["a", "b", "c"])
    r = np.corrcoef(np.vstack([human, metrics]))
    assert matrix.correlation == pytest.approx(r[0, 1:])
    for i in range(3):
        assert math.isnan(matrix.p_value[i, i])
        for j in range(3):
            if i != j:
                expected = williams_test(r[0, i + 1], r[0, j + 1], r[i + 1, j + 1], 12)
                assert matrix.t[i, j] == pytest.approx(expected.t)
                assert matrix.p_value[i, j] == pytest.approx(expected.p_value)
    assert matrix.p_value[0, 2] < 0.05 < matrix.p_value[2, 0], "the least noisy metric is significantly better"
    assert np.isnan(np.diag(matrix.p_value)).all() and matrix.df == 9
    assert williams_matrix(human, metrics, ["a", "b", "c"], df_offset=2).df == 10


@pytest.mark.parametrize(
    "human, metrics, names, message",
    [
        (np.arange(5.0), np.ones((2, 4)), ["a", "b"], "need human scores"),
        (np.arange(5.0), np.arange(10.0).reshape(2, 5), ["a"], "1 names for 2"),
        (np.ones(5), np.arange(10.0).reshape(2, 5), ["a", "b"], "human scores are constant"),
        (np.arange(3.0), np.arange(6.0).reshape(2, 3) ** 2, ["a", "b"], "more than 3"),
        (np.r_[np.arange(4.0), np.nan], np.arange(10.0).reshape(2, 5), ["a", "b"], "finite"),
    ],
)
def test_matrix_refuses_bad_input(human, metrics, names, message):
    with pytest.raises(ValueError, match=message):
        williams_matrix(human, metrics, names)


def test_williams_t_broadcasts():
    values = williams_t(np.array([0.8, 0.7]), 0.6, 0.5, 20)
    assert values.shape == (2,) and values[0] > values[1] > 0


def williams_by_hand(human: np.ndarray, first: np.ndarray, second: np.ndarray) -> float:
    """The one-sided p-value that ``first`` correlates better with ``human`` (Graham and Baldwin 2014, eq. 1),
    from scipy's Pearson correlations and Student's t with n - 3 degrees of freedom."""
    n = human.size
    r12, r13 = pearsonr(human, first).statistic, pearsonr(human, second).statistic
    r23 = pearsonr(first, second).statistic
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / np.sqrt(
        2 * k * (n - 1) / (n - 3) + (r12 + r13) ** 2 / 4 * (1 - r23) ** 3
    )
    return float(student_t.sf(t, n - 3))


def test_a_constant_metric_leaves_only_its_own_pairs_undefined():
    """D5: one constant metric used to cancel the whole matrix; now only its row and column are NaN."""
    rng = np.random.default_rng(8)
    human = rng.normal(size=12)
    good, poor = human + rng.normal(scale=0.3, size=12), human + rng.normal(scale=1.5, size=12)
    matrix = williams_matrix(human, np.vstack([good, np.full(12, 0.5), poor]), ["good", "flat", "poor"])
    assert matrix.constant.tolist() == [False, True, False]
    assert np.isnan(matrix.correlation[1]) and not np.isnan(matrix.correlation[[0, 2]]).any()
    assert np.isnan(matrix.p_value[1]).all() and np.isnan(matrix.p_value[:, 1]).all()
    assert matrix.p_value[0, 2] == pytest.approx(williams_by_hand(human, good, poor))
    assert matrix.p_value[2, 0] == pytest.approx(williams_by_hand(human, poor, good))
    assert not matrix.perfectly.any()


@pytest.mark.parametrize("copy", [lambda m: m.copy(), lambda m: 3 * m + 2, lambda m: -m, lambda m: 7 - 0.5 * m],
                         ids=["identical", "affine", "negated", "negated affine"])
def test_a_metric_and_an_affine_copy_of_it_have_no_williams_test(copy):
    """D6: identical metrics gave p = 0.5 (rounding made 0/0 into 0), an affine copy NaN; any |r23| = 1 is now
    undefined, and the other pairs keep their p-values."""
    rng = np.random.default_rng(4)
    human = rng.normal(size=10)
    metric, other = human + rng.normal(scale=0.5, size=10), rng.normal(size=10)
    matrix = williams_matrix(human, np.vstack([metric, copy(metric), other]), ["m", "copy", "other"])
    assert np.isnan(matrix.p_value[0, 1]) and np.isnan(matrix.p_value[1, 0])
    assert matrix.perfectly[0, 1] and matrix.perfectly[1, 0] and not matrix.perfectly[0, 2]
    assert matrix.p_value[0, 2] == pytest.approx(williams_by_hand(human, metric, other))
    assert matrix.p_value[1, 2] == pytest.approx(williams_by_hand(human, copy(metric), other))


def test_perfect_correlation_between_the_metrics_is_detected_within_a_tolerance():
    for r23 in (1.0, 1 - PERFECT_TOLERANCE / 10, -1.0, -1 + PERFECT_TOLERANCE / 10):
        result = williams_test(0.6, 0.6 if r23 > 0 else -0.6, r23, 10)
        assert math.isnan(result.t) and math.isnan(result.p_value), r23
    nearly = williams_test(0.6, 0.59, 0.999, 10)
    assert 0 < nearly.p_value < 0.5, "a strong but imperfect correlation is tested as usual"


@pytest.mark.parametrize("scale", [1e300, 1e-320, 1e-150, 1.0])
def test_the_matrix_correlations_are_pearsons_r_at_any_scale_of_the_scores(scale):
    """The matrix's r(human, metric) and r(metric, metric) are scipy's Pearson r, the r reported beside it. They came
    from ``numpy.corrcoef``, which squares the raw scores: scores near 1e300 overflowed (r = 0.0, and NaN: the metric
    counted as constant) and subnormal ones (1e-320) lost their digits (r = 1.0), where r is 0.35 and 0.55."""
    human = np.array([0.4, 0.2, 0.0, 0.4, 0.2, 0.0])
    pattern = np.array([[1.0, -1.0, 0.0, 0.0, 0.5, 0.0], [1.0, 2.0, 0.0, 1.0, 0.0, 0.0]])
    matrix = williams_matrix(human, pattern * scale, ["a", "b"])
    expected = [pearsonr(human, row).statistic for row in pattern]
    assert matrix.correlation == pytest.approx(expected, rel=1e-3), "subnormals keep three digits"
    assert not matrix.constant.any() and np.isfinite(matrix.p_value[0, 1]) and np.isfinite(matrix.p_value[1, 0])
    unscaled = williams_matrix(human, pattern, ["a", "b"])
    assert matrix.p_value[0, 1] == pytest.approx(unscaled.p_value[0, 1], rel=1e-3)


def test_too_few_judged_systems_are_named_as_the_reason_the_williams_test_is_skipped():
    """Every system of the campaign has metric scores (the files must cover them all); what was short was systems
    with a human score: a PRWS campaign whose raters scored only the source said "needs more than 3 systems with
    metric scores" beside metric files of five systems."""
    from ranking.core.analysis import metric_significance

    skipped = metric_significance(np.array([32.0]), ["source"], {"m2": {name: (0.1,) for name in "abcd"} | {
        "source": (0.2,)}})
    assert skipped.williams is None
    assert skipped.skipped == ("the Williams test needs more than 3 systems with a human score (and metric scores); "
                               "1 here")
