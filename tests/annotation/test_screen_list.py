"""The organizer's list of a campaign's screens (GET ``/campaigns/{id}/screens/``) and the way from a screen's page
to the previous and next screen of the list and back: its rows, their order, its pages, its filters (the screens
``ScreenQuerySet.flagged``, ``submitted`` and ``unserved`` keep), who reaches it, its refusals of bad parameters,
and its queries, as many for 300 screens as for 60."""
from __future__ import annotations

import html
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Screen, ServedPrefix
from annotation.services import served_prefix
from annotation.services.screen_list import PAGE_SIZE
from annotation.services.screens import create_screens

from .factories import add_screen, judge, login, small_campaign
from .test_dashboard import submit

pytestmark = pytest.mark.django_db
User = get_user_model()

ROW = re.compile(r'<tr id="screen-(\d+)">(.*?)</tr>', re.S)
FLAG = "Garbled source sentence: cut off"


@pytest.fixture
def campaign(organizer):
    campaign = small_campaign(redundancy=2)
    campaign.organizers.add(organizer)
    return campaign


def list_url(campaign, **query) -> str:
    url = reverse("campaign-screens", args=[campaign.pk])
    return url + ("?" + "&".join(f"{key}={value}" for key, value in query.items()) if query else "")


def listed(client, url: str) -> tuple[list[int], str]:
    """The screen numbers a page of the list shows, in order, and the page."""
    response = client.get(url)
    assert response.status_code == 200, response.content.decode()[:500]
    page = response.content.decode()
    return [int(number) for number, _ in ROW.findall(page)], page


def cells(page: str, number: int) -> list[str]:
    row = dict(ROW.findall(page))[str(number)]
    return [html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>",
                                                                                       row, re.S)]


def link(page: str, rel: str) -> str | None:
    found = re.search(rf'<a href="([^"]+)" rel="{rel}">', page)
    return html.unescape(found.group(1)) if found else None


def judged(campaign, count: int) -> list[Screen]:
    """``count`` screens of ``campaign`` (two slots each): screen 0 submitted by both judges, 1 flagged by one,
    2 served to one and not submitted, the rest unserved."""
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    create_screens(campaign, count)
    screens = list(Screen.objects.filter(campaign=campaign).order_by("number"))
    first, second = screens[0].assignments.order_by("position")
    submit(first, ann, 10.0)
    submit(second, bob, 12.0)
    submit(screens[1].assignments.order_by("position").first(), ann, 3.0, flag=FLAG)
    Assignment.objects.filter(pk=screens[2].assignments.order_by("position").first().pk).update(
        judge=bob, status=Assignment.Status.SERVED)
    return screens


def test_the_campaign_page_links_to_the_list_which_shows_each_screen_in_order(campaign, organizer):
    screens = judged(campaign, 8)
    client = login(organizer)
    assert f'href="{list_url(campaign)}"' in client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    numbers, page = listed(client, list_url(campaign))
    assert numbers == list(range(8))
    assert "8 screens in all" in page
    for screen in screens:
        segment = screen.segment
        expected = [str(screen.number), segment.document.name, str(segment.line), str(screen.slots.count())]
        assert cells(page, screen.number)[:4] == expected
    assert cells(page, 0)[4:6] == ["2 of 2", "0"]
    assert cells(page, 1)[4:6] == ["1 of 2", "1"]
    assert cells(page, 2)[4:6] == ["0 of 2", "0"]
    assert f'href="{reverse("campaign-screen", args=[campaign.pk, 1])}?from=0"' in page
    assert link(page, "prev") is None and link(page, "next") is None


def test_an_excluded_screen_and_a_control_screen_say_so(campaign, organizer):
    excluded, control = add_screen(campaign, 0), add_screen(campaign, 1)
    Screen.objects.filter(pk=excluded.pk).update(excluded=True)
    Screen.objects.filter(pk=control.pk).update(control=True)
    _, page = listed(login(organizer), list_url(campaign))
    assert cells(page, excluded.number)[-1] == "Excluded from analysis"
    assert cells(page, control.number)[-1] == "Control screen"


def test_an_empty_campaign_says_where_screens_are_added(campaign, organizer):
    numbers, page = listed(login(organizer), list_url(campaign))
    assert numbers == [] and "No screens yet" in page


