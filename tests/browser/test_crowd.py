"""Crowd campaigns in headless Chromium (issue 10): a Prolific link opens the first screen with no login (its counter
counting the session's screens), leaving and reopening it resumes the same screen, finishing shows the completion
code and follows the redirect to the platform, an MTurk preview stores nothing, and a crowd worker cannot open
another campaign's screens or an organizer page. Screenshots go to test-artifacts/."""
from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Assignment, CrowdSession, CrowdWorker
from annotation.services import campaign_closing, crowd_completion, queue
from tests.annotation.factories import add_screen, judge, small_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COMPLETION = "https://app.prolific.com/submissions/complete?cc={code}"


@pytest.fixture
def crowd():
    campaign = small_campaign("crowd", crowd=True, crowd_session_screens=2, crowd_completion_url=COMPLETION)
    for line in range(4):
        add_screen(campaign, line)
    return campaign


def study_link(live_server, campaign, **params) -> str:
    query = "&".join(f"{name}={value}" for name, value in params.items())
    return f"{live_server.url}{reverse('crowd-study-link', args=[campaign.crowd_key])}?{query}"


def start(page, link: str, button: str = "Start") -> None:
    """Open the study link (its start page, which stores nothing) and press its ``button`` (Start, or Continue for
    the worker's session under way)."""
    page.goto(link)
    page.get_by_role("button", name=button, exact=True).click()
    page.wait_for_load_state()


def rank_and_submit(page, n: int) -> None:
    page.wait_for_load_state("domcontentloaded")
    for position in range(n):
        page.locator(f"#candidate-{position} label.rank").nth(position).click()
    page.locator("#submit").click()


def test_prolific_link_opens_resumes_and_finishes_with_the_code_and_redirect(live_server, new_page, artifacts, crowd):
    link = study_link(live_server, crowd, PROLIFIC_PID="60a1b2c3d4e5f6a7b8c9d0e1", STUDY_ID="st01", SESSION_ID="se01")
    page = new_page()
    page.goto(link)
    expect(page.locator("#study-start-note")).to_contain_text("nothing is stored until you start")
    page.screenshot(path=artifacts / "crowd-start-page.png")
    assert not CrowdWorker.objects.exists() and "sessionid" not in {c["name"] for c in page.context.cookies()}
    page.get_by_role("button", name="Start", exact=True).click()
    expect(page).to_have_url(re.compile(r"/judge/screens/[0-9a-f-]+/$"))
    expect(page.locator("#source")).to_be_visible()
    expect(page.locator("#screen-counter")).to_have_text("Screen 1 of 2")
    first_screen = page.url
    page.screenshot(path=artifacts / "crowd-first-screen.png")

    page.goto(live_server.url + "/")  # leaving: the same browser reopens the link, and is asked to continue
    start(page, link, "Continue")
    assert page.url == first_screen
    elsewhere = new_page()  # another browser (no cookies) with the same worker id
    start(elsewhere, link, "Continue")
    assert elsewhere.url == first_screen
    assert CrowdWorker.objects.count() == 1

    n = len(queue.candidate_keys(Assignment.objects.get(token=first_screen.rstrip("/").split("/")[-1])))
    rank_and_submit(page, n)
    expect(page).to_have_url(re.compile(r"/judge/screens/"))
    assert page.url.split("?")[0] != first_screen
    expect(page.locator("#screen-counter")).to_have_text("Screen 2 of 2")
    second = Assignment.objects.get(token=page.url.split("?")[0].rstrip("/").split("/")[-1])

    platform = []
    page.context.route("https://app.prolific.com/**", lambda route: (
        platform.append(route.request.url),
        route.fulfill(status=200, content_type="text/html", body="<h1>Prolific: submission complete</h1>"),
    ))
    rank_and_submit(page, len(queue.candidate_keys(second)))
    code = crowd_completion.completion_code(crowd, "prolific", "60a1b2c3d4e5f6a7b8c9d0e1", "se01", "completed")
    expect(page.locator("#completion-code")).to_have_text(code)
    page.screenshot(path=artifacts / "crowd-completion.png")
    page.wait_for_url(re.compile(r"app\.prolific\.com"), timeout=10_000)
    assert platform and platform[-1] == COMPLETION.format(code=code)
    expect(page.get_by_role("heading")).to_have_text("Prolific: submission complete")
    session = CrowdSession.objects.get()
    assert (session.code, session.outcome) == (code, "completed")
    assert Assignment.objects.filter(judge=session.worker.judge, status=Assignment.Status.SUBMITTED).count() == 2


def test_mturk_preview_shows_a_sample_and_stores_nothing(live_server, new_page, artifacts, crowd):
    users = get_user_model().objects.count()
    served = Assignment.objects.exclude(status=Assignment.Status.PENDING).count()
    page = new_page()
    page.goto(study_link(live_server, crowd, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId="3XYZ"))
    expect(page.locator("#preview-note")).to_contain_text("nothing is stored")
    expect(page.locator("#sample-screen .candidate").first).to_be_visible()
    page.screenshot(path=artifacts / "crowd-mturk-preview.png")
    assert get_user_model().objects.count() == users
    assert not CrowdWorker.objects.exists()
    assert Assignment.objects.exclude(status=Assignment.Status.PENDING).count() == served
    assert "sessionid" not in {cookie["name"] for cookie in page.context.cookies()}


