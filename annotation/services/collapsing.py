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

#: Up to this many token comparisons (source tokens x candidate tokens) a diff is ``SequenceMatcher``'s longest
#: matching blocks over the whole sentence, every token counted. Its time grows with the cube of the length on
#: repetitive text (two 2,000-token lines of "- x - x ..." against "- - - ..." took a minute, a web worker held
#: that long per correction): this bound keeps the worst case near 50 ms and holds every sentence of CoNLL-14 and
#: GMEG (at most 227 tokens, with edits nearer than that).
EXACT_DIFF_CELLS = 40_000

#: Past ``EXACT_DIFF_CELLS`` the tokens the two sentences share at their start and end are set aside, and the rest
#: is diffed with ``SequenceMatcher``'s ``autojunk`` (tokens making up over 1% of the candidate only extend a match,
#: which bounds its time on repetitive text) if neither side's rest has more tokens than this; otherwise that rest
#: is one span, changed as a whole (``benchmarks/highlighting.py``).
MAX_DIFF_TOKENS = 4_000


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
    for op, i1, i2, j1, j2 in token_opcodes(src, cand):
        if op == "delete":
            spans.append(("delete", " ".join(src[i1:i2])))
        else:
            if op == "replace" and show_replaced:
                spans.append(("replaced", " ".join(src[i1:i2])))
            spans.append((op, " ".join(cand[j1:j2])))
    return spans


def token_opcodes(src: Sequence[str], cand: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """``SequenceMatcher.get_opcodes`` of the token lists, with its time bounded on long sentences
    (``EXACT_DIFF_CELLS``, ``MAX_DIFF_TOKENS``); consecutive opcodes of one operation are merged."""
    if len(src) * len(cand) <= EXACT_DIFF_CELLS:
        return SequenceMatcher(a=src, b=cand, autojunk=False).get_opcodes()
    start = 0
    while start < min(len(src), len(cand)) and src[start] == cand[start]:
        start += 1
    end = 0
    while end < min(len(src), len(cand)) - start and src[-1 - end] == cand[-1 - end]:
        end += 1
    src_end, cand_end = len(src) - end, len(cand) - end
    if max(src_end, cand_end) - start > MAX_DIFF_TOKENS:
        op = "insert" if src_end == start else "delete" if cand_end == start else "replace"
        middle = [(op, start, src_end, start, cand_end)]
    else:
        matcher = SequenceMatcher(a=src[start:src_end], b=cand[start:cand_end], autojunk=True)
        middle = [(op, i1 + start, i2 + start, j1 + start, j2 + start) for op, i1, i2, j1, j2 in matcher.get_opcodes()]
    edges = [("equal", 0, start, 0, start), *middle, ("equal", src_end, len(src), cand_end, len(cand))]
    merged: list[tuple[str, int, int, int, int]] = []
    for op, i1, i2, j1, j2 in edges:
        if i1 == i2 and j1 == j2:
            continue
        if merged and merged[-1][0] == op:
            merged[-1] = (op, merged[-1][1], i2, merged[-1][3], j2)
        else:
            merged.append((op, i1, i2, j1, j2))
    return merged
