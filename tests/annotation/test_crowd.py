"""Crowd campaigns (issue 10): the study link's parameters, one judge per worker, resuming, MTurk previews, screen
limits, completion codes, the organizer's CSV, and what a crowd worker may open (every URL of the product)."""
from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import connection
from django.http import QueryDict
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.campaign_forms import CampaignImportForm
from annotation.models import Assignment, Campaign, CrowdSession, CrowdWorker, Invite, Judgment, RaterStatus
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services import campaign_closing, crowd_completion, crowd_exports, queue, rater_qc
from annotation.services.crowd_entry import MTURK_PREVIEW, CrowdLinkError, parse_visit
from annotation.services.invites import InviteError, LoginRequired, create_invite, digest, link_logs_in, redeem_invite
from annotation.views.crowd import NO_STUDY

from . import test_role_endpoint_matrix as matrix
from .factories import add_screen, small_campaign
from .test_importing import SOURCE, SYSTEMS
from .test_organizer import form_data, upload

User = get_user_model()


def query(**values) -> QueryDict:
    data = QueryDict(mutable=True)
    data.update(values)
    return data


# -- the link's parameters (no database) --

def test_prolific_mturk_and_generic_parameters_name_the_platform():
    prolific = parse_visit(query(PROLIFIC_PID="5f0c1d2e3a4b", STUDY_ID="st1", SESSION_ID="se1"))
    assert (prolific.platform, prolific.worker_id, prolific.study_id, prolific.session_id) == (
        "prolific", "5f0c1d2e3a4b", "st1", "se1")
    mturk = parse_visit(query(workerId="A1B2C3", assignmentId="as-9", hitId="hit-3"))
    assert (mturk.platform, mturk.worker_id, mturk.study_id, mturk.session_id) == ("mturk", "A1B2C3", "hit-3", "as-9")
    generic = parse_visit(query(worker="w_1"))
    assert (generic.platform, generic.worker_id, generic.session_id, generic.preview) == ("generic", "w_1", "", False)


def test_mturk_preview_is_a_preview_without_a_worker():
    visit = parse_visit(query(assignmentId=MTURK_PREVIEW, hitId="h1", workerId=""))
    assert visit.preview and visit.worker_id == ""


@pytest.mark.parametrize("values, message", [
    ({}, "needs your worker id"),
    ({"PROLIFIC_PID": ""}, "PROLIFIC_PID is empty"),
    ({"worker": "x" * 65}, "longer than 64"),
    ({"worker": "a b"}, "only letters, digits"),
    ({"workerId": "<script>"}, "only letters, digits"),
    ({"PROLIFIC_PID": "p1", "SESSION_ID": "s/1"}, "SESSION_ID may hold only"),
    ({"PROLIFIC_PID": "p1", "workerId": "w1"}, "two worker ids"),
])
def test_bad_parameters_are_refused_with_the_parameter_named(values, message):
    with pytest.raises(CrowdLinkError, match=message):
        parse_visit(query(**values))


@pytest.mark.parametrize("repeated, name", [
    ("worker=w1&worker=w2", "worker"),
    ("PROLIFIC_PID=p1&STUDY_ID=st1&SESSION_ID=s1&SESSION_ID=s2", "SESSION_ID"),
    ("workerId=A1&hitId=h1&hitId=h2", "hitId"),
])
def test_a_parameter_given_twice_with_two_values_is_refused(repeated, name):
    """A study link whose parameter comes twice (a platform's placeholder appended to a link that had a test id,
    ?worker=test&worker={{ID}}) took the last value: with the placeholder first, every worker came as the one test
    id, the same judge, sharing their screens and their completion code."""
    with pytest.raises(CrowdLinkError, match=f"gives {name} twice, with different values"):
        parse_visit(QueryDict(repeated))
    assert parse_visit(QueryDict("worker=w1&worker=w1")).worker_id == "w1", "the same value twice is that value"


# -- the link, one judge per worker, resuming --

@pytest.fixture
def crowd(db):
    campaign = small_campaign("crowd", crowd=True, crowd_session_screens=2,
                              crowd_completion_url="https://app.prolific.com/submissions/complete?cc={code}")
    organizer = User.objects.create_user("orga", password="pw")
    campaign.organizers.add(organizer)
    for line in range(6):
        add_screen(campaign, line)
    return campaign


def link(campaign: Campaign, **params) -> str:
    parameters = "&".join(f"{name}={value}" for name, value in params.items())
    return reverse("crowd-study-link", args=[campaign.crowd_key]) + "?" + parameters


def prolific(campaign: Campaign, pid: str, session: str = "S1") -> str:
    return link(campaign, PROLIFIC_PID=pid, STUDY_ID="ST", SESSION_ID=session)


def start(client: Client, url: str, **options):
    """Open the study link (its start page, which stores nothing) and press its Start or Continue button: the
    answer to that POST of the link."""
    page = client.get(url)
    assert page.status_code == 200 and b'id="study-start"' in page.content, page.content[:500]
    return client.post(url, **options)


def open_screen(client: Client, url: str) -> str:
    """Follow the study link, through its start page, to the worker's screen; its URL."""
    response = start(client, url, follow=True)
    assert response.status_code == 200, response.content[:500]
    return response.redirect_chain[-1][0]


def submit(client: Client, screen_url: str) -> str:
    """Rank every candidate of the screen 1 (a tie) and submit; where the page goes next."""
    assignment = Assignment.objects.get(token=screen_url.rstrip("/").split("/")[-1])
    keys = queue.candidate_keys(assignment)
    data = {f"candidate_{i}": key for i, key in enumerate(keys)} | {f"rank_{i}": "1" for i in range(len(keys))}
    response = client.post(screen_url, data | {"active_ms": "2500"})
    assert response.status_code == 302, response.content[:500]
    return response["Location"].split("?")[0]


def test_link_makes_a_passwordless_judge_of_this_campaign_only(crowd):
    client = Client()
    screen_url = open_screen(client, prolific(crowd, "PID1"))
    assert "/judge/screens/" in screen_url
    worker = CrowdWorker.objects.get()
    session = worker.sessions.get()
    assert (worker.platform, worker.worker_id, session.study_id, session.session_id, session.current) == (
        "prolific", "PID1", "ST", "S1", True)
    assert not worker.judge.has_usable_password() and worker.judge.email == ""
    assert list(worker.judge.judged_campaigns.all()) == [crowd]


def test_a_crowd_worker_whose_campaign_closed_mid_session_is_led_to_the_completion_code(crowd):
    """The campaign closes while a worker has judged a screen of their session and has the next one open: the
    refused submit leads on to the session's end page, with the completion code for the screen they judged. The
    refusal offered only "Your campaigns", whose page has no way to the code, so the worker could not be paid."""
    client = Client()
    first = open_screen(client, prolific(crowd, "PID1"))
    second = submit(client, first)
    close(crowd)
    refused = client.post(second, {"rank_0": "1"})
    assert refused.status_code == 409
    way_on = re.search(r'<a class="button" id="way-on" href="([^"]+)">Finish</a>', refused.content.decode())
    assert way_on is not None and way_on.group(1) == reverse("judge-done", args=[crowd.pk])
    end = client.get(way_on.group(1)).content.decode()
    session = CrowdSession.objects.get()
    assert session.code and f'<code id="completion-code">{session.code}</code>' in end


def close(campaign: Campaign) -> None:
    campaign_closing.close(campaign)


def stored() -> tuple[int, ...]:
    """What a refused visit of the study link must leave as it was: accounts, workers, their sessions (and which is
    current, with its code) and assignments served."""
    return (User.objects.count(), CrowdWorker.objects.count(), CrowdSession.objects.count(),
            CrowdSession.objects.filter(current=True).count(), CrowdSession.objects.exclude(code="").count(),
            Assignment.objects.exclude(status=Assignment.Status.PENDING).count())


