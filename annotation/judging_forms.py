"""Organizer forms for judging a campaign: inviting a judge, guidelines, training screens, attention checks.

Forms only parse and check the request; the services (invites, guidelines, training, attention) decide what is
stored.
"""
from __future__ import annotations

from collections.abc import Sequence

from django import forms
from django.core.exceptions import ValidationError

from .campaign_forms import checked_instruction, instruction_field
from .models import MARKDOWN_MAX, Candidate, markdown_too_long
from .number_fields import PlainIntegerField
from .services.invites import INVITE_VALIDITY
from .services.training import ONE_IS_NOT_RANKED

NUMBER_ERRORS = ("required", "invalid", "min_value", "max_value")
DAYS_ERROR = "The link's validity is a whole number of days (1 to 365)."
PERCENT_ERROR = "The share of screens is a whole percentage from 1 to 100."


def error_text(form: forms.Form) -> str:
    """Every error of a bound, invalid form as one sentence list (for a message after a redirect)."""
    return " ".join(str(error) for errors in form.errors.values() for error in errors)


def whole_number_field(label: str, error: str, missing: str | None = None, **bounds) -> PlainIntegerField:
    """A whole number (plain ASCII digits, ``PlainIntegerField``) within ``bounds`` (``min_value``, ``max_value``,
    with its ``initial``); any refusal says ``error``, but that of an empty field says ``missing`` where given."""
    error_messages = dict.fromkeys(NUMBER_ERRORS, error)
    if missing is not None:
        error_messages["required"] = missing
    return PlainIntegerField(label=label, error_messages=error_messages, **bounds)


def markdown_field(label: str, what: str, rows: int) -> forms.CharField:
    """Optional Markdown of at most ``MARKDOWN_MAX`` characters in a box of ``rows`` lines; ``what`` names it in the
    refusal of a longer text."""
    return forms.CharField(
        required=False,
        max_length=MARKDOWN_MAX,
        label=label,
        widget=forms.Textarea(attrs={"rows": rows}),
        error_messages={"max_length": markdown_too_long(what)},
    )


class InviteForm(forms.Form):
    """A judge to invite by username (created when new), and how long the link works."""

    username = forms.CharField(
        max_length=150,
        label="Judge's username",
        error_messages={
            "required": "Give the judge's username.",
            "max_length": "A username has at most 150 characters.",
        },
    )
    valid_days = whole_number_field(
        "Link valid for (days)", DAYS_ERROR, min_value=1, max_value=365, initial=INVITE_VALIDITY.days
    )


class GuidelinesForm(forms.Form):
    """The campaign's guidelines in Markdown (empty: no guidelines, judges start at once) and the one-line
    instruction above the corrections on the judge's screen (empty: the mode's default)."""

    instruction = instruction_field()

    guidelines = markdown_field("Guidelines (Markdown)", "guidelines", rows=7)

    def clean_instruction(self) -> str:
        return checked_instruction(self.cleaned_data.get("instruction"))


class AttentionChecksForm(forms.Form):
    """The percentage of unserved screens without a check that get one."""

    percent = whole_number_field("Share of unserved screens (%)", PERCENT_ERROR, min_value=1, max_value=100, initial=10)

    def share(self) -> float:
        """The percentage as a share in (0, 1] (after ``is_valid``)."""
        return self.cleaned_data["percent"] / 100


class TrainingLineForm(forms.Form):
    """The sentence of a new training screen, by its 0-based line number (Appraise ``src-id``)."""

    line = whole_number_field(
        "Line (0-based)", "A line number is a whole number from 0.", "Give the line number of a sentence.", min_value=0
    )


class TrainingScreenForm(forms.Form):
    """An expected rank (1 best .. ``max_rank`` worst) for each candidate to show, and the feedback.

    Fields ``rank_<candidate id>``; a candidate without a rank is not shown on the training screen.
    """

    feedback = markdown_field("Feedback shown after the judge answers (Markdown)", "feedback", rows=5)

    def __init__(self, *args, candidates: Sequence[Candidate], max_rank: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.candidates = list(candidates)
        words = {1: " (best)", max_rank: " (worst)"}
        choices = [("", "Not shown")] + [(rank, f"{rank}{words.get(rank, '')}") for rank in range(1, max_rank + 1)]
        for number, candidate in enumerate(self.candidates, start=1):
            self.fields[f"rank_{candidate.pk}"] = forms.TypedChoiceField(
                choices=choices,
                coerce=int,
                empty_value=None,
                required=False,
                label=f"Expected rank of correction {number}",
                error_messages={"invalid_choice": f"Correction {number}: choose a rank from 1 to {max_rank}."},
            )

    def clean(self):
        data = super().clean()
        if not self.errors and len(self.chosen()[0]) < 2:
            raise ValidationError(f"Give an expected rank to at least two corrections to show: {ONE_IS_NOT_RANKED}")
        return data

    def chosen(self) -> tuple[list[Candidate], list[int]]:
        """The candidates given a rank, in display order, and their expected ranks."""
        pairs = [
            (candidate, self.cleaned_data.get(f"rank_{candidate.pk}")) for candidate in self.candidates
        ]
        shown = [(candidate, rank) for candidate, rank in pairs if rank is not None]
        return [candidate for candidate, _ in shown], [rank for _, rank in shown]
