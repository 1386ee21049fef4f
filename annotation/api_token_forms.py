"""Forms of the API tokens page: they only parse and check the POST; ``services.api_tokens`` does the rest."""
from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from .models import ApiToken
from .validators import is_one_line

NAME_MAX = ApiToken._meta.get_field("name").max_length


class NewTokenForm(forms.Form):
    """A new token's name: optional, one line of at most ``NAME_MAX`` printable characters."""

    name = forms.CharField(
        label="Name", required=False, max_length=NAME_MAX, strip=True,
        help_text="What the token is for, e.g. the script that uses it (optional).",
        error_messages={"max_length": f"A token's name has at most {NAME_MAX} characters."},
    )

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        if not is_one_line(name):
            raise ValidationError("A token's name is one line of text, without tabs or control characters.")
        return name


class RevokeTokenForm(forms.Form):
    """Which token to revoke, by its digest (the page's hidden field; it lets no one authenticate)."""

    token = forms.RegexField(regex=r"^[0-9a-f]{128}$", error_messages={
        "required": "No token was named.", "invalid": "No token was named."})
