"""Rankings.from_codes, the vectorized constructor, and Rankings.from_items built on it: the same arrays as
from_items gave before (``rankings_reference``), ties, collapsed candidates, skipped rankings and refusals
included."""
from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranking.core.rankings import Rankings

from .rankings_reference import reference_from_items

#: System names whose candidate names sort otherwise than their tuples do, and collide ("A B" alone and A with B).
SYSTEMS = ("A", "B", "AB", "A B", "b", "Z", "é", "C-1")


def assert_same(got: Rankings, expected: Rankings) -> None:
    """Every field equal; the arrays also in dtype and shape."""
    for field in fields(Rankings):
        ours, theirs = getattr(got, field.name), getattr(expected, field.name)
        if isinstance(theirs, np.ndarray):
            assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, field.name
            assert np.array_equal(ours, theirs), field.name
        else:
            assert ours == theirs, field.name


def assert_like_reference(items, system_names) -> None:
    """``from_items`` gives the reference's arrays, or refuses what it refuses with the same message."""
    try:
        expected = reference_from_items(items, system_names)
    except ValueError as refused:
        with pytest.raises(ValueError) as raised:
            Rankings.from_items(items, system_names)
        assert str(raised.value) == str(refused)
        return
    assert_same(Rankings.from_items(items, system_names), expected)


@st.composite
def screens(draw) -> list[tuple[tuple[str, ...], int]]:
    """0-5 candidates of disjoint systems (several systems collapsed into one candidate), ranks 1-5 with ties."""
    systems = draw(st.permutations(SYSTEMS))[: draw(st.integers(0, len(SYSTEMS)))]
    cuts = sorted(draw(st.sets(st.integers(1, max(len(systems) - 1, 1)), max_size=4)))
    groups = [systems[a:b] for a, b in zip([0, *cuts], [*cuts, len(systems)]) if systems[a:b]][:5]
    return [(tuple(group), draw(st.integers(1, 5))) for group in groups]


items = st.lists(
    st.tuples(st.sampled_from(["ann", "bob", "admin", "Ann", 7]), st.integers(0, 6), screens()), max_size=25
)


@settings(max_examples=300, deadline=None)
@given(items, st.one_of(st.none(), st.sets(st.sampled_from(SYSTEMS + ("unseen",)))))
def test_from_items_gives_the_arrays_it_gave_before(items, system_names):
    assert_like_reference(items, system_names)


bad_candidates = st.tuples(
    st.lists(st.sampled_from(["A", "B", "C"]), max_size=3).map(tuple),
    st.one_of(st.integers(-1, 3), st.just(True), st.just(1.0), st.just(np.int16(2))),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["ann", "bob"]), st.one_of(st.integers(-1, 3), st.just(1.5)),
                          st.lists(bad_candidates, max_size=3)), max_size=6),
       st.one_of(st.none(), st.just(["A", "B"])))
def test_from_items_refuses_what_it_refused_before_with_the_same_message(items, system_names):
    assert_like_reference(items, system_names)


@settings(max_examples=200, deadline=None)
@given(items, st.randoms(use_true_random=False))
def test_from_codes_with_codes_in_any_order_gives_what_from_items_gives(items, random):
    """Judges and system sets coded in a shuffled order, with unused codes, the same judge under two codes and a set
    under two codes with its systems in another order: the same Rankings as from_items."""
    judges = sorted({str(judge) for judge, _, _ in items} | {"nobody"}, key=lambda _: random.random())
    judges.append(judges[0])
    sets = sorted({tuple(sorted(systems)) for _, _, shown in items for systems, _ in shown} | {("unused",)},
                  key=lambda _: random.random())
    sets += [tuple(reversed(systems)) for systems in sets]
    twice = lambda names, name: random.choice([i for i, other in enumerate(names) if other == name])
    code_of_set = lambda systems: random.choice([i for i, other in enumerate(sets) if sorted(other) == systems])
    rankings = Rankings.from_codes(
        judges,
        [twice(judges, str(judge)) for judge, _, _ in items],
        [segment for _, segment, _ in items],
        [r for r, (_, _, shown) in enumerate(items) for _ in shown],
        [rank for _, _, shown in items for _, rank in shown],
        sets,
        [code_of_set(sorted(systems)) for _, _, shown in items for systems, _ in shown],
    )
    assert_same(rankings, reference_from_items(items))


def test_from_codes_of_nothing_is_empty_rankings_of_the_given_systems():
    rankings = Rankings.from_codes([], [], [], [], [], [], [], system_names=["B", "A"])
    assert_same(rankings, reference_from_items([], system_names=["B", "A"]))


@pytest.mark.parametrize("arrays, message", [
    ({"ranking_segment": [0, -2]}, r"ranking #2 \(judge 'bob', segment -2\): segment must be a non-negative"),
    ({"candidate_rank": [1, 2, 0]}, r"ranking #2 \(judge 'bob', segment 4\): rank 0 is not a positive integer"),
    ({"candidate_set": [0, 2, 2]}, r"ranking #2 \(judge 'bob', segment 4\): a system occurs twice on one screen"),
    ({"candidate_set": [0, 1, 3]}, r"ranking #2 \(judge 'bob', segment 4\): a candidate names no system"),
    ({"candidate_set": [0, 1, 4]}, r"ranking #2 \(judge 'bob', segment 4\): a system occurs twice on one screen"),
    ({"system_names": ["A", "B"]}, "systems not in system_names: C"),
    ({"candidate_ranking": [1, 0, 1]}, "non-decreasing"),
    ({"candidate_ranking": [0, 1, 2]}, "non-decreasing"),
    ({"candidate_rank": [1, 2]}, "not of one length"),
    ({"ranking_judge": [0, 2]}, "judge code"),
    ({"candidate_set": [0, 1, 5]}, "candidate code"),
])
def test_from_codes_refuses_what_does_not_fit(arrays, message):
    given = {
        "judges": ["ann", "bob"], "ranking_judge": [0, 1], "ranking_segment": [3, 4],
        "candidate_ranking": [0, 1, 1], "candidate_rank": [1, 2, 1],
        "system_sets": [("A",), ("B", "C"), ("C",), (), ("A", "A")], "candidate_set": [0, 1, 0],
        **arrays,
    }
    with pytest.raises(ValueError, match=message):
        Rankings.from_codes(**given)
