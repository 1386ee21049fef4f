"""Unit tests of ranking.core.prws (METHODS 11, N19 §4.2-4.3)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranking.core.pairs import expanded_pairs, unexpanded_pairs
from ranking.core.prws import (
    ScoredCandidate as S,
)
from ranking.core.prws import (
    Scores,
    prws_report,
    qualified,
    rater_quality,
    relative_rankings,
    scalar_ranks,
    score_distribution,
    split_half_reliability,
    split_halves,
    system_scores,
    z_normalized,
)

# Segment 0: A produced the source (collapsed with the Source system SRC); segment 1: B and C collapsed.
# ERR is the Source+error control. r1 scores ERR below SRC on both checked screens, r2 above it on its one
# checked screen (excluded), r3 is never checked.
ITEMS = [
    ("r1", 0, [S(("A", "SRC"), 60, unchanged=True), S(("B",), 80), S(("C",), 80, True), S(("ERR",), 30)]),
    ("r1", 1, [S(("A",), 90), S(("B", "C"), 70), S(("SRC",), 50, unchanged=True), S(("ERR",), 20)]),
    ("r2", 0, [S(("A", "SRC"), 40, unchanged=True), S(("B",), 100), S(("C",), 70), S(("ERR",), 50)]),
    ("r2", 1, [S(("A",), 80), S(("B", "C"), 60, True), S(("SRC",), 55, unchanged=True)]),
    ("r3", 0, [S(("SRC", "A"), 50, unchanged=True), S(("B",), 90)]),
    ("r3", 1, []),
]


def example() -> Scores:
    return Scores.from_items(ITEMS, source_systems=["SRC"], control_systems=["ERR"])


def test_from_items_builds_flat_arrays():
    scores = example()
    assert scores.system_names == ("A", "B", "C", "ERR", "SRC")
    assert scores.judge_names == ("r1", "r2", "r3")
    assert scores.source_systems.tolist() == [4] and scores.control_systems.tolist() == [3]
    assert scores.screen_judge.tolist() == [0, 0, 1, 1, 2, 2]
    assert scores.screen_segment.tolist() == [0, 1, 0, 1, 0, 1]
    assert scores.n_ratings == 17 and scores.n_candidates == 8
    assert scores.rating_candidate.tolist()[:8] == list(range(8))
    assert scores.rating_candidate.tolist()[8:] == [0, 1, 2, 3, 4, 5, 6, 0, 1]
    assert scores.candidate_unchanged.tolist() == [True, False, False, False, False, False, True, False]
    assert scores.rating_meaning_changed.sum() == 2
    assert sorted(zip(scores.member_candidate.tolist(), scores.member_system.tolist()))[:3] == [(0, 0), (0, 4), (1, 1)]


@pytest.mark.parametrize(
    "items, message",
    [
        ([("r", 0, [S(("A",), 101)])], "0 to 100"),
        ([("r", 0, [S(("A",), float("nan"))])], "0 to 100"),
        ([("r", -1, [S(("A",), 1)])], "non-negative"),
        ([("r", 0, [S((), 1)])], "names no system"),
        ([("r", 0, [S(("A",), 1), S(("A", "B"), 2)])], "twice on one screen"),
        ([("r", 0, [S(("A",), 1)]), ("q", 0, [S(("A", "B"), 2)])], "two candidates of segment 0"),
        ([("r", 0, [S(("A",), 1, unchanged=True)]), ("q", 0, [S(("A",), 2)])], "is and is not the source"),
    ],
)
def test_from_items_refuses_inconsistent_data(items, message):
    with pytest.raises(ValueError, match=message):
        Scores.from_items(items)


def test_unknown_systems_are_refused():
    with pytest.raises(ValueError, match="not in system_names: B"):
        Scores.from_items([("r", 0, [S(("A",), 1), S(("B",), 2)])], system_names=["A"])


def test_quality_control_rates_and_exclusion():
    quality = rater_quality(example())
    assert quality.screens.tolist() == [2, 1, 0]
    assert quality.passed.tolist() == [2, 0, 0]
    assert quality.rate[:2].tolist() == [1.0, 0.0] and np.isnan(quality.rate[2])
    assert quality.excluded.tolist() == [False, True, False]
    kept = qualified(example())
    assert np.unique(kept.rating_judge).tolist() == [0, 2]
    assert kept.n_ratings == 17 - 7


def test_quality_threshold_is_at_least_seventy_percent():
    def screen(judge, segment, passed):
        return (judge, segment, [S(("SRC",), 50), S(("ERR",), 40 if passed else 50)])

    items = [screen("seven", i, i < 7) for i in range(10)] + [screen("six", i, i < 6) for i in range(10)]
    quality = rater_quality(Scores.from_items(items, source_systems=["SRC"], control_systems=["ERR"]))
    assert quality.judge_names == ("seven", "six")
    rates = dict(zip(quality.judge_names, quality.rate.tolist()))
    excluded = dict(zip(quality.judge_names, quality.excluded.tolist()))
    assert rates == {"seven": 0.7, "six": 0.6}, "an equal score is not lower"
    assert excluded == {"seven": False, "six": True}


def test_system_scores_by_hand():
    stats = system_scores(qualified(example()))
    by_system = {name: i for i, name in enumerate(stats.system_names)}
    # Candidate means over r1 and r3: segment 0 A+SRC (60+50)/2 = 55, B (80+90)/2 = 85, C 80, ERR 30;
    # segment 1 A 90, B+C 70, SRC 50, ERR 20.
    expected = {"A": (55 + 90) / 2, "B": (85 + 70) / 2, "C": (80 + 70) / 2, "SRC": (55 + 50) / 2, "ERR": 25.0}
    for name, mean in expected.items():
        assert stats.mean[by_system[name]] == pytest.approx(mean)
    assert stats.sentences.tolist() == [2, 2, 2, 2, 2]
    assert stats.ratings[by_system["A"]] == 3 and stats.ratings[by_system["C"]] == 2
    assert stats.unchanged_pct[by_system["A"]] == 50.0 and stats.unchanged_pct[by_system["SRC"]] == 100.0
    assert stats.unchanged_pct[by_system["B"]] == 0.0
    # C's meaning was changed on segment 0 by its one rating; r2's tick on B+C is excluded with r2.
    assert stats.meaning_changed_pct[by_system["C"]] == 50.0
    assert stats.meaning_changed_pct[by_system["B"]] == 0.0
    everyone = system_scores(example())
    assert everyone.mean[by_system["A"]] == pytest.approx(((60 + 40 + 50) / 3 + (90 + 80) / 2) / 2)
    assert everyone.meaning_changed_pct[by_system["B"]] == 0.0, "one of two ratings ticked is not a majority"


def test_z_normalization_per_rater():
    scores = example()
    z = z_normalized(scores)
    for judge in range(3):
        mine = scores.rating_judge == judge
        raw = scores.rating_score[mine]
        assert z[mine] == pytest.approx((raw - raw.mean()) / raw.std())
    constant = Scores.from_items([("r", 0, [S(("A",), 40), S(("B",), 40)])])
    assert z_normalized(constant).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("power", [-1070, -1060, -1000, 0])
def test_z_scores_and_reliability_do_not_depend_on_the_scale_of_the_scores(power):
    """Scores of 0 to 100 may be subnormal (5e-324 .. 1e-320 are plain numbers): squared, their deviations fell to
    0, every rater's standard deviation with them, and every z-score was 0 (and the split-half Pearson moved).
    z-scores and correlations are unchanged by a positive factor, which a power of two applies exactly."""
    scores = simulated(np.random.default_rng(3), noise=10.0, segments=12)
    scores = scores.with_scores(np.round(scores.rating_score))  # whole scores times 2**-1070 are exact subnormals
    scaled = scores.with_scores(np.ldexp(scores.rating_score, power))
    np.testing.assert_allclose(z_normalized(scaled), z_normalized(scores), rtol=1e-12, atol=1e-12)
    assert np.abs(z_normalized(scaled)).max() > 1
    expected = split_half_reliability(scores, np.random.default_rng(4), splits=20)
    got = split_half_reliability(scaled, np.random.default_rng(4), splits=20)
    for field in ("sentence_pearson", "sentence_spearman", "system_pearson", "system_spearman"):
        assert getattr(got, field) == pytest.approx(getattr(expected, field), abs=1e-12), field


@given(st.lists(st.lists(st.integers(0, 100), min_size=1, max_size=6), min_size=1, max_size=8))
def test_scalar_ranks_order_like_the_scores(screens):
    screen = np.repeat(np.arange(len(screens)), [len(s) for s in screens])
    score = np.concatenate([np.array(s, dtype=float) for s in screens])
    ranks = scalar_ranks(screen, score)
    for k in range(len(screens)):
        mine_scores, mine_ranks = score[screen == k], ranks[screen == k]
        assert mine_ranks.min() == 1 and set(mine_ranks) == set(range(1, len(set(mine_scores)) + 1))
        for i in range(mine_scores.size):
            for j in range(mine_scores.size):
                assert (mine_scores[i] > mine_scores[j]) == (mine_ranks[i] < mine_ranks[j])


def test_relative_rankings_from_scores_drop_controls():
    rankings = relative_rankings(example())
    assert rankings.system_names == ("A", "B", "C", "SRC")
    assert rankings.n_rankings == 6, "the flagged (empty) screen is a skipped ranking"
    first = rankings.candidate_ranking == 0
    names = [rankings.candidate_names[i] for i in rankings.candidate_name[first]]
    assert dict(zip(names, rankings.candidate_rank[first].tolist())) == {"A SRC": 2, "B": 1, "C": 1}
    pairs = unexpanded_pairs(rankings)
    assert len(pairs) == 3 + 3 + 3 + 3 + 1
    expanded = expanded_pairs(rankings)
    a, b, src = 0, 1, 3
    on_first = (expanded.judge == 0)[: 6]
    assert on_first.all()
    first_pairs = {
        (int(f), int(s)): int(r) for f, s, r in zip(expanded.first[:6], expanded.second[:6], expanded.relation[:6])
    }
    assert first_pairs[(a, src)] == 0 and first_pairs[(a, b)] == 1 and first_pairs[(b, src)] == -1


def test_reliability_is_perfect_when_halves_agree():
    items = []
    truth = {"A": 20.0, "B": 50.0, "C": 80.0, "D": 65.0}
    for segment in range(6):
        for judge in ("r1", "r2", "r3", "r4"):
            items.append((judge, segment, [S((name,), value + 3 * segment) for name, value in truth.items()]))
    reliability = split_half_reliability(Scores.from_items(items), np.random.default_rng(0), splits=10)
    assert reliability.candidates == 24 and reliability.systems == 4
    assert reliability.sentence_pearson == pytest.approx(1.0)
    assert reliability.sentence_spearman == pytest.approx(1.0)
    assert reliability.system_pearson == pytest.approx(1.0)


def simulated(rng: np.random.Generator, noise: float, raters: int = 8, segments: int = 60) -> Scores:
    """Systems of increasing quality on ``segments`` sentences, each output rated by ``raters`` raters."""
    quality = np.array([40.0, 50.0, 60.0, 70.0, 80.0])
    difficulty = rng.normal(0, 10, size=segments)
    items = []
    for segment in range(segments):
        for rater in range(raters):
            values = np.clip(quality + difficulty[segment] + rng.normal(0, noise, size=5), 0, 100)
            items.append((f"r{rater}", segment, [S((f"s{k}",), v) for k, v in enumerate(values)]))
    return Scores.from_items(items)


def test_reliability_on_simulated_ratings():
    rng = np.random.default_rng(7)
    clean = split_half_reliability(simulated(rng, noise=5.0), np.random.default_rng(1))
    noisy = split_half_reliability(simulated(rng, noise=40.0), np.random.default_rng(1))
    assert clean.splits == 100 and clean.candidates == 300
    assert clean.system_pearson > 0.99 and clean.sentence_pearson > 0.9
    assert noisy.sentence_pearson < clean.sentence_pearson
    assert noisy.system_pearson > 0.9, "system means of 4 x 60 ratings stay reliable"
    again = split_half_reliability(simulated(np.random.default_rng(7), 5.0), np.random.default_rng(1))
    assert again == clean, "the same generator gives the same numbers"


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 100), min_size=1, max_size=9), min_size=1, max_size=6), st.integers(0, 99))
def test_split_halves_are_equal_disjoint_halves(ratings, seed):
    items = [(f"r{k}", 0, [S((f"s{c}",), v)]) for c, values in enumerate(ratings) for k, v in enumerate(values)]
    scores = Scores.from_items(items)
    a, b = split_halves(scores, np.random.default_rng(seed), splits=5)
    for index, values in enumerate(ratings):  # candidates are numbered in order of appearance
        values = np.array(values, dtype=float)
        if values.size < 2:
            assert np.isnan(a[:, index]).all() and np.isnan(b[:, index]).all()
            continue
        assert (a[:, index] >= values.min()).all() and (a[:, index] <= values.max()).all()
        if values.size % 2 == 0:
            assert (a[:, index] + b[:, index]) / 2 == pytest.approx(np.full(5, values.mean()))


def test_report_order_and_quality():
    report = prws_report(example(), np.random.default_rng(0))
    names = report.stats.system_names
    ranked = report.ranked_systems()
    assert [names[s] for s in ranked] == ["B", "C", "A", "SRC", "ERR"]
    top = ranked[0]
    assert (report.stats.mean[top], report.stats.sentences[top], report.stats.ratings[top]) == (77.5, 2, 3)
    assert (report.stats.unchanged_pct[top], report.stats.meaning_changed_pct[top]) == (0.0, 0.0)
    assert report.control[ranked[-1]] and not report.control[top]
    quality = report.quality
    assert [quality.judge_names[j] for j in report.checked_raters()] == ["r1", "r2"]
    assert [(quality.rate[j], quality.excluded[j]) for j in report.checked_raters()] == [(1.0, False), (0.0, True)]
    assert report.raters == 2 and report.ratings == 10 and report.reliability.splits == 100


def test_score_distribution_of_each_systems_sentence_scores():
    """Lowest, quartiles and highest of each system's sentence scores (its candidates' mean ratings), over the
    raters who pass the check (r1, r3): A 55 (60 and 50) and 90; B 85 and 70; C 80 and 70 (B+C's 70 counts for
    both)."""
    report = prws_report(example(), np.random.default_rng(0))
    names = report.stats.system_names
    by_name = {names[s]: report.distribution[s].tolist() for s in range(len(names))}
    assert by_name["A"] == [55.0, 63.75, 72.5, 81.25, 90.0]
    assert by_name["B"] == [70.0, 73.75, 77.5, 81.25, 85.0]
    assert by_name["C"] == [70.0, 72.5, 75.0, 77.5, 80.0]
    assert by_name["ERR"] == [20.0, 22.5, 25.0, 27.5, 30.0]
    only_r3 = example().for_judges(np.array([False, False, True]))
    distribution = score_distribution(only_r3)
    rated = only_r3.system_names.index("B"), only_r3.system_names.index("C")
    assert distribution[rated[0]].tolist() == [90.0] * 5
    assert np.isnan(distribution[rated[1]]).all(), "a system without a rated sentence"
