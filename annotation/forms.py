"""Judge forms: ranking a screen, flagging it, undoing the last submit.

Forms only parse and check the request; the queue service decides what is stored.
"""
from __future__ import annotations

from datetime import timedelta

from django import forms

from .services.queue import FLAG_REASON_MAX

#: The longest active time a client may report for one screen (longer values are rejected as malformed).
ACTIVE_MS_MAX = 24 * 3600 * 1000


class RankingForm(forms.Form):
    """Ranks 1 (best) .. ``max_rank`` (worst) for ``count`` candidates, fields ``rank_0`` .. by display position.

    ``active_ms`` is the client's focused, non-idle time in milliseconds (optional: without JavaScript it is
    absent).
    """

    active_ms = forms.IntegerField(required=False, min_value=0, max_value=ACTIVE_MS_MAX, widget=forms.HiddenInput)

    def __init__(self, *args, count: int, max_rank: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.count = count
        choices = [(rank, str(rank)) for rank in range(1, max_rank + 1)]
        for position in range(count):
            self.fields[f"rank_{position}"] = forms.TypedChoiceField(
                choices=choices,
                coerce=int,
                widget=forms.RadioSelect,
                label=f"Rank of correction {position + 1}",
                error_messages={"required": f"Correction {position + 1} has no rank yet."},
            )

    def ranks(self) -> list[int]:
        """The ranks by display position (after ``is_valid``)."""
        return [self.cleaned_data[f"rank_{position}"] for position in range(self.count)]

    def chosen(self) -> dict[int, str]:
        """The rank chosen so far for each position, as submitted (to show a re-rendered form as it was)."""
        return {position: self.data.get(f"rank_{position}", "") for position in range(self.count)}

    def active_time(self) -> timedelta | None:
        """The reported active time (after ``is_valid``)."""
        value = self.cleaned_data.get("active_ms")
        return None if value is None else timedelta(milliseconds=value)


class FlagForm(forms.Form):
    """Why the judge flags a screen instead of ranking it (stored as ``Flag.reason``: label, then details)."""

    REASONS = [
        ("garbled", "Garbled source sentence"),
        ("unreadable", "Unreadable corrections"),
        ("context", "Needs more context to judge"),
        ("other", "Other"),
    ]

    reason = forms.ChoiceField(choices=REASONS, widget=forms.RadioSelect, label="Reason")
    details = forms.CharField(
        required=False, max_length=300, label="Details (optional)", widget=forms.Textarea(attrs={"rows": 2})
    )
    active_ms = forms.IntegerField(required=False, min_value=0, max_value=ACTIVE_MS_MAX, widget=forms.HiddenInput)

    def clean(self):
        data = super().clean()
        if data.get("reason") == "other" and not data.get("details", "").strip():
            self.add_error("details", "Describe the problem when you choose Other.")
        return data

    def reason_text(self) -> str:
        """The reason as stored: the chosen reason's label, then the details, if any."""
        label = dict(self.REASONS)[self.cleaned_data["reason"]]
        details = self.cleaned_data.get("details", "").strip()
        text = f"{label}: {details}" if details else label
        return text[:FLAG_REASON_MAX]

    def active_time(self) -> timedelta | None:
        """The reported active time (after ``is_valid``)."""
        value = self.cleaned_data.get("active_ms")
        return None if value is None else timedelta(milliseconds=value)


class UndoForm(forms.Form):
    """The token of the screen to undo (the judge's last submitted one)."""

    token = forms.UUIDField(widget=forms.HiddenInput)
