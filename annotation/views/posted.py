"""The organizer pages' posted forms: valid, or refused with a message that says what was not done."""
from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest

from ..judging_forms import error_text


def valid_post(request: HttpRequest, form_class: type[forms.Form], refusal: str) -> forms.Form | None:
    """``form_class`` bound to the POST if it is valid; otherwise None, with ``refusal`` as an error message, its
    ``{errors}`` replaced by the form's errors (the view then redirects back: nothing was changed)."""
    form = form_class(request.POST)
    if form.is_valid():
        return form
    messages.error(request, refusal.replace("{errors}", error_text(form)))
    return None
