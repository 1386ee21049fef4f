"""The organizer's list of a campaign's screens (GET ``/campaigns/{id}/screens/``, ``services.screen_list``) and
what a screen's page needs of it: the list's parameters, read from the query, and the addresses that keep them.

``show`` (``screen_list.Shown``: all, flagged, submitted, unserved; all when absent) and ``from`` (the screen number
a list page starts from; 0 when absent) are checked before anything is read: a value that is not one of them is a
400, a number past the campaign's last screen a 404, each a page that names the parameter and says what it takes.
"""
from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from ..models import Campaign
from ..request_numbers import whole_number
from ..services.screen_list import PAGE_SIZE, Shown, screen_page
from ..services.screens import no_screen_reason, screen_count


class ListParameterRefused(Exception):
    """A list parameter the request gave is not one the list takes: ``status`` 400 (not a value of it) or 404
    (no such screen); the message says which parameter and what it takes."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def list_parameters(request: HttpRequest, screens: int) -> tuple[Shown, int | None]:
    """The request's ``show`` and ``from`` (None when not given) in a campaign of ``screens`` screens;
    ``ListParameterRefused`` for a bad value."""
    raw_show = request.GET.get("show", "")
    if raw_show and raw_show not in Shown.values:
        raise ListParameterRefused(400, f"show: choose {', '.join(Shown.values[:-1])} or {Shown.values[-1]}, "
                                        f"not {raw_show[:20]!r}.")
    raw_start = request.GET.get("from", "")
    if not raw_start:
        return Shown(raw_show or Shown.ALL), None
    start = whole_number(raw_start)
    if start is None:
        raise ListParameterRefused(400, f"from: give a screen number, a whole number from 0, not {raw_start[:20]!r}.")
    if start > 0 and start >= screens:
        held = f"{screens:,} screens, numbered 0 to {screens - 1:,}" if screens else "no screens yet"
        raise ListParameterRefused(404, f"from: there is no screen {start:,}; this campaign has {held}.")
    return Shown(raw_show or Shown.ALL), start


def refused(request: HttpRequest, refusal: ListParameterRefused) -> HttpResponse:
    """The page saying why the list's parameters were refused."""
    return render(request, "400.html", {"status": refusal.status, "reason": str(refusal)}, status=refusal.status)


def list_query(show: Shown, start: int) -> str:
    """The query string that keeps the list's ``show`` (left out when all) and ``start``."""
    return "?" + urlencode({**({"show": show.value} if show != Shown.ALL else {}), "from": start})


def screen_list(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """A page of the campaign's screens (``services.screen_list.screen_page``), each linking to its screen's page
    with the list's parameters, the filter and the screen number to start from, and the previous and next pages."""
    screens = screen_count(campaign)
    try:
        show, start = list_parameters(request, screens)
    except ListParameterRefused as refusal:
        return refused(request, refusal)
    page = screen_page(campaign, show, start or 0)
    url = reverse("campaign-screens", args=[campaign.pk])
    context = {
        "campaign": campaign,
        "page": page,
        "show": show,
        "choices": Shown.choices,
        "screens_in_all": screens,
        "no_screen_reason": None if screens else no_screen_reason(campaign),
        "page_size": PAGE_SIZE,
        "query": list_query(show, page.start),
        "previous_url": None if page.previous is None else url + list_query(show, page.previous),
        "next_url": None if page.next is None else url + list_query(show, page.next),
    }
    return render(request, "organizer/screen_list.html", context)
