"""Counts in words: "1 system", "2 systems", "0 systems", "2,319 rankings" (thousands grouped by commas, as the
product writes every count a person reads).

The one place the product's messages, reasons and report notes put a count before a noun (``annotation``,
``ranking`` and ``ranking/core`` alike: no Django here); ``f"{n} systems"`` read "1 systems".
"""
from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, the noun in the plural (``plural``, else ``noun`` + "s") unless ``count`` is 1.

    >>> counted(1, "pairwise judgment"), counted(2319, "system"), counted(2, "hypothesis", "hypotheses")
    ('1 pairwise judgment', '2,319 systems', '2 hypotheses')
    """
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
