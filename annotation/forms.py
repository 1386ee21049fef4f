"""Judge forms: ranking or scoring (PRWS) a screen, flagging it, undoing the last submit, changing one's password.

Forms only parse and check the request; the queue service decides what is stored.
"""
from __future__ import annotations

import math
import re
from datetime import timedelta

from django import forms
from django.contrib.auth import authenticate
from django.contrib.auth.forms import PasswordChangeForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from .number_fields import PlainFloatField, PlainIntegerField
from .services.queue import FLAG_REASON_MAX

#: The longest active time a client may report for one screen (longer values are rejected as malformed).
ACTIVE_MS_MAX = 24 * 3600 * 1000
#: A slider value as the page posts it (digits, optionally a decimal part), shown again on a re-rendered form.
_SLIDER_VALUE = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,6})?")
#: The most candidate keys read from a post (a screen shows at most 10 candidates, Campaign.max_candidates).
KEYS_MAX = 10


def posted_keys(data) -> list[str]:
    """The candidate keys a screen's form posts, in display order: hidden fields ``candidate_0``, ``candidate_1``,
    ... up to the first one missing (at most ``KEYS_MAX``). The queue checks them against the screen."""
    keys = []
    while len(keys) < KEYS_MAX and f"candidate_{len(keys)}" in data:
        keys.append(data[f"candidate_{len(keys)}"])
    return keys


class RankingForm(forms.Form):
    """Ranks 1 (best) .. ``max_rank`` (worst) for ``count`` candidates, fields ``rank_0`` .. by display position.

    ``active_ms`` is the client's focused, non-idle time in milliseconds (optional: without JavaScript it is
    absent).
    """

    active_ms = PlainIntegerField(required=False, min_value=0, max_value=ACTIVE_MS_MAX, widget=forms.HiddenInput)

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
                error_messages={"required": f"Correction {position + 1} has no rank yet.",
                                "invalid_choice": f"Correction {position + 1}: choose a rank from 1 to {max_rank}."},
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


class ScoreForm(forms.Form):
    """PRWS scores (N19 section 4.2, METHODS 11) for ``count`` candidates, by display position: ``score_k`` is the
    slider's value from 0 ("Completely ungrammatical/Garbled") to 100 ("Perfect"), ``moved_k`` says that the judge
    moved that slider (the page sets it; a slider left where it started is refused, so every stored score was
    moved), ``first_k`` the slider's value after its first move (optional; the score is its last value),
    ``meaning_k`` is the "Meaning changed" box. ``active_ms`` as in RankingForm.
    """

    START = 50
    """Where every slider starts (its value before the judge moves it)."""

    active_ms = PlainIntegerField(required=False, min_value=0, max_value=ACTIVE_MS_MAX, widget=forms.HiddenInput)

    def __init__(self, *args, count: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.count = count
        for position in range(count):
            number = position + 1
            self.fields[f"score_{position}"] = PlainFloatField(
                min_value=0, max_value=100, label=f"Score of correction {number}",
                error_messages={"required": f"Correction {number} has no score.",
                                "invalid": f"Correction {number}: the score is not a number from 0 to 100."},
            )
            self.fields[f"moved_{position}"] = forms.BooleanField(
                widget=forms.HiddenInput,
                error_messages={"required": f"Move the slider of correction {number} before you submit."},
            )
            self.fields[f"first_{position}"] = PlainFloatField(
                required=False, min_value=0, max_value=100, widget=forms.HiddenInput,
                error_messages={"invalid": f"The first value of slider {number} is not a number."},
            )
            self.fields[f"meaning_{position}"] = forms.BooleanField(required=False, label="Meaning changed")

    def scores(self) -> list[float]:
        """The scores by display position (after ``is_valid``)."""
        return [self.cleaned_data[f"score_{position}"] for position in range(self.count)]

    def first_values(self) -> list[float | None]:
        """Each slider's value after its first move, by display position (None: the page did not say; after
        ``is_valid``)."""
        return [self.cleaned_data[f"first_{position}"] for position in range(self.count)]

    def meaning_changed(self) -> list[bool]:
        """The "Meaning changed" boxes by display position (after ``is_valid``)."""
        return [self.cleaned_data[f"meaning_{position}"] for position in range(self.count)]

    def entered(self) -> dict[int, tuple[str, bool, bool, str]]:
        """(score, moved, meaning changed, first value) of each position as submitted, to show a re-rendered form as
        it was; an unmoved or unreadable slider shows its start (and no first value)."""
        entered = {}
        for position in range(self.count):
            moved = self.is_bound and self.data.get(f"moved_{position}") == "1"
            try:
                value = float(self.data.get(f"score_{position}", "")) if moved else math.nan
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                value, moved = self.START, False
            shown = f"{min(max(value, 0.0), 100.0):g}"
            first = self.data.get(f"first_{position}", "") if moved else ""
            entered[position] = (shown, moved, self.is_bound and bool(self.data.get(f"meaning_{position}")),
                                 first if _SLIDER_VALUE.fullmatch(first) else "")
        return entered

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
    active_ms = PlainIntegerField(required=False, min_value=0, max_value=ACTIVE_MS_MAX, widget=forms.HiddenInput)

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


class ThrottledPasswordChangeForm(PasswordChangeForm):
    """Django's password change for the request's user, whose old password is checked as a login is
    (``authenticate``): django-axes counts a wrong one as a failed login of the account from the request's address,
    and once that pair is locked out refuses it whatever the password (the page is then its 429). Django's form
    checks it with ``check_password``, which nothing throttles, so a signed-in session could guess the account's
    password without limit."""

    def __init__(self, request: HttpRequest, *args, **kwargs):
        self.request = request
        super().__init__(request.user, *args, **kwargs)

    def clean_old_password(self) -> str:
        old_password = self.cleaned_data["old_password"]
        found = authenticate(self.request, username=self.user.get_username(), password=old_password)
        if found is None or found.pk != self.user.pk:
            raise ValidationError(self.error_messages["password_incorrect"], code="password_incorrect")
        return old_password