def test_a_worker_who_left_before_the_code_gets_it_through_the_study_link_after_the_close(crowd):
    """A worker judged their session's two screens (the last submit gave the code) and closed the tab before the
    completion page; the organizer then closed the study. The link answered 410 "This study is closed" to them too,
    so the code they earned was out of reach and they could not be paid. Now their link shows it (and sends them on
    to the platform), again on a reload, in another browser; a new worker, a new session of the worker and a preview
    are still refused."""
    client = Client()
    submit(client, submit(client, open_screen(client, prolific(crowd, "PID1"))))
    assert CrowdSession.objects.get().code, "given at the last submit; the worker left before the completion page"
    close(crowd)
    response = Client().get(prolific(crowd, "PID1"))
    assert response.status_code == 200
    code = crowd_completion.completion_code(crowd, "prolific", "PID1", "S1", "completed")
    assert code_on(response) == code and CrowdSession.objects.get().code == code
    page = response.content.decode()
    assert f"https://app.prolific.com/submissions/complete?cc={code}" in page and 'id="study-closed"' in page
    assert code_on(Client().get(prolific(crowd, "PID1"))) == code
    before = stored()
    for refused in (prolific(crowd, "NEW"), prolific(crowd, "PID1", session="S2"),
                    link(crowd, assignmentId=MTURK_PREVIEW, hitId="H1")):
        response = Client().get(refused)
        assert response.status_code == 410 and b"This study is closed; it takes no more work." in response.content
    assert stored() == before


def test_a_session_in_progress_at_the_close_ends_with_a_code_for_its_screens(crowd):
    """A worker judged one of their session's two screens before the close and comes back by the link: the session
    ends there with a code for that screen, as the done page gives it at the close, and the page says the study is
    closed. Reopened, the study shows that code again and serves nothing more in the session; a new session goes
    on."""
    client = Client()
    submit(client, open_screen(client, prolific(crowd, "PID1")))
    close(crowd)
    response = Client().get(prolific(crowd, "PID1"))
    assert response.status_code == 200 and 'id="study-closed"' in response.content.decode()
    code = code_on(response)
    _, rows = workers_csv(crowd)
    assert [(row["session_screens"], row["code"]) for row in rows] == [("1", code)]
    crowd.closed_at = None
    crowd.save()
    again = Client()
    assert code_on(again.get(prolific(crowd, "PID1"), follow=True)) == code
    assert Assignment.objects.filter(judge=CrowdWorker.objects.get().judge).count() == 2, "the left screen only"
    assert "/judge/screens/" in open_screen(again, prolific(crowd, "PID1", session="S2"))


def test_a_workers_home_page_leads_to_the_code_after_the_close(crowd):
    """The header's Judging link of a worker whose study closed said "This campaign is closed. Thank you!" and
    nothing more: a worker who had not seen their code found no way to it there."""
    client = Client()
    submit(client, open_screen(client, prolific(crowd, "PID1")))
    close(crowd)
    page = client.get(reverse("judge-home")).content.decode()
    finish = re.search(r'<a class="button" href="([^"]+)">Finish your session', page)
    assert finish is not None and finish.group(1) == reverse("judge-done", args=[crowd.pk])
    assert code_on(client.get(finish.group(1))) == CrowdSession.objects.get().code


def test_a_worker_without_a_screen_in_their_session_is_told_the_study_closed(crowd):
    """A worker was served a screen and left it unanswered before the close: no code, and the page says that the
    study is closed (not that screens may come later)."""
    open_screen(Client(), prolific(crowd, "PID1"))
    close(crowd)
    response = Client().get(prolific(crowd, "PID1"))
    page = response.content.decode()
    assert response.status_code == 200 and 'id="completion-code"' not in page
    assert "This study is closed; it takes no more work. You submitted no screen in this session" in page
    assert CrowdSession.objects.get().completed_at is None


def test_an_earlier_session_id_after_the_close_shows_that_sessions_code_and_leaves_the_current_one(crowd):
    client = Client()
    submit(client, open_screen(client, prolific(crowd, "PID1", session="S1")))
    submit(client, open_screen(client, prolific(crowd, "PID1", session="S2")))
    close(crowd)
    first = code_on(Client().get(prolific(crowd, "PID1", session="S1")))
    assert first == crowd_completion.completion_code(crowd, "prolific", "PID1", "S1", "completed")
    current = CrowdSession.objects.get(current=True)
    assert (current.session_id, current.code) == (
        "S2", crowd_completion.completion_code(crowd, "prolific", "PID1", "S2", "completed"))
    assert code_on(Client().get(prolific(crowd, "PID1", session="S2"))) == current.code != first


def sessions_now() -> list[tuple]:
    return list(CrowdSession.objects.order_by("pk").values_list(
        "worker__worker_id", "session_id", "current", "screens", "base", "completed_at", "outcome", "code"))


def test_closing_the_study_gives_every_session_with_a_screen_its_code_at_once(crowd):
    """Closing ended a session only when its worker came back to the study link: a worker who judged and never came
    back had no code in the crowd-workers CSV, and the organizer could not pay them. The close now ends every
    session: each with a submitted screen gets its code there and then (a screen its worker held counts in none);
    one without a submitted screen gets none and stays open. A worker who comes back sees the CSV's code."""
    for line in range(6):
        add_screen(crowd, line)
    full, part, idle, two = Client(), Client(), Client(), Client()
    submit(full, submit(full, open_screen(full, prolific(crowd, "FULL"))))
    submit(part, open_screen(part, prolific(crowd, "PART")))
    open_screen(idle, prolific(crowd, "IDLE"))
    submit(two, open_screen(two, prolific(crowd, "TWO", session="S1")))
    submit(two, open_screen(two, prolific(crowd, "TWO", session="S2")))
    assert list(CrowdSession.objects.exclude(code="").values_list("worker__worker_id", flat=True)) == ["FULL"], (
        "the full session's last submit gave its code; nobody reached the completion page")
    assert campaign_closing.close(crowd) == 3
    _, rows = workers_csv(crowd)
    expected = {(worker, session): crowd_completion.completion_code(crowd, "prolific", worker, session, "completed")
                for worker, session in (("FULL", "S1"), ("PART", "S1"), ("TWO", "S1"), ("TWO", "S2"))}
    assert {(row["worker_id"], row["session_id"]): (row["session_screens"], row["code"]) for row in rows} == {
        ("FULL", "S1"): ("2", expected["FULL", "S1"]), ("PART", "S1"): ("1", expected["PART", "S1"]),
        ("IDLE", "S1"): ("0", ""), ("TWO", "S1"): ("1", expected["TWO", "S1"]),
        ("TWO", "S2"): ("1", expected["TWO", "S2"]),
    }
    assert all(row["completed_at"] for row in rows if row["code"])
    assert CrowdSession.objects.get(worker__worker_id="IDLE").completed_at is None
    assert CrowdSession.objects.get(current=True, worker__worker_id="TWO").session_id == "S2"
    for (worker, session), code in expected.items():
        assert code_on(Client().get(prolific(crowd, worker, session=session))) == code
    assert code_on(part.get(reverse("judge-done", args=[crowd.pk]))) == expected["PART", "S1"]


def test_a_code_given_at_the_close_encodes_the_rater_qc_verdict(crowd):
    crowd.crowd_code_encodes_qc = True
    crowd.save()
    for worker in ("GOOD", "BAD"):
        client = Client()
        submit(client, open_screen(client, prolific(crowd, worker)))
    rater_qc.set_decision(crowd, CrowdWorker.objects.get(worker_id="BAD").judge, RaterStatus.Decision.EXCLUDE)
    close(crowd)
    assert dict(CrowdSession.objects.values_list("worker__worker_id", "code")) == {
        "GOOD": crowd_completion.completion_code(crowd, "prolific", "GOOD", "S1", "passed"),
        "BAD": crowd_completion.completion_code(crowd, "prolific", "BAD", "S1", "failed"),
    }


def admin_form(client: Client, campaign: Campaign, **changes) -> dict:
    """What the admin's change page of ``campaign`` posts as it is shown, with ``changes`` (field: posted value)."""
    form = client.get(reverse("admin:annotation_campaign_change", args=[campaign.pk])).context["adminform"].form
    data = {"_save": "Save"}
    for name, field in form.fields.items():
        value = form[name].value()
        if hasattr(field.widget, "decompress"):
            data.update({f"{name}_{i}": part or "" for i, part in enumerate(field.widget.decompress(value))})
        elif isinstance(value, (list, tuple)):
            data[name] = [getattr(item, "pk", item) for item in value]
        elif value is True:
            data[name] = "on"
        elif value is not None and value is not False:
            data[name] = value
    for name, value in changes.items():
        data.pop(name, None)
        if value is not None:
            data[name] = value
    return data


