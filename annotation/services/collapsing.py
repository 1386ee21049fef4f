"""Collapsing identical outputs and diffing a candidate against its source (METHODS 1, G15 section 4.2).

Pure functions on strings; no database.
"""
from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

#: Span operations of a rendered candidate. ``insert`` and ``replace`` are the candidate's own new tokens (shown
#: blue), ``delete`` are source tokens the candidate drops (shown pale blue and struck through); ``replaced`` (only
#: with ``show_replaced``) are the source tokens a ``replace`` span stands for, shown struck through before it.
SPAN_OPS = ("equal", "insert", "replace", "delete", "replaced")


def collapse_outputs(outputs: Sequence[str]) -> list[list[int]]:
    """Group system indices by identical output (after stripping trailing whitespace).

    Returns the groups in order of first appearance; each group lists the indices of ``outputs`` that share
    one string. ``sum(len(g) for g in groups) == len(outputs)``.
    """
    groups: dict[str, list[int]] = {}
    for index, text in enumerate(outputs):
        groups.setdefault(text.rstrip(), []).append(index)
    return list(groups.values())


def candidate_name(systems: Sequence[str]) -> str:
    """A candidate's name in exports and pair keys: its system names sorted, joined by one space."""
    return " ".join(sorted(systems))


def diff_spans(source: str, candidate: str, *, show_replaced: bool = False) -> list[tuple[str, str]]:
    """Token-level diff of ``candidate`` against ``source`` as ``(op, text)`` spans in reading order.

    Tokens are whitespace-separated (the data are pre-tokenized). Adjacent tokens with the same operation are
    joined by one space. For a substitution the candidate's tokens are one ``replace`` span; source tokens that
    the candidate drops are a ``delete`` span placed where they stood. With ``show_replaced`` each ``replace`` span
    is preceded by a ``replaced`` span of the source tokens it replaces (issue 9; without it, G15's display).
    Rendering escapes ``text``.
    """
    src, cand = source.split(), candidate.split()
    spans: list[tuple[str, str]] = []
    matcher = SequenceMatcher(a=src, b=cand, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "delete":
            spans.append(("delete", " ".join(src[i1:i2])))
        else:
            if op == "replace" and show_replaced:
                spans.append(("replaced", " ".join(src[i1:i2])))
            spans.append((op, " ".join(cand[j1:j2])))
    return spans
