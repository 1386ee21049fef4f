"""The highlighting of one judge screen (five corrections diffed against their source, ``collapsing.diff_spans``)
against the diff it replaced, ``SequenceMatcher(autojunk=False)`` over the whole sentence, measured in the same run.

Three screens: CoNLL-14's longest source sentence with five systems' corrections (the diff is the same as before,
and costs the same), and two hostile ones whose five corrections are repetitive lines ("- x - x ..." against
"- - - ..."), of --tokens tokens (the old diff's time grows with the cube of it) and of 10 times as many, where the
old diff is not run (from its growth, half an hour); and the worst case found for the bounded diff, MAX_DIFF_TOKENS
tokens cycling through 201 words (none frequent enough for autojunk) against strides of them, as slow before.
Usage: python benchmarks/highlighting.py [--tokens 600] [--repeat 3]
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from difflib import SequenceMatcher
from pathlib import Path

from annotation.services.collapsing import MAX_DIFF_TOKENS, diff_spans

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "conll14" / "outputs"


def old_diff(source: str, candidate: str) -> list:
    """The diff before the bound: SequenceMatcher's opcodes over all tokens, no autojunk."""
    return SequenceMatcher(a=source.split(), b=candidate.split(), autojunk=False).get_opcodes()


def screen_seconds(diff: Callable[[str, str], object], source: str, candidates: list[str], repeat: int) -> float:
    """The least time of ``repeat`` runs of diffing every candidate of the screen against its source."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for candidate in candidates:
            diff(source, candidate)
        best = min(best, time.perf_counter() - start)
    return best


def conll14_screen() -> tuple[str, list[str]]:
    """CoNLL-14's longest source sentence and five systems' outputs of it (or a stand-in without the data)."""
    if not DATA.is_dir():
        source = " ".join(f"word{i % 97}" for i in range(227))
        return source, [source.replace("word3 ", "word4 ", k + 1) for k in range(5)]
    lines = {path.name: path.read_text(encoding="utf-8").splitlines() for path in sorted(DATA.iterdir())}
    source_lines = lines.pop("INPUT")
    longest = max(range(len(source_lines)), key=lambda i: len(source_lines[i].split()))
    return source_lines[longest], [outputs[longest] for outputs in list(lines.values())[:5]]


def hostile_screen(tokens: int) -> tuple[str, list[str]]:
    """Five corrections of ``tokens`` tokens, each "- - - ..." with one token changed, of a source "- x - x ..."."""
    source = " ".join("-x"[i % 2] for i in range(tokens))
    return source, [" ".join("y" if i == k else "-" for i in range(tokens)) for k in range(5)]


def stride_screen(tokens: int) -> tuple[str, list[str]]:
    """Five corrections of ``tokens`` tokens cycling through 201 words in strides of 7, 11, ... of a source cycling
    through them in order: many short matches, none of a word frequent enough to be autojunk."""
    words = 201
    source = " ".join(f"t{i % words}" for i in range(tokens))
    return source, [" ".join(f"t{(i * step) % words}" for i in range(tokens)) for step in (7, 11, 13, 17, 19)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=600, help="length of the hostile lines (default 600)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each screen; the least time is shown")
    args = parser.parse_args()
    print(f"{'screen':<38} {'before':>10} {'now':>10} {'ratio':>8}")
    for label, (source, candidates), compare in (
        ("CoNLL-14's longest sentence", conll14_screen(), True),
        (f"hostile, {args.tokens:,} tokens", hostile_screen(args.tokens), True),
        (f"hostile, {10 * args.tokens:,} tokens", hostile_screen(10 * args.tokens), False),
        (f"strides, {MAX_DIFF_TOKENS:,} tokens", stride_screen(MAX_DIFF_TOKENS), True),
    ):
        now = screen_seconds(diff_spans, source, candidates, args.repeat)
        if compare:
            before = screen_seconds(old_diff, source, candidates, 1 if args.tokens > 400 else args.repeat)
            print(f"{label:<38} {before * 1000:>8.1f}ms {now * 1000:>8.1f}ms {before / now:>7.1f}x")
        else:
            print(f"{label:<38} {'not run':>10} {now * 1000:>8.1f}ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
