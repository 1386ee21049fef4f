"""The organizer's and admin's way around, in headless Chromium: each role's start page and header links, the
styled 403 and 404 pages, the demo's HTML report opening in the browser (with its two judges' agreement) beside a
Download link, and /api/docs/ rendering with every non-loopback request aborted. Screenshots go to test-artifacts/.
"""
from __future__ import annotations

import io
import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Campaign, Judgment
from annotation.permissions import ORGANIZERS_GROUP
from ranking.models import AnalysisRun
from tests.annotation.factories import judge, small_campaign
from tests.browser.session import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOOPBACK = {"localhost", "127.0.0.1", "[::1]", "::1"}


@pytest.fixture
def roles():
    """An admin, an organizer of a campaign and a judge of it (password: the username twice)."""
    admin = User.objects.create_superuser("root", password="rootroot")
    organizer = User.objects.create_user("olga", password="olgaolga")
    organizer.groups.add(Group.objects.create(name=ORGANIZERS_GROUP))
    campaign = small_campaign("Essays", owner=organizer)
    campaign.organizers.add(organizer)
    return {"admin": admin, "organizer": organizer, "judge": judge("jude", campaign, password="judejude")}


def header_links(page) -> list[str]:
    return page.locator("header.site-header nav[aria-label=Site] a").all_inner_texts()


def test_each_role_lands_on_its_start_page_with_its_header_links(live_server, new_page, artifacts, roles):
    expected = {
        "root": ("/campaigns/", "Campaigns", ["Campaigns", "API docs", "API tokens", "Admin"]),
        "olga": ("/campaigns/", "Campaigns", ["Campaigns", "API docs", "API tokens"]),
        "jude": ("/", "Your campaigns", ["Judging"]),
    }
    for username, (path, heading, links) in expected.items():
        page = new_page()
        log_in(page, live_server, username, username * 2)
        assert urlsplit(page.url).path == path, username
        expect(page.get_by_role("heading", level=1)).to_have_text(heading)
        assert header_links(page) == links, username
        page.screenshot(path=str(artifacts / f"start-page-{username}-1280x800.png"), full_page=True)
    judge_page = page
    judge_page.get_by_role("link", name="Judging", exact=True).click()
    expect(judge_page.get_by_role("heading", level=1)).to_have_text("Your campaigns")
    assert "Essays" in judge_page.inner_text("main")


def test_refusals_and_missing_pages_are_styled_pages_that_say_why_and_where_to_go(
    live_server, new_page, artifacts, roles
):
    page = new_page()
    log_in(page, live_server, "jude", "judejude")
    refused = page.goto(f"{live_server.url}/campaigns/")
    assert refused.status == 403
    expect(page.get_by_role("heading", level=1)).to_have_text("Your account may not open this page")
    expect(page.locator("#error-reason")).to_have_text("Only organizers manage campaigns.")
    expect(page.locator("header.site-header")).to_be_visible()
    card = page.locator(".error-page")
    assert card.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 255, 255)"
    assert page.evaluate("getComputedStyle(document.body).fontFamily").startswith("system-ui")
    page.screenshot(path=str(artifacts / "error-403-1280x800.png"), full_page=True)
    page.get_by_role("link", name="The campaigns you judge").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your campaigns")

    missing = page.goto(f"{live_server.url}/campaigns/424242/")
    assert missing.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("There is nothing here")
    assert "/campaigns/424242/" in page.inner_text("main")
    page.screenshot(path=str(artifacts / "error-404-1280x800.png"), full_page=True)

    anonymous = new_page()
    assert anonymous.goto(f"{live_server.url}/no/such/page/").status == 404
    anonymous.get_by_role("link", name="Log in").first.click()
    expect(anonymous.get_by_label("Username")).to_be_visible()


