"""The demo a new user starts with `./dev demo`: the organizer's campaign page and a judge's first screen."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in(page, live_server, username: str) -> None:
    page.goto(live_server.url + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", username)
    page.locator("main button[type=submit]").click()


def test_demo_campaign_opens_for_the_organizer_and_the_judge(live_server, new_page, artifacts):
    call_command("demo", stdout=io.StringIO())
    organizer = new_page()
    log_in(organizer, live_server, "organizer")
    organizer.goto(live_server.url + "/campaigns/")
    organizer.get_by_role("link", name="Demo: learner essays", exact=True).click()
    histogram = organizer.locator("#distinct-histogram tbody tr")
    expect(histogram.first).to_be_visible()
    assert histogram.count() >= 2
    assert "14 sentences in 3 documents, 6 systems" in organizer.inner_text("main")
    organizer.screenshot(path=str(artifacts / "demo-campaign-1280x800.png"), full_page=True)

    judge = new_page()
    log_in(judge, live_server, "judge")
    judge.get_by_role("link", name="Start judging Demo: learner essays", exact=True).click()
    judge.get_by_role("button", name="I have read the guidelines").click()
    assert "Screen 1 of 10" in judge.inner_text("main")  # ann and ben took both slots of 20 screens
    corrections = judge.locator("li.candidate")
    assert 2 <= corrections.count() <= 5
    for name in ("alpha", "bravo", "charlie", "delta", "echo"):
        assert name not in judge.content()
    judge.screenshot(path=str(artifacts / "demo-judge-screen-1280x800.png"), full_page=True)
