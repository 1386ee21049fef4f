"""The sentences and numbers dashboard.js writes, read in headless Chromium from dashboard.json and leaderboard.json
as the server sent them but for the values a test sets (Playwright's routing), so that a wording is checked with
the numbers that once read wrong without judging a campaign to them."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.browser.session import dashboard_updated, log_in
from tests.browser.test_dashboard import two_systems_judged

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def dashboard_with(new_page, live_server, changes: dict[str, Callable[[dict], None]]):
    """The organizer's campaign page of a judged two-system campaign, each JSON of ``changes`` (by the end of its
    path) changed by its function before dashboard.js reads it, once the dashboard has shown them."""
    campaign = two_systems_judged(200)
    page = new_page()

    def route(endpoint: str, change: Callable[[dict], None]):
        def handle(request_route):
            response = request_route.fetch()
            data = response.json()
            change(data)
            request_route.fulfill(response=response, json=data)
        page.route(f"**/{endpoint}*", handle)

    for endpoint, change in changes.items():
        route(endpoint, change)
    log_in(page, live_server, "orga", "organizer-pw-1", reverse("campaign-detail", args=[campaign.pk]))
    dashboard_updated(page)
    return page


def unresolved(without_estimate: int, estimated: int | None):
    """A leaderboard change: one unresolved pair, ``without_estimate`` of the estimates unknown."""
    def change(board: dict) -> None:
        board["system_pairs"].update(separated=2319, unresolved=[["better", "worse"]], more_judgments={
            "confidence": 0.95, "power": 0.8, "all": estimated, "reason": None, "without_estimate": without_estimate,
            "pairs": [{"pair": ["better", "worse"], "judgments": estimated, "reason": None}],
        })
    return change


@pytest.mark.parametrize(("without_estimate", "estimated", "said"), [
    (1, None, "1 of them has no estimate"),
    (2, None, "2 of them have no estimate"),
    (1, 1500, "About 1,500 more judgments would separate the pairs with an estimate at this rate (95% confidence, "
              "80% power). 1 of them has no estimate"),
])
def test_the_pairs_without_an_estimate_are_counted_in_the_singular(
        live_server, new_page, without_estimate, estimated, said):
    """The leaderboard said "1 of them have no estimate"."""
    page = dashboard_with(new_page, live_server, {"leaderboard.json": unresolved(without_estimate, estimated)})
    expect(page.locator("#separated-pairs")).to_contain_text(
        f"2,319 of 1 system pair separated; 1 still unresolved (overlapping rank ranges). {said}")


def one_rater(p_value: float | None):
    """A dashboard change: one rater, of the given p-value."""
    def change(judging: dict) -> None:
        judging["rater_qc"]["raters"] = [{
            "rater": "ann", "attempt": 1, "screens": 1200, "control_screens": 1000, "control_passed": 1000,
            "control_rate": 1.0, "controls": 1000, "p_value": p_value, "total_seconds": 3000.0,
            "median_seconds": 2.5, "passed": True, "decision": "auto", "excluded": False, "why": "passed",
        }]
    return change


@pytest.mark.parametrize(("p_value", "written"), [(0.45253, "0.4525"), (0.5, "0.5000"), (0.00004, "< 0.0001")])
def test_the_rater_qc_p_value_reads_as_on_the_rater_qc_page(live_server, new_page, p_value, written):
    """The dashboard wrote 0.452 where the Rater QC page wrote 0.4525 (gecappraise.p_values.shown_p_value)."""
    page = dashboard_with(new_page, live_server, {"dashboard.json": one_rater(p_value)})
    row = page.locator('#rater-qc tr[data-rater="ann"] td')
    expect(row.nth(4)).to_have_text(written)
    expect(row.nth(3)).to_have_text("1,000 of 1,000 (100%)")
    expect(row.nth(2)).to_have_text("1,200")


def test_a_flag_is_timed_in_utc_as_the_sites_other_times(live_server, new_page):
    """The Flags table's "When" was in the browser's locale and time zone ("12/6/2026, 9:55:44 PM"), while the
    site's other times are UTC, "2026-12-06 21:55" (the screen's page, the invites); so in a browser elsewhere."""
    def flagged(judging: dict) -> None:
        judging["flags"] = {"total": 1, "shown": [{
            "screen": 3, "line": 4, "url": "/", "judge": "ann", "reason": "other", "details": "",
            "flagged_at": "2026-12-06T21:55:44.123456+00:00", "excluded": False}]}
    page = dashboard_with(lambda: new_page(locale="de-DE", timezone_id="Asia/Tokyo"), live_server,
                          {"dashboard.json": flagged})
    expect(page.locator("#flags tbody tr td").nth(4)).to_have_text("2026-12-06 21:55")
    expect(page.locator("#flags thead th").nth(4)).to_have_text("When (UTC)")