def test_pages_follow_each_other_by_number(campaign, organizer):
    create_screens(campaign, 2 * PAGE_SIZE + 7)
    client = login(organizer)
    seen, url, pages = [], list_url(campaign), []
    while url is not None:
        numbers, page = listed(client, url)
        seen += numbers
        pages.append(page)
        url = link(page, "next")
    assert seen == list(range(2 * PAGE_SIZE + 7)) and len(pages) == 3
    assert link(pages[1], "next") == list_url(campaign, **{"from": 2 * PAGE_SIZE})
    assert link(pages[2], "prev") == list_url(campaign, **{"from": PAGE_SIZE})
    assert link(pages[1], "prev") == list_url(campaign, **{"from": 0})
    numbers, page = listed(client, list_url(campaign, **{"from": 5}))
    assert numbers == list(range(5, 5 + PAGE_SIZE)), "a page starts at any screen number"
    assert link(page, "prev") == list_url(campaign, **{"from": 0})


@pytest.mark.parametrize(("show", "expected"), [
    ("all", list(range(6))), ("flagged", [1]), ("submitted", [0, 1]), ("unserved", [3, 4, 5]),
])
def test_a_filter_shows_the_screens_its_queryset_keeps(campaign, organizer, show, expected):
    judged(campaign, 6)
    numbers, page = listed(login(organizer), list_url(campaign, show=show))
    assert numbers == expected
    assert f'<option value="{show}" selected>' in page
    kept = {"all": Screen.objects.all(), "flagged": Screen.objects.flagged(),
            "submitted": Screen.objects.submitted(), "unserved": Screen.objects.unserved()}[show]
    assert numbers == list(kept.filter(campaign=campaign).order_by("number").values_list("number", flat=True))
    query = "?from=0" if show == "all" else f"?show={show}&amp;from=0"
    assert f'href="{reverse("campaign-screen", args=[campaign.pk, expected[0]])}{query}"' in page


def test_a_filter_with_nothing_to_show_says_so(campaign, organizer):
    create_screens(campaign, 3)
    numbers, page = listed(login(organizer), list_url(campaign, show="flagged"))
    assert numbers == [] and "No screen of this kind (flagged) from screen 0 on." in page


def test_only_the_campaigns_organizers_and_admins_reach_the_list(campaign, organizer):
    add_screen(campaign, 0)
    url = list_url(campaign)
    assert login(organizer).get(url).status_code == 200
    assert login(User.objects.create_superuser("boss")).get(url).status_code == 200
    assert login(User.objects.create_user("other-orga")).get(url).status_code == 404
    assert login(judge("judy", campaign)).get(url).status_code == 404
    response = Client().get(url)
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert login(organizer).put(url).status_code == 405


@pytest.mark.parametrize(("query", "status", "message"), [
    ("show=bogus", 400, "show: choose all, flagged, submitted or unserved, not 'bogus'."),
    ("from=abc", 400, "from: give a screen number, a whole number from 0, not 'abc'."),
    ("from=-1", 400, "from: give a screen number, a whole number from 0, not '-1'."),
    ("from=%C2%B2", 400, "from: give a screen number, a whole number from 0, not '²'."),
    ("from=" + "9" * 40, 400, "from: give a screen number, a whole number from 0, not '" + "9" * 20 + "'."),
    ("from=3", 404, "from: there is no screen 3; this campaign has 3 screens, numbered 0 to 2."),
    ("from=999999999", 404, "from: there is no screen 999,999,999; this campaign has 3 screens, numbered 0 to 2."),
])
@pytest.mark.parametrize("page", ["list", "screen"])
def test_a_bad_parameter_is_refused_with_a_message_naming_it(campaign, organizer, query, status, message, page):
    create_screens(campaign, 3)
    url = list_url(campaign) if page == "list" else reverse("campaign-screen", args=[campaign.pk, 1])
    response = login(organizer).get(f"{url}?{query}")
    assert response.status_code == status
    assert html.unescape(re.search(r'<p id="error-reason">(.*?)</p>', response.content.decode(), re.S).group(1)) \
        == message


def test_an_empty_campaign_has_no_screen_past_zero(campaign, organizer):
    response = login(organizer).get(list_url(campaign, **{"from": 1}))
    assert response.status_code == 404 and "this campaign has no screens yet" in response.content.decode()


