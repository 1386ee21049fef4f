"""The rule the CoNLL-14 reproductions hold rank ranges to (``published_ranges``): it must refuse what it should."""
from __future__ import annotations

import pytest

from .published_ranges import HIGHEST, LOWEST, assert_ranges_match_published

SYSTEMS = ("A", "B", "C")
PUBLISHED = ((1, 1), (2, 3), (2, 3))
TAIL = {("B", LOWEST), ("C", HIGHEST)}


@pytest.mark.parametrize("got", [
    PUBLISHED,
    ((1, 1), (3, 3), (2, 3)),  # B's lowest rank on its tail, one off
    ((1, 1), (1, 3), (2, 2)),  # both ends on a tail one off at once
])
def test_accepts_the_published_ranges_and_ends_on_a_tail_one_off(got):
    assert_ranges_match_published(SYSTEMS, got, PUBLISHED, TAIL)


@pytest.mark.parametrize("got, wrong", [
    (((1, 2), (2, 3), (2, 3)), "A (1, 2)"),  # an end not on a tail
    (((1, 1), (2, 4), (2, 3)), "B (2, 4)"),  # B's other end
    (((1, 1), (4, 3), (2, 3)), "B (4, 3)"),  # an end on a tail, two off
    (((1, 1), (2, 3), (3, 4)), "C (3, 4)"),  # C's highest may move, its lowest not
])
def test_refuses_any_other_end_off_and_a_tail_end_more_than_one_off(got, wrong):
    with pytest.raises(AssertionError, match=wrong.replace("(", r"\(").replace(")", r"\)")):
        assert_ranges_match_published(SYSTEMS, got, PUBLISHED, TAIL)


def test_refuses_tail_ends_of_systems_not_in_the_table():
    with pytest.raises(AssertionError, match="not in the table"):
        assert_ranges_match_published(SYSTEMS, PUBLISHED, PUBLISHED, {("Z", LOWEST)})
