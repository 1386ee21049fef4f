"""The organizer's live dashboard in headless Chromium: while a judge submits and flags screens in a second browser
(own cookies), the organizer's campaign page updates its progress, leaderboard, judges and flags without a reload;
the flag links to the screen's page, where the organizer excludes the screen from analysis. Screenshots go to
test-artifacts/."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Screen, ScreenJob
from annotation.services import campaign_closing, screen_jobs
from annotation.services.importing import import_outputs
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens
from annotation.services.textfiles import NamedFile
from tests.annotation.factories import add_screen, candidate_of, judge, small_campaign
from tests.browser.session import ORGANIZER_PASSWORD, UPDATE, dashboard_updated, log_in, organized_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ORDER = {"ZEPHYRSYS": 1, "QUOKKAGEC": 2, "MARMOTFIX": 3, "INPUT": 4}


def earlier_judgments(campaign, n: int) -> None:
    """``n`` rankings of line 4 by two imported judges, ZEPHYRSYS best: a history with points and clusters."""
    shown = [JudgedCandidate(candidate_of(campaign, 4, system).pk, rank) for system, rank in ORDER.items()]
    with transaction.atomic():
        write_judged_screens(campaign, [
            JudgedScreen(line=4, judge=("ann", "bob")[i % 2], candidates=shown, duration=timedelta(seconds=20 + i % 7))
            for i in range(n)
        ])


def test_the_dashboard_follows_a_judge_live(live_server, new_page, artifacts):
    organizer_user = get_user_model().objects.create_user("orga", password="organizer-pw-1")
    campaign = small_campaign()
    campaign.organizers.add(organizer_user)
    judge("judy", campaign, password="judy-password-1")
    earlier_judgments(campaign, 230)
    for line in (1, 2, 5):
        add_screen(campaign, line)

    campaign_path = reverse("campaign-detail", args=[campaign.pk])
    organizer = new_page()
    log_in(organizer, live_server, "orga", "organizer-pw-1", campaign_path)
    dashboard_updated(organizer)
    expect(organizer.locator("#plan-slots")).to_have_text(re.compile(r"^230 of 233 submitted"))
    board = organizer.locator("#leaderboard tbody tr")
    expect(board).to_have_count(4)
    expect(board.first.locator("td").nth(1)).to_have_text("ZEPHYRSYS")
    expect(board.first.locator("td.range")).to_have_text("1–1")
    expect(organizer.locator("#history-scores path.series")).to_have_count(4)
    expect(organizer.locator("#history-separated circle")).to_have_count(2, timeout=UPDATE)  # a checkpoint a poll
    for chart in ("#history-scores", "#history-separated"):
        expect(organizer.locator(chart)).to_have_accessible_description(
            "Their numbers are in the table under the charts.")
    numbers = organizer.locator("#history-table")
    expect(numbers).to_be_hidden()
    organizer.get_by_text("The numbers behind the charts").click()
    expect(numbers.locator("thead th")).to_have_count(4 + 2)
    expect(numbers.locator("thead th").last).to_have_text("Separated pairs")
    expect(numbers.locator("tbody tr")).to_have_count(2)
    expect(numbers.locator("tbody tr th[scope=row]")).to_have_text(["100", "200"])
    expect(numbers.locator("tbody tr").last.locator("td").first).to_have_text(re.compile(r"^0\.\d{3}$"))
    expect(organizer.locator("#stopping-hint")).to_contain_text("Clusters unchanged over the last 100 judgments",
                                                                timeout=UPDATE)
    expect(organizer.locator("#flags tbody")).to_contain_text("No screen has been flagged.")
    pairs_before = board.first.locator("td").nth(5).inner_text()
    organizer.evaluate("() => { window.stillTheSamePage = true; }")
    organizer.screenshot(path=artifacts / "dashboard-before-1280x800.png", full_page=True)

    judge_page = new_page()
    log_in(judge_page, live_server, "judy", "judy-password-1", reverse("home"))
    judge_page.get_by_role("link", name=re.compile("Start judging")).click()
    for k in (1, 2):
        expect(judge_page.locator("#screen-counter")).to_have_text(f"Screen {k} of 3")
        judge_page.wait_for_load_state("domcontentloaded")
        for position in range(judge_page.locator(".candidate").count()):
            judge_page.locator(f"#candidate-{position} label.rank").nth(position).click()
        judge_page.locator("#submit").click()

    expect(organizer.locator("#plan-slots")).to_have_text(re.compile(r"^232 of 233 submitted"), timeout=UPDATE)
    expect(organizer.locator("#judge-progress tr[data-judge='judy'] td").nth(1)).to_have_text("2", timeout=UPDATE)
    judy_qc = organizer.locator("#rater-qc tr[data-rater='judy'] td")
    expect(judy_qc.nth(2)).to_have_text("2", timeout=UPDATE)
    expect(judy_qc.nth(7)).to_have_text("Included")
    expect(organizer.locator("#rater-qc-summary")).to_contain_text("left out of the analyses")
    expect(board.first.locator("td").nth(5)).not_to_have_text(pairs_before, timeout=UPDATE)

    expect(judge_page.locator("#screen-counter")).to_have_text("Screen 3 of 3")
    judge_page.wait_for_load_state("domcontentloaded")
    judge_page.get_by_role("button", name="Flag…").click()
    judge_page.get_by_label("Garbled source sentence").check()
    judge_page.get_by_label("Details (optional)").fill("half of the sentence is missing")
    judge_page.get_by_role("button", name="Flag screen").click()
    expect(judge_page.locator("#all-done")).to_be_visible()

    flag = organizer.locator("#flags tbody tr").first
    expect(flag.locator("td.reason")).to_have_text("Garbled source sentence", timeout=UPDATE)
    expect(flag.locator("td.details")).to_have_text("half of the sentence is missing")
    expect(organizer.locator("#plan-flags")).to_have_text("1")
    expect(organizer.locator("#flags-summary")).to_have_text("1 flagged screen.")
    assert organizer.evaluate("() => window.stillTheSamePage") is True, "the page was not reloaded"
    organizer.screenshot(path=artifacts / "dashboard-live-1280x800.png", full_page=True)

    flagged = Screen.objects.get(campaign=campaign, segment__line=5)
    flag.get_by_role("link").click()
    expect(organizer.get_by_role("heading", level=1)).to_contain_text(f"Screen {flagged.number}")
    expect(organizer.locator("#screen-judgments")).to_contain_text("half of the sentence is missing")
    organizer.get_by_role("button", name="Exclude from analysis").click()
    expect(organizer.locator(".messages")).to_contain_text("is excluded from analysis")
    assert Screen.objects.get(pk=flagged.pk).excluded
    organizer.screenshot(path=artifacts / "dashboard-screen-excluded-1280x800.png", full_page=True)
    organizer.get_by_role("link", name=re.compile("dashboard")).click()
    expect(organizer.locator("#flags tbody tr").first.locator("td").last).to_have_text("Excluded")
    expect(organizer.locator("#plan-screens")).to_contain_text("1 excluded from analysis")


def two_systems_judged(judgments: int):
    """A campaign of two systems, 'better' ranked above 'worse' ``judgments`` times, and its organizer."""
    organizer_user = get_user_model().objects.create_user("orga", password="organizer-pw-1")
    text = lambda lines: ("\n".join(lines) + "\n").encode()
    campaign = import_outputs("two systems", NamedFile("source", text(["He go .", "She go ."])), [
        NamedFile("better", text(["He goes .", "She goes ."])), NamedFile("worse", text(["He went .", "She gone ."])),
    ])
    campaign.organizers.add(organizer_user)
    shown = [JudgedCandidate(candidate_of(campaign, 0, "better").pk, 1),
             JudgedCandidate(candidate_of(campaign, 0, "worse").pk, 2)]
    with transaction.atomic():
        write_judged_screens(campaign, [JudgedScreen(line=0, judge=("ann", "bob")[i % 2], candidates=shown)
                                        for i in range(judgments)])
    return campaign


def test_a_campaign_of_two_systems_is_counted_in_the_singular(live_server, new_page):
    """Two systems make one system pair, and a stopping hint over the last judgment is over one judgment: the
    dashboard said "1 of 1 system pairs separated" and "Clusters unchanged over the last 1 judgments"."""
    campaign = two_systems_judged(200)
    organizer = new_page()
    log_in(organizer, live_server, "orga", "organizer-pw-1",
           reverse("campaign-detail", args=[campaign.pk]) + "?k=1")
    dashboard_updated(organizer)
    expect(organizer.locator("#separated-pairs")).to_have_text(
        "1 of 1 system pair separated; 0 still unresolved (overlapping rank ranges).")
    expect(organizer.locator("#stopping-hint")).to_have_text(re.compile(
        r"^Clusters unchanged over the last 1 judgment \(the same since \d+\): more judgments are unlikely"),
        timeout=UPDATE)


def test_clusters_new_at_the_newest_checkpoint_are_not_said_unchanged_over_0_judgments(live_server, new_page):
    """120 judgments make one checkpoint (at 100): its clusters have nothing to be compared with yet. The hint said
    "Clusters unchanged over the last 0 judgments (since 100); the hint waits for 1."."""
    campaign = two_systems_judged(120)
    organizer = new_page()
    log_in(organizer, live_server, "orga", "organizer-pw-1",
           reverse("campaign-detail", args=[campaign.pk]) + "?k=1")
    expect(organizer.locator("#stopping-hint")).to_have_text(
        "The clusters are new at the newest checkpoint (100 judgments); the hint waits until they stay the same over "
        "1 judgment.", timeout=UPDATE)


def test_the_campaign_page_follows_its_screen_jobs_without_a_reload(live_server, new_page, settings, monkeypatch):
    """Screens added in the background show their progress and status under "Add screens" as the job goes, with
    the campaign's screen count, and a job whose process stopped gets its "Go on" button, which goes on. The page
    said "Queued, 0" until it was reloaded, while its message said to see their progress there."""
    settings.ANALYSIS_EXECUTION = "celery"  # the requests only record the jobs; this test runs them
    monkeypatch.setattr(screen_jobs, "MAX_SCREENS_PER_REQUEST", 5)
    campaign = organized_campaign()
    written, stopped = screen_jobs.request_screens(campaign, 9).job, screen_jobs.request_screens(campaign, 7).job
    page = new_page()
    log_in(page, live_server, "orga", ORGANIZER_PASSWORD, reverse("campaign-detail", args=[campaign.pk]))
    first, second = (page.locator(f'#screen-jobs tr[data-job="{job.pk}"]') for job in (written, stopped))
    expect(first.locator(".job-status")).to_have_text("Queued")
    expect(page.locator("#screens-so-far")).to_have_text("0 screens")

    screen_jobs.run_job(written.pk)
    expect(first.locator(".job-status")).to_have_text("Done", timeout=UPDATE)
    # The same poll's: its screen count is read in the snapshot of its jobs (it once said 0 screens beside "Done").
    expect(first.locator(".job-created")).to_have_text("9")
    expect(first.locator("progress")).to_have_js_property("value", 9)
    expect(page.locator("#screens-so-far")).to_have_text("9 screens")
    expect(second.locator(".job-status")).to_have_text("Queued")
    expect(page.get_by_role("button", name="Go on")).to_have_count(0)

    settings.ANALYSIS_EXECUTION = "inline"  # a stopped job is failed where no Celery worker would redeliver it
    ScreenJob.objects.filter(pk=stopped.pk).update(status=ScreenJob.Status.RUNNING)  # no process holds it
    expect(second.locator(".job-status")).to_have_text(
        "Failed: " + screen_jobs.ABANDONED.format(created=0, requested=7), timeout=UPDATE)
    expect(first.get_by_role("button", name="Go on")).to_have_count(0)
    with page.expect_navigation(timeout=UPDATE):  # the page itself, served after the job wrote its screens
        second.get_by_role("button", name="Go on").click()
    expect(page.locator("#screens")).to_contain_text("Going on with the 7 screens not added yet")
    expect(page.locator("#screens-so-far")).to_have_text("16 screens")
    assert ScreenJob.objects.get(pk=stopped.pk).status == ScreenJob.Status.DONE


def test_the_organizer_closes_the_campaign_from_its_page_and_the_page_follows_a_reopening(live_server, new_page):
    """Only the admin's campaign form could close a campaign. Its page now says whether it is open, leads to a page
    that says what closing does and closes on confirmation; a reopening elsewhere (the API, the admin) is shown by
    the live dashboard without a reload."""
    campaign = organized_campaign()
    page = new_page()
    log_in(page, live_server, "orga", ORGANIZER_PASSWORD, reverse("campaign-detail", args=[campaign.pk]))
    expect(page.locator("#campaign-closed-at")).to_have_text("Open")
    expect(page.locator("#reopen-link")).to_be_hidden()
    page.get_by_role("link", name="Close the campaign…").click()
    expect(page.locator("#closing-effects")).to_contain_text("Judges can no longer get or submit screens")
    page.get_by_role("button", name="Close the campaign").click()
    page.wait_for_load_state()
    campaign.refresh_from_db()
    closed = f"Closed at {campaign_closing.closed_at_text(campaign.closed_at)}"
    expect(page.locator("#campaign-closed-at")).to_have_text(closed)
    expect(page.locator(".messages")).to_contain_text(f"Closed campaign {campaign.name!r} at")
    expect(page.locator("#close-link")).to_be_hidden()
    campaign_closing.reopen(campaign)
    expect(page.locator("#campaign-closed-at")).to_have_text("Open", timeout=UPDATE)
    expect(page.locator("#close-link")).to_be_visible()
    expect(page.locator("#reopen-link")).to_be_hidden()
