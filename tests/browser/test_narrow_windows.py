"""Pages on a phone (375x667, a mobile browser that zooms out to show a page wider than the window) and a tablet
(768x1024) in headless Chromium: the judge's ranking and PRWS screens keep to the window's width, with Submit and
the status line inside the window and the Guidelines dialog too; the organizer's campaign page never scrolls
sideways as a whole: its wide tables scroll inside their own box, which stays inside the dashboard's card; nor does
the HTML analysis report, whose tables scroll inside their own boxes within their sections; nor does the API tokens
page showing a new token; nor does the campaign page of a campaign not judged yet, whose facts stand under their
labels on a phone; nor do the organizer's pages of a campaign whose name and a system's name are 100
characters without a space.
Screenshots: test-artifacts/narrow-*.png."""
from __future__ import annotations

import io

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Campaign
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services.importing import import_outputs
from annotation.services.score_import import import_scores
from annotation.services.screens import create_screens
from annotation.services.textfiles import NamedFile
from ranking.models import AnalysisRun
from tests.annotation.factories import add_screen, small_campaign
from tests.browser.session import log_in
from tests.ranking.factories import synthetic_campaign
from tests.ranking.test_prws_analysis import prws_campaign, simulated_csv

from .conftest import DESKTOP, MOBILE, PHONE, TABLET
from .test_judge_screen_reach import long_campaign, start_judging

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "organizer-pw-1"


def page_width(page) -> dict:
    return page.evaluate(
        "() => ({scroll: document.documentElement.scrollWidth, inner: window.innerWidth})"
    )


def assert_no_sideways_scrolling(page, width: int, where: str) -> None:
    measured = page_width(page)
    assert measured["inner"] == width, f"the browser zoomed out to show a wider page: {measured} at {where}"
    assert measured["scroll"] <= measured["inner"], f"the page scrolls sideways: {measured} at {where}"


def assert_inside(box: dict, outer: dict, what: str) -> None:
    """``box`` lies across ``outer`` (bounding boxes), half a pixel of rounding allowed at the right edge."""
    assert outer["x"] <= box["x"] and box["x"] + box["width"] <= outer["x"] + outer["width"] + 0.5, f"{what} spills out"


def assert_scrolls_in_own_box(page, selector: str, viewport: dict, what: str) -> None:
    """On a phone, the ``.table-scroll`` box holding ``selector`` is narrower than its table: it scrolls sideways."""
    if viewport is PHONE:
        box = page.locator(f".table-scroll:has({selector})")
        assert box.evaluate("e => e.scrollWidth > e.clientWidth"), f"{what} scrolls in its own box"


