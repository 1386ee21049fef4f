"""Unit tests of ranking.core.rankings and ranking.core.pairs (METHODS 3, G15 §4.3)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ranking.core.pairs import (
    ExpandedPairs,
    expanded_pairs,
    outcome_counts,
    pair_statistics,
    pairs_within_groups,
    unexpanded_pairs,
    win_matrix,
)
from ranking.core.rankings import Rankings, candidate_name

SCREEN = ("j1", 7, [(("C",), 2), (("A", "B"), 1), (("D",), 2)])


def test_from_items_builds_flat_arrays_with_sorted_names():
    rankings = Rankings.from_items([SCREEN, ("j0", 3, [])])
    assert rankings.system_names == ("A", "B", "C", "D")
    assert rankings.judge_names == ("j0", "j1")
    assert rankings.candidate_names == ("A B", "C", "D")
    assert rankings.n_rankings == 2
    assert rankings.ranking_judge.tolist() == [1, 0]
    assert rankings.ranking_segment.tolist() == [7, 3]
    assert rankings.candidate_rank.tolist() == [2, 1, 2]
    assert [rankings.candidate_names[i] for i in rankings.candidate_name] == ["C", "A B", "D"]
    assert rankings.member_system.tolist() == [2, 0, 1, 3]
    assert rankings.member_candidate.tolist() == [0, 1, 1, 2]


def test_every_item_is_kept_even_a_judge_named_admin():
    """Leaving judges out is a parameter of the analysis, applied where judgments are loaded (ranking.loading)."""
    rankings = Rankings.from_items([SCREEN, ("admin", 1, [(("E",), 1), (("A",), 2)])])
    assert rankings.n_rankings == 2
    assert "admin" in rankings.judge_names and "E" in rankings.system_names


def test_system_names_may_add_unjudged_systems_and_are_sorted():
    rankings = Rankings.from_items([SCREEN], system_names=["Z", "D", "C", "B", "A"])
    assert rankings.system_names == ("A", "B", "C", "D", "Z")


@pytest.mark.parametrize(
    "items, message",
    [
        ([("j", 0, [(("A",), 0)])], "positive integer"),
        ([("j", 0, [(("A",), 1.5)])], "positive integer"),
        ([("j", 0, [((), 1)])], "names no system"),
        ([("j", 0, [(("A",), 1), (("A", "B"), 2)])], "twice"),
        ([("j", -1, [(("A",), 1)])], "segment"),
    ],
)
def test_bad_items_raise_clear_errors(items, message):
    with pytest.raises(ValueError, match=message):
        Rankings.from_items(items)


def test_unknown_system_raises():
    with pytest.raises(ValueError, match="C, D"):
        Rankings.from_items([SCREEN], system_names=["A", "B"])


def test_candidate_name_sorts_and_joins():
    assert candidate_name(("IPN", "IITB", "INPUT")) == "IITB INPUT IPN"


def test_unexpanded_pairs_are_keyed_in_lexicographic_order():
    pairs = unexpanded_pairs(Rankings.from_items([SCREEN]))
    names = Rankings.from_items([SCREEN]).candidate_names
    got = sorted((names[a], names[b], int(r)) for a, b, r in zip(pairs.first, pairs.second, pairs.relation))
    # "A B" (rank 1) beats C and D (rank 2); C and D tie.
    assert got == [("A B", "C", -1), ("A B", "D", -1), ("C", "D", 0)]
    assert pairs.segment.tolist() == [7, 7, 7]


def test_expanded_pairs_tie_within_candidates_and_rank_groups():
    rankings = Rankings.from_items([SCREEN])
    pairs = expanded_pairs(rankings)
    got = sorted(
        (rankings.system_names[a], rankings.system_names[b], int(r))
        for a, b, r in zip(pairs.first, pairs.second, pairs.relation)
    )
    assert got == [("A", "B", 0), ("A", "C", -1), ("A", "D", -1), ("B", "C", -1), ("B", "D", -1), ("C", "D", 0)]
    assert np.all(pairs.first < pairs.second)


def test_second_better_relation_is_plus_one():
    rankings = Rankings.from_items([("j", 0, [(("B",), 1), (("A",), 3)])])
    pairs = expanded_pairs(rankings)
    assert (pairs.first.tolist(), pairs.second.tolist(), pairs.relation.tolist()) == ([0], [1], [1])
    assert win_matrix(pairs, 2).tolist() == [[0, 0], [1, 0]]


def test_skipped_rankings_count_but_yield_no_pairs():
    stats = pair_statistics(Rankings.from_items([SCREEN, ("j1", 3, []), ("j0", 4, [])]))
    assert stats.judges == ("j0", "j1")
    assert stats.rankings.tolist() == [1, 2]
    assert stats.total() == {"rankings": 3, "unexpanded": 3, "unexpanded_ties": 1, "expanded": 6, "expanded_ties": 2}
    assert stats.per_judge()["j0"] == {
        "rankings": 1, "unexpanded": 0, "unexpanded_ties": 0, "expanded": 0, "expanded_ties": 0
    }


def test_win_matrix_and_outcome_counts_agree():
    rankings = Rankings.from_items([SCREEN, ("j0", 1, [(("D",), 1), (("A",), 2), (("B", "C"), 2)])])
    pairs = expanded_pairs(rankings)
    wins = win_matrix(pairs, 4)
    counts = outcome_counts(pairs, 4)
    upper = np.triu_indices(4, 1)
    assert np.array_equal(wins[upper], counts[..., 0][upper])
    assert np.array_equal(wins.T[upper], counts[..., 2][upper])
    assert counts.sum() == len(pairs)
    assert wins[3, 0] == 1 and wins[0, 3] == 1


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from([-1, 0, 1])), max_size=60))
def test_outcome_counts_count_each_pair_in_its_cell(rows):
    """``outcome_counts`` (also behind ``trueskill.pair_cells``) against a count of the pairs one by one."""
    table = np.array([(min(a, b), max(a, b), r) for a, b, r in rows if a != b], dtype=np.int64).reshape(-1, 3)
    first, second, relation = table.T
    pairs = ExpandedPairs(first, second, relation.astype(np.int8), np.zeros_like(first))
    expected = np.zeros((5, 5, 3), dtype=np.int64)
    for a, b, r in table:
        expected[a, b, r + 1] += 1
    np.testing.assert_array_equal(outcome_counts(pairs, 5), expected)


def test_for_judges_keeps_only_their_rankings():
    rankings = Rankings.from_items([SCREEN, ("j0", 1, [(("D",), 1), (("A",), 2)]), ("j1", 2, [])])
    only_j1 = rankings.for_judges([1])
    assert only_j1.n_rankings == 2
    assert len(expanded_pairs(only_j1)) == 6
    assert only_j1.system_names == rankings.system_names
    assert only_j1.member_candidate.max() < only_j1.candidate_rank.size


@given(st.lists(st.integers(0, 6), max_size=40))
def test_pairs_within_groups_lists_every_pair_of_each_group_once(sizes):
    group = np.repeat(np.arange(len(sizes)), sizes)
    first, second = pairs_within_groups(group)
    expected = [(i, j) for i in range(group.size) for j in range(i + 1, group.size) if group[i] == group[j]]
    assert list(zip(first.tolist(), second.tolist())) == expected


screens = st.lists(
    st.tuples(
        st.permutations(list("ABCDEFGHIJKLMNOP")),
        st.lists(st.integers(1, 3), min_size=1, max_size=5),
        st.lists(st.integers(1, 5), min_size=5, max_size=5),
    ),
    min_size=1,
    max_size=8,
)


def _items(drawn):
    items = []
    for n, (systems, sizes, ranks) in enumerate(drawn):
        cut = np.cumsum([0, *sizes])
        candidates = [(tuple(systems[cut[i]:cut[i + 1]]), ranks[i]) for i in range(len(sizes))]
        items.append((f"j{n % 3}", n, candidates))
    return items


@given(screens)
def test_expanded_pair_count_is_k_choose_2_per_screen(drawn):
    items = _items(drawn)
    rankings = Rankings.from_items(items)
    pairs = expanded_pairs(rankings)
    covered = [sum(len(systems) for systems, _ in candidates) for _, _, candidates in items]
    assert len(pairs) == sum(k * (k - 1) // 2 for k in covered)
    assert len(unexpanded_pairs(rankings)) == sum(len(c) * (len(c) - 1) // 2 for _, _, c in items)
    assert np.all(pairs.first < pairs.second)
    wins = win_matrix(pairs, rankings.n_systems)
    assert wins.sum() == np.count_nonzero(pairs.relation)