def test_the_demo_report_opens_in_the_browser_with_both_judges_agreement_and_a_download_beside_it(
    live_server, new_page, artifacts
):
    call_command("demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(name="Demo: learner essays")
    page = new_page()
    log_in(page, live_server, "organizer", "organizer")
    page.goto(f"{live_server.url}{reverse('campaign-analyses', args=[campaign.pk])}")
    expect(page.get_by_text("G15 Table 4")).to_be_visible()
    form_box, table_box = (
        page.locator("form.analysis-form").bounding_box(), page.locator("#analysis-runs").bounding_box()
    )
    button = page.get_by_role("button", name="Run analysis").bounding_box()
    assert button["y"] + button["height"] <= table_box["y"], "the button sits above the table, not beside it"
    assert form_box["y"] + form_box["height"] <= table_box["y"]
    page.get_by_label("Bootstrap").fill("100")
    page.get_by_role("button", name="Run analysis").click()
    run = AnalysisRun.objects.get(campaign=campaign)
    row = page.locator(f'#analysis-runs tr[data-run="{run.pk}"]')
    expect(row.locator(".run-label")).to_have_text("Done", timeout=120_000)
    page.reload()
    parameters = row.locator(".run-parameters").inner_text()
    for shown in ("bootstrap samples 100", "seed 1", "accuracy folds 0 (skipped)", "ignored judges admin"):
        assert shown in parameters
    page.screenshot(path=str(artifacts / "analyses-demo-1280x800.png"), full_page=True)

    with page.expect_download() as download:
        row.get_by_role("link", name="Download HTML").click()
    assert download.value.suggested_filename == f"demo-learner-essays-analysis-{run.pk}-seed1.html"
    with page.expect_download() as latex:
        row.get_by_role("link", name="LaTeX").click()
    assert latex.value.suggested_filename.endswith(".tex")

    row.get_by_role("link", name="HTML", exact=True).click()
    page.wait_for_url(re.compile(rf"/analyses/{run.pk}\.html$"))
    expect(page.get_by_role("heading", name="Demo: learner essays")).to_be_visible()
    agreement = page.locator("section", has=page.get_by_role("heading", name="Agreement", exact=True)).inner_text()
    assert re.search(r"Inter-annotator\s+0\.\d\d", agreement) and re.search(r"Intra-annotator\s+0\.\d\d", agreement)
    judges = page.locator("section", has=page.get_by_role("heading", name="Judgments", exact=True)).inner_text()
    for name in ("ann", "ben"):  # each demo judge's rankings, as the demo stored them
        rankings = Judgment.objects.filter(assignment__campaign=campaign, assignment__judge__username=name).count()
        assert rankings > 0 and re.search(rf"{name}\s+{rankings}\b", judges), (name, rankings)
    page.screenshot(path=str(artifacts / "report-demo-inline-1280x800.png"), full_page=True)


def test_api_docs_render_with_the_network_blocked(live_server, new_page, artifacts, roles):
    page = new_page()
    aborted = []

    def only_loopback(route):
        if urlsplit(route.request.url).hostname in LOOPBACK:
            route.continue_()
        else:
            aborted.append(route.request.url)
            route.abort()

    page.context.route("**/*", only_loopback)
    log_in(page, live_server, "olga", "olgaolga")
    page.get_by_role("link", name="API docs").click()
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("gecappraise API", timeout=15_000)
    expect(page.locator(".opblock-summary-path", has_text="/api/campaigns/").first).to_be_visible()
    assert aborted == []
    page.screenshot(path=str(artifacts / "api-docs-offline-1280x800.png"), full_page=True)


def test_the_new_campaign_forms_checkbox_sits_beside_its_label(live_server, new_page, artifacts, roles):
    page = new_page()
    log_in(page, live_server, "olga", "olgaolga")
    page.get_by_role("link", name="New campaign").click()
    box = page.get_by_label("Judge the source too").bounding_box()
    label = page.locator("label", has_text="Judge the source too").bounding_box()
    assert abs((box["y"] + box["height"] / 2) - (label["y"] + label["height"] / 2)) < 6, (box, label)
    assert 0 <= label["x"] - (box["x"] + box["width"]) < 24, (box, label)
    page.locator(".field-checkbox", has_text="Judge the source too").screenshot(
        path=str(artifacts / "campaign-form-checkbox.png")
    )
