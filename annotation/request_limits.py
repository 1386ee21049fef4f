"""How large a request body may be, decided from its ``Content-Length`` before anything reads it.

Anyone may send a body of up to ``SMALL_REQUEST_BYTES`` (a login, a judge's submit, a crowd worker's confirmation
are a few kilobytes); only an account that may upload test sets (``permissions.may_upload``: organizers and staff,
by session or, for the REST API, by an API token or HTTP Basic credentials) may send more, up to
``settings.MAX_REQUEST_BYTES``. Without this, Django's multipart parser writes every file of any request to disk
before a view can refuse it: an anonymous 300 MB post filled the temporary folder before its 403. A refused request
gets 413 with the limit named, as a page or, for the API and the JSON endpoints, as ``{"detail": ...}``.
"""
from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from rest_framework.authentication import BasicAuthentication
from rest_framework.exceptions import AuthenticationFailed

from gecappraise.error_pages import wants_json

from .api_auth import ApiTokenAuthentication
from .permissions import may_upload

SMALL_REQUEST_BYTES = 1024 * 1024


def _declared_length(request: HttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def _api_user(request: HttpRequest):
    """The user of the request's right API token or Basic credentials (the API's own checks, in its order); None
    without them or when they are wrong."""
    for authentication in (ApiTokenAuthentication(), BasicAuthentication()):
        try:
            found = authentication.authenticate(request)
        except AuthenticationFailed:
            return None
        if found is not None:
            return found[0]
    return None


def _uploader(request: HttpRequest) -> bool:
    """Whether the request comes from an account that may upload: its session's user, or the user of its API token
    or Basic credentials."""
    if request.user.is_authenticated:
        return may_upload(request.user)
    user = _api_user(request)
    return user is not None and may_upload(user)


def refusal(request: HttpRequest, limit: int) -> HttpResponse:
    """413, naming the limit."""
    reason = f"The request is larger than the {limit / 1024 / 1024:g} MB this account may send; nothing was read."
    if wants_json(request):
        return JsonResponse({"detail": reason}, status=413)
    return render(request, "400.html", {"status": 413, "reason": reason}, status=413)


class RequestSizeLimitMiddleware:
    """Refuses a body over the sender's limit (module docstring) before it is read; runs after authentication."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        length = _declared_length(request)
        if length > settings.MAX_REQUEST_BYTES:
            return refusal(request, settings.MAX_REQUEST_BYTES)
        if length > SMALL_REQUEST_BYTES and not _uploader(request):
            return refusal(request, SMALL_REQUEST_BYTES)
        return self.get_response(request)
