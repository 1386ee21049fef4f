"""The numbers of a published table, written in a test as text laid out like the paper's table."""
from __future__ import annotations

import re

RANGE = re.compile(r"(\d+)-(\d+)")
INTEGER = re.compile(r"-?\d+")
DECIMAL = re.compile(r"-?\d*\.\d+")


def published_table(text: str) -> list[tuple]:
    """The rows of ``text``, one tuple of cells a line below its header line, which names the columns.

    Cells are separated by white space, and every row has as many as the header. A cell ``lo-hi`` is a rank range
    ``(lo, hi)`` of ints, ``*`` (a star: no number published) is None, a whole number is an int, a decimal (``.42``,
    ``-0.001``) a float; any other cell (a system, a mark) stays a string."""
    header, *lines = text.strip().splitlines()
    columns = header.split()
    rows = []
    for line in lines:
        cells = line.split()
        assert len(cells) == len(columns), f"{len(cells)} cells for the {len(columns)} columns {columns}: {line!r}"
        rows.append(tuple(_cell(cell) for cell in cells))
    return rows


def _cell(text: str) -> tuple[int, int] | int | float | str | None:
    if text == "*":
        return None
    if rank_range := RANGE.fullmatch(text):
        return int(rank_range[1]), int(rank_range[2])
    if INTEGER.fullmatch(text):
        return int(text)
    if DECIMAL.fullmatch(text):
        return float(text)
    return text
