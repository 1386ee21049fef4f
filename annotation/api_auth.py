"""The API's token authentication: django-rest-knox's, answering a failed token with 401.

DRF answers a request whose authentication failed with the challenge of the first authentication class
(``WWW-Authenticate``, status 401), or with 403 when that class has none. This class comes first in
``REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"]`` and challenges only a request that sent a token: a wrong,
expired or revoked token is a 401 ``{"detail": ...}`` with ``WWW-Authenticate: Token``, while a request without a
token (a browser's session, HTTP Basic, or nothing) is answered as before, 403 when refused.
"""
from __future__ import annotations

from knox.auth import TokenAuthentication
from knox.settings import knox_settings
from rest_framework.authentication import get_authorization_header
from rest_framework.request import Request


def sent_token(request: Request) -> bool:
    """Whether the request's ``Authorization`` header names the token scheme (``Token ...``, any letter case)."""
    scheme = get_authorization_header(request).split(b" ", 1)[0]
    return scheme.lower() == knox_settings.AUTH_HEADER_PREFIX.encode().lower()


class ApiTokenAuthentication(TokenAuthentication):
    """knox's ``TokenAuthentication`` (the user and the token of a valid ``Authorization: Token KEY``; expired
    tokens are deleted when met), skipped by requests that sent no token, and challenging only those that did."""

    def authenticate(self, request: Request):
        if not sent_token(request):
            return None
        return super().authenticate(request)

    def authenticate_header(self, request: Request) -> str | None:
        return knox_settings.AUTH_HEADER_PREFIX if sent_token(request) else None
