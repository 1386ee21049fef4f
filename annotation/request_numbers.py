"""Whole numbers read from a request by hand (a query parameter, a posted id, an admin filter's value).

``int`` takes what ``str.isdigit`` says is a digit only in part (``"²".isdigit()`` is true, ``int("²")`` fails) and
refuses more than 4,300 digits with a ValueError; either was a 500 where a page read a number so. A request's
number is read here: ASCII digits only, no more than its range needs.
"""
from __future__ import annotations

import re

#: The digits of an id (a bigint has at most 19; 18 keep every value below its limit).
ID_DIGITS = 18

_DIGITS = re.compile(r"[0-9]+")


def whole_number(text: str, digits: int = ID_DIGITS) -> int | None:
    """``text`` as a whole number when it is 1 to ``digits`` ASCII digits; None otherwise."""
    if len(text) > digits or not _DIGITS.fullmatch(text):
        return None
    return int(text)