@pytest.fixture
def admin(db) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="pw"))
    return client


def test_closing_the_study_in_the_admin_gives_the_codes(crowd, admin):
    """``closed_at`` is set in the admin's campaign page: the close ends the sessions there, as the service does."""
    worker = Client()
    submit(worker, open_screen(worker, prolific(crowd, "PID1")))
    now = timezone.now()
    data = admin_form(admin, crowd, closed_at_0=now.strftime("%Y-%m-%d"), closed_at_1=now.strftime("%H:%M:%S"))
    response = admin.post(reverse("admin:annotation_campaign_change", args=[crowd.pk]), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    crowd.refresh_from_db()
    assert crowd.closed_at is not None
    _, rows = workers_csv(crowd)
    assert [(row["session_screens"], row["code"]) for row in rows] == [
        ("1", crowd_completion.completion_code(crowd, "prolific", "PID1", "S1", "completed"))]


def test_a_submit_read_before_the_close_and_stored_after_it_is_refused(crowd):
    """A submit reads its screen and campaign, the close commits, then the submit stores: it went by the campaign it
    read, open, and stored a screen after the session's code was given, which the code did not count. The submit
    reads the campaign again once it holds the judge's lock, which the close takes too."""
    client = Client()
    screen_url = open_screen(client, prolific(crowd, "PID1"))
    token = screen_url.rstrip("/").split("/")[-1]
    judge = CrowdWorker.objects.get().judge
    served = queue.assignment_for(token, judge)
    close(crowd)
    keys = queue.candidate_keys(served)
    with pytest.raises(queue.CampaignClosed):
        queue.submit_ranking(token, judge, [1] * len(keys), keys, None, serve_next=False, served=served)
    assert not Judgment.objects.exists()


def test_a_screen_held_at_the_close_is_not_sent_into_the_ended_session_when_the_study_reopens(crowd):
    """A worker held their second screen when the study closed, and their session got its code for the first.
    Opened again, the study took that screen's submit into the ended session: the CSV then counted 2 screens for a
    code given for 1. The held screen now says the session is over and leads to its code; a new session goes on."""
    client = Client()
    held = submit(client, open_screen(client, prolific(crowd, "PID1")))
    close(crowd)
    code = CrowdSession.objects.get().code
    crowd.closed_at = None
    crowd.save()
    refused = client.post(held, {"rank_0": "1"})
    assert refused.status_code == 409 and "Your session is complete and its code was given" in refused.content.decode()
    assert re.search(r'id="way-on" href="([^"]+)"', refused.content.decode()).group(1) == reverse(
        "judge-done", args=[crowd.pk])
    assert client.get(held).status_code == 409
    _, rows = workers_csv(crowd)
    assert [(row["session_screens"], row["code"]) for row in rows] == [("1", code)]
    assert "/judge/screens/" in open_screen(client, prolific(crowd, "PID1", session="S2"))


def everything() -> tuple:
    """Every row a visit could write: accounts (with their last login), login sessions, workers, sessions,
    assignments and judgments."""
    return (
        list(User.objects.order_by("pk").values_list("pk", "username", "last_login")),
        list(Session.objects.order_by("pk").values_list("pk", "expire_date")),
        list(CrowdWorker.objects.order_by("pk").values_list("pk", "worker_id", "judge")),
        sessions_now(),
        list(Assignment.objects.order_by("pk").values_list("pk", "status", "judge", "token", "lease_expires_at")),
        Judgment.objects.count(),
    )


def test_no_get_of_a_closed_studys_urls_changes_anything(crowd):
    """A GET of a closed study's link ended the session and logged the browser in: a link preview or a prefetch
    (a chat app, a browser) of a worker's link changed what the organizer pays against. No GET or HEAD of the
    study link, of a worker's pages or of the CSV now stores anything."""
    client = Client()
    held = submit(client, open_screen(client, prolific(crowd, "PID1")))
    submit(client, open_screen(client, prolific(crowd, "PID1", session="S2")))
    idle = Client()
    open_screen(idle, prolific(crowd, "IDLE"))
    close(crowd)
    organizer = Client()
    organizer.force_login(User.objects.get(username="orga"))
    before = everything()
    links = [prolific(crowd, "PID1"), prolific(crowd, "PID1", session="S1"), prolific(crowd, "PID1", session="S2"),
             prolific(crowd, "PID1", session="S3"), prolific(crowd, "IDLE"), prolific(crowd, "NEW"),
             link(crowd, assignmentId=MTURK_PREVIEW, hitId="H1"), link(crowd, worker="bad id")]
    pages = [reverse("judge-home"), reverse("judge-campaign", args=[crowd.pk]),
             reverse("judge-done", args=[crowd.pk]), held]
    for method in ("get", "head"):
        for url in links:
            getattr(Client(), method)(url)
            getattr(client, method)(url)
        for url in pages:
            getattr(client, method)(url)
            getattr(idle, method)(url)
        assert getattr(organizer, method)(reverse("campaign-crowd-workers", args=[crowd.pk])).status_code == 200
    assert everything() == before


def test_no_get_or_head_of_an_open_studys_link_changes_anything(crowd):
    """A GET of an open study's link made the worker's account and session, signed the browser in and leased a
    screen: a link preview (a chat app, a mail scanner) or a browser's prefetch of a worker's link did the worker's
    first visit for them. A GET or HEAD now shows the start page (or a code as stored) and stores nothing, whatever
    the parameters and whoever asks; the Start button's POST does the visit."""
    crowd.crowd_session_screens = 1
    crowd.save()
    worker = Client()
    submit(worker, open_screen(worker, prolific(crowd, "DONE", session="S1")))
    worker.get(reverse("judge-done", args=[crowd.pk]))
    open_screen(worker, prolific(crowd, "DONE", session="S2"))
    holder = Client()
    open_screen(holder, link(crowd, workerId="A1", assignmentId="AS1", hitId="H1"))
    signed_in = Client()
    signed_in.force_login(User.objects.get(username="orga"))
    before = everything()
    links = [prolific(crowd, "NEW"), prolific(crowd, "NEW", session=""), link(crowd, worker="generic-1"),
             link(crowd, workerId="A2", assignmentId="AS2", hitId="H1"), link(crowd, workerId="A1", assignmentId="AS1",
             hitId="H1"), link(crowd, workerId="A1", assignmentId="AS9", hitId="H1"), prolific(crowd, "DONE"),
             prolific(crowd, "DONE", session="S1"), prolific(crowd, "DONE", session="S2"),
             prolific(crowd, "DONE", session="S3"), link(crowd, assignmentId=MTURK_PREVIEW, hitId="H1"),
             link(crowd, worker="bad id"), link(crowd), link(crowd, worker="w1&worker=w2"),
             reverse("crowd-study-link", args=["no-such-study"]) + "?worker=w1"]
    answers = set()
    for method in ("get", "head"):
        for url in links:
            for client in (Client(), worker, holder, signed_in):
                response = getattr(client, method)(url)
                answers.add(response.status_code)
    assert everything() == before
    assert answers == {200, 400, 404}, "pages, refused parameters, no such study: no redirect into the study"


def test_a_worker_who_comes_back_by_get_is_asked_to_continue_not_signed_in(crowd):
    worker = Client()
    screen = open_screen(worker, prolific(crowd, "PID1"))
    for client in (Client(), worker):
        page = client.get(prolific(crowd, "PID1")).content.decode()
        assert re.search(r'<form method="post" action="([^"]+)">', page).group(1).replace("&amp;", "&") == prolific(
            crowd, "PID1")
        assert '>Continue</button>' in page and "you have started this session already" in page
    fresh = Client()
    fresh.get(prolific(crowd, "PID1"))
    assert "_auth_user_id" not in fresh.session, "the GET signed no one in"
    assert fresh.post(prolific(crowd, "PID1"), follow=True).redirect_chain[-1][0] == screen
    new_session = Client().get(prolific(crowd, "PID1", session="S2")).content.decode()
    assert '>Start</button>' in new_session and "nothing is stored until you start" in new_session


def test_the_start_button_passes_the_csrf_check_on_a_first_visit_without_a_cookie(crowd):
    """The start page's form carries a CSRF token and its GET sets the cookie, so the first visit of a browser
    that has no cookie of the site starts; a POST from elsewhere, without them, is refused and stores nothing."""
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(prolific(crowd, "PID1"))
    assert "csrftoken" in page.cookies
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)
    forged = Client(enforce_csrf_checks=True).post(prolific(crowd, "PID1"), {"csrfmiddlewaretoken": token})
    assert forged.status_code == 403 and not CrowdWorker.objects.exists()
    started = browser.post(prolific(crowd, "PID1"), {"csrfmiddlewaretoken": token}, follow=True)
    assert "/judge/screens/" in started.redirect_chain[-1][0]
    assert CrowdWorker.objects.get().worker_id == "PID1"