def test_crowd_worker_cannot_open_another_campaigns_screen_or_an_organizer_page(live_server, new_page, crowd):
    other = small_campaign("invited")
    invited = judge("invited-judge", other)
    add_screen(other, 0, judges=[invited])
    foreign = queue.next_assignment(other, invited)
    page = new_page()
    start(page, study_link(live_server, crowd, workerId="A2MTURKWORKER", assignmentId="3ASSIGN", hitId="3HIT"))
    expect(page).to_have_url(re.compile(r"/judge/screens/"))
    # Another judge's screen is refused (403, the queue's ForeignScreen); campaigns the worker does not judge or
    # manage are not found (404); crowd workers have no password to change (403); the admin sends to its login page.
    for path, status in (
        (reverse("judge-screen", args=[foreign.token]), 403),
        (reverse("judge-campaign", args=[other.pk]), 404),
        (reverse("campaign-detail", args=[crowd.pk]), 404),
        (reverse("campaign-detail", args=[other.pk]), 404),
        (reverse("campaign-crowd-workers", args=[crowd.pk]), 404),
        (reverse("campaign-raters", args=[crowd.pk]), 404),
        (reverse("judge-password"), 403),
    ):
        response = page.goto(live_server.url + path)
        assert response.status == status, (path, response.status, page.url)
        assert other.name not in page.content(), path
    response = page.goto(live_server.url + "/admin/")
    assert response.status == 200 and page.url.startswith(live_server.url + "/admin/login/"), page.url
    response = page.goto(live_server.url + reverse("campaign-list"))
    assert response.status == 403 and other.name not in page.content(), "only organizers see the campaign list"


def test_a_crowd_workers_ended_session_is_told_with_the_study_link_to_open_again(live_server, new_page, crowd):
    """A crowd worker has no password: when their login session on the site ends (here it ran out) while a screen
    is open, the page says so when they come back to it, submits nothing, and offers their study link, which brings
    the screen back with the ranks given. The page used to find nothing wrong, and Submit led to a login page they
    could not use."""
    link = study_link(live_server, crowd, PROLIFIC_PID="60a1b2c3d4e5f6a7b8c9d0e1", STUDY_ID="st01", SESSION_ID="se01")
    page = new_page()
    start(page, link)
    expect(page.locator("#screen-counter")).to_have_text("Screen 1 of 2")
    page.wait_for_load_state("domcontentloaded")
    screen_url = page.url
    page.locator("#candidate-0 label.rank").nth(1).click()
    page.locator("#candidate-1 label.rank").nth(0).click()
    Session.objects.all().delete()  # the session ran out on the server

    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    ended = page.locator("#screen-gone")
    expect(ended).to_contain_text("Your session on this site has ended")
    expect(page.locator("#submit")).to_be_disabled()
    page.get_by_role("link", name="Open the study link again").click()
    page.get_by_role("button", name="Continue", exact=True).click()
    expect(page).to_have_url(screen_url)
    page.wait_for_load_state("domcontentloaded")
    checked = page.eval_on_selector_all(".candidate input:checked", "inputs => inputs.map(i => i.value)")
    assert checked == ["2", "1"], "the ranks given before come back"
    expect(page.locator("#screen-gone")).to_be_hidden()


def test_a_crowd_workers_open_screen_leads_to_the_code_when_the_study_closes(live_server, new_page, crowd):
    """The study closes while a worker, one screen of their session judged, has the next open: when they come back
    to it, the page says the campaign is closed and its link, "Finish", leads to the completion code of the screen
    they judged. The link read "Go to your current screen", which a closed campaign has none of."""
    page = new_page()
    start(page, study_link(live_server, crowd, PROLIFIC_PID="60a1b2c3d4e5f6a7b8c9d0e1", STUDY_ID="st01",
                           SESSION_ID="se01"))
    first = Assignment.objects.get(token=page.url.rstrip("/").split("/")[-1])
    rank_and_submit(page, len(queue.candidate_keys(first)))
    expect(page.locator("#screen-counter")).to_have_text("Screen 2 of 2")
    campaign_closing.close(crowd)

    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(page.locator("#screen-gone")).to_contain_text("This campaign is closed; it takes no more judgments.")
    expect(page.locator("#submit")).to_be_disabled()
    page.get_by_role("link", name="Finish").click()
    code = crowd_completion.completion_code(crowd, "prolific", "60a1b2c3d4e5f6a7b8c9d0e1", "se01", "completed")
    expect(page.locator("#completion-code")).to_have_text(code)
    expect(page.locator("#study-closed")).to_be_visible()
