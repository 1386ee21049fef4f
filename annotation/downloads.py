"""The names a campaign's downloads are saved under: ``<campaign slug>-<what>.<extension>``.

The slug keeps the campaign's own letters (``slugify(allow_unicode=True)``): an ASCII slug dropped every letter of
a Hebrew or Chinese name, and each of that campaign's downloads was saved as ``campaign-...``. A name that is not
ASCII goes in the header as RFC 6266's ``filename*`` (UTF-8, percent-encoded), which browsers read.
"""
from __future__ import annotations

from django.http import HttpResponse
from django.utils.http import content_disposition_header
from django.utils.text import slugify


def download_name(campaign_name: str, what: str) -> str:
    """``<campaign slug>-<what>``, the slug ``campaign`` when the name leaves no letter or digit."""
    return f"{slugify(campaign_name, allow_unicode=True) or 'campaign'}-{what}"


def save_as(response: HttpResponse, filename: str, inline: bool = False) -> HttpResponse:
    """``response`` with the Content-Disposition that saves it as ``filename`` (``inline``: shown in the browser,
    saved under that name)."""
    response["Content-Disposition"] = content_disposition_header(not inline, filename)
    return response
