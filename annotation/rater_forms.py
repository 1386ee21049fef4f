"""The organizer's decision on one rater in rater quality control (``services.rater_qc``)."""
from __future__ import annotations

from django import forms

from .models import RaterStatus
from .services.rater_qc import FRESH_ATTEMPT


class RaterDecisionForm(forms.Form):
    """``judge`` (a username) and what to do: follow the checks, include or exclude by hand, or a fresh attempt."""

    judge = forms.CharField(max_length=150)
    action = forms.ChoiceField(choices=[*RaterStatus.Decision.choices, (FRESH_ATTEMPT, "Offer a fresh attempt")])
