"""The address a request comes from, as the login throttling (django-axes) counts it.

Behind ``TRUSTED_PROXY_COUNT`` reverse proxies (the README's TLS proxy: 1), ``REMOTE_ADDR`` is the nearest proxy's
address for every client, so failed logins of anyone would lock everyone out. Each proxy appends the address it
received the request from to ``X-Forwarded-For``, so the client is the entry that many places from its end:
entries further left were sent by the client itself and prove nothing. With no proxy (0, the default) or fewer
entries than proxies, the address is ``REMOTE_ADDR``.
"""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """The client's address (module docstring)."""
    count = settings.TRUSTED_PROXY_COUNT
    forwarded = [entry.strip() for entry in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if entry.strip()]
    if count > 0 and len(forwarded) >= count:
        return forwarded[-count]
    return request.META.get("REMOTE_ADDR", "")
