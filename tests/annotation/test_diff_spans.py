"""The token diff behind every highlighted correction (``collapsing.diff_spans``): SequenceMatcher's exact diff for
sentences of every real length, and a bounded one for long repetitive lines, which took a minute per correction."""
from __future__ import annotations

from difflib import SequenceMatcher

from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.services.collapsing import EXACT_DIFF_CELLS, MAX_DIFF_TOKENS, diff_spans, token_opcodes

TOKENS = st.lists(st.sampled_from(["a", "b", "c", "the", "-"]), max_size=300)


def rebuilt(src: list[str], cand: list[str], opcodes) -> tuple[list[str], list[str]]:
    """The two token lists as the opcodes cover them, in order, checking each operation's meaning."""
    left, right, i, j = [], [], 0, 0
    for op, i1, i2, j1, j2 in opcodes:
        assert (i1, j1) == (i, j), "opcodes leave a gap or overlap"
        assert op in {"equal", "replace", "insert", "delete"}
        if op == "equal":
            assert src[i1:i2] == cand[j1:j2]
        assert (op == "insert") == (i1 == i2) and (op == "delete") == (j1 == j2)
        left += src[i1:i2]
        right += cand[j1:j2]
        i, j = i2, j2
    return left, right


@settings(max_examples=300, deadline=None)
@given(TOKENS, TOKENS)
def test_the_opcodes_cover_both_sentences_and_are_the_exact_diff_where_small(src, cand):
    opcodes = token_opcodes(src, cand)
    assert rebuilt(src, cand, opcodes) == (src, cand)
    if len(src) * len(cand) <= EXACT_DIFF_CELLS:
        assert opcodes == SequenceMatcher(a=src, b=cand, autojunk=False).get_opcodes()
    assert all(a[0] != b[0] for a, b in zip(opcodes, opcodes[1:])), "neighbouring opcodes of one operation"


def test_a_long_line_keeps_its_common_start_and_end_and_diffs_the_rest():
    head, tail = [f"w{i}" for i in range(300)], [f"v{i}" for i in range(300)]
    src, cand = head + ["has", "a", "error"] + tail, head + ["has", "an", "error"] + tail
    assert len(src) * len(cand) > EXACT_DIFF_CELLS
    assert token_opcodes(src, cand) == [
        ("equal", 0, 301, 0, 301), ("replace", 301, 302, 301, 302), ("equal", 302, 603, 302, 603)]


def test_a_repetitive_line_too_long_to_diff_is_one_changed_span_between_its_common_ends():
    """Two lines of 2,000 tokens, "- x - x ..." against "- - - ...": a minute of SequenceMatcher before; past
    MAX_DIFF_TOKENS the changed middle is one span."""
    src = ["start"] + ("- x " * 1000).split() + ["end"]
    cand = ["start"] + ("- " * (2 * MAX_DIFF_TOKENS)).split() + ["end"]
    spans = diff_spans(" ".join(src), " ".join(cand), show_replaced=True)
    assert spans == [("equal", "start -"), ("replaced", " ".join(src[2:-1])), ("replace", " ".join(cand[2:-1])),
                     ("equal", "end")]
    assert diff_spans("a " * 5000 + "b", "a " * 5000) == [("equal", " ".join(["a"] * 5000)), ("delete", "b")]
