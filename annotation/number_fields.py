"""The form field of a campaign's decimal settings (repeat rate, control share, the QC thresholds and times).

Django's ``FloatField`` takes whatever ``float`` takes, so a setting of 1e-400 was stored as 0 and one of ``1_0`` as
10. This one takes a number as the imports take one from a file (``textfiles.plain_number``: a plain decimal number
in ASCII that a float holds as written), the spaces around it dropped, and refuses anything else under its field.
"""
from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from .services.textfiles import NumberError, plain_number, shown


class PlainFloatField(forms.FloatField):
    """``forms.FloatField`` reading its text with ``plain_number``: "1e-400" is refused ("too close to 0"), not 0."""

    def to_python(self, value):
        if value in self.empty_values or (isinstance(value, str) and not value.strip()):
            return None
        if isinstance(value, (int, float)):
            return super().to_python(value)
        text = str(value).strip()
        try:
            return plain_number(text)
        except NumberError as error:
            raise ValidationError(f"{shown(text)} {error}.", code="invalid") from None
