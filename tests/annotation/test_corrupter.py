"""The rule-based corrupter for Source+error control outputs (METHODS 11)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.services.corrupter import AGREEMENT_SWAPS, ARTICLE_SWAPS, corrupt, misspell

WORDS = ["the", "a", "an", "The", "is", "are", "Has", "of", "in", "cat", "sat", "mat", "I", "x", ",", ".", "??", "42"]
token_lists = st.lists(st.sampled_from(WORDS) | st.text(alphabet="abcXYZ.,'-", min_size=1, max_size=8), min_size=1)


def kept_tokens(source: list[str], output: list[str]) -> int:
    """Length of the longest common subsequence of two token lists: the source tokens left untouched."""
    previous = [0] * (len(output) + 1)
    for token in source:
        current = [0]
        for j, other in enumerate(output):
            current.append(previous[j] + 1 if token == other else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


@settings(max_examples=400, deadline=None)
@given(token_lists, st.integers(min_value=0, max_value=2**32), st.sampled_from([None, 1, 2, 3]))
def test_output_differs_in_at_most_n_errors_tokens(tokens, seed, n_errors):
    source = " ".join(tokens)
    output = corrupt(source, np.random.default_rng(seed), n_errors)
    changed = len(tokens) - kept_tokens(tokens, output.split())
    assert output.split() != tokens
    assert output.split()  # never emptied
    assert 1 <= changed <= (n_errors or 2)
    assert len(tokens) - (n_errors or 2) <= len(output.split()) <= len(tokens)


@settings(max_examples=200, deadline=None)
@given(token_lists, st.integers(min_value=0, max_value=2**32))
def test_same_seed_same_output(tokens, seed):
    source = " ".join(tokens)
    assert corrupt(source, np.random.default_rng(seed)) == corrupt(source, np.random.default_rng(seed))


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=12), st.integers(0, 2**32))
def test_misspelling_always_changes_a_token(token, seed):
    assert misspell(token, np.random.default_rng(seed)) != token


def test_two_errors_touch_two_tokens():
    source = "The cats is on the mat because they has a home ."
    for seed in range(50):
        output = corrupt(source, np.random.default_rng(seed), 2).split()
        assert len(source.split()) - kept_tokens(source.split(), output) == 2


def test_rules_produce_the_listed_errors():
    """Over many seeds each kind appears: article dropped or swapped, agreement broken, preposition dropped."""
    source = "The dog is in the garden ."
    outputs = {corrupt(source, np.random.default_rng(seed), 1) for seed in range(300)}
    assert "dog is in the garden ." in outputs  # article dropped
    assert "A dog is in the garden ." in outputs  # article swapped, case kept
    assert "The dog are in the garden ." in outputs  # agreement broken
    assert "The dog is the garden ." in outputs  # preposition dropped
    swapped_forms = set(ARTICLE_SWAPS) | set(AGREEMENT_SWAPS)
    misspelled = [
        new
        for output in outputs
        if len(output.split()) == 7
        for old, new in zip(source.split(), output.split())
        if old != new and new.lower() not in swapped_forms
    ]
    assert misspelled and all(new not in source.split() for new in misspelled)


def test_seeds_give_varied_outputs():
    source = "People get certain disease because of genetic changes ."
    outputs = {corrupt(source, np.random.default_rng(seed)) for seed in range(40)}
    assert len(outputs) > 20


def test_punctuation_only_sentence_is_still_changed():
    assert corrupt(". ,", np.random.default_rng(0), 1) in {".. ,", ". ,,"}


@pytest.mark.parametrize(
    ("sentence", "n_errors", "message"), [("", 1, "empty"), ("   ", None, "empty"), ("a b", 0, ">= 1")]
)
def test_bad_input_is_rejected(sentence, n_errors, message):
    with pytest.raises(ValueError, match=message):
        corrupt(sentence, np.random.default_rng(0), n_errors)


def test_conll14_sources_all_get_one_or_two_errors(conll14_dir: Path):
    sources = (conll14_dir / "outputs" / "INPUT").read_text(encoding="utf-8").split("\n")[:-1]
    rng = np.random.default_rng(2015)
    for source in sources:
        tokens = source.split()
        output = corrupt(source, rng).split()
        assert 1 <= len(tokens) - kept_tokens(tokens, output) <= 2, source