def test_the_list_makes_as_many_queries_for_300_screens_as_for_60(organizer, django_assert_max_num_queries):
    client = login(organizer)
    for count in (60, 300):
        campaign = small_campaign(f"size-{count}", redundancy=2)
        campaign.organizers.add(organizer)
        if count == 60:
            judged(campaign, count)
        else:
            create_screens(campaign, count)
        for query in ({}, {"from": count - 10}, {"show": "unserved"}, {"show": "flagged"}, {"show": "submitted"}):
            client.get(list_url(campaign, **query))  # the session and the templates, as a running server has them
            # The unserved screens' page also reads where they start (``served_prefix``): 9.
            with django_assert_max_num_queries(9):
                assert client.get(list_url(campaign, **query)).status_code == 200
        with django_assert_max_num_queries(15):
            assert client.get(reverse("campaign-screen", args=[campaign.pk, count - 1]) + "?from=0").status_code \
                == 200


def way(client, campaign, number: int, query: str = "") -> dict[str, str | None]:
    """The links of screen ``number``'s page: previous, next and back to the list."""
    response = client.get(reverse("campaign-screen", args=[campaign.pk, number]) + query)
    assert response.status_code == 200
    page = response.content.decode()
    back = re.search(r'<a href="([^"]+)" id="screen-list-link">', page).group(1)
    return {"prev": link(page, "prev"), "next": link(page, "next"), "back": html.unescape(back)}


def screen_url(campaign, number: int, query: str) -> str:
    return reverse("campaign-screen", args=[campaign.pk, number]) + query


def test_a_screen_leads_to_its_neighbours_and_back_to_its_page_of_all_screens(campaign, organizer):
    create_screens(campaign, PAGE_SIZE + 5)
    client = login(organizer)
    assert way(client, campaign, 0, "?from=0") == {"prev": None, "next": screen_url(campaign, 1, "?from=0"),
                                                   "back": list_url(campaign, **{"from": 0}) + "#screen-0"}
    last_of_first = PAGE_SIZE - 1
    assert way(client, campaign, last_of_first, "?from=0")["next"] == screen_url(campaign, PAGE_SIZE,
                                                                                 f"?from={PAGE_SIZE}")
    first_of_second = way(client, campaign, PAGE_SIZE, f"?from={PAGE_SIZE}")
    assert first_of_second["prev"] == screen_url(campaign, last_of_first, "?from=0")
    assert first_of_second["back"] == list_url(campaign, **{"from": PAGE_SIZE}) + f"#screen-{PAGE_SIZE}"
    assert way(client, campaign, PAGE_SIZE + 4, f"?from={PAGE_SIZE}")["next"] is None
    from_flags_table = way(client, campaign, PAGE_SIZE + 2)
    assert from_flags_table["back"] == list_url(campaign, **{"from": PAGE_SIZE}) + f"#screen-{PAGE_SIZE + 2}"
    assert way(client, campaign, 7, f"?from={PAGE_SIZE}")["back"].startswith(list_url(campaign, **{"from": 0})), (
        "a page that does not hold the screen is not the way back")


def test_a_screen_keeps_the_lists_filter_across_its_pages(campaign, organizer):
    """Every other screen submitted: the filtered list's first page holds screens 0, 2, ..., 98, its second starts
    at 100."""
    user = judge("ann", campaign)
    screens = create_screens(campaign, 2 * PAGE_SIZE + 10)
    for number in screens[::2]:
        submit(Assignment.objects.filter(screen__campaign=campaign, screen__number=number).first(), user, 5.0)
    client = login(organizer)
    numbers, page = listed(client, list_url(campaign, show="submitted"))
    assert numbers == list(range(0, 2 * PAGE_SIZE, 2))
    assert link(page, "next") == list_url(campaign, show="submitted", **{"from": 2 * PAGE_SIZE})
    on_first = way(client, campaign, 2, "?show=submitted&from=0")
    assert on_first == {"prev": screen_url(campaign, 0, "?show=submitted&from=0"),
                        "next": screen_url(campaign, 4, "?show=submitted&from=0"),
                        "back": list_url(campaign, show="submitted", **{"from": 0}) + "#screen-2"}
    crossing = way(client, campaign, 98, "?show=submitted&from=0")
    assert crossing["next"] == screen_url(campaign, 100, "?show=submitted&from=100")
    back_again = way(client, campaign, 100, "?show=submitted&from=100")
    assert back_again["prev"] == screen_url(campaign, 98, "?show=submitted&from=0")
    assert back_again["back"] == list_url(campaign, show="submitted", **{"from": 100}) + "#screen-100"
    assert way(client, campaign, 2 * PAGE_SIZE + 8, "?show=submitted&from=100")["next"] is None
    flagged_only = way(client, campaign, 5, "?show=flagged")
    assert flagged_only == {"prev": None, "next": None, "back": list_url(campaign, show="flagged", **{"from": 5})
                            + "#screen-5"}