def inside_window(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return (box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= size["width"]
            and box["y"] + box["height"] <= size["height"])


@pytest.mark.parametrize("mode", [Campaign.Mode.RANKING, Campaign.Mode.PRWS])
def test_the_judge_screen_fits_a_phone(live_server, new_page, artifacts, mode):
    campaign = long_campaign(mode)
    add_screen(campaign, 0)
    page = new_page(PHONE, **MOBILE)
    start_judging(page, live_server, campaign, "phoebe")
    assert_no_sideways_scrolling(page, PHONE["width"], mode)
    for selector in ("#submit", "#ranked-status", "form[action$='logout/'] button"):
        assert inside_window(page, selector), f"{selector} is not wholly inside the window ({mode})"
    page.screenshot(path=artifacts / f"narrow-judge-{mode}-375x667.png")

    page.locator("#candidate-4").scroll_into_view_if_needed()
    assert inside_window(page, "#submit"), f"Submit leaves the window when the last correction is in view ({mode})"

    page.get_by_role("button", name="Guidelines").click()
    dialog = page.locator("#help-dialog")
    expect(dialog).to_be_visible()
    box = dialog.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], f"the dialog is cut off: {box}"
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], f"the dialog is cut off: {box}"
    assert_no_sideways_scrolling(page, PHONE["width"], f"{mode}, guidelines open")
    page.screenshot(path=artifacts / f"narrow-judge-{mode}-guidelines-375x667.png")


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["phone", "tablet"])
def test_the_campaign_page_scrolls_its_tables_not_itself(live_server, new_page, artifacts, viewport):
    campaign = synthetic_campaign("a campaign with a rather long name", np.random.default_rng(5), n_rankings=150,
                                  judges=("annotator-ann", "annotator-bob", "annotator-cyd"))
    campaign.organizers.add(get_user_model().objects.create_user("orga", password=PASSWORD))
    page = new_page(viewport, **(MOBILE if viewport is PHONE else {}))
    log_in(page, live_server, "orga", PASSWORD, reverse("campaign-detail", args=[campaign.pk]))
    expect(page.locator("#judge-progress tbody tr[data-judge]")).to_have_count(3)
    expect(page.locator("#rater-qc tbody tr[data-rater]")).to_have_count(3)
    expect(page.locator("#leaderboard tbody tr")).to_have_count(6)
    name = f"{viewport['width']}x{viewport['height']}"
    assert_no_sideways_scrolling(page, viewport["width"], name)

    card = page.locator("#dashboard").bounding_box()
    for table in ("#leaderboard", "#judge-progress", "#rater-qc"):
        box = page.locator(f".table-scroll:has({table})").bounding_box()
        assert_inside(box, card, f"{table} of the dashboard's card at {name}")
    assert_scrolls_in_own_box(page, "#judge-progress", viewport, "the judges' table")
    page.screenshot(path=artifacts / f"narrow-campaign-{name}.png", full_page=True)


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["phone", "tablet"])
def test_the_html_report_scrolls_its_tables_not_itself(live_server, new_page, artifacts, tmp_path, viewport):
    """The report of a PRWS campaign with metrics and prediction accuracy: every section with a table."""
    campaign = prws_campaign()
    import_scores(campaign, simulated_csv(np.random.default_rng(5))[0].encode())
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    (metrics / "scores.m1").write_text("bad 0.1\nfair 0.5\ngood 0.7\nsource 0.4\n")
    (metrics / "scores.m2x").write_text("bad 0.6\nfair 0.2\ngood 0.1\nsource 0.9\n")
    call_command("analyze", "--campaign", campaign.name, "--bootstrap", "100", "--accuracy-folds", "3",
                 "--metrics", str(metrics), "--out", str(tmp_path / "analysis.json"), stderr=io.StringIO())
    run = AnalysisRun.objects.get(campaign=campaign)
    campaign.organizers.add(get_user_model().objects.create_user("orga", password=PASSWORD))
    page = new_page(viewport, **(MOBILE if viewport is PHONE else {}))
    log_in(page, live_server, "orga", PASSWORD, reverse("campaign-analysis-report", args=[campaign.pk, run.pk, "html"]))
    for section in ("#rankings", "#pairs", "#agreement", "#metrics", "#accuracy", "#judges", "#prws", "#rater-qc"):
        expect(page.locator(f"{section} table").first).to_be_attached()
    name = f"{viewport['width']}x{viewport['height']}"
    assert_no_sideways_scrolling(page, viewport["width"], f"the report at {name}")

    tables = page.locator("table")
    assert page.locator(".table-scroll > table").count() == tables.count(), "every table scrolls in its own box"
    for k in range(tables.count()):
        table = tables.nth(k)
        box = table.locator("xpath=..").bounding_box()
        section = table.locator("xpath=ancestor::section").bounding_box()
        if box is None:  # in a closed <details>
            continue
        assert_inside(box, section, f"table {k} of its section at {name}")
    assert_scrolls_in_own_box(page, "#prws-scores", viewport, "the PRWS table")
    page.screenshot(path=artifacts / f"narrow-report-{name}.png", full_page=True)


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_new_api_token_keeps_to_the_window(live_server, new_page, artifacts, viewport):
    """The example command under a new token (the whole token and the API's address, one unbreakable line) wraps
    inside its box; it had widened the page past the window, on a phone and at 1280 pixels alike. The new token has
    the focus, to be copied at once (and read out first)."""
    user = get_user_model().objects.create_user("orga", password=PASSWORD)
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    page = new_page(viewport, **(MOBILE if viewport is PHONE else {}))
    log_in(page, live_server, "orga", PASSWORD, reverse("api-tokens"))
    page.get_by_label("Name").fill("nightly export")
    page.get_by_role("button", name="Create token").click()
    expect(page.locator("#new-token pre")).to_contain_text("Authorization: Token")
    expect(page.locator("#new-token-key")).to_be_focused()
    name = f"{viewport['width']}x{viewport['height']}"
    assert_no_sideways_scrolling(page, viewport["width"], name)
    assert_inside(page.locator("#new-token pre").bounding_box(), page.locator("#new-token").bounding_box(),
                  f"the command of its box at {name}")
    page.screenshot(path=artifacts / f"narrow-api-token-{name}.png", full_page=True)