def test_the_start_page_says_what_the_study_is(crowd):
    crowd.instruction = "Pick the most fluent correction."
    crowd.guidelines = "Read this."
    crowd.save()
    page = Client().get(prolific(crowd, "PID1")).content.decode()
    assert "<h1>crowd</h1>" in page and '<p id="study-task">Pick the most fluent correction.</p>' in page
    assert "A session holds at most 2 screens; the study's guidelines come before the first one." in page
    assert "and are taken back to the platform" in page


def test_a_campaign_with_crowd_workers_stays_in_crowd_mode(crowd, admin):
    """Unticking "crowd campaign" in the admin left its workers' accounts behind, of a campaign whose study link
    answered 404: their codes out of reach, and accounts without a password taken for invited judges. The admin
    (every form of the campaign: the model's rule) refuses it, saying why, while the campaign has crowd workers."""
    url = reverse("admin:annotation_campaign_change", args=[crowd.pk])
    assert admin.post(url, admin_form(admin, crowd, crowd=None)).status_code == 302, "no workers yet: allowed"
    crowd.refresh_from_db()
    assert not crowd.crowd
    crowd.crowd = True
    crowd.save()
    worker = Client()
    submit(worker, open_screen(worker, prolific(crowd, "PID1")))
    response = admin.post(url, admin_form(admin, crowd, crowd=None))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["crowd"]
    assert errors == ["This campaign has 1 crowd worker, who joined by its study link and have no account of their "
                      "own: it stays a crowd campaign while it has them. To end the study, close the campaign (each "
                      "session in which a screen was submitted gets its completion code)."]
    crowd.refresh_from_db()
    assert crowd.crowd and Client().get(prolific(crowd, "PID1"), follow=True).status_code == 200
    crowd.crowd = False
    with pytest.raises(ValidationError):
        crowd.full_clean()


def test_a_session_cannot_be_deleted_in_the_admin(crowd, admin):
    """Deleting a worker's current session in the admin left the worker without one: their next visit of the study
    link was a server error, and the record the organizer pays against was gone. Sessions leave only with their
    worker."""
    worker = Client()
    open_screen(worker, prolific(crowd, "PID1"))
    session = CrowdSession.objects.get()
    response = admin.post(reverse("admin:annotation_crowdsession_delete", args=[session.pk]), {"post": "yes"})
    assert response.status_code == 403 and CrowdSession.objects.filter(pk=session.pk).exists()
    assert "/judge/screens/" in open_screen(Client(), prolific(crowd, "PID1"))


def test_a_worker_whose_study_was_deleted_is_told_so_by_the_link(crowd):
    """The organizer deleted the campaign after a worker judged in it: the link said only "There is nothing here"
    and "ask them for a new one", as for any mistyped address; it now says the study may have been removed and whom
    to contact."""
    client = Client()
    submit(client, open_screen(client, prolific(crowd, "PID1")))
    study = prolific(crowd, "PID1")
    crowd.delete()
    response = Client().get(study)
    assert response.status_code == 404
    assert NO_STUDY in response.content.decode() and "the researcher removed the study" in NO_STUDY


