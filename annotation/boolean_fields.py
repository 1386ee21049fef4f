"""The form field of a yes-or-no setting that a client sends as text: the REST API's multipart and form bodies (a
campaign's ``crowd``, ``crowd_code_encodes_qc`` and ``source_is_system``, a scores upload's ``skip_unknown``).

Django's ``BooleanField`` reads its field through ``CheckboxInput``, which takes ``false`` as false and any other
text as true: ``crowd=0``, ``crowd=off`` or ``crowd=no`` made a crowd campaign, with its public study link, and
``skip_unknown=0`` skipped the rows naming no system. Here a value is one of the spellings of ``TRUE_TEXTS`` or
``FALSE_TEXTS`` (those of the API's schema, ``true`` and ``false``, and of DRF's ``BooleanField``, by which the schema
describes these fields: ``1``/``0``, ``on``/``off``, ``yes``/``no``; any letter case, spaces around dropped), and
anything else is refused under its field. A browser's checkbox sends ``on`` when ticked and nothing when not, as
before.
"""
from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from .services.textfiles import shown

TRUE_TEXTS = frozenset({"true", "1", "on", "yes"})
#: The empty text is false, as an unticked box (no value at all) is.
FALSE_TEXTS = frozenset({"false", "0", "off", "no", ""})


def truth_of(value: object) -> bool | None:
    """``value`` (a form's text, or a bool a form was filled with) as a bool; None for text that is neither."""
    if not isinstance(value, str):
        return bool(value)
    text = value.strip().lower()
    return True if text in TRUE_TEXTS else False if text in FALSE_TEXTS else None


class CheckboxInput(forms.CheckboxInput):
    """A checkbox whose value reaches the field as sent (Django's ``CheckboxInput`` turns every text but ``false``
    into True), and that shows as ticked for a true spelling only. It keeps its base's name, which templates read as
    the field's ``widget_type`` (``checkbox``: the New campaign form puts such a box beside its label)."""

    def __init__(self, attrs=None):
        super().__init__(attrs, check_test=lambda value: truth_of(value) is True)

    def value_from_datadict(self, data, files, name):
        return data.get(name, False)


class PlainBooleanField(forms.BooleanField):
    """``forms.BooleanField`` taking only the spellings of ``TRUE_TEXTS`` and ``FALSE_TEXTS``: ``'maybe' is not true or
    false (...)`` under its field for anything else."""

    widget = CheckboxInput
    default_error_messages = {
        "invalid": "%(value)s is not true or false (true or false; also 1 or 0, on or off, yes or no).",
    }

    def to_python(self, value: object) -> bool:
        truth = truth_of(value)
        if truth is None:
            raise ValidationError(self.error_messages["invalid"], code="invalid", params={"value": shown(value)})
        return truth

    def has_changed(self, initial, data) -> bool:
        try:
            return super().has_changed(initial, data)
        except ValidationError:
            return True
