"""One naming rule for candidates (METHODS 1): the analysis (``ranking.core.rankings.candidate_name``) and the
product's exports and imports (``annotation.services.collapsing.candidate_name``) each define it, the analysis
without Django; these tests hold the two to the same names so that pair keys and exported names cannot drift."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.services.collapsing import candidate_name as product_name
from ranking.core.rankings import candidate_name as analysis_name

CONLL14_GROUP = ("IPN", "IITB", "INPUT")


@pytest.mark.parametrize("systems", [
    ("AMU",),  # one system
    ("INPUT",),
    ("AMU", "CAMB"),  # a collapsed pair
    CONLL14_GROUP,  # a collapsed group, as G15 Table 3 names it
    ("UFC", "SJTU", "PKU", "NARA", "IITB", "INPUT", "IPN"),
    ("b", "A", "a", "B"),  # case sorts by code point, upper case first
    ("sys-2", "sys-10", "sys_1", "sys.3"),  # punctuation and digits sort as characters, not numbers
    ("Ünïcode", "Zeta", "alpha"),
])
def test_both_name_a_candidate_alike_in_every_order(systems):
    names = {(analysis_name(order), product_name(order)) for order in itertools.permutations(systems)}
    assert len(names) == 1, f"the name depends on the order of {systems}: {names}"
    [(analysis, product)] = names
    assert analysis == product == " ".join(sorted(systems))


def test_the_conll14_group_is_named_as_in_g15():
    assert analysis_name(CONLL14_GROUP) == product_name(CONLL14_GROUP) == "IITB INPUT IPN"


@pytest.mark.parametrize("systems", [["CAMB", "AMU"], ("CAMB", "AMU")])
def test_both_accept_lists_and_tuples(systems):
    assert analysis_name(systems) == product_name(systems) == "AMU CAMB"


@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8), min_size=1,
                max_size=8, unique=True))
def test_both_give_the_same_name_for_any_system_names(systems):
    assert analysis_name(systems) == product_name(systems) == analysis_name(reversed(systems))
