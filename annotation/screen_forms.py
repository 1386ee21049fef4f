"""Organizer forms about one screen: leaving it out of every analysis, or putting it back."""
from __future__ import annotations

from django import forms


class ScreenExclusionForm(forms.Form):
    """``exclude`` leaves the screen (all its judgments) out of analyses; ``include`` puts it back."""

    action = forms.ChoiceField(choices=[("exclude", "Exclude from analysis"), ("include", "Put back into analysis")])

    def excluded(self) -> bool:
        """Whether the screen is to be excluded (after ``is_valid``)."""
        return self.cleaned_data["action"] == "exclude"