def test_excluding_a_screen_keeps_the_list_it_was_opened_from(campaign, organizer):
    judged(campaign, 3)
    client = login(organizer)
    page = client.get(screen_url(campaign, 1, "?show=flagged&from=0")).content.decode()
    exclusion = reverse("campaign-screen-exclusion", args=[campaign.pk, 1])
    assert f'action="{exclusion}?show=flagged&amp;from=0"' in page
    response = client.post(f"{exclusion}?show=flagged&from=0", {"action": "exclude"})
    assert response["Location"] == screen_url(campaign, 1, "?show=flagged&from=0")
    assert Screen.objects.get(campaign=campaign, number=1).excluded
    refused = client.post(f"{exclusion}?show=bogus", {"action": "include"})
    assert refused["Location"] == screen_url(campaign, 1, ""), "a list the page would refuse is not kept"
    assert not Screen.objects.get(campaign=campaign, number=1).excluded


def serve_first(campaign, count: int, user) -> None:
    """Give ``user`` the first slot of each of the campaign's first ``count`` screens, as the queue hands them out."""
    first_slots = Assignment.objects.filter(campaign=campaign, screen__number__lt=count).order_by(
        "screen_id", "position").distinct("screen_id").values("pk")
    Assignment.objects.filter(pk__in=first_slots).update(judge=user, status=Assignment.Status.SERVED)


def unserved_numbers(campaign, start: int = 0) -> list[int]:
    """The first page of the campaign's unserved screens from ``start`` by the queryset itself, read from 0."""
    kept = Screen.objects.filter(campaign=campaign, number__gte=start).unserved().order_by("number")
    return list(kept.values_list("number", flat=True)[:PAGE_SIZE])


def test_the_unserved_list_starts_where_its_first_unserved_screen_is_and_shows_the_same_screens(
    campaign, organizer, monkeypatch
):
    """Once screens were served past the kept start (``MOVE_AFTER``), the list moves it to the first unserved screen
    and reads from there; its pages and a screen's way through them are those the queryset gives, read from 0."""
    monkeypatch.setattr(served_prefix, "MOVE_AFTER", 5)
    create_screens(campaign, 2 * PAGE_SIZE)
    serve_first(campaign, 30, judge("ann", campaign))
    client = login(organizer)
    numbers, page = listed(client, list_url(campaign, show="unserved"))
    assert numbers == unserved_numbers(campaign) == list(range(30, 30 + PAGE_SIZE))
    assert ServedPrefix.objects.get(campaign=campaign).below == 30
    assert link(page, "prev") is None
    for start in (3, 30, 31, 79):
        assert listed(client, list_url(campaign, show="unserved", **{"from": start}))[0] == unserved_numbers(
            campaign, start)
    assert way(client, campaign, 30, "?show=unserved&from=0")["prev"] is None
    serve_first(campaign, 33, judge("bob", campaign))
    assert listed(client, list_url(campaign, show="unserved"))[0][0] == 33
    assert ServedPrefix.objects.get(campaign=campaign).below == 30, "3 screens served since: not moved yet"


def test_deleting_a_judge_puts_the_screens_only_they_were_given_back_in_the_unserved_list(
    campaign, organizer, monkeypatch
):
    monkeypatch.setattr(served_prefix, "MOVE_AFTER", 5)
    create_screens(campaign, 40)
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    serve_first(campaign, 20, ann)
    Assignment.objects.filter(campaign=campaign, screen__number__in=[7, 12], judge=ann).update(judge=bob)
    client = login(organizer)
    assert listed(client, list_url(campaign, show="unserved"))[0][0] == 20
    bob.delete()
    numbers = listed(client, list_url(campaign, show="unserved"))[0]
    assert numbers[:3] == [7, 12, 20] and numbers == unserved_numbers(campaign)
    assert ServedPrefix.objects.get(campaign=campaign).below == 7

