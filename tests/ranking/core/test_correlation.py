"""Unit tests of ranking.core.correlation (METHODS 10, G15 §6)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import pearsonr, spearmanr

from ranking.core.correlation import BETA_GRID, beta_sweep, correlate, fbeta, pearson_r

HUMAN = np.array([0.63, 0.57, 0.56, 0.46, 0.30])
PRECISION = np.array([0.41, 0.39, 0.42, 1.0, 0.11])
RECALL = np.array([0.22, 0.30, 0.25, 0.0, 0.03])


def test_fbeta_formula_and_zero_cases():
    assert fbeta(0.4147, 0.2174, 0.5) == pytest.approx(0.3510, abs=5e-5)
    assert fbeta(0.5, 0.25, 1.0) == pytest.approx(2 * 0.5 * 0.25 / 0.75)
    assert fbeta(0.5, 0.25, 0.0) == pytest.approx(0.5)
    assert fbeta([1.0, 0.0, 0.0], [0.0, 0.3, 0.0], 0.5).tolist() == [0.0, 0.0, 0.0]
    assert fbeta(PRECISION[None, :], RECALL[None, :], np.array([[0.5], [1.0]])).shape == (2, 5)
    with pytest.raises(ValueError, match="non-negative"):
        fbeta(-0.1, 0.2, 0.5)


def test_correlate_matches_scipy():
    metric = fbeta(PRECISION, RECALL, 0.5)
    result = correlate(HUMAN, metric)
    assert result.spearman == pytest.approx(spearmanr(HUMAN, metric).statistic)
    assert result.pearson == pytest.approx(pearsonr(HUMAN, metric).statistic)


@pytest.mark.parametrize(
    "a, b, message",
    [
        ([1.0, 2.0], [1.0, 2.0], "at least 3"),
        ([1.0, 2.0, 3.0], [1.0, 2.0], "different"),
        ([1, 2, np.nan], [1, 2, 3], "finite"),
    ],
)
def test_correlate_rejects_bad_input(a, b, message):
    with pytest.raises(ValueError, match=message):
        correlate(np.array(a), np.array(b))


def test_beta_sweep_equals_one_correlation_per_beta():
    sweep = beta_sweep(HUMAN, PRECISION, RECALL)
    assert sweep.betas.tolist() == BETA_GRID.tolist() and BETA_GRID[0] == 0.01 and BETA_GRID[-1] == 1.0
    for beta in (0.1, 0.18, 0.5, 1.0):
        expected = correlate(HUMAN, fbeta(PRECISION, RECALL, beta))
        assert sweep.at(beta).spearman == pytest.approx(expected.spearman)
        assert sweep.at(beta).pearson == pytest.approx(expected.pearson)
    beta, value = sweep.best_pearson()
    assert value == pytest.approx(sweep.pearson.max()) and sweep.at(beta).pearson == value
    beta, value = sweep.best_spearman()
    assert value == sweep.spearman.max()
    assert beta == sweep.betas[sweep.spearman == value].max()
    with pytest.raises(ValueError, match="not in the sweep"):
        sweep.at(0.123)


@given(st.lists(st.integers(0, 1000), min_size=4, max_size=10, unique=True), st.randoms(use_true_random=False))
def test_correlation_invariant_to_relabelling_and_spearman_to_monotone_maps(values, random):
    a = np.array(values) / 1000.0
    b = a**3 + 0.5 * np.sin(7 * a)
    perm = list(range(a.size))
    random.shuffle(perm)
    base = correlate(a, b)
    shuffled = correlate(a[perm], b[perm])
    assert shuffled.spearman == pytest.approx(base.spearman)
    assert shuffled.pearson == pytest.approx(base.pearson)
    assert correlate(np.exp(a), b).spearman == pytest.approx(base.spearman)
    assert -1 - 1e-12 <= base.pearson <= 1 + 1e-12


SCALE_TEST_HUMAN = np.array([0.497, 0.565, 0.431, 0.507, 0.25])
PATTERN = np.array([1.0, -1.0, 1.75, 0.0, -0.5])


@pytest.mark.parametrize("power", [1023, 1000, -1000, -1070, 0])
def test_pearson_is_the_same_at_any_scale_of_the_scores(power):
    """Pearson's r is unchanged by a positive factor, and a power of two scales the pattern exactly. Scores of both
    signs near 1e308 (2**1023) overflowed where scipy centres them: r moved by 0.0023 here, and came out 0.0 for
    a --metrics file whose r is -0.954 (Spearman -1.0 beside it); subnormal scores (2**-1070) moved r in the fifth
    digit."""
    expected = correlate(SCALE_TEST_HUMAN, PATTERN)
    scaled = correlate(SCALE_TEST_HUMAN, np.ldexp(PATTERN, power))
    assert scaled.pearson == pytest.approx(expected.pearson, abs=1e-15)
    assert scaled.spearman == expected.spearman
    assert pearson_r(np.ldexp(PATTERN, power), SCALE_TEST_HUMAN) == pytest.approx(expected.pearson, abs=1e-15)


def test_pearson_r_of_rows():
    rows = np.vstack([PATTERN * 1e300, SCALE_TEST_HUMAN, -SCALE_TEST_HUMAN * 1e-310])
    r = pearson_r(rows[:, None, :], rows[None, :, :])
    expected = np.corrcoef(np.vstack([PATTERN, SCALE_TEST_HUMAN, -SCALE_TEST_HUMAN]))
    np.testing.assert_allclose(r, expected, atol=1e-12)
    assert np.isnan(pearson_r(np.ones(4), SCALE_TEST_HUMAN[:4]))
    assert np.isnan(pearson_r(np.zeros(4), SCALE_TEST_HUMAN[:4]))
