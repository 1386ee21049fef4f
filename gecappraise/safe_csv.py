"""The one writer of every CSV and TSV the product writes: cells a spreadsheet opens as data, never as formulas.

OWASP's rule against CSV (formula) injection: a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return is written with a single quote ``'`` in front, so that Excel, LibreOffice and Google Sheets show it as text
instead of evaluating it (``=HYPERLINK(...)``, ``@SUM(...)``, DDE payloads). Such text reaches the exports from
system file names, usernames, imported raters, document ids, flag reasons and the corrections themselves.

Numbers stay numbers: a cell that is a plain decimal number (``-0.25``, ``+3``, ``-1e-05``, whether a Python number
or text) cannot be a formula, and a quote would turn it into text in a spreadsheet; ``-inf`` and other non-numbers
starting with a trigger are quoted like any text. A trigger alone (the pairwise TSV's tie relation ``=``) has no
formula after it and stays as it is. Everything else is written as Python's ``csv`` writes it (quoted
when it holds the delimiter, a double quote or a line break). A reader that wants the original text back drops the
first character of a cell that starts with ``'`` followed by one of the trigger characters.

This is done here rather than with ``defusedcsv``, which does not treat a leading tab or carriage return.
"""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from typing import IO

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def neutralise(value: object) -> object:
    """``value`` with ``'`` in front when its text starts with a formula trigger, goes on after it and is not a plain
    number."""
    if value is None or isinstance(value, bool):
        return value
    text = str(value)
    if len(text) > 1 and text.startswith(FORMULA_TRIGGERS) and not _NUMBER.fullmatch(text):
        return "'" + text
    return value


class SafeWriter:
    """``csv.writer`` whose rows go through :func:`neutralise` cell by cell and end in ``\\n``.

    A cell holding a carriage return is quoted like one holding a line feed (Python's writer with ``\\n`` line ends
    would leave it bare, and readers would split the row there).
    """

    def __init__(self, out: IO[str], *, delimiter: str = ","):
        self._out = out
        self._line = io.StringIO()
        self._writer = csv.writer(self._line, delimiter=delimiter, lineterminator="\r\n")

    def writerow(self, row: Iterable[object]) -> int:
        self._line.seek(0)
        self._line.truncate()
        self._writer.writerow([neutralise(value) for value in row])
        return self._out.write(self._line.getvalue()[:-2] + "\n")

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        for row in rows:
            self.writerow(row)


class SafeDictWriter(csv.DictWriter):
    """``csv.DictWriter`` (``\\n`` line ends) writing through :class:`SafeWriter`."""

    def __init__(self, out: IO[str], fieldnames: Sequence[str], *, delimiter: str = ",", restval: object = ""):
        super().__init__(out, fieldnames, restval=restval, delimiter=delimiter, lineterminator="\n")
        self.writer = SafeWriter(out, delimiter=delimiter)
