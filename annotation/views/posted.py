"""The organizer pages' posts: what every post on one campaign checks first (``campaign_post``); posted forms,
valid or refused with a message that says what was not done; and the way back to the section of the campaign page
that posted them, where their message is shown."""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from ..judging_forms import error_text
from ..permissions import managed_campaign_or_404


def campaign_post(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """``view`` as a POST on one campaign's organizer page: a visitor not logged in is sent to log in, another
    method gets 405, and ``view`` is called with the campaign ``pk`` in place of ``pk`` if the user manages it (404
    otherwise, as ``managed_campaign_or_404``)."""

    @login_required
    @require_POST
    @wraps(view)
    def on_campaign(request: HttpRequest, pk: int, **kwargs) -> HttpResponse:
        return view(request, managed_campaign_or_404(request, pk), **kwargs)

    return on_campaign


def valid_post(request: HttpRequest, form_class: type[forms.Form], refusal: str) -> forms.Form | None:
    """``form_class`` bound to the POST if it is valid; otherwise None, with ``refusal`` as an error message, its
    ``{errors}`` replaced by the form's errors (the view then redirects back: nothing was changed)."""
    form = form_class(request.POST)
    if form.is_valid():
        return form
    messages.error(request, refusal.replace("{errors}", error_text(form)))
    return None


#: The campaign page's sections that post forms, by their element id. A redirect to one of them names it in the
#: query (``?at=invites``) as well as in the fragment: the page then shows the messages inside that section, where
#: the browser scrolls to, instead of at the top of a long page (the fragment alone never reaches the server).
CAMPAIGN_SECTIONS = frozenset({"screens", "appraise", "references", "invites", "guidelines", "training", "attention"})


def to_section(campaign_pk: int, section: str) -> HttpResponse:
    """Redirect to ``section`` of the campaign page, with its messages shown there."""
    if section not in CAMPAIGN_SECTIONS:
        raise ValueError(f"no such section of the campaign page: {section}")
    return redirect(f"{reverse('campaign-detail', args=[campaign_pk])}?at={section}#{section}")


def messages_section(request: HttpRequest) -> str | None:
    """The campaign page's section that shows the messages (``?at=``), or None: at the top of the page."""
    section = request.GET.get("at")
    return section if section in CAMPAIGN_SECTIONS else None
