"""Unit tests of ranking.core.per_judge (METHODS 10, G15 Tables 6 and 7)."""
from __future__ import annotations

import numpy as np
import pytest

from ranking.core.correlation import correlate
from ranking.core.expected_wins import expected_wins
from ranking.core.pairs import expanded_pairs, win_matrix
from ranking.core.per_judge import (
    judge_correlations,
    judge_rankings,
    judge_scores,
    leave_one_out_scores,
    win_matrices_by_judge,
)
from ranking.core.rankings import Rankings

ITEMS = [
    ("j0", 0, [(("A",), 1), (("B", "C"), 2), (("D",), 3)]),
    ("j0", 1, [(("D",), 1), (("A",), 2)]),
    ("j1", 0, [(("B",), 1), (("A",), 2), (("C", "D"), 2)]),
    ("j1", 2, [(("C",), 1), (("A",), 1), (("B",), 3)]),
    ("j2", 3, [(("D",), 1), (("C",), 2), (("B",), 3), (("A",), 4)]),
    ("j3", 4, []),
]


@pytest.fixture()
def data():
    rankings = Rankings.from_items(ITEMS)
    return rankings, expanded_pairs(rankings)


def test_win_matrices_by_judge_split_the_win_matrix(data):
    rankings, pairs = data
    by_judge = win_matrices_by_judge(pairs, 4, rankings.n_judges)
    assert by_judge.shape == (4, 4, 4)
    assert np.array_equal(by_judge.sum(axis=0), win_matrix(pairs, 4))
    for j in range(rankings.n_judges):
        assert np.array_equal(by_judge[j], win_matrix(pairs.take(pairs.judge == j), 4))


@pytest.mark.parametrize("opponents", ["all", "beaten"])
def test_judge_and_leave_one_out_scores(data, opponents):
    rankings, pairs = data
    own = judge_scores(pairs, 4, rankings.n_judges, opponents)
    rest = leave_one_out_scores(pairs, 4, rankings.n_judges, opponents)
    for j in range(rankings.n_judges):
        assert own[j] == pytest.approx(expected_wins(win_matrix(pairs.take(pairs.judge == j), 4), opponents))
        assert rest[j] == pytest.approx(expected_wins(win_matrix(pairs.take(pairs.judge != j), 4), opponents))


def test_judge_rankings_order_by_full_score_and_skip_judges_without_pairs(data):
    rankings, pairs = data
    rng = np.random.default_rng(0)
    result = judge_rankings(pairs, rankings.system_names, rankings.judge_names, 200, rng, opponents="all")
    assert list(result) == ["j0", "j1", "j2"]
    j2 = result["j2"]
    assert [row.system for row in j2.systems] == ["D", "C", "B", "A"]
    assert [row.full_data_score for row in j2.systems] == pytest.approx([1.0, 2 / 3, 1 / 3, 0.0])
    assert j2.confidence == 0.90 and j2.n_samples == 200
    full = [row.full_data_score for row in result["j0"].systems]
    assert full == sorted(full, reverse=True)


def test_beaten_opponents_score_each_system_only_against_those_it_beat(data):
    rankings, pairs = data
    result = judge_rankings(pairs, rankings.system_names, rankings.judge_names, 50, np.random.default_rng(0))
    # j2 ranked D > C > B > A: D, C and B each won every game they won, so all three score 1 (G15 Table 7 script).
    assert {row.system: row.full_data_score for row in result["j2"].systems} == {"A": 0.0, "B": 1.0, "C": 1.0, "D": 1.0}


def test_judge_correlations_table():
    scores = np.array([[0.1, 0.5, 0.3, 0.9], [0.2, 0.4, 0.6, 0.8], [0.9, 0.1, 0.5, 0.3]])
    rest = scores[::-1] + 0.01 * np.arange(4)
    weights = np.array([10.0, 30.0, 60.0])
    table = judge_correlations(scores, rest, weights, ["a", "b", "c"])
    assert np.all(np.isnan(np.diag(table.spearman)))
    assert table.spearman[0, 1] == table.spearman[1, 0] == pytest.approx(correlate(scores[0], scores[1]).spearman)
    assert table.pearson[2, 0] == pytest.approx(correlate(scores[0], scores[2]).pearson)
    assert table.rest_pearson[1] == pytest.approx(correlate(rest[1], scores[1]).pearson)
    assert table.mean_rest_spearman == pytest.approx(np.sum(weights * table.rest_spearman) / 100)
    with pytest.raises(ValueError, match="weights"):
        judge_correlations(scores, rest, weights[:2], ["a", "b", "c"])
