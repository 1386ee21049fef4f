"""The signed-in organizer's API tokens (``/accounts/api-tokens/``): the list, a new token (shown once), revoking
one or all. Only users who may hold tokens (``permissions.may_hold_api_tokens``) make them; they and anyone who
still holds one from when they organized (``may_revoke_api_tokens``) see and revoke theirs; anyone else signed in
gets the site's 403 page. Changes are POSTs (CSRF-checked, as every form of the site), each answered with
a redirect to the list and a message.

A new token is not stored, only its digest, so the page shows it once: the POST keeps it in the session and the
list takes it out when it shows it; a reload of the list no longer has it. The list is never cached (``never_cache``:
``Cache-Control: no-store``), so no browser keeps the page with the token on disk or shows it again from history.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from knox.settings import knox_settings

from ..api_token_forms import NewTokenForm, RevokeTokenForm
from ..judging_forms import error_text
from ..permissions import may_hold_api_tokens, may_revoke_api_tokens
from ..services import api_tokens

#: Session key: the new token and its name, until the list has shown it.
SESSION_NEW_TOKEN = "api-token-new"


def tokens_page(may: Callable[..., bool]) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A view for a signed-in user whom ``may`` (a rule of ``permissions``) lets in: others are sent to log in, or
    refused (403)."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @login_required
        @wraps(view)
        def checked(request: HttpRequest) -> HttpResponse:
            if not may(request.user):
                raise PermissionDenied("API tokens are for organizers and admins, the API's users.")
            return view(request)

        return checked

    return decorator


@tokens_page(may_revoke_api_tokens)
@never_cache
@require_GET
def token_list(request: HttpRequest) -> HttpResponse:
    """The user's unexpired tokens, the form for a new one (for a user who may hold them), and the token just made,
    once."""
    return render(request, "accounts/api_tokens.html", {
        "may_create": may_hold_api_tokens(request.user),
        "tokens": api_tokens.live_tokens(request.user),
        "new_token": request.session.pop(SESSION_NEW_TOKEN, None),
        "form": NewTokenForm(),
        "limit": knox_settings.TOKEN_LIMIT_PER_USER,
        "days": knox_settings.TOKEN_TTL / timedelta(days=1),
        "api_url": request.build_absolute_uri(reverse("api-campaign-list")),
    })


@tokens_page(may_hold_api_tokens)
@require_POST
def token_create(request: HttpRequest) -> HttpResponse:
    """Make a token with the posted name; the list shows it once."""
    form = NewTokenForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"{error_text(form)} No token was made.")
        return redirect("api-tokens")
    try:
        token, key = api_tokens.create_token(request.user, form.cleaned_data["name"])
    except api_tokens.TokenRefused as refusal:
        messages.error(request, f"{refusal} No token was made.")
        return redirect("api-tokens")
    request.session[SESSION_NEW_TOKEN] = {"key": key, "name": token.name}
    messages.success(request, "Made a new API token. Copy it now: it is shown only once.")
    return redirect("api-tokens")


@tokens_page(may_revoke_api_tokens)
@require_POST
def token_revoke(request: HttpRequest) -> HttpResponse:
    """Revoke one of the user's tokens: it no longer authenticates."""
    form = RevokeTokenForm(request.POST)
    token = api_tokens.revoke_token(request.user, form.cleaned_data["token"]) if form.is_valid() else None
    if token is None:
        messages.error(request, "You have no such token (it may have expired or been revoked already).")
    else:
        messages.success(request, f"Revoked the token {token.token_key}…{f' ({token.name})' if token.name else ''}; "
                         "it no longer works.")
    return _after_revoking(request)


@tokens_page(may_revoke_api_tokens)
@require_POST
def token_revoke_all(request: HttpRequest) -> HttpResponse:
    """Revoke every token of the user."""
    count = api_tokens.revoke_all(request.user)
    messages.success(request, f"Revoked all your API tokens ({count}); none of them works any more.")
    return _after_revoking(request)


def _after_revoking(request: HttpRequest) -> HttpResponse:
    """Back to the list, or to the start page for a user the list no longer lets in (a former organizer who has
    just revoked the last token)."""
    return redirect("api-tokens" if may_revoke_api_tokens(request.user) else "home")
