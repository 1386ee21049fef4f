"""The analyses page in headless Chromium, embedded mode (ANALYSIS_EXECUTION = "process", as ./dev demo runs): the
organizer starts an analysis, the answer is back in under a second, and the run's progress bar moves on to Done
without a reload, the banner saying what the table says. Screenshots go to test-artifacts/."""
from __future__ import annotations

import re
import time

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from ranking.models import AnalysisRun
from tests.browser.session import log_in
from tests.ranking.factories import synthetic_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "organizer-pw-1"


@pytest.fixture
def background_runs_finish():
    """Teardown waits for the runs being computed elsewhere, so that none outlives its test's data."""
    yield
    deadline = time.monotonic() + 300
    active = (AnalysisRun.Status.QUEUED, AnalysisRun.Status.RUNNING)
    while AnalysisRun.objects.filter(status__in=active).exists() and time.monotonic() < deadline:
        time.sleep(0.2)


def test_an_analysis_starts_at_once_and_its_progress_bar_reaches_done_without_a_reload(
    live_server, new_page, artifacts, settings, background_runs_finish
):
    settings.ANALYSIS_EXECUTION = "process"
    campaign = synthetic_campaign("live", np.random.default_rng(21), n_rankings=300)
    campaign.organizers.add(get_user_model().objects.create_user("orga", password=PASSWORD))
    path = reverse("campaign-analyses", args=[campaign.pk])
    page = new_page()
    log_in(page, live_server, "orga", PASSWORD, path)
    expect(page.get_by_role("heading", name="Analyses")).to_be_visible()

    page.get_by_label("Bootstrap").fill("3000")
    page.get_by_role("button", name="Run analysis").click()
    page.wait_for_url(re.compile(r"\?started=\d+$"))
    # From the submit to the first byte of the answer (POST, redirect, GET), as the browser measured it.
    answered_ms = page.evaluate('performance.getEntriesByType("navigation")[0].responseStart')
    assert answered_ms < 1000, answered_ms
    page.evaluate("window.stillThisPage = true")  # a reload or navigation would drop it

    run = AnalysisRun.objects.get(campaign=campaign)
    row = page.locator(f'#analysis-runs tr[data-run="{run.pk}"]')
    banner = page.locator("#analysis-banner .run-label")
    expect(row.locator("progress")).to_be_visible()  # queued or running: the bar is there from the start
    expect(banner).to_have_text(re.compile("Queued|Running"))
    page.screenshot(path=artifacts / "analyses-progress-1280x800.png")

    expect(row.locator(".run-label")).to_have_text("Done", timeout=180_000)
    expect(banner).to_have_text("Done")
    expect(row.locator("progress")).to_have_count(0)
    expect(row.get_by_role("link", name="JSON")).to_have_attribute(
        "href", reverse("campaign-analysis-report", args=[campaign.pk, run.pk, "json"]))
    assert page.evaluate("window.stillThisPage") is True
    page.screenshot(path=artifacts / "analyses-done-1280x800.png")
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.DONE and run.result["parameters"]["bootstrap"] == 3000
