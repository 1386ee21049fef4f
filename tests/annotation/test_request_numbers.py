"""Whole numbers read from a request by hand (annotation/request_numbers.py)."""
from __future__ import annotations

import pytest

from annotation.request_numbers import ID_DIGITS, plain_whole_number, whole_number
from annotation.services.textfiles import NumberError


@pytest.mark.parametrize(("text", "digits", "number"), [
    ("0", 2, 0), ("42", 2, 42), ("007", 3, 7), ("9" * ID_DIGITS, ID_DIGITS, int("9" * ID_DIGITS)),
    ("100", 2, None), ("", 2, None), ("²", 2, None), ("٣", 2, None), ("-1", 2, None), ("+1", 2, None),
    (" 1", 2, None), ("1\n", 2, None), ("1e3", 4, None), ("9" * 5000, ID_DIGITS, None),
])
def test_only_ascii_digits_up_to_the_length_given_are_a_number(text, digits, number):
    assert whole_number(text, digits) == number


@pytest.mark.parametrize(("text", "negative", "number"), [
    ("0", False, 0), ("42", False, 42), ("007", False, 7), (str(2**63 - 1), False, 2**63 - 1), ("-1", True, -1),
    ("-0", True, 0), (str(-(2**63)), True, -(2**63)), ("0" * 30 + "5", False, 5),
])
def test_a_plain_whole_number_is_its_value(text, negative, number):
    assert plain_whole_number(text, negative) == number


@pytest.mark.parametrize(("text", "negative", "reason"), [
    *[(text, False, "is not a whole number from 0 (ASCII digits 0-9, such as 42)")
      for text in ["", "٣", "３", "²", "1_0", "+3", "3.0", "0x3", "3e0", " 3", "3\n", "-1", "-0"]],
    *[(text, True, "is not a whole number (ASCII digits 0-9, such as 42 or -1)") for text in ["+3", "--3", "- 3", "-"]],
    *[(text, False, "is out of range (a whole number is at most 9,223,372,036,854,775,807)")
      for text in [str(2**63), "99999999999999999999", "9" * 5000]],
    *[(text, True, "is out of range (a whole number is from -9,223,372,036,854,775,808 to 9,223,372,036,854,775,807)")
      for text in [str(-(2**63) - 1), "-" + "9" * 5000]],
])
def test_anything_else_is_refused_with_the_reason(text, negative, reason):
    with pytest.raises(NumberError) as refused:
        plain_whole_number(text, negative)
    assert str(refused.value) == reason
