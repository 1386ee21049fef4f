"""The form fields of numbers a user types: whole numbers (every count, seed, number of days, line or time of a form)
and a campaign's decimal settings (repeat rate, control share, the QC thresholds and times).

Django's ``IntegerField`` and ``FloatField`` take whatever ``int`` and ``float`` take, so a count of ``٣`` was 3, one
of ``1_0`` 10, and a setting of 1e-400 was stored as 0. These take a number as the imports take one from a file
(``request_numbers.plain_whole_number``, ``textfiles.plain_number``: plain ASCII, held as written), the spaces
around it dropped, and refuse anything else under their field.
"""
from __future__ import annotations

import math

from django import forms
from django.core.exceptions import ValidationError

from .request_numbers import plain_whole_number
from .services.textfiles import NumberError, plain_number, shown


class PlainNumber:
    """What the two fields share: empty text (or spaces) is no value; other text, the spaces around it dropped, is
    read by the field's ``parse``, and a ``NumberError`` becomes the field's ``invalid`` message (its own when it
    was given one, else the text and what was wrong with it)."""

    default_error_messages = {"invalid": "%(value)s %(reason)s."}

    def parse(self, text: str) -> int | float:
        raise NotImplementedError

    def to_python(self, value: object) -> int | float | None:
        if value in self.empty_values or (isinstance(value, str) and not value.strip()):
            return None
        text = str(value).strip()
        try:
            return self.parse(text)
        except NumberError as error:
            raise ValidationError(self.error_messages["invalid"], code="invalid",
                                  params={"value": shown(text), "reason": str(error)}) from None


class PlainIntegerField(PlainNumber, forms.IntegerField):
    """``forms.IntegerField`` reading its text with ``plain_whole_number``: ``٣``, ``1_0``, ``+3`` and ``3.0`` are
    refused, and so is a number beyond a bigint (``WHOLE_NUMBER_RANGE``); a minus only where ``min_value`` allows a
    negative number (``'1_0' is not a whole number from 0 (ASCII digits 0-9, such as 42).``)."""

    def parse(self, text: str) -> int:
        return plain_whole_number(text, negative=self.min_value is None or self.min_value < 0)


class PlainFloatField(PlainNumber, forms.FloatField):
    """``forms.FloatField`` reading its text with ``plain_number``: ``1e-400`` is refused ("too close to 0"), not 0,
    and so are ``٣``, ``1_0``, ``inf`` and ``nan``."""

    def parse(self, text: str) -> float:
        number = plain_number(text)
        if not math.isfinite(number):
            raise NumberError("is not a finite number")
        return number
