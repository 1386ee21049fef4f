"""The API's token authentication: django-rest-knox's, answering a failed token with 401.

DRF answers a request whose authentication failed with the challenge of the first authentication class
(``WWW-Authenticate``, status 401), or with 403 when that class has none. This class comes first in
``REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"]`` and challenges only a request that sent a token: a wrong,
expired or revoked token is a 401 ``{"detail": ...}`` with ``WWW-Authenticate: Token``, while a request without a
token (a browser's session, HTTP Basic, or nothing) is answered as before, 403 when refused. A token that cannot be
one (``looks_like_a_token``) is wrong without a lookup, and so is an HTTP Basic username that cannot be one
(``BasicAuthentication``).
"""
from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from knox.auth import TokenAuthentication
from knox.settings import knox_settings
from rest_framework.authentication import BasicAuthentication as RestBasicAuthentication
from rest_framework.authentication import get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request


def sent_token(request: Request) -> bool:
    """Whether the request's ``Authorization`` header names the token scheme (``Token ...``, any letter case),
    its words parted by any white space as knox parts them (a tab after the scheme is still the token scheme)."""
    words = get_authorization_header(request).split(maxsplit=1)
    return bool(words) and words[0].lower() == knox_settings.AUTH_HEADER_PREFIX.encode().lower()


def looks_like_a_token(credential: bytes) -> bool:
    """Whether ``credential`` (the header's bytes after the scheme) has a token's form: knox's ``TOKEN_PREFIX``
    and ``AUTH_TOKEN_CHARACTER_LENGTH`` lowercase hexadecimal digits, as ``knox.crypto`` makes them."""
    digits = rb"[0-9a-f]{%d}" % knox_settings.AUTH_TOKEN_CHARACTER_LENGTH
    return re.fullmatch(re.escape(knox_settings.TOKEN_PREFIX.encode()) + digits, credential) is not None


class ApiTokenAuthentication(TokenAuthentication):
    """knox's ``TokenAuthentication`` (the user and the token of a valid ``Authorization: Token KEY``; expired
    tokens are deleted when met), skipped by requests that sent no token, and challenging only those that did."""

    def authenticate(self, request: Request):
        if not sent_token(request):
            return None
        return super().authenticate(request)

    def authenticate_credentials(self, token: bytes):
        """knox's lookup, for a credential that can be a token; anything else is a wrong token (401) before it
        reaches the database: a NUL was a DataError there, and a byte that is not UTF-8 (a header arrives as
        Latin-1) a UnicodeDecodeError in knox, both a 500."""
        if not looks_like_a_token(token):
            raise AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(token)

    def authenticate_header(self, request: Request) -> str | None:
        return knox_settings.AUTH_HEADER_PREFIX if sent_token(request) else None


def could_be_a_username(name: str) -> bool:
    """Whether ``name`` fits the username column: at most its ``max_length`` characters, and no NUL (which
    PostgreSQL's text cannot hold)."""
    return len(name) <= get_user_model()._meta.get_field("username").max_length and "\x00" not in name


class BasicAuthentication(RestBasicAuthentication):
    """DRF's HTTP Basic authentication, refusing (403 "Invalid username/password.", as a wrong password) a username
    that cannot be one (``could_be_a_username``) before the login throttling records it: django-axes wrote the
    attempt's username to its own columns, and a NUL or a name over its 255 characters was a DataError, a 500."""

    def authenticate_credentials(self, userid, password, request=None):
        if not could_be_a_username(userid):
            raise AuthenticationFailed("Invalid username/password.")
        return super().authenticate_credentials(userid, password, request)
