"""The organizer's list of a campaign's screens (``/campaigns/{id}/screens/``) and the way from one screen's page to
the previous and next screen of that list and back to its page.

The list shows the screens in number order, ``PAGE_SIZE`` at a time, all of them or those a filter (``Shown``)
keeps: flagged, with a submitted judgment, or not served yet (``ScreenQuerySet.flagged``, ``submitted`` and
``unserved``). A page is named by the number its list starts from (``start``: the page holds the first
``PAGE_SIZE`` screens the filter keeps from that number on), so that every read is by the campaign's index of
screen numbers and bounded by the page, not by the campaign: no page counts the campaign's screens or slots (the
number of screens is the next screen number, ``screens.screen_count``). The screens not served yet are read from
the first of them on (``served_prefix.served_below``: every screen before it is served), not through the served
screens before them. The list of all screens starts its pages at multiples of ``PAGE_SIZE``, as its previous and
next links and a screen's way back keep them.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db import models

from ..models import Campaign, Screen, ScreenQuerySet
from .served_prefix import served_below

#: Screens on a page of the list.
PAGE_SIZE = 50


class Shown(models.TextChoices):
    """Which screens the list shows (its ``show`` parameter)."""

    ALL = "all", "All screens"
    FLAGGED = "flagged", "Flagged"
    SUBMITTED = "submitted", "With a submitted judgment"
    UNSERVED = "unserved", "Not served yet"


def shown_screens(campaign: Campaign, show: Shown) -> ScreenQuerySet:
    """``campaign``'s screens that ``show`` keeps."""
    screens = Screen.objects.filter(campaign=campaign)
    if show == Shown.FLAGGED:
        return screens.flagged()
    if show == Shown.SUBMITTED:
        return screens.submitted()
    if show == Shown.UNSERVED:
        return screens.filter(number__gte=served_below(campaign)).unserved()
    return screens


@dataclass(frozen=True)
class ScreenPage:
    """A page of the list: its ``screens`` (with their counts, ``ScreenQuerySet.with_counts``, the segment and its
    document), the number it ``start``\\ s from, and where the previous and next pages start (None: there is
    none)."""

    screens: list[Screen]
    start: int
    previous: int | None
    next: int | None


def _numbers(matching: ScreenQuerySet, start: int, limit: int, backwards: bool = False) -> list[int]:
    """The numbers of the first ``limit`` screens of ``matching`` from ``start`` on (``backwards``: before it,
    nearest first)."""
    if backwards:
        found = matching.filter(number__lt=start).order_by("-number")
    else:
        found = matching.filter(number__gte=start).order_by("number")
    return list(found.values_list("number", flat=True)[:limit])


def previous_start(matching: ScreenQuerySet, start: int) -> int | None:
    """Where the page before the one from ``start`` starts: ``PAGE_SIZE`` screens of ``matching`` back, or at 0
    when fewer are left before it; None when none is."""
    before = _numbers(matching, start, PAGE_SIZE, backwards=True)
    if not before:
        return None
    return before[-1] if len(before) == PAGE_SIZE else 0


def screen_page(campaign: Campaign, show: Shown, start: int) -> ScreenPage:
    """The page of ``campaign``'s screens that ``show`` keeps, from number ``start`` on."""
    matching = shown_screens(campaign, show)
    numbers = _numbers(matching, start, PAGE_SIZE + 1)
    screens = list(
        Screen.objects.filter(campaign=campaign, number__in=numbers[:PAGE_SIZE]).with_counts()
        .select_related("segment__document").order_by("number")
    )
    following = numbers[PAGE_SIZE] if len(numbers) > PAGE_SIZE else None
    return ScreenPage(screens, start, previous_start(matching, start), following)


def first_start(show: Shown, number: int) -> int:
    """The start of the list page that a screen's way back leads to when the screen's page was not opened from a
    page of the list: the page of all screens holding ``number``; with a filter, the page starting at it."""
    return number - number % PAGE_SIZE if show == Shown.ALL else number


@dataclass(frozen=True)
class ScreenWay:
    """The links of a screen's page: the ``previous`` and ``next`` screen of the list by number (None at either
    end), each with the start of the list page it lies on, and the ``start`` of the page holding this screen."""

    previous: int | None
    previous_start: int | None
    next: int | None
    next_start: int | None
    start: int


def screen_way(campaign: Campaign, show: Shown, number: int, start: int | None) -> ScreenWay:
    """The way from screen ``number`` through the list that ``show`` keeps, opened from the list page starting at
    ``start`` (None, or a page that does not hold the screen: ``first_start``). Moving past the page's last
    screen leads to the next page, which starts at that screen; moving before its first, to the previous page."""
    matching = shown_screens(campaign, show)
    on_page = _numbers(matching, start, PAGE_SIZE) if start is not None and start <= number else []
    if not on_page or number > on_page[-1]:
        start = first_start(show, number)
        on_page = _numbers(matching, start, PAGE_SIZE)
    after = _numbers(matching, number + 1, 1)
    before = _numbers(matching, number, 1, backwards=True)
    following = after[0] if after else None
    preceding = before[0] if before else None
    return ScreenWay(
        previous=preceding,
        previous_start=None if preceding is None else start if preceding >= start else previous_start(matching, start),
        next=following,
        next_start=None if following is None else start if on_page and following <= on_page[-1] else following,
        start=start,
    )
