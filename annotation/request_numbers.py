"""Whole numbers as a user or a client writes them: a form's field, an option of a command, a query parameter, a
posted id, an admin filter's value.

``int`` takes far more than digits: ``"٣"`` and ``"３"`` (any Unicode decimal digit), ``"1_0"`` (Python's grouping,
10), ``"+3"`` and spaces around; and it refuses more than 4,300 digits with a ValueError, which was a 500 where a
page read a number so. Here a whole number is ASCII digits 0-9, with a leading minus where a negative one may be
given, within the range of PostgreSQL's bigint (the widest whole-number column).
"""
from __future__ import annotations

import re

from .services.textfiles import NumberError

#: The digits of an id (a bigint has at most 19; 18 keep every value below its limit).
ID_DIGITS = 18
#: The smallest and the largest whole number taken (PostgreSQL's bigint).
WHOLE_NUMBER_RANGE = (-(2**63), 2**63 - 1)

_DIGITS = re.compile(r"[0-9]+")
_SIGNED = re.compile(r"-?[0-9]+")


def plain_whole_number(text: str, negative: bool = False) -> int:
    """The value of ``text`` when it is ASCII digits (after a minus when ``negative``) within ``WHOLE_NUMBER_RANGE``;
    NumberError otherwise, its message to follow the text (``"is not a whole number from 0 ..."``)."""
    if not (_SIGNED if negative else _DIGITS).fullmatch(text):
        kind = "a whole number (ASCII digits 0-9, such as 42 or -1)" if negative else (
            "a whole number from 0 (ASCII digits 0-9, such as 42)")
        raise NumberError(f"is not {kind}")
    low, high = WHOLE_NUMBER_RANGE
    value = int(text) if len(text.lstrip("-").lstrip("0")) <= len(str(high)) else None
    if value is None or not low <= value <= high:
        limits = f"from {low:,} to {high:,}" if negative else f"at most {high:,}"
        raise NumberError(f"is out of range (a whole number is {limits})")
    return value


def whole_number(text: str, digits: int = ID_DIGITS) -> int | None:
    """``text`` as a whole number when it is 1 to ``digits`` ASCII digits (``plain_whole_number``); None otherwise."""
    if len(text) > digits:
        return None
    try:
        return plain_whole_number(text)
    except NumberError:
        return None
