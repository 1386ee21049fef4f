"""Automatic metric scores per system, in the text form of G15's release (``metrics/scores.<metric>``).

One line per system: ``SYSTEM value [value ...]``, separated by whitespace. ``scores.m2`` and ``scores.m2.<k>`` hold
F0.5, precision and recall; ``scores.bleu``, ``scores.meteor``, ``scores.iwacc`` one value.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

M2_COLUMNS = ("f0.5", "precision", "recall")
"""Column order of the M2 score files."""


def parse_metric_scores(text: str) -> dict[str, tuple[float, ...]]:
    """``{system: values}`` from ``SYSTEM value...`` lines; blank lines are skipped.

    Raises ``ValueError`` naming the line when a value is not a finite number, a line has no value, lines have
    different numbers of values, or a system occurs twice.
    """
    scores: dict[str, tuple[float, ...]] = {}
    width = None
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        system, values = fields[0], fields[1:]
        if not values:
            raise ValueError(f"line {number}: system {system!r} has no value")
        try:
            parsed = tuple(float(value) for value in values)
        except ValueError:
            raise ValueError(f"line {number}: {line.strip()!r} holds a value that is not a number") from None
        if not all(np.isfinite(parsed)):
            raise ValueError(f"line {number}: values must be finite")
        if width is not None and len(parsed) != width:
            raise ValueError(f"line {number}: {len(parsed)} values where earlier lines have {width}")
        if system in scores:
            raise ValueError(f"line {number}: system {system!r} occurs twice")
        width = len(parsed)
        scores[system] = parsed
    if not scores:
        raise ValueError("no metric scores found")
    return scores


def score_column(scores: dict[str, tuple[float, ...]], systems: Sequence[str], column: int = 0) -> np.ndarray:
    """The values of one column for ``systems`` in that order; raises ``ValueError`` naming missing systems."""
    missing = [system for system in systems if system not in scores]
    if missing:
        raise ValueError(f"no metric score for: {', '.join(missing)}")
    return np.array([scores[system][column] for system in systems], dtype=np.float64)