def test_the_facts_of_a_campaign_not_judged_yet_keep_to_a_phone(live_server, new_page, artifacts):
    """On a phone each fact of the campaign page and its dashboard stands under its label: beside the widest label
    ("Trimmed mean (5–95%)") a campaign with screens and no judgment yet had its "– (no timed judgment yet)" run
    past the window, and the page scrolled sideways."""
    campaign = small_campaign("not judged yet", redundancy=2)
    create_screens(campaign, 3)
    campaign.organizers.add(get_user_model().objects.create_user("orga", password=PASSWORD))
    page = new_page(PHONE, **MOBILE)
    log_in(page, live_server, "orga", PASSWORD, reverse("campaign-detail", args=[campaign.pk]))
    expect(page.locator("#times-median")).to_contain_text("no timed judgment yet")
    assert_no_sideways_scrolling(page, PHONE["width"], "a campaign not judged yet")
    for facts in ("#content > dl.facts", "#plan", "#times"):
        labels, values = page.locator(f"{facts} > dt"), page.locator(f"{facts} > dd")
        for k in range(labels.count()):
            label, value = labels.nth(k).bounding_box(), values.nth(k).bounding_box()
            assert value["y"] >= label["y"] + label["height"], f"value {k} of {facts} is beside its label"
    page.screenshot(path=artifacts / "narrow-campaign-not-judged-375x667.png", full_page=True)


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_long_unbroken_names_wrap_on_the_organizer_pages(live_server, new_page, artifacts, viewport):
    """A campaign name of 100 characters without a space (a slug) and a system name of 100 characters (a file name,
    which never has a space) break inside the window: the campaign page's heading and the convergence charts'
    legend, and the link back to the campaign on its analyses and rater QC pages, had run past the window's right
    edge (by some 200 pixels at 1280), so that the whole page scrolled sideways. Its list of screens is checked
    alike."""
    name = "conll14-" + "x" * 92
    text = lambda lines: ("\n".join(lines) + "\n").encode()
    source = ["He go to school .", "She like apples ."]
    campaign = import_outputs(name, NamedFile("source", text(source)), [
        NamedFile("S" * 100, text(["He goes to school .", "She likes apples ."])),
        NamedFile("short", text(["He goes to the school .", "She like apple ."])),
    ])
    user = get_user_model().objects.create_user("orga", password=PASSWORD)
    campaign.organizers.add(user)
    page = new_page(viewport, **(MOBILE if viewport is PHONE else {}))
    log_in(page, live_server, "orga", PASSWORD, reverse("campaign-detail", args=[campaign.pk]))
    expect(page.locator("#history-legend li")).to_have_count(2)
    size = f"{viewport['width']}x{viewport['height']}"
    assert_no_sideways_scrolling(page, viewport["width"], f"the campaign page at {size}")
    page.screenshot(path=artifacts / f"narrow-long-names-campaign-{size}.png", full_page=True)
    for page_name in ("campaign-analyses", "campaign-raters", "campaign-screens"):
        page.goto(live_server.url + reverse(page_name, args=[campaign.pk]))
        expect(page.get_by_role("link", name=name)).to_be_visible()
        assert_no_sideways_scrolling(page, viewport["width"], f"{page_name} at {size}")
