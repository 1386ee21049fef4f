"""Unit tests of ranking.core.significance (METHODS 8, G15 Table 3d)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from ranking.core.significance import head_to_head, sign_test_p_values, significance_mark

WINS = np.array([[0, 30, 5], [10, 0, 0], [5, 0, 0]])


def test_shares_are_column_beats_row():
    table = head_to_head(WINS, ["A", "B", "C"])
    # Row B, column A: A beat B 30 times, B beat A 10 times.
    assert table.share[1, 0] == pytest.approx(0.75)
    assert table.share[0, 1] == pytest.approx(0.25)
    assert (table.wins[1, 0], table.losses[1, 0]) == (30, 10)
    assert table.share[0, 2] == pytest.approx(0.5)
    assert np.isnan(table.share[1, 2]) and np.isnan(table.p_value[1, 2])
    assert np.all(np.isnan(np.diag(table.share)))


def test_p_values_are_two_sided_sign_tests():
    p_values = sign_test_p_values(WINS)
    assert p_values[0, 1] == pytest.approx(binomtest(30, 40, 0.5).pvalue)
    assert p_values[1, 0] == p_values[0, 1]
    assert p_values[0, 2] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "p, mark", [(0.001, "‡"), (0.01, "‡"), (0.03, "†"), (0.05, "†"), (0.08, "⋆"), (0.10, "⋆"), (0.2, ""), (np.nan, "")]
)
def test_significance_marks(p, mark):
    assert significance_mark(p) == mark


def test_pairs_without_a_decisive_comparison_have_no_share_and_no_p_value():
    table = head_to_head(np.array([[0, 3, 0], [1, 0, 0], [0, 0, 0]]), ["A", "B", "C"])
    assert np.isnan(table.share[0, 2]) and np.isnan(table.p_value[2, 0])
    assert (table.wins[0, 2], table.losses[0, 2]) == (0, 0)
    assert table.share[0, 1] == pytest.approx(0.25)


def test_shape_mismatch_raises():
    with pytest.raises(ValueError, match="3 systems"):
        head_to_head(np.zeros((2, 2)), ["A", "B", "C"])
