"""Unit tests of ranking.core.agreement (METHODS 4, G15 §4.4)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ranking.core.agreement import annotator_agreement, cohen_kappa
from ranking.core.pairs import UnexpandedPairs, unexpanded_pairs
from ranking.core.rankings import Rankings

J0_FIRST = ("j0", 0, [(("A",), 1), (("B",), 2), (("C",), 2)])  # A<B, A<C, B=C
J1 = ("j1", 0, [(("A",), 1), (("B",), 1), (("C",), 2)])  # A=B, A<C, B<C
J0_AGAIN = ("j0", 0, [(("C",), 3), (("A",), 1), (("B",), 2)])  # A<B, A<C, B<C


def table(items, min_comparisons=1):
    rankings = Rankings.from_items(items)
    return annotator_agreement(unexpanded_pairs(rankings), rankings.judge_names, min_comparisons)


def test_cohen_kappa_formula():
    # P(A) = 1/3; relations 4 x "<", 2 x "=": P(E) = (4/6)^2 + (2/6)^2 = 5/9; kappa = (1/3 - 5/9) / (4/9).
    assert cohen_kappa(1, 3, [4, 2, 0]) == pytest.approx(-0.5)
    assert cohen_kappa(5, 5, [3, 1, 1]) == pytest.approx(1.0)
    assert np.isnan(cohen_kappa(0, 0, [0, 0, 0]))
    assert np.isnan(cohen_kappa(2, 2, [4, 0, 0]))  # P(E) = 1


def test_inter_annotator_kappa_by_hand():
    result = table([J0_FIRST, J1])
    assert result.judges == ("j0", "j1")
    assert result.comparisons[0, 1] == result.comparisons[1, 0] == 3
    assert result.kappa[0, 1] == pytest.approx(-0.5)
    assert result.inter == pytest.approx(-0.5)
    assert result.comparisons[0, 0] == 0 and np.isnan(result.kappa[0, 0]) and np.isnan(result.intra)


def test_repeated_judgments_enter_intra_and_multiply_inter_comparisons():
    result = table([J0_FIRST, J1, J0_AGAIN])
    # Intra j0: 3 repeated keys, agreement on A<B and A<C; relations 5 x "<", 1 x "=".
    assert result.comparisons[0, 0] == 3
    assert result.kappa[0, 0] == pytest.approx((2 / 3 - 26 / 36) / (10 / 36))
    # Inter: j0's two relations per key against j1's one: 6 comparisons, 3 agreements; 7 x "<", 2 x "=" of 9.
    assert result.comparisons[0, 1] == 6
    assert result.kappa[0, 1] == pytest.approx((1 / 2 - 53 / 81) / (28 / 81))
    assert result.intra == pytest.approx(result.kappa[0, 0])


def test_keys_include_the_segment():
    other_segment = ("j1", 1, J1[2])
    result = table([J0_FIRST, other_segment])
    assert result.comparisons[0, 1] == 0 and np.isnan(result.kappa[0, 1])


def test_cells_with_few_comparisons_are_starred_and_left_out():
    result = table([J0_FIRST, J1, J0_AGAIN], min_comparisons=4)
    assert result.too_few.tolist() == [[True, False], [False, True]]
    assert np.isnan(result.intra)
    assert result.inter == pytest.approx(result.kappa[0, 1])
    assert result.comparisons[0, 1] == 6
    assert result.comparisons[1, 1] == 0 and np.isnan(result.kappa[1, 1])


def test_overall_inter_is_comparison_weighted():
    items = [J0_FIRST, J1, ("j2", 0, [(("A",), 1), (("B",), 2), (("C",), 2)])]
    result = table(items)
    upper = [(0, 1), (0, 2), (1, 2)]
    weights = np.array([result.comparisons[c] for c in upper])
    kappas = np.array([result.kappa[c] for c in upper])
    assert result.inter == pytest.approx(np.sum(weights * kappas) / weights.sum())
    assert result.kappa[0, 2] == pytest.approx(1.0)


single_judgments = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 11), st.sampled_from([-1, 0, 1])), min_size=1, max_size=60
).map(lambda rows: list({(judge, key): relation for judge, key, relation in rows}.items()))


@given(single_judgments)
def test_kappa_in_range_when_each_judge_judges_a_key_once(rows):
    judge = np.array([j for (j, _), _ in rows])
    key = np.array([k for (_, k), _ in rows])
    pairs = UnexpandedPairs(
        ranking=np.arange(len(rows)),
        judge=judge,
        segment=key // 4,
        first=key % 4,
        second=key % 4 + 4,
        relation=np.array([r for _, r in rows], dtype=np.int8),
    )
    result = annotator_agreement(pairs, ["a", "b", "c", "d"], min_comparisons=1)
    kappa = result.kappa[~np.isnan(result.kappa)]
    assert np.all((kappa >= -1 - 1e-12) & (kappa <= 1 + 1e-12))
    assert np.array_equal(result.comparisons, result.comparisons.T)
    assert np.array_equal(np.isnan(result.kappa), np.isnan(result.kappa.T))
    assert np.all(np.diag(result.comparisons) == 0)
