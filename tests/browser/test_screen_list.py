"""The organizer's list of a campaign's screens in headless Chromium: from the campaign page to the list, filtered
to the flagged screens, to a screen's page, on to the next flagged screen and back to the list, the filter kept;
on a phone the list keeps to the window and its table scrolls in its own box. Screenshots: test-artifacts/."""
from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Assignment
from annotation.services.screens import create_screens
from tests.annotation.factories import judge
from tests.annotation.test_dashboard import submit
from tests.browser.session import ORGANIZER_PASSWORD, log_in, organized_campaign

from .conftest import MOBILE, PHONE
from .test_accessibility import axe_violations
from .test_narrow_windows import assert_no_sideways_scrolling, assert_scrolls_in_own_box

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FLAGGED = (3, 55)


def campaign_with_flags():
    """``organized_campaign`` with 60 screens, of which ``FLAGGED`` were flagged."""
    campaign = organized_campaign()
    create_screens(campaign, 60)
    ann = judge("ann", campaign)
    for number in FLAGGED:
        slot = Assignment.objects.filter(screen__campaign=campaign, screen__number=number).first()
        submit(slot, ann, 4.0, flag="Garbled source sentence: cut off")
    return campaign


def test_list_screen_next_and_back_keep_the_filter(live_server, new_page, artifacts):
    campaign = campaign_with_flags()
    page = new_page()
    log_in(page, live_server, "orga", ORGANIZER_PASSWORD, reverse("campaign-detail", args=[campaign.pk]))
    page.get_by_role("navigation", name="Campaign sections").get_by_role("link", name="Screens", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Screens")
    expect(page.locator("#screen-list tbody tr")).to_have_count(50)
    assert axe_violations(page) == [], "the list of screens"

    page.get_by_label("Show").select_option("flagged")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("#screen-list tbody tr")).to_have_count(len(FLAGGED))
    expect(page.locator("#screen-3 td").nth(4)).to_have_text("1")
    page.screenshot(path=artifacts / "screen-list-flagged.png", full_page=True)

    page.locator("#screen-3").get_by_role("link", name="3", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Screen 3")
    expect(page.get_by_role("link", name="← Previous screen")).to_have_count(0)
    assert axe_violations(page) == [], "a screen's page with its way through the list"
    page.get_by_role("link", name="Next screen →").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Screen 55")
    expect(page.get_by_role("link", name="Next screen →")).to_have_count(0)

    page.get_by_role("link", name="Screen list (flagged)").click()
    expect(page.get_by_label("Show")).to_have_value("flagged")
    expect(page.locator("#screen-list tbody tr")).to_have_count(len(FLAGGED))
    expect(page.locator("#screen-55")).to_be_in_viewport()


def test_the_list_keeps_to_a_phone(live_server, new_page, artifacts):
    campaign = campaign_with_flags()
    page = new_page(PHONE, **MOBILE)
    log_in(page, live_server, "orga", ORGANIZER_PASSWORD, reverse("campaign-screens", args=[campaign.pk]))
    expect(page.locator("#screen-list tbody tr")).to_have_count(50)
    assert_no_sideways_scrolling(page, PHONE["width"], "the list of screens")
    assert_scrolls_in_own_box(page, "#screen-list", PHONE, "the list's table")
    page.get_by_role("link", name="Next page →").first.click()
    expect(page.locator("#screen-list tbody tr")).to_have_count(10)
    assert_no_sideways_scrolling(page, PHONE["width"], "the list's second page")
    page.screenshot(path=artifacts / "narrow-screen-list-375x667.png", full_page=True)
