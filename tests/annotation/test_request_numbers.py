"""Whole numbers read from a request by hand (annotation/request_numbers.py)."""
from __future__ import annotations

import pytest

from annotation.request_numbers import ID_DIGITS, whole_number


@pytest.mark.parametrize(("text", "digits", "number"), [
    ("0", 2, 0), ("42", 2, 42), ("007", 3, 7), ("9" * ID_DIGITS, ID_DIGITS, int("9" * ID_DIGITS)),
    ("100", 2, None), ("", 2, None), ("²", 2, None), ("٣", 2, None), ("-1", 2, None), ("+1", 2, None),
    (" 1", 2, None), ("1\n", 2, None), ("1e3", 4, None), ("9" * 5000, ID_DIGITS, None),
])
def test_only_ascii_digits_up_to_the_length_given_are_a_number(text, digits, number):
    assert whole_number(text, digits) == number
