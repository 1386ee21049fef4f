"""A rule-based corrupter: insert 1-2 grammatical errors into a tokenized English sentence (METHODS 11).

Used for quality control: the *Source+error* control system of PRWS campaigns (N19 section 4.3) and attention
checks. Each error rewrites or drops one token at a position no earlier error touched, so the output differs from
the input in at most ``n_errors`` tokens and always differs when the input has a token. The error kinds:

- drop an article, or swap it for another (a / an / the);
- break subject-verb agreement by swapping a verb form (is / are, was / were, has / have, does / do, am -> are);
- drop a preposition;
- misspell a word (transpose two adjacent letters, drop a letter or double one). When no kind applies to an
  untouched token (say only punctuation is left), any untouched token is misspelled: a change is guaranteed.

Tokens are whitespace-separated (the data are pre-tokenized); the output joins them with one space. Every random
choice comes from the passed ``numpy.random.Generator``, so a seed reproduces the output.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

ARTICLE_SWAPS: dict[str, tuple[str, ...]] = {"a": ("an", "the"), "an": ("a", "the"), "the": ("a", "an")}
AGREEMENT_SWAPS: dict[str, str] = {
    "is": "are", "are": "is", "was": "were", "were": "was", "has": "have", "have": "has", "does": "do",
    "do": "does", "am": "are",
}
PREPOSITIONS = frozenset({"about", "at", "by", "for", "from", "in", "into", "of", "on", "to", "with"})


@dataclass(frozen=True)
class _ErrorKind:
    """An error kind: which tokens it applies to and how it rewrites one (``None`` drops the token)."""

    applies: Callable[[str], bool]
    rewrite: Callable[[str, np.random.Generator], str | None]
    drops: bool


def corrupt(sentence: str, rng: np.random.Generator, n_errors: int | None = None) -> str:
    """Return ``sentence`` with ``n_errors`` errors inserted (1 or 2, drawn from ``rng`` when None).

    Each step picks an error kind uniformly among those that apply to an untouched token, then one such token
    uniformly (misspelling any untouched token when no kind applies). A drop never empties the sentence. A
    sentence with fewer tokens than ``n_errors`` takes one error per token.
    Raises ValueError for a sentence without tokens or ``n_errors < 1``.
    """
    tokens: list[str | None] = list(sentence.split())
    if not tokens:
        raise ValueError("cannot corrupt an empty sentence")
    if n_errors is None:
        n_errors = int(rng.integers(1, 3))
    if n_errors < 1:
        raise ValueError(f"n_errors must be >= 1, got {n_errors}")
    touched: set[int] = set()
    for _ in range(n_errors):
        may_drop = sum(token is not None for token in tokens) > 1
        options = [
            (kind, positions)
            for kind in _ERROR_KINDS
            if (may_drop or not kind.drops)
            and (positions := [i for i, t in enumerate(tokens) if i not in touched and kind.applies(t)])
        ]
        if options:
            kind, positions = options[int(rng.integers(len(options)))]
        else:
            kind, positions = _FALLBACK, [i for i in range(len(tokens)) if i not in touched]
        if not positions:
            break
        position = positions[int(rng.integers(len(positions)))]
        tokens[position] = kind.rewrite(tokens[position], rng)
        touched.add(position)
    return " ".join(token for token in tokens if token is not None)


def misspell(token: str, rng: np.random.Generator) -> str:
    """A misspelling of ``token`` that always differs from it.

    For a word with two or more letters: transpose two adjacent different letters, drop a letter (words of three
    or more characters) or double a letter, the operation and place drawn uniformly. Any other token gets one of
    its characters doubled.
    """
    letters = [i for i, char in enumerate(token) if char.isalpha()]
    if len(letters) < 2:
        at = int(rng.integers(len(token)))
        return token[: at + 1] + token[at:]
    swaps = [i for i in letters if i + 1 < len(token) and token[i + 1].isalpha() and token[i] != token[i + 1]]
    operations = ["double"] + (["swap"] if swaps else []) + (["drop"] if len(token) >= 3 else [])
    operation = operations[int(rng.integers(len(operations)))]
    if operation == "swap":
        at = swaps[int(rng.integers(len(swaps)))]
        return token[:at] + token[at + 1] + token[at] + token[at + 2 :]
    at = letters[int(rng.integers(len(letters)))]
    if operation == "drop":
        return token[:at] + token[at + 1 :]
    return token[: at + 1] + token[at:]


def _swap_article(token: str, rng: np.random.Generator) -> str:
    choices = ARTICLE_SWAPS[token.lower()]
    return _same_case(token, choices[int(rng.integers(len(choices)))])


def _break_agreement(token: str, rng: np.random.Generator) -> str:
    return _same_case(token, AGREEMENT_SWAPS[token.lower()])


def _drop(token: str, rng: np.random.Generator) -> None:
    return None


def _same_case(template: str, word: str) -> str:
    """``word`` in the case of ``template``: all caps, capitalized, or as is."""
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[0].isupper():
        return word.capitalize()
    return word


def _is_article(token: str) -> bool:
    return token.lower() in ARTICLE_SWAPS


_ERROR_KINDS = (
    _ErrorKind(applies=_is_article, rewrite=_drop, drops=True),
    _ErrorKind(applies=_is_article, rewrite=_swap_article, drops=False),
    _ErrorKind(applies=lambda token: token.lower() in AGREEMENT_SWAPS, rewrite=_break_agreement, drops=False),
    _ErrorKind(applies=lambda token: token.lower() in PREPOSITIONS, rewrite=_drop, drops=True),
    _ErrorKind(applies=lambda token: sum(char.isalpha() for char in token) >= 2, rewrite=misspell, drops=False),
)
#: Used when no kind applies to an untouched token (e.g. only punctuation is left): misspell any token.
_FALLBACK = _ErrorKind(applies=lambda token: True, rewrite=misspell, drops=False)
