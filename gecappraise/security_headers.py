"""The Content-Security-Policy of every response: what a page may load and run.

The pages load their scripts and styles from this site only and have no inline scripts, so an injected
``<script>`` or ``onclick`` would not run even if an escape were missed. Inline styles stay allowed (the reports'
``<style>`` and bar widths); images may be ``data:`` URIs (guidelines, plots). ``frame-ancestors 'none'`` repeats
X-Frame-Options for browsers that read only CSP. A view that sets its own policy keeps it.
"""
from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

POLICY = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", POLICY)
        return response
