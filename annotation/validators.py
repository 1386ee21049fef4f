"""Validators of campaign settings, attached to the model's fields: the New campaign form, the REST API (which
validates with that form), the guidelines page and the admin's campaign page all refuse what these refuse."""
from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

#: What a crowd campaign's completion URL holds where the completion code goes.
CODE_PLACEHOLDER = "{code}"


def validate_p_value_above_zero(value: float) -> None:
    """A p-value threshold strictly above 0 (MinValueValidator would include its limit; MaxValueValidator(1) on the
    field gives the upper end)."""
    if value is not None and value <= 0:
        raise ValidationError("The p-value must be above 0.", code="min_value")


def is_one_line(text: str) -> bool:
    """Whether ``text`` is one line of printable text: no line breaks (``\\n``, and U+2028 and U+2029, Unicode's line
    and paragraph separators, categories Zl and Zp), tabs or other control characters (Unicode category C)."""
    return not any(unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp") for char in text)


def validate_one_line(value: str) -> None:
    """The instruction on the judge's screen is one line of printable text (``is_one_line``)."""
    if not is_one_line(value):
        raise ValidationError(
            "The instruction must be one line of text, without line breaks, tabs or control characters.",
            code="one_line",
        )


def validate_completion_url(template: str) -> None:
    """An http(s) URL once ``{code}`` is put in, with no other braces (empty: no URL, the code is only shown)."""
    if not template:
        return
    rest = template.replace(CODE_PLACEHOLDER, "")
    if "{" in rest or "}" in rest:
        raise ValidationError(f"The completion URL may hold {CODE_PLACEHOLDER} and no other braces.", code="braces")
    try:
        URLValidator(schemes=["http", "https"])(template.replace(CODE_PLACEHOLDER, "CODE"))
    except ValidationError:
        raise ValidationError("The completion URL must be an http:// or https:// address.", code="url") from None
