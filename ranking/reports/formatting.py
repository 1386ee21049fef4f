"""How numbers and ranges are printed in the reports, following G15's tables."""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from string import ascii_lowercase


def is_missing(value: float | None) -> bool:
    """True for a value the analysis could not compute: None (as stored in JSON) or NaN."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def fixed(value: float | None, places: int = 3) -> str:
    """``value`` with ``places`` decimals (``0.628``, ``-0.001``), ``""`` when missing (G15 Tables 3b, 3c, 5, 7)."""
    if is_missing(value):
        return ""
    text = f"{value:.{places}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def grouped(count: int | None) -> str:
    """A count as the HTML report (and the product's pages) write it, thousands grouped by commas (``2,319``);
    ``""`` when missing. The LaTeX report prints its counts plain, as G15's tables do (``2319``)."""
    return "" if count is None else f"{count:,}"


def short(value: float | None, places: int = 2) -> str:
    """``value`` with ``places`` decimals and no leading zero (``.42``, ``-.05``), as G15 Tables 2, 3d and 6 print
    shares, kappas and correlations; ``""`` when missing."""
    text = fixed(value, places)
    if text.startswith("0."):
        return text[1:]
    if text.startswith("-0."):
        return "-" + text[2:]
    return text


def percent(fraction: float | None, places: int = 2) -> str:
    """A fraction in [0, 1] as a percentage without the sign (``58.18``), as G15 Table 4 prints accuracies."""
    return "" if is_missing(fraction) else f"{100 * fraction:.{places}f}"


def rank_range(lo: int, hi: int, dash: str = "-") -> str:
    """A rank range as G15 prints it: ``"1"`` when both ends agree, else ``"2-4"`` (with ``dash`` between)."""
    return str(lo) if lo == hi else f"{lo}{dash}{hi}"


def beta(value: float) -> str:
    """An F-beta's beta as G15 Table 5 prints it: at least one decimal, at most two (``1.0``, ``0.5``, ``0.18``)."""
    text = f"{value:.2f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


UNDEFINED = "–"
"""How every report shows a number the analysis left undefined (with its reason as a note or a column)."""


@dataclass
class NoteLetters:
    """The reasons of one table's undefined numbers, each with a letter (a, b, ... in order of first use): a cell
    shows the undefined mark with its reason's letter, the table's note each letter's reason (the HTML and LaTeX
    reports)."""

    reasons: dict[str, str] = field(default_factory=dict)

    def letter(self, reason: str) -> str:
        """The letter of ``reason`` (the next letter when it is new)."""
        return self.reasons.setdefault(reason, ascii_lowercase[len(self.reasons) % 26])


def reason_for(holder: Mapping, field: str) -> str:
    """The reason ``holder[field]`` is undefined (``ranking.contract``'s rule): the holder's ``reason``, or that
    reason's ``field: ...`` part when the holder's fields are undefined for different reasons."""
    reason = str(holder.get("reason") or "undefined")
    parts = dict(part.split(": ", 1) for part in reason.split("; ") if ": " in part)
    return parts.get(field, reason)


def matrix_reason(holder: Mapping, row: str, column: str) -> str:
    """The reason the cell (row, column) of a bare matrix in ``holder`` is undefined (its sibling ``reasons``)."""
    return str((holder.get("reasons") or {}).get(row, {}).get(column, "undefined"))