def test_deleting_a_crowd_campaign_deletes_its_workers_accounts(crowd):
    """The worker's judge account outlived its campaign: still signed in, the worker's Judging page took it for an
    invited judge's ("You joined with an invite link. Set a password") and the password page let it set one, making
    a passwordless crowd account one that logs in. Now it goes with the campaign, and the browser is signed out."""
    client = Client()
    submit(client, open_screen(client, prolific(crowd, "PID1")))
    other = small_campaign("other", crowd=True)
    add_screen(other, 0)
    open_screen(Client(), prolific(other, "PID1"))
    judge = CrowdWorker.objects.get(campaign=crowd).judge
    kept = {User.objects.get(username="orga"), CrowdWorker.objects.get(campaign=other).judge}
    crowd.delete()
    assert not User.objects.filter(pk=judge.pk).exists()
    assert set(User.objects.filter(pk__in=[user.pk for user in kept])) == kept
    response = client.get(reverse("judge-home"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert client.get(reverse("judge-password")).status_code == 302


def test_a_crowd_workers_account_cannot_be_invited_and_an_old_invite_does_not_log_it_in(crowd):
    """An organizer of the crowd campaign invited the worker's account (its name shows on the workers CSV) to another
    campaign they manage, and the link logged them in as the worker: they could judge as a paid worker."""
    open_screen(Client(), prolific(crowd, "PID1"))
    worker = CrowdWorker.objects.get().judge
    organizer = User.objects.get(username="orga")
    other = small_campaign("other")
    other.organizers.add(organizer)
    with pytest.raises(InviteError, match=f"{worker.username!r} cannot be used; choose another name"):
        create_invite(other, worker.username, organizer)
    admin = User.objects.create_superuser("root", password="root-password-1")
    with pytest.raises(InviteError, match="is a crowd worker's account; crowd workers judge by their study link"):
        create_invite(other, worker.username, admin)
    assert not Invite.objects.exists()
    made_before = Invite.objects.create(campaign=other, judge=worker, digest=digest("s" * 43), created_by=organizer,
                                        expires_at=timezone.now() + timedelta(days=1))
    assert not link_logs_in(made_before)
    with pytest.raises(LoginRequired):
        redeem_invite("s" * 43)
    assert list(worker.judged_campaigns.all()) == [crowd]


def test_same_worker_resumes_the_same_judge_and_screen_in_another_browser(crowd):
    first = open_screen(Client(), prolific(crowd, "PID1"))
    again = open_screen(Client(), prolific(crowd, "PID1"))
    assert again == first
    other = open_screen(Client(), prolific(crowd, "PID2"))
    assert other != first
    assert CrowdWorker.objects.count() == 2 and User.objects.filter(username__startswith="crowd-").count() == 2


def test_a_worker_whose_username_another_account_holds_gets_a_judge_of_their_own(crowd):
    """Another organizer invited (or an import made) the account crowd-<campaign>-prolific-PID1 before the worker
    came: the worker was refused with a server error on every visit; now they get a judge of their own and the
    account stays as it was."""
    other = small_campaign("elsewhere")
    taken = User.objects.create(username=f"crowd-{crowd.pk}-prolific-PID1")
    other.judges.add(taken)
    screen_url = open_screen(Client(), prolific(crowd, "PID1"))
    assert "/judge/screens/" in screen_url
    worker = CrowdWorker.objects.get()
    assert worker.judge != taken and worker.judge.username.startswith(f"crowd-{crowd.pk}-prolific-PID1-")
    assert list(worker.judge.judged_campaigns.all()) == [crowd]
    assert list(taken.judged_campaigns.all()) == [other]
    assert open_screen(Client(), prolific(crowd, "PID1")) == screen_url


def test_mturk_preview_shows_a_sample_screen_and_stores_nothing(crowd):
    before = (User.objects.count(), CrowdWorker.objects.count(),
              Assignment.objects.exclude(status=Assignment.Status.PENDING).count())
    response = Client().get(link(crowd, assignmentId=MTURK_PREVIEW, hitId="H1"))
    assert response.status_code == 200
    assert b"nothing is stored while you preview" in response.content
    assert b'id="sample-screen"' in response.content
    after = (User.objects.count(), CrowdWorker.objects.count(),
             Assignment.objects.exclude(status=Assignment.Status.PENDING).count())
    assert after == before


def test_bad_link_says_why_and_stores_nothing(crowd):
    response = Client().get(link(crowd, worker="a%20b"))
    assert response.status_code == 400 and b"only letters, digits" in response.content
    wrong = Client().get(reverse("crowd-study-link", args=["wrong"]) + "?worker=w")
    assert wrong.status_code == 404 and NO_STUDY in wrong.content.decode()
    crowd.crowd = False
    crowd.save()
    assert Client().get(link(crowd, worker="w")).status_code == 404
    assert not CrowdWorker.objects.exists()


@pytest.mark.parametrize("key", ["%00", "a%00b", "%C3%A9", "a.b", "~"])
def test_a_link_whose_key_is_not_url_safe_base64_is_not_found(crowd, key):
    """A study link's key is ``secrets.token_urlsafe``: anything else (a NUL, which PostgreSQL refuses in a string,
    was a 500) is no study link."""
    response = Client().get(f"/crowd/{key}/?worker=w")
    assert response.status_code == 404
    assert not CrowdWorker.objects.exists()


# -- limits and completion --

def test_session_limit_ends_with_the_code_and_the_completion_url(crowd):
    client = Client()
    screen_url = open_screen(client, prolific(crowd, "PID1"))
    following = submit(client, screen_url)
    assert "/judge/screens/" in following
    done_url = submit(client, following)
    assert done_url == reverse("judge-done", args=[crowd.pk])
    response = client.get(done_url)
    session = CrowdSession.objects.get()
    assert session.code and session.outcome == "completed" and session.completed_at is not None
    assert session.code == crowd_completion.completion_code(crowd, "prolific", "PID1", "S1", "completed")
    page = response.content.decode()
    assert session.code in page
    assert f"https://app.prolific.com/submissions/complete?cc={session.code}" in page
    assert 'http-equiv="refresh"' in page
    # no third screen was served in this session, and reopening the link lands on the code again (its GET shows it
    # as stored, and so does its POST)
    assert Assignment.objects.filter(judge=session.worker.judge).count() == 2
    assert code_on(client.get(prolific(crowd, "PID1"))) == session.code
    assert client.post(prolific(crowd, "PID1"), follow=True).redirect_chain[-1][0] == done_url
    # a new platform session continues with new screens
    assert "/judge/screens/" in open_screen(client, prolific(crowd, "PID1", session="S2"))


@pytest.mark.parametrize("last", ["submit", "flag"])
def test_the_last_submit_of_a_session_gives_its_code_and_the_done_page_only_shows_it(crowd, last):
    """The code was given by the done page's GET (a write on GET, with the worker's login cookie). The submit or flag
    that fills the session gives it now; the done page, on GET and HEAD, shows it and stores nothing."""
    client = Client()
    held = submit(client, open_screen(client, prolific(crowd, "PID1")))
    if last == "submit":
        done_url = submit(client, held)
    else:
        flagged = client.post(held + "flag/", {"reason": "garbled", "details": ""})
        assert flagged.status_code == 302, flagged.content[:500]
        done_url = flagged["Location"].split("?")[0]
    assert done_url == reverse("judge-done", args=[crowd.pk])
    session = CrowdSession.objects.get()
    assert session.code == crowd_completion.completion_code(crowd, "prolific", "PID1", "S1", "completed")
    before = everything()
    client.head(done_url)
    assert code_on(client.get(done_url)) == session.code
    assert everything() == before


def test_a_workers_home_page_counts_the_session_and_offers_no_password(crowd):
    """A crowd worker who opens the header's Judging link sees their session's count, as the screen's counter says
    it, and no offer to set a password (they joined by the study link; the password page refuses them): at the end
    of the session, the way to the completion code."""
    client = Client()
    screen_url = open_screen(client, prolific(crowd, "PID1"))
    following = submit(client, screen_url)
    page = client.get(reverse("judge-home")).content.decode()
    assert "1 of 2 screens done in this session" in page
    assert reverse("judge-password") not in page and "invite link" not in page
    assert COUNTER.search(client.get(following).content.decode()).group(1) == "Screen 2 of 2"
    submit(client, following)
    page = client.get(reverse("judge-home")).content.decode()
    assert "2 of 2 screens done in this session" in page and "See your completion code" in page
    response = client.get(reverse("judge-campaign", args=[crowd.pk]), follow=True)
    assert code_on(response) == CrowdSession.objects.get().code


WHO = re.compile(r'<span class="who">([^<]*)</span>')


def test_a_worker_is_named_by_their_worker_id_not_their_account(crowd):
    """The page header named a crowd worker by their account's username, made up by the product
    ("crowd-7-prolific-PID1"), and so did the 403 page ("You are logged in as ..."): neither is a name the worker
    knows. Both now say "Crowd worker" and the id the platform gave; an invited judge still sees their username."""
    client = Client()
    screen = open_screen(client, prolific(crowd, "PID1"))
    username = CrowdWorker.objects.get().judge.username
    pages = {url: client.get(url) for url in (screen, reverse("judge-home"), reverse("home"))}
    pages["refused"] = client.get(reverse("campaign-list"))
    for url, response in pages.items():
        page = response.content.decode()
        assert WHO.search(page).group(1) == "Crowd worker PID1", url
        assert username not in page, url
    assert pages["refused"].status_code == 403
    assert "You are logged in as <strong>Crowd worker PID1</strong>" in pages["refused"].content.decode()
    invited = Client()
    invited.force_login(User.objects.create_user("ann"))
    crowd.judges.add(User.objects.get(username="ann"))
    assert WHO.search(invited.get(reverse("judge-home")).content.decode()).group(1) == "ann"


def test_done_page_gives_no_code_while_screens_are_left(crowd):
    """The done page's GET served the worker's next screen itself; it now sends them on to the campaign, which
    serves it, and a POST of the page (its Finish button, from an old tab) ends nothing."""
    client = Client()
    screen = open_screen(client, prolific(crowd, "PID1"))
    done_url = reverse("judge-done", args=[crowd.pk])
    before = everything()
    response = client.get(done_url)
    assert response.status_code == 302 and response["Location"] == reverse("judge-campaign", args=[crowd.pk])
    assert everything() == before
    submit(client, screen)
    finished = client.post(done_url, follow=True)
    assert "/judge/screens/" in finished.redirect_chain[-1][0]
    assert CrowdSession.objects.get().code == ""


def test_a_worker_who_finds_their_session_full_gets_its_code_by_a_post_not_by_a_get(crowd):
    """A worker whose session S1 is full when they come back to it (their S2 took the campaign's screens per
    worker) got S1's code from the done page's GET: a link preview or a prefetch of that page ended the session.
    The GET and HEAD now store nothing and offer a Finish button; its POST gives the code, once."""
    crowd.crowd_campaign_screens = 2
    crowd.save()
    client = Client()
    submit(client, open_screen(client, prolific(crowd, "PID1", session="S1")))
    done_url = reverse("judge-done", args=[crowd.pk])
    assert submit(client, open_screen(client, prolific(crowd, "PID1", session="S2"))) == done_url
    assert start(client, prolific(crowd, "PID1", session="S1"), follow=True).redirect_chain[-1][0] == done_url
    assert CrowdSession.objects.get(current=True).session_id == "S1"
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = client.cookies
    before = everything()
    assert strict.head(done_url).status_code == 200
    response = strict.get(done_url)
    assert everything() == before, "the GET and HEAD of the done page stored nothing"
    page = response.content.decode()
    assert response.status_code == 200 and 'id="completion-code"' not in page
    form = re.search(r'<form method="post" action="([^"]+)">\s*<input type="hidden" name="csrfmiddlewaretoken" '
                     r'value="([^"]+)">\s*<button type="submit" class="primary" id="session-finish">'
                     r'Finish and get my code</button>', page)
    assert form is not None and form.group(1) == done_url, page
    assert "You have submitted 1 screen in this session" in page
    assert strict.post(done_url).status_code == 403 and everything() == before, "no POST without the CSRF token"
    finished = strict.post(done_url, {"csrfmiddlewaretoken": form.group(2)})
    assert finished.status_code == 302 and finished["Location"] == done_url
    code = crowd_completion.completion_code(crowd, "prolific", "PID1", "S1", "completed")
    session = CrowdSession.objects.get(session_id="S1")
    assert session.code == code and code_on(client.get(done_url)) == code
    given = everything()
    assert strict.post(done_url, {"csrfmiddlewaretoken": form.group(2)})["Location"] == done_url
    assert everything() == given, "a second POST gives the same code and stores nothing"
    _, rows = workers_csv(crowd)
    assert [(row["session_id"], row["session_screens"], row["code"]) for row in rows] == [
        ("S1", "1", code), ("S2", "1", crowd_completion.completion_code(crowd, "prolific", "PID1", "S2", "completed"))]


def test_each_session_has_a_code_of_its_own(crowd):
    """A code handed in for one platform submission is worth nothing for the next one."""
    crowd.crowd_session_screens = 1
    crowd.save()
    client = Client()
    done_url = submit(client, open_screen(client, prolific(crowd, "PID1", session="S1")))
    client.get(done_url)
    first = CrowdSession.objects.get(session_id="S1").code
    submit(client, open_screen(client, prolific(crowd, "PID1", session="S2")))
    client.get(done_url)
    second = CrowdSession.objects.get(session_id="S2").code
    assert first and second and first != second
    assert CrowdSession.objects.get(session_id="S1").code == first, "the first session keeps its code"


def test_no_code_for_a_session_without_a_submitted_screen(crowd):
    """Workers who find nothing left (others hold every screen) are told so, and get no code to be paid with."""
    holders = [Client() for _ in range(6)]
    for number, client in enumerate(holders):
        open_screen(client, prolific(crowd, f"HOLDER{number}"))
    late = Client()
    response = start(late, prolific(crowd, "LATE"), follow=True)
    assert response.redirect_chain[-1][0] == reverse("judge-done", args=[crowd.pk])
    page = response.content.decode()
    assert 'id="no-work"' in page and 'id="completion-code"' not in page and 'http-equiv="refresh"' not in page
    session = CrowdSession.objects.get(worker__worker_id="LATE")
    assert (session.code, session.outcome, session.completed_at) == ("", "", None)


def test_a_session_whose_code_was_given_cannot_be_undone(crowd):
    crowd.crowd_session_screens = 1
    crowd.save()
    client = Client()
    screen_url = open_screen(client, prolific(crowd, "PID1"))
    token = screen_url.rstrip("/").split("/")[-1]
    client.get(submit(client, screen_url))
    assert CrowdSession.objects.get().code
    response = client.post(reverse("judge-undo", args=[crowd.pk]), {"token": token})
    assert response.status_code == 409 and b"its screens cannot be changed" in response.content
    assert Judgment.objects.filter(assignment__token=token).exists()


def test_one_address_opens_the_study_as_a_limited_number_of_new_workers(crowd, settings):
    """Made-up worker ids from one sender would each hold a screen for its lease until none is left for real
    workers; known workers come back whatever the count, and other addresses are not held back."""
    settings.CROWD_NEW_WORKERS_PER_HOUR = 3
    bot = Client(REMOTE_ADDR="198.51.100.7")
    for number in range(3):
        assert "/judge/screens/" in open_screen(bot, prolific(crowd, f"BOT{number}"))
    assert bot.get(prolific(crowd, "BOT3")).status_code == 200, "the start page, which makes no worker"
    refused = bot.post(prolific(crowd, "BOT3"))
    assert refused.status_code == 429 and b"Too many new workers" in refused.content
    assert not CrowdWorker.objects.filter(worker_id="BOT3").exists()
    assert "/judge/screens/" in open_screen(bot, prolific(crowd, "BOT0")), "a known worker resumes"
    assert "/judge/screens/" in open_screen(Client(REMOTE_ADDR="203.0.113.5"), prolific(crowd, "REAL"))
    stored = set(CrowdWorker.objects.values_list("created_from", flat=True))
    assert len(stored) == 2 and not any("198.51.100.7" in origin for origin in stored), "only a keyed hash is kept"
    CrowdWorker.objects.update(created_at=timezone.now() - timedelta(hours=1, seconds=1))
    assert "/judge/screens/" in open_screen(bot, prolific(crowd, "BOT3")), "an hour later"


def test_campaign_limit_counts_every_session(crowd):
    crowd.crowd_session_screens = 5
    crowd.crowd_campaign_screens = 1
    crowd.save()
    client = Client()
    done_url = submit(client, open_screen(client, prolific(crowd, "PID1")))
    assert done_url == reverse("judge-done", args=[crowd.pk])
    assert start(client, prolific(crowd, "PID1", session="S2"), follow=True).redirect_chain[-1][0] == done_url


def test_codes_cannot_be_made_without_the_secret_and_differ_by_worker_and_outcome(crowd):
    codes = {crowd_completion.completion_code(crowd, "prolific", worker, session, outcome)
             for worker in ("A", "B") for session in ("S1", "S2") for outcome in ("completed", "passed", "failed")}
    assert len(codes) == 12 and all(re.fullmatch(r"[A-Z2-7]{12}", code) for code in codes)
    other = small_campaign("other", crowd=True)
    assert crowd_completion.completion_code(other, "prolific", "A", "S1", "completed") != \
        crowd_completion.completion_code(crowd, "prolific", "A", "S1", "completed")


def test_code_encodes_the_rater_qc_verdict(crowd):
    crowd.crowd_code_encodes_qc = True
    crowd.crowd_session_screens = 1
    crowd.save()
    passing, failing = Client(), Client()
    submit(passing, open_screen(passing, prolific(crowd, "GOOD")))
    held = open_screen(failing, prolific(crowd, "BAD"))
    rater_qc.set_decision(crowd, CrowdWorker.objects.get(worker_id="BAD").judge, RaterStatus.Decision.EXCLUDE)
    submit(failing, held)  # the session's last submit gives the code, of the verdict then
    good = CrowdSession.objects.get(worker__worker_id="GOOD")
    bad = CrowdSession.objects.get(worker__worker_id="BAD")
    assert (good.outcome, bad.outcome) == ("passed", "failed")
    assert bad.code == crowd_completion.completion_code(crowd, "prolific", "BAD", "S1", "failed")


def test_organizer_downloads_the_workers_csv(crowd):
    worker_client = Client()
    screen_url = open_screen(worker_client, prolific(crowd, "PID1"))
    submit(worker_client, submit(worker_client, screen_url))
    worker_client.get(reverse("judge-done", args=[crowd.pk]))
    open_screen(Client(), link(crowd, worker="-w2"))
    organizer = Client()
    organizer.force_login(User.objects.get(username="orga"))
    response = organizer.get(reverse("campaign-crowd-workers", args=[crowd.pk]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    by_id = {row["worker_id"]: row for row in rows}
    assert set(by_id) == {"PID1", "'-w2"}
    done = by_id["PID1"]
    judgments = Judgment.objects.filter(assignment__judge__crowd_worker__worker_id="PID1")
    active = sum(judgment.active_time.total_seconds() for judgment in judgments)
    assert (done["screens"], done["session_screens"]) == ("2", "2")
    assert active > 0 and float(done["active_seconds"]) == pytest.approx(active, abs=1e-3)
    assert done["outcome"] == "completed" and done["code"] == CrowdSession.objects.get(worker__worker_id="PID1").code
    assert done["qc_outcome"] == "passed"
    assert by_id["'-w2"]["code"] == "" and by_id["'-w2"]["screens"] == "0"
    detail = organizer.get(reverse("campaign-detail", args=[crowd.pk])).content.decode()
    assert f"/crowd/{crowd.crowd_key}/" in detail and "PROLIFIC_PID={{%PROLIFIC_PID%}}" in detail


# -- sessions: one platform submission each --

CODE_ON_PAGE = re.compile(r'id="completion-code">([A-Z2-7]+)<')
COUNTER = re.compile(r'id="screen-counter">([^<]+)<')
PROGRESS_BAR = re.compile(r'id="screen-progress" max="(\d+)" value="(\d+)"')


def code_on(response) -> str:
    """The completion code a completion page shows."""
    found = CODE_ON_PAGE.search(response.content.decode())
    assert found, response.content[:500]
    return found.group(1)


def workers_csv(campaign: Campaign) -> tuple[list[str], list[dict[str, str]]]:
    """The header and the rows of the campaign's crowd workers CSV, as its organizer downloads it."""
    organizer = Client()
    organizer.force_login(User.objects.get(username="orga"))
    response = organizer.get(reverse("campaign-crowd-workers", args=[campaign.pk]))
    assert response.status_code == 200
    reader = csv.DictReader(io.StringIO(response.content.decode()))
    return list(reader.fieldnames), list(reader)


def test_the_csv_keeps_every_session_of_a_worker_with_its_code(crowd):
    """QA's case: W1abc finishes S1 (code X) and opens the link with S2; the organizer approves each platform
    submission by its own row, so S1 keeps its outcome, code and times beside S2's row."""
    crowd.crowd_session_screens = 1
    crowd.save()
    client = Client()
    done_url = submit(client, open_screen(client, prolific(crowd, "W1abc", session="S1")))
    first_code = code_on(client.get(done_url))
    open_screen(client, prolific(crowd, "W1abc", session="S2"))
    header, rows = workers_csv(crowd)
    assert header == ["worker_id", "platform", "study_id", "session_id", "screens", "session_screens",
                      "active_seconds", "qc_outcome", "qc_why", "completed_at", "outcome", "code", "started_at",
                      "session_active_seconds"]
    assert [(row["worker_id"], row["session_id"]) for row in rows] == [("W1abc", "S1"), ("W1abc", "S2")]
    first, second = rows
    assert first_code == crowd_completion.completion_code(crowd, "prolific", "W1abc", "S1", "completed")
    assert (first["session_screens"], first["outcome"], first["code"]) == ("1", "completed", first_code)
    assert first["started_at"] and first["started_at"] <= first["completed_at"] <= second["started_at"]
    assert (second["session_screens"], second["completed_at"], second["outcome"], second["code"]) == ("0", "", "", "")
    assert first["screens"] == second["screens"] == "1" and first["study_id"] == second["study_id"] == "ST"


def test_a_worker_returning_with_an_earlier_session_id_continues_that_session(crowd):
    """S1 left after one of its two screens, S2 finished, then S1's link again: S1 goes on from its one screen and
    ends at its own limit with its own code; S2's link then shows S2's code again and serves nothing."""
    client = Client()
    submit(client, open_screen(client, prolific(crowd, "W1abc", session="S1")))
    done_url = submit(client, submit(client, open_screen(client, prolific(crowd, "W1abc", session="S2"))))
    second_code = code_on(client.get(done_url))
    screen_url = open_screen(client, prolific(crowd, "W1abc", session="S1"))
    assert "/judge/screens/" in screen_url
    assert COUNTER.search(client.get(screen_url).content.decode()).group(1) == "Screen 2 of 2"
    assert submit(client, screen_url) == done_url
    first_code = code_on(client.get(done_url))
    assert first_code == crowd_completion.completion_code(crowd, "prolific", "W1abc", "S1", "completed")
    assert second_code == crowd_completion.completion_code(crowd, "prolific", "W1abc", "S2", "completed")
    again = client.get(prolific(crowd, "W1abc", session="S2"))
    assert again.status_code == 200 and code_on(again) == second_code
    assert CrowdSession.objects.get(current=True).session_id == "S1", "a finished session is not taken up again"
    judge = CrowdWorker.objects.get().judge
    assert Assignment.objects.filter(judge=judge, status=Assignment.Status.SUBMITTED).count() == 4
    assert not Assignment.objects.filter(judge=judge).exclude(status=Assignment.Status.SUBMITTED).exists()
    _, rows = workers_csv(crowd)
    assert [(row["session_id"], row["session_screens"], row["code"]) for row in rows] == [
        ("S1", "2", first_code), ("S2", "2", second_code)]


def judgment_of(screen_url: str) -> Judgment:
    """The judgment submitted for the screen served at ``screen_url``."""
    return Judgment.objects.get(assignment__token=screen_url.rstrip("/").split("/")[-1])


def test_each_session_has_the_active_time_of_the_judgments_stored_in_it(crowd):
    """S1 one screen, S2 two, then S1 again for its second: each judgment records the session it was stored in, so
    S1's active time is its two screens' (1 s + 8 s) and S2's its own (2 s + 4 s), while active_seconds stays the
    worker's in all (15 s) on both rows; a session without a screen has none (empty, not 0)."""
    client = Client()
    urls = [open_screen(client, prolific(crowd, "W1abc", session="S1"))]
    submit(client, urls[0])
    urls.append(open_screen(client, prolific(crowd, "W1abc", session="S2")))
    urls.append(submit(client, urls[1]))
    client.get(submit(client, urls[2]))
    urls.append(open_screen(client, prolific(crowd, "W1abc", session="S1")))
    submit(client, urls[3])
    open_screen(Client(), prolific(crowd, "W2", session="EMPTY"))
    sessions = {session.session_id: session for session in CrowdSession.objects.all()}
    judgments = [judgment_of(url) for url in urls]
    assert [judgment.crowd_session_id for judgment in judgments] == [
        sessions["S1"].pk, sessions["S2"].pk, sessions["S2"].pk, sessions["S1"].pk]
    for judgment, seconds in zip(judgments, (1, 2, 4, 8)):
        Judgment.objects.filter(pk=judgment.pk).update(active_time=timedelta(seconds=seconds))
    header, rows = workers_csv(crowd)
    assert header[-1] == "session_active_seconds"
    assert [(row["session_id"], row["session_screens"], row["active_seconds"], row["session_active_seconds"])
            for row in rows] == [("S1", "2", "15.0", "9.0"), ("S2", "2", "15.0", "6.0"), ("EMPTY", "0", "", "")]


def test_a_session_shows_no_active_time_unless_all_its_screens_are_attributed_or_none_was_recorded(crowd):
    """A judgment of S1 not attributed (stored before migration 0023 could tell): S1's sum would be part of its
    screens', so it is empty; S2's judgments recorded no active time: empty too, not 0."""
    client = Client()
    first = open_screen(client, prolific(crowd, "W1abc", session="S1"))
    second = submit(client, first)
    submit(client, second)
    third = open_screen(client, prolific(crowd, "W1abc", session="S2"))
    submit(client, third)
    Judgment.objects.filter(pk=judgment_of(first).pk).update(crowd_session=None)
    Judgment.objects.filter(pk=judgment_of(third).pk).update(active_time=None)
    _, rows = workers_csv(crowd)
    assert [(row["session_id"], row["session_screens"], row["session_active_seconds"]) for row in rows] == [
        ("S1", "2", ""), ("S2", "1", "")]
    assert float(rows[0]["active_seconds"]) > 0


def test_an_invited_judges_judgment_belongs_to_no_session(crowd):
    invited = User.objects.create_user("invited", password="pw")
    crowd.judges.add(invited)
    served = queue.next_assignment(crowd, invited)
    keys = queue.candidate_keys(served)
    result = queue.submit_ranking(served.token, invited, [1] * len(keys), keys)
    assert result.created and result.judgment.crowd_session_id is None


def test_the_csv_reads_a_bounded_number_of_queries_however_many_workers_and_sessions(crowd):
    """Two workers with two sessions each, then five: the CSV reads as many queries for both (each from a cold
    cache: the rater QC tallies it reads are taken from all judgments both times)."""
    for line in range(6):
        add_screen(crowd, line, slots=4)

    def work(worker_id: str) -> None:
        client = Client()
        submit(client, open_screen(client, prolific(crowd, worker_id, session="A")))
        submit(client, open_screen(client, prolific(crowd, worker_id, session="B")))

    def queries() -> int:
        cache.clear()
        with CaptureQueriesContext(connection) as captured:
            rows = list(csv.DictReader(io.StringIO(crowd_exports.crowd_workers_csv(crowd))))
        assert all(row["session_active_seconds"] != "" for row in rows)
        return len(captured)

    for worker_id in ("P1", "P2"):
        work(worker_id)
    few = queries()
    for worker_id in ("P3", "P4", "P5"):
        work(worker_id)
    assert queries() == few and CrowdSession.objects.count() == 10


def test_a_screen_of_an_earlier_session_cannot_be_undone_from_a_later_one(crowd):
    """The undo offered after S1's last submit, posted once S2 has begun, would take a screen from S1's count."""
    client = Client()
    screen_url = open_screen(client, prolific(crowd, "PID1", session="S1"))
    token = screen_url.rstrip("/").split("/")[-1]
    submit(client, screen_url)
    open_screen(client, prolific(crowd, "PID1", session="S2"))
    response = client.post(reverse("judge-undo", args=[crowd.pk]), {"token": token})
    assert response.status_code == 409 and b"submitted before you opened this session" in response.content
    assert Judgment.objects.filter(assignment__token=token).exists()


def test_the_counter_counts_the_session_bounded_by_what_the_campaign_leaves(crowd):
    """Sessions of 4 screens, at most 5 screens per worker, 6 screens in the campaign: the counter counts this
    session's screens, and its total shrinks to what the campaign still has for the worker."""
    crowd.crowd_session_screens = 4
    crowd.crowd_campaign_screens = 5
    crowd.save()

    def shown(client: Client, screen_url: str) -> tuple[str, tuple[str, str]]:
        page = client.get(screen_url).content.decode()
        return COUNTER.search(page).group(1), PROGRESS_BAR.search(page).groups()

    client = Client()
    screen_url = open_screen(client, prolific(crowd, "PID1", session="S1"))
    assert shown(client, screen_url) == ("Screen 1 of 4", ("4", "0"))
    for number in range(2, 5):
        screen_url = submit(client, screen_url)
        assert shown(client, screen_url) == (f"Screen {number} of 4", ("4", str(number - 1)))
    submit(client, screen_url)
    screen_url = open_screen(client, prolific(crowd, "PID1", session="S2"))
    assert shown(client, screen_url) == ("Screen 1 of 1", ("1", "0")), "one screen left of the worker's five"
    other = Client()
    assert shown(other, open_screen(other, prolific(crowd, "PID2"))) == ("Screen 1 of 1", ("1", "0")), \
        "one screen left in the campaign"


@pytest.mark.parametrize("session_screens, campaign_screens, progress, expected", [
    (8, 0, queue.Progress(done=5, total=1005, more=True), "Screen 4 of 8"),
    (2000, 0, queue.Progress(done=5, total=1005, more=True), "Screen 4 of 1,003+"),
    (8, 6, queue.Progress(done=5, total=1005, more=True), "Screen 4 of 4"),
    (8, 0, queue.Progress(done=5, total=7, repeats=2), "Screen 4 of 5"),
    (2, 0, queue.Progress(done=5, total=6), "Screen 3 of 3"),
])
def test_the_session_counter_takes_the_tightest_bound(session_screens, campaign_screens, progress, expected):
    """Three screens of the session submitted (five in the campaign): the session's size, the screens the worker
    can still reach (capped: more), the campaign's screens per worker, or a session made smaller since bound the
    total; the campaign's repeats are not the session's and are not told apart."""
    campaign = Campaign(crowd=True, crowd_session_screens=session_screens, crowd_campaign_screens=campaign_screens)
    session = CrowdSession(worker=CrowdWorker(campaign=campaign), current=True, base=3, screens=1)
    counted = crowd_completion.session_progress(session, progress)
    assert f"Screen {counted.current} of {counted.plan_text}" == expected


# -- the campaign form and REST --

@pytest.mark.django_db
def test_form_validates_the_completion_url():
    def errors(url: str):
        form = CampaignImportForm(data={"name": "x", "mode": "ranking", "max_candidates": 5, "sampling": "uniform",
                                        "seed": 1, "redundancy": 1, "repeat_rate": 0, "crowd": "on",
                                        "crowd_completion_url": url})
        form.is_valid()
        return form.errors.get("crowd_completion_url")

    assert errors("https://app.prolific.com/submissions/complete?cc={code}") is None
    assert errors("") is None
    assert "http:// or https://" in errors("javascript:alert(1)")[0]
    assert "no other braces" in errors("https://x.org/?cc={code}&w={worker}")[0]


def test_rest_shows_crowd_settings_and_the_link(crowd):
    organizer = Client()
    organizer.force_login(User.objects.get(username="orga"))
    found = [c for c in organizer.get("/api/campaigns/").json() if c["id"] == crowd.pk][0]
    assert found["crowd"] is True and found["crowd_session_screens"] == 2
    assert found["study_link"].endswith(f"/crowd/{crowd.crowd_key}/")


# -- what a crowd worker may open --

def test_crowd_worker_has_no_password_page(crowd):
    client = Client()
    open_screen(client, prolific(crowd, "PID1"))
    assert client.get(reverse("judge-password")).status_code == 403


@pytest.mark.slow
def test_crowd_worker_gets_what_another_campaigns_judge_gets_on_every_url(world_with_crowd):
    """Against every URL of the role matrix: a crowd worker of another (crowd) campaign is refused wherever the
    other campaign's judge is, and has no password page."""
    values, clients, crowd_client = world_with_crowd
    wrong = []
    for route in matrix.routes():
        url = "/" + "".join(matrix.concrete(piece, values) for piece in route.pieces)
        for check in matrix.checks_for(route) or []:
            expected = check.expected["other_judge"]
            if route.pattern == "judge/password/":
                expected = matrix.NO
            if check.method == "POST" and expected == matrix.OK:
                continue
            response = getattr(crowd_client, check.method.lower())(url)
            got = matrix.outcome(response, route.pattern.startswith(matrix.ADMIN_PREFIX))
            if got != expected and not (expected == matrix.LOGIN and got == matrix.NO):
                wrong.append(f"{check.method} {url} ({route.pattern}): {got}, expected {expected}")
    assert not wrong, "\n".join(wrong)


@pytest.fixture
def world_with_crowd(world):
    values, clients = world
    other = small_campaign("crowd-elsewhere", crowd=True)
    add_screen(other, 0)
    crowd_client = Client()
    open_screen(crowd_client, link(other, worker="W1"))
    return values, clients, crowd_client


world = matrix.world


@pytest.mark.django_db
def test_rest_creates_a_crowd_campaign_and_refuses_a_bad_completion_url():
    organizer = User.objects.create_user("olga", password="pw")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    client = Client()
    client.force_login(organizer)

    def files():
        return {"source": upload("source", SOURCE), "systems": [upload(n, d) for n, d in SYSTEMS.items()]}

    created = client.post("/api/campaigns/", form_data(
        name="crowd-api", crowd="true", crowd_session_screens="20", crowd_campaign_screens="60",
        crowd_completion_url="https://example.org/done?cc={code}", crowd_code_encodes_qc="true", **files()))
    assert created.status_code == 201, created.content
    campaign = Campaign.objects.get(name="crowd-api")
    assert (campaign.crowd, campaign.crowd_session_screens, campaign.crowd_campaign_screens,
            campaign.crowd_completion_url, campaign.crowd_code_encodes_qc) == (
        True, 20, 60, "https://example.org/done?cc={code}", True)
    refused = client.post("/api/campaigns/", form_data(
        name="bad", crowd="true", crowd_completion_url="ftp://example.org/{code}", **files()))
    assert refused.status_code == 400 and "crowd_completion_url" in refused.json()
    assert not Campaign.objects.filter(name="bad").exists()


@pytest.mark.parametrize("role", ["organizer", "invited judge"])
def test_someone_signed_in_is_asked_before_becoming_a_worker_and_nothing_is_stored_until_they_confirm(crowd, role):
    client = Client()
    if role == "organizer":
        client.force_login(crowd.organizers.get())
    else:
        judge = User.objects.create_user("invited", password="judge-pw-1")
        crowd.judges.add(judge)
        client.force_login(judge)
    signed_in = client.session["_auth_user_id"]
    url = prolific(crowd, "PID9")
    response = client.get(url)
    assert response.status_code == 200
    assert b"Sign out and continue as worker PID9" in response.content
    assert client.session["_auth_user_id"] == signed_in and not CrowdWorker.objects.exists()
    response = client.post(url)
    assert response.status_code == 302 and response["Location"] == reverse("judge-campaign", args=[crowd.pk])
    worker = CrowdWorker.objects.get()
    assert client.session["_auth_user_id"] == str(worker.judge.pk)


def test_a_crowd_worker_on_a_shared_browser_is_not_asked(crowd):
    client = Client()
    open_screen(client, prolific(crowd, "PID1"))
    assert b"Sign out" not in client.get(prolific(crowd, "PID2")).content
    response = start(client, prolific(crowd, "PID2"))
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(CrowdWorker.objects.get(worker_id="PID2").judge.pk)


@pytest.mark.parametrize(("screens", "base", "current", "submitted", "counted"), [
    (2, 5, True, 7, 4),  # two earlier screens, two since it became current again
    (2, 5, False, 9, 2),  # not current: only its earlier screens
    (0, 5, True, 4, 0),  # an earlier session's screen undone in the instant of the switch: not below 0
])
def test_a_sessions_screens_are_counted_from_its_start_and_never_below_zero(screens, base, current, submitted,
                                                                            counted):
    session = CrowdSession(screens=screens, base=base, current=current)
    assert crowd_completion.session_screens(session, submitted) == counted
