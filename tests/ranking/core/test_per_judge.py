"""Unit tests of ranking.core.per_judge (METHODS 10, G15 Tables 6 and 7)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from annotation.services.appraise_xml import parse_appraise_xml
from ranking.core.analysis import AnalysisParameters, analyze
from ranking.core.bootstrap import bootstrap_expected_wins, resample_outcome_counts
from ranking.core.correlation import correlate
from ranking.core.expected_wins import expected_wins
from ranking.core.pairs import expanded_pairs, outcome_counts, win_matrix
from ranking.core.per_judge import (
    judge_correlations,
    judge_rankings,
    judge_scores,
    judged_by_judge,
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


def test_judged_by_judge_marks_each_judges_systems_and_the_others(data):
    rankings, pairs = data
    own, others = judged_by_judge(pairs, 4, rankings.n_judges)
    # j0 ranked A, B, C, D (segment 0) and D, A; j1 all four; j2 all four; j3 only skipped a screen.
    assert own.tolist() == [[True] * 4, [True] * 4, [True] * 4, [False] * 4]
    assert others.tolist() == [[True] * 4] * 4
    two = Rankings.from_items([("x", 0, [(("A",), 1), (("B",), 2)]), ("y", 0, [(("C",), 1), (("B",), 2)])])
    own, others = judged_by_judge(expanded_pairs(two), 3, 2)
    assert own.tolist() == [[True, True, False], [False, True, True]]
    assert others.tolist() == [[False, True, True], [True, True, False]]


def test_correlations_leave_out_systems_a_vector_has_no_score_for():
    """D3: a system one judge never judged (NaN) is not a score of 0; correlations are over the shared systems."""
    nan = np.nan
    scores = np.array([
        [0.9, 0.1, 0.5, 0.3, 0.7],
        [0.2, 0.4, nan, 0.8, 0.6],
        [nan, 0.3, nan, nan, 0.9],
    ])
    rest = np.array([
        [0.8, 0.3, 0.4, 0.1, 0.9],
        [0.5, 0.6, 0.2, 0.7, 0.1],
        [0.4, nan, 0.3, 0.2, 0.1],
    ])
    table = judge_correlations(scores, rest, np.array([1.0, 1.0, 1.0]), ["a", "b", "c"])
    shared = [0, 1, 3, 4]  # the systems both a and b scored
    assert table.spearman[0, 1] == pytest.approx(stats.spearmanr(scores[0, shared], scores[1, shared]).statistic)
    assert table.pearson[1, 0] == pytest.approx(stats.pearsonr(scores[0, shared], scores[1, shared]).statistic)
    assert table.shared[0, 1] == table.shared[1, 0] == 4
    assert np.isnan(table.spearman[0, 2]) and np.isnan(table.pearson[2, 1]), "c shares only 2 systems with a or b"
    assert table.shared[0, 2] == table.shared[1, 2] == 2
    assert table.rest_spearman[1] == pytest.approx(stats.spearmanr(rest[1, shared], scores[1, shared]).statistic)
    assert table.rest_pearson[0] == pytest.approx(stats.pearsonr(rest[0], scores[0]).statistic)
    assert table.rest_shared.tolist() == [5, 4, 1] and np.isnan(table.rest_spearman[2])


def test_a_judge_who_never_saw_two_systems_is_correlated_over_the_others(conll14_dir):
    """D3 on G15's data: annotator09 ranked one screen, where PKU and POST were not shown. Against annotator01 the
    correlation is over the 11 systems both judged (Spearman -0.300), not over 13 with PKU and POST at 0 (-0.439)."""
    items = [(item.user, item.src_id, item.translations)
             for item in parse_appraise_xml((conll14_dir / "judgments.xml").read_bytes()).items]
    screen = [(("CAMB",), 3), (("IITB", "INPUT", "IPN", "NTHU", "RAC", "SJTU", "UFC"), 1), (("AMU",), 4),
              (("CUUI",), 5), (("UMC",), 3)]
    rankings = Rankings.from_items([*items, ("annotator09", 135, screen)])
    analysis = analyze(rankings, AnalysisParameters(bootstrap=10, seed=1))
    table = analysis.per_judge.correlations
    first, ninth = table.judges.index("annotator01"), table.judges.index("annotator09")

    def full_scores(judge: str) -> dict[str, float]:
        return {row.system: row.full_data_score for row in analysis.per_judge.rankings[judge].systems if row.judged}

    one, nine = full_scores("annotator01"), full_scores("annotator09")
    both = sorted(set(one) & set(nine))
    assert len(both) == 11 and not {"PKU", "POST"} & set(both)
    expected = stats.spearmanr([one[s] for s in both], [nine[s] for s in both]).statistic
    assert round(expected, 3) == -0.300
    assert table.spearman[first, ninth] == pytest.approx(expected)
    assert table.pearson[ninth, first] == pytest.approx(
        stats.pearsonr([one[s] for s in both], [nine[s] for s in both]).statistic
    )
    others = rankings.for_judges([j for j, name in enumerate(rankings.judge_names) if name != "annotator09"])
    rest = expected_wins(win_matrix(expanded_pairs(others), rankings.n_systems), "beaten")
    index = [rankings.system_names.index(s) for s in both]
    assert table.rest_shared[ninth] == 11
    assert table.rest_spearman[ninth] == pytest.approx(
        stats.spearmanr(rest[index], [nine[s] for s in both]).statistic
    )


def test_weighted_means_leave_out_judges_whose_correlation_with_the_rest_is_undefined():
    """D4: judge c tied everything (constant scores): the means average a and b only, and name c."""
    scores = np.array([[0.1, 0.5, 0.3, 0.9], [0.2, 0.4, 0.6, 0.8], [0.5, 0.5, 0.5, 0.5]])
    rest = np.array([[0.3, 0.2, 0.5, 0.7], [0.1, 0.6, 0.4, 0.9], [0.2, 0.3, 0.6, 0.5]])
    weights = np.array([10.0, 30.0, 60.0])
    table = judge_correlations(scores, rest, weights, ["a", "b", "c"])
    rho = [stats.spearmanr(rest[j], scores[j]).statistic for j in (0, 1)]
    r = [stats.pearsonr(rest[j], scores[j]).statistic for j in (0, 1)]
    assert table.mean_rest_spearman == pytest.approx((10 * rho[0] + 30 * rho[1]) / 40)
    assert table.mean_rest_pearson == pytest.approx((10 * r[0] + 30 * r[1]) / 40)
    assert table.mean_left_out == ("c",)
    everyone_tied = judge_correlations(np.full((2, 4), 0.5), rest[:2], weights[:2], ["a", "b"])
    assert np.isnan(everyone_tied.mean_rest_spearman) and everyone_tied.mean_left_out == ("a", "b")


def ew_pl_ranked(counts: np.ndarray) -> set[int]:
    """The systems G15's ``EW.pl`` ranks in one resample with outcome counts (S, S, 3), read directly: ``rank()``
    lists the keys of ``%$WIN``, which only a win fills (``$WIN->{$s1}->{$s2}++`` for "<", the reverse for ">")."""
    return {int(first if cell == 0 else second) for first, second, cell in zip(*np.nonzero(counts)) if cell != 1}


def test_a_judges_resample_ranks_the_systems_that_beat_another_in_it_as_ew_pl():
    """Table 7 follows EW.pl: B's one win (over A) is drawn in some resamples only, and X never beat anyone, so a
    resample ranks A and, where drawn, B; X has no range (EW.pl does not list it)."""
    items = [("ann", 0, [(("A",), 1), (("B",), 2)])] * 3 + [("ann", 1, [(("B",), 1), (("A",), 2)]),
                                                            ("ann", 2, [(("A",), 1), (("B", "X"), 2)])]
    rankings = Rankings.from_items(items)
    pairs = expanded_pairs(rankings)
    samples = bootstrap_expected_wins(pairs, 3, 50, np.random.default_rng(5), "beaten")
    resamples = resample_outcome_counts(outcome_counts(pairs, 3), 50, np.random.default_rng(5))
    assert [set(np.flatnonzero(~np.isnan(row)).tolist()) for row in samples] == [ew_pl_ranked(r) for r in resamples]
    assert 0 < np.isnan(samples[:, 1]).sum() < 50 and np.isnan(samples[:, 2]).all()
    table = judge_rankings(pairs, rankings.system_names, rankings.judge_names, 50, np.random.default_rng(5))["ann"]
    assert [(row.system, row.samples) for row in table.systems] == [
        ("A", 50), ("B", int((~np.isnan(samples[:, 1])).sum())), ("X", 0)
    ]
    assert table.systems[1].ranked and not table.systems[2].ranked and table.systems[2].full_data_score == 0.0
