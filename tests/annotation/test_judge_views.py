"""The judge's pages over HTTP (Django test client, PostgreSQL): invites, guidelines, training, the screen,
submits, flags, undo, refusals, CSRF, and that no response ever names a system."""
from __future__ import annotations

import html
import json
import re
import uuid
from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from annotation.models import Assignment, CandidateJudgment, Flag, Invite, Judgment, ScreenCandidate, TrainingAnswer
from annotation.services import queue
from annotation.services.collapsing import diff_spans
from annotation.services.invites import create_invite
from annotation.services.presentation import candidate_key
from annotation.services.training import add_training_screen

from .factories import SYSTEM_NAMES, add_screen, candidate_of, judge, login, small_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer(django_user_model):
    return django_user_model.objects.create_user("orga", password="pw-orga-123")


@pytest.fixture
def campaign(organizer):
    campaign = small_campaign(guidelines="Rank the **corrections**. <script>alert('g')</script>")
    campaign.organizers.add(organizer)
    return campaign


@pytest.fixture
def ann(campaign):
    return judge("ann", campaign, password="pw-ann-123")


def acknowledged(client: Client, campaign) -> Client:
    client.post(reverse("judge-guidelines", args=[campaign.pk]))
    return client


def keys_of(url: str) -> dict:
    """The candidate keys the screen page at ``url`` posts: its screen's, for its current serving (none for a token
    that names no serving)."""
    assignment = Assignment.objects.filter(token=token_in_url(url)).first()
    keys = queue.candidate_keys(assignment) if assignment is not None else []
    return {f"candidate_{i}": key for i, key in enumerate(keys)}


def ranks_data(n: int, ranks=None, active_ms: int | None = 1500, url: str | None = None) -> dict:
    """A post of ``ranks`` (1..n by default), with the candidate keys of the screen at ``url`` when given."""
    data = {f"rank_{i}": str(rank) for i, rank in enumerate(ranks or range(1, n + 1))}
    if active_ms is not None:
        data["active_ms"] = str(active_ms)
    return {**data, **keys_of(url)} if url is not None else data


def token_in(response) -> uuid.UUID:
    return uuid.UUID(re.search(r"/judge/screens/([0-9a-f-]{36})/", response["Location"]).group(1))


def assert_no_system_names(response) -> None:
    body = response.content.decode()
    for name in SYSTEM_NAMES:
        assert name not in body, f"{name} leaked into {response.request['PATH_INFO']}"


def test_invite_link_asks_first_then_logs_in_once(campaign, organizer):
    _, secret = create_invite(campaign, "newjudge", organizer)
    client = Client()
    url = reverse("invite", args=[secret])
    page = client.get(url)
    assert page.status_code == 200 and b"Continue as newjudge" in page.content
    assert Invite.objects.get().used_at is None, "a GET (a link preview) must not use the invite up"
    joined = client.post(url)
    assert joined.status_code == 302 and joined["Location"] == reverse("judge-campaign", args=[campaign.pk])
    invite = Invite.objects.get()
    assert invite.used_at is not None and campaign.judges.filter(username="newjudge").exists()
    assert client.get(reverse("home")).status_code == 200
    again = Client().post(url)
    assert again.status_code == 410 and b"used already" in again.content
    assert "if you set no password, ask the campaign&#x27;s organizer for a new invite link" in again.content.decode()
    assert not Client().get(reverse("home")).wsgi_request.user.is_authenticated


def test_a_used_invite_opened_again_by_its_judge_goes_to_the_campaign(campaign, organizer):
    """The judge opens their invite link again (from the e-mail, the next day) while logged in: the page and a post
    of it go on to the campaign, saying the invite was accepted already. It said 'used already. Log in with your
    account instead' to someone logged in with that account. Anyone else still gets the refusal."""
    _, secret = create_invite(campaign, "newjudge", organizer)
    url = reverse("invite", args=[secret])
    client = Client()
    client.post(url)
    for response in (client.get(url), client.post(url)):
        assert response.status_code == 302 and response["Location"] == reverse("judge-campaign", args=[campaign.pk])
    shown = client.get(reverse("judge-home")).content.decode()
    assert f"You accepted this invite already: you are a judge of {campaign.name}." in shown
    other = Client()
    other.force_login(judge("someone-else", campaign))
    refused = other.get(url)
    assert refused.status_code == 410 and "used already" in refused.content.decode()


def test_expired_and_unknown_invites_are_refused(campaign, organizer):
    _, secret = create_invite(campaign, "late", organizer, valid_for=timedelta(seconds=-1))
    assert b"expired" in Client().get(reverse("invite", args=[secret])).content
    response = Client().post(reverse("invite", args=["not-a-secret"]))
    assert response.status_code == 410 and b"not valid" in response.content
    assert not campaign.judges.filter(username="late").exists()


def test_anonymous_users_are_sent_to_login(campaign):
    for url in (reverse("home"), reverse("judge-campaign", args=[campaign.pk])):
        response = Client().get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_a_campaign_closed_while_a_screen_is_open_sends_the_judge_to_its_done_page_not_back_to_the_screen(
    campaign, ann
):
    """A campaign closed (in the admin) while its judge has a screen open: the screen, its lease request, a submit
    and a flag say it is closed and store nothing, and the way on is the done page, which says so. The campaign page
    served the screen that could no longer be submitted, and the refusal's "Go to your current screen" led back to
    it: the judge ranked it again and again."""
    add_screen(campaign, 0)
    add_screen(campaign, 1)
    client = acknowledged(login(ann), campaign)
    campaign_page = reverse("judge-campaign", args=[campaign.pk])
    url = client.get(campaign_page)["Location"]
    token = token_in_url(url)
    campaign.closed_at = timezone.now()
    campaign.save()

    done_page = reverse("judge-done", args=[campaign.pk])
    assert client.get(campaign_page)["Location"] == done_page
    assert "This campaign is closed" in client.get(done_page).content.decode()
    closed = "This campaign is closed; it takes no more judgments."
    for response in (
        client.get(url),
        client.post(url, ranks_data(4, url=url)),
        client.post(reverse("judge-flag", args=[token]), {"reason": "garbled"}),
    ):
        page = response.content.decode()
        assert response.status_code == 409 and closed in page
        assert "Go to your current screen" not in page
        assert f'<a class="button" id="way-on" href="{done_page}">Finish</a>' in page
    lease = client.post(reverse("judge-lease", args=[token]))
    assert lease.status_code == 409 and lease.json() == {"error": closed, "href": done_page, "link": "Finish"}
    assert not Judgment.objects.exists()


def test_a_judge_removed_from_the_campaign_is_told_on_the_screen_they_had_open(campaign, ann):
    """A judge removed from the campaign (in the admin) with a screen open: the screen, its lease request and a
    submit say so (403), store nothing and offer no way to a screen of the campaign."""
    add_screen(campaign, 0)
    add_screen(campaign, 1)
    client = acknowledged(login(ann), campaign)
    url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    campaign.judges.remove(ann)
    for response in (client.get(url), client.post(url, ranks_data(4, url=url))):
        page = response.content.decode()
        assert response.status_code == 403 and queue.REMOVED_MESSAGE in page
        assert "Go to your current screen" not in page
    lease = client.post(reverse("judge-lease", args=[token_in_url(url)]))
    assert lease.status_code == 403 and lease.json() == {"error": queue.REMOVED_MESSAGE}
    assert not Judgment.objects.exists()


def test_the_address_of_a_flag_or_an_undo_opened_again_goes_to_the_page_of_its_form(campaign, ann):
    """A refused flag (Other without details) or undo leaves its address in the browser (.../flag/, .../undo/);
    opening it again (the address bar's Enter) goes to the screen or the campaign, storing nothing. It was a 405
    with an empty body, which Chromium shows as its own "HTTP ERROR 405" page."""
    add_screen(campaign, 0)
    client = acknowledged(login(ann), campaign)
    url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    flag = reverse("judge-flag", args=[token_in_url(url)])
    refused = client.post(flag, {"reason": "other"})
    assert refused.status_code == 400 and "Describe the problem" in refused.content.decode()
    assert client.get(flag)["Location"] == url
    undo = reverse("judge-undo", args=[campaign.pk])
    assert client.get(undo)["Location"] == reverse("judge-campaign", args=[campaign.pk])
    assert not Judgment.objects.exists()
    assert Client().get(flag)["Location"] == f"{reverse('login')}?{urlencode({'next': url})}"


def test_a_judges_page_sent_after_the_session_ended_goes_to_a_login_page_that_says_so(campaign, ann):
    """A submit, flag or undo sent after the login session ended (a log-out in another tab, or it ran out) stores
    nothing and goes to the login page, back to the page its form was on, and the login page says the session had
    ended, that nothing was saved, how to go back, and that a crowd worker opens the study link again; the lease
    request answers 401. The page sent went to a plain login page (a flag's or undo's to an address that only takes
    POST), and the lease request to the login page, which the screen's script took for a kept lease."""
    add_screen(campaign, 0)
    client = acknowledged(login(ann), campaign)
    url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    token = token_in_url(url)
    client.post(reverse("logout"))
    login_page = reverse("login")
    screen_page = reverse("judge-screen", args=[token])
    campaign_page = reverse("judge-campaign", args=[campaign.pk])
    for posted, data, back in (
        (url, ranks_data(4, url=url), screen_page),
        (reverse("judge-flag", args=[token]), {"reason": "garbled"}, screen_page),
        (reverse("judge-undo", args=[campaign.pk]), {"token": str(token)}, campaign_page),
    ):
        response = client.post(posted, data)
        assert response.status_code == 302
        assert response["Location"] == f"{login_page}?{urlencode({'next': back, 'ended': 1})}", posted
    assert not Judgment.objects.exists()
    assert Assignment.objects.get(token=token).status == Assignment.Status.SERVED
    lease = client.post(reverse("judge-lease", args=[token]))
    assert lease.status_code == 401 and lease.json() == {"error": "Your login session has ended."}

    said = client.get(response["Location"]).content.decode()
    assert "Your login session had ended" in said and "nothing that page sent was saved" in said
    assert "Log in again to go back to your judging page" in said and "open the study link again" in said
    assert "set no password? Then you cannot log in here: ask the campaign's organizer for a new invite link" in said
    assert f'name="next" value="{back}"' in said
    plain = client.get(f"{login_page}?{urlencode({'next': screen_page})}").content.decode()
    assert "Log in again to go back" in plain and "session had ended" not in plain, "a visit, not a lost session"
    elsewhere = client.get(f"{login_page}?{urlencode({'next': '/campaigns/', 'ended': 1})}").content.decode()
    assert "login-reason" not in elsewhere, "only a judge's page says how to go back to judging"


def test_a_judges_page_opened_with_a_session_that_ran_out_says_the_session_ended(campaign, ann):
    """A GET with the cookie of a session that ran out (the server no longer has it) is a session that ended under
    the judge; one without a session cookie is a visit of someone logged out."""
    client = login(ann)
    Session.objects.all().delete()
    page = reverse("judge-campaign", args=[campaign.pk])
    assert client.get(page)["Location"] == f"{reverse('login')}?{urlencode({'next': page, 'ended': 1})}"
    assert Client().get(page)["Location"] == f"{reverse('login')}?{urlencode({'next': page})}"


def test_guidelines_are_acknowledged_once_and_again_after_a_change(campaign, ann):
    add_screen(campaign, 0)
    client = login(ann)
    start = client.get(reverse("judge-campaign", args=[campaign.pk]))
    assert start["Location"] == reverse("judge-guidelines", args=[campaign.pk])
    page = client.get(start["Location"])
    assert b"<strong>corrections</strong>" in page.content
    assert b"<script>alert('g')" not in page.content, "guidelines are sanitized"
    acknowledged_response = client.post(start["Location"])
    assert acknowledged_response["Location"].startswith("/judge/screens/")
    assert client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"].startswith("/judge/screens/")
    campaign.guidelines += "\n\nNew rule."
    campaign.save()
    assert client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"].endswith("/guidelines/")


def test_guidelines_changed_while_the_judge_works_are_shown_after_their_next_submit(campaign, ann):
    """The organizer rewords the guidelines while a judge goes from screen to screen: the judge's next submit is
    stored and leads to the new guidelines, saying they changed and offering to undo that submit; acknowledging them
    goes on to the next screen. A judge who kept judging never saw them (only the campaign's own page asked), and
    judged by the old rules until their next visit of the campaign."""
    for line in (0, 1, 2):
        add_screen(campaign, line)
    client = acknowledged(login(ann), campaign)
    url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    campaign.guidelines += "\n\nNew rule: rank a correction that changes the meaning last."
    campaign.save()
    submitted = client.post(url, ranks_data(4, url=url))
    guidelines_page = reverse("judge-guidelines", args=[campaign.pk])
    assert submitted["Location"] == f"{guidelines_page}?undo={token_in_url(url)}"
    page = client.get(submitted["Location"]).content.decode()
    assert "The guidelines changed since you read them" in page and "New rule" in page
    assert 'id="undo"' in page and 'id="acknowledge"' in page
    assert Judgment.objects.count() == 1
    following = client.post(guidelines_page)["Location"]
    assert following.startswith("/judge/screens/") and token_in_url(following) != token_in_url(url)
    second = client.post(following, ranks_data(4, url=following))["Location"]
    assert second.startswith("/judge/screens/"), "read once, the guidelines are not asked again"


def test_the_screen_shows_context_of_the_same_document_and_escaped_diff_spans(campaign, ann):
    order = [candidate_of(campaign, 1, name) for name in ("MARMOTFIX", "INPUT", "ZEPHYRSYS", "QUOKKAGEC")]
    add_screen(campaign, 1, order)
    add_screen(campaign, 2)
    add_screen(campaign, 3)
    client = acknowledged(login(ann), campaign)
    page = client.get(reverse("judge-campaign", args=[campaign.pk]), follow=True)
    body = page.content.decode()
    assert page.status_code == 200
    assert "<strong>She like apples and &lt;script&gt;alert(1)&lt;/script&gt; pears .</strong>" in body
    assert "He go to school every day ." in body and "They is here since morning ." in body
    assert "<script>alert(1)" not in body and "<b>pears</b>" not in body
    assert "&lt;b&gt;pears&lt;/b&gt;" in body
    sentences = re.findall(r'<p class="sentence" dir="auto" id="sentence-(\d)">(.*?)</p>', body)
    assert [int(position) for position, _ in sentences] == [0, 1, 2, 3]
    source = "She like apples and <script>alert(1)</script> pears ."
    for (_, markup), candidate in zip(sentences, order):
        spans = [
            (op, html.unescape(text))
            for op, text in re.findall(r'<(?:span|ins|del) data-op="(\w+)"[^>]*>(.*?)</(?:span|ins|del)>', markup)
        ]
        assert spans == diff_spans(source, candidate.text, show_replaced=True)
    assert "Screen 1 of 3" in body
    assert_no_system_names(page)
    served = page.context["assignment"]
    queue.submit_ranking(served.token, ann, [1, 2, 3, 4], queue.candidate_keys(served))
    second = client.get(reverse("judge-campaign", args=[campaign.pk]), follow=True).content.decode()
    assert 'id="context-before"' in second and 'id="context-after"' not in second, "line 2 ends essay-1"
    served = queue.next_assignment(campaign, ann)
    queue.submit_ranking(served.token, ann, [1, 1, 1], queue.candidate_keys(served))
    third = client.get(reverse("judge-campaign", args=[campaign.pk]), follow=True).content.decode()
    assert 'id="context-before"' not in third and "It have many problem ." in third, "line 3 starts essay-2"


def test_submit_stores_one_judgment_and_goes_to_the_next_screen(campaign, ann):
    add_screen(campaign, 1)
    add_screen(campaign, 4)
    client = acknowledged(login(ann), campaign)
    first_url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    posted = client.post(first_url, ranks_data(4, [2, 1, 2, 4], url=first_url))
    assert posted.status_code == 302 and posted["Location"].startswith("/judge/screens/")
    assert posted["Location"] != first_url
    judgment = Judgment.objects.get()
    assert list(judgment.items.values_list("rank", flat=True)) == [2, 1, 2, 4]
    assert judgment.active_time == min(timedelta(milliseconds=1500), judgment.duration)
    repost = client.post(first_url, ranks_data(4, [4, 4, 4, 4], url=first_url), follow=True)
    assert repost.status_code == 200 and b"saved already; this second submission was not stored" in repost.content
    assert Judgment.objects.count() == 1 and CandidateJudgment.objects.filter(rank=4).count() == 1
    back = client.get(first_url, follow=True)
    assert b"submitted that screen already" in back.content
    assert back.context["assignment"].token == token_in(posted)


def test_a_screen_without_every_rank_is_refused_with_a_message(campaign, ann):
    add_screen(campaign, 1)
    client = acknowledged(login(ann), campaign)
    url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    data = ranks_data(4, url=url)
    del data["rank_2"]
    response = client.post(url, data)
    assert response.status_code == 400 and b"Correction 3 has no rank yet." in response.content
    assert b'value="2" checked' in response.content, "ranks given so far are kept"
    assert not Judgment.objects.exists()


def test_another_judges_screen_cannot_be_opened_or_posted(campaign, ann):
    add_screen(campaign, 1)
    add_screen(campaign, 2)
    bob = judge("bob", campaign)
    bobs = queue.next_assignment(campaign, bob)
    client = acknowledged(login(ann), campaign)
    url = reverse("judge-screen", args=[bobs.token])
    opened = client.get(url)
    assert opened.status_code == 403 and b"assigned to another judge" in opened.content
    posted = client.post(url, ranks_data(4))
    assert posted.status_code == 403 and not Judgment.objects.exists()
    flagged = client.post(reverse("judge-flag", args=[bobs.token]), {"reason": "garbled"})
    assert flagged.status_code == 403 and not Flag.objects.exists()
    assert_no_system_names(opened)


def test_a_stale_screen_is_refused_with_a_clear_message(campaign, ann):
    add_screen(campaign, 1)
    client = acknowledged(login(ann), campaign)
    response = client.post(reverse("judge-screen", args=[uuid.uuid4()]), ranks_data(4))
    assert response.status_code == 409 and b"out of date" in response.content
    assert not Judgment.objects.exists()


def test_a_screen_whose_campaign_was_deleted_while_it_was_open_says_so(campaign, ann):
    """An admin deleted the campaign while a judge had a screen open: the submit said the screen had been undone or
    given to another judge."""
    add_screen(campaign, 1)
    client = acknowledged(login(ann), campaign)
    screen_url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    campaign.delete()
    response = client.post(screen_url, ranks_data(4))
    assert response.status_code == 409 and b"deleted with its campaign" in response.content
    assert not Judgment.objects.exists()


def test_someone_elses_campaign_is_not_found(campaign):
    outsider = judge("outsider")
    assert login(outsider).get(reverse("judge-campaign", args=[campaign.pk])).status_code == 404


def test_csrf_is_enforced_on_judge_forms(campaign, ann):
    add_screen(campaign, 1)
    client = Client(enforce_csrf_checks=True)
    client.force_login(ann)
    refused = client.post(reverse("judge-guidelines", args=[campaign.pk]))
    assert refused.status_code == 403
    page = client.get(reverse("judge-guidelines", args=[campaign.pk]))
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)
    assert (
        client.post(reverse("judge-guidelines", args=[campaign.pk]), {"csrfmiddlewaretoken": csrf}).status_code == 302
    )
    url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    assert client.post(url, ranks_data(4)).status_code == 403
    assert client.post(reverse("judge-flag", args=[token_in_url(url)]), {"reason": "garbled"}).status_code == 403
    assert not Judgment.objects.exists()
    screen = client.get(url).content.decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', screen).group(1)
    assert client.post(url, {**ranks_data(4, url=url), "csrfmiddlewaretoken": csrf}).status_code == 302
    assert Judgment.objects.count() == 1


def token_in_url(url: str) -> uuid.UUID:
    return uuid.UUID(re.search(r"/judge/screens/([0-9a-f-]{36})/", url).group(1))


def test_flag_with_a_reason(campaign, ann):
    add_screen(campaign, 1)
    add_screen(campaign, 2)
    client = acknowledged(login(ann), campaign)
    url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    flag_url = reverse("judge-flag", args=[token_in_url(url)])
    incomplete = client.post(flag_url, {"reason": "other", "details": " "})
    assert incomplete.status_code == 400 and b"Describe the problem" in incomplete.content
    assert b'<dialog id="flag-dialog" aria-labelledby="flag-title" open>' in incomplete.content
    flagged = client.post(flag_url, {"reason": "garbled", "details": "half a sentence", "active_ms": "800"})
    assert flagged.status_code == 302
    flag = Flag.objects.get()
    assert flag.reason == "Garbled source sentence: half a sentence"
    assert flag.judgment.active_time == min(timedelta(milliseconds=800), flag.judgment.duration)
    assert not flag.judgment.items.exists()
    assert client.post(flag_url, {"reason": "garbled"}).status_code == 302
    assert Flag.objects.count() == 1
    offer = client.get(flagged["Location"])
    assert b"The screen was flagged." in offer.content and b"Undo it" in offer.content
    undone = client.post(reverse("judge-undo", args=[campaign.pk]), {"token": str(token_in_url(url))}, follow=True)
    said = [str(message) for message in undone.context["messages"]]
    assert said == ["Your flag was withdrawn: the screen is back. Judge it, or flag it again."], said
    assert not Flag.objects.exists()


def test_the_undo_offer_after_a_submit_says_it_was_saved(campaign, ann):
    add_screen(campaign, 1)
    add_screen(campaign, 2)
    client = acknowledged(login(ann), campaign)
    first_url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    offer = client.get(client.post(first_url, ranks_data(4, url=first_url))["Location"])
    assert b"Your previous screen was saved." in offer.content and b"flagged" not in offer.content


def test_undo_is_offered_after_a_submit_and_serves_the_screen_again(campaign, ann):
    add_screen(campaign, 1)
    add_screen(campaign, 2)
    client = acknowledged(login(ann), campaign)
    first_url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    second_url = client.post(first_url, ranks_data(4, url=first_url))["Location"]
    page = client.get(second_url)
    assert b"Undo it" in page.content
    undo_url = reverse("judge-undo", args=[campaign.pk])
    undone = client.post(undo_url, {"token": str(token_in_url(first_url))})
    assert undone.status_code == 302 and not Judgment.objects.exists()
    again = undone["Location"]
    assert again not in (first_url, second_url)
    served_again = client.get(again)
    assert b"Undo it" not in served_again.content
    assert b"Your last judgment was removed. Judge the screen again." in served_again.content
    assert client.post(undo_url, {"token": str(token_in_url(first_url))}).status_code == 409
    assert client.post(first_url, ranks_data(4)).status_code == 409, "the undone submit cannot be re-posted"
    assert client.post(again, ranks_data(4, [3, 3, 1, 1], url=again)).status_code == 302
    assert list(Judgment.objects.get().items.values_list("rank", flat=True)) == [3, 3, 1, 1]


def test_done_page_when_nothing_is_left(campaign, ann):
    add_screen(campaign, 1)
    client = acknowledged(login(ann), campaign)
    url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    done = client.post(url, ranks_data(4, url=url), follow=True)
    assert done.request["PATH_INFO"] == reverse("judge-done", args=[campaign.pk])
    assert b"no more screens for you" in done.content and b"Undo it" in done.content
    home = client.get(reverse("home"))
    assert b"1 of 1 screens done" in home.content
    for method in ("put", "delete", "patch"):
        assert getattr(client, method)(reverse("judge-done", args=[campaign.pk])).status_code == 405, method


def test_training_comes_before_real_screens_and_is_not_a_judgment(campaign, ann):
    segment = campaign.segments.get(line=4)
    shown = [candidate_of(campaign, 4, name) for name in ("ZEPHYRSYS", "INPUT", "QUOKKAGEC")]
    add_training_screen(campaign, segment, shown, [1, 3, 2], feedback="*Problems* needs the plural.")
    add_screen(campaign, 1)
    client = acknowledged(login(ann), campaign)
    start = client.get(reverse("judge-campaign", args=[campaign.pk]))
    assert start["Location"] == reverse("judge-training", args=[campaign.pk])
    page = client.get(start["Location"])
    assert b"Training screen 1 of 1" in page.content
    assert_no_system_names(page)
    training_screen = page.context["training_screen"]
    for wrong in ("abc", "²", "-1", "99999999999999999999999", "9" * 5000, ""):  # int() refuses 4,300+ digits
        refused = client.post(start["Location"], {**ranks_data(3, [1, 2, 3]), "training_screen": wrong})
        assert refused.status_code == 404, wrong
    assert not TrainingAnswer.objects.exists()
    posted = client.post(start["Location"], {**ranks_data(3, [1, 2, 3]), "training_screen": training_screen.pk})
    feedback = client.get(posted["Location"])
    assert b"You ordered 67% of the pairs" in feedback.content
    assert b"<em>Problems</em> needs the plural." in feedback.content
    answer = TrainingAnswer.objects.get()
    assert answer.ranks == [1, 2, 3] and answer.agreement == pytest.approx(2 / 3)
    assert not Judgment.objects.exists() and not Assignment.objects.exclude(status="pending").exists()
    assert client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"].startswith("/judge/screens/")


def test_a_judge_who_joined_by_link_can_set_a_password(campaign, organizer):
    _, secret = create_invite(campaign, "linkjudge", organizer)
    client = Client()
    client.post(reverse("invite", args=[secret]))
    assert b"Set a password" in client.get(reverse("home")).content
    response = client.post(
        reverse("judge-password"), {"new_password1": "a-long-password-1", "new_password2": "a-long-password-1"}
    )
    assert response.status_code == 302
    assert Client().login(username="linkjudge", password="a-long-password-1")


def test_no_judge_response_names_a_system(campaign, ann):
    for line in (1, 2, 4):
        add_screen(campaign, line)
    client = login(ann)
    responses = [client.get(reverse("home")), client.get(reverse("judge-guidelines", args=[campaign.pk]))]
    acknowledged(client, campaign)
    url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    responses.append(client.get(url))
    responses.append(client.post(url, {"rank_0": "1", **keys_of(url)}))
    next_url = client.post(url, ranks_data(4, url=url))["Location"]
    responses.append(client.get(next_url))
    responses.append(client.post(reverse("judge-flag", args=[token_in_url(next_url)]), {"reason": "other"}))
    responses.append(client.post(url, ranks_data(4, url=url), follow=True))
    responses.append(client.get(reverse("judge-screen", args=[uuid.uuid4()])))
    config = re.search(
        r'<script id="judge-config" type="application/json">(.*?)</script>', responses[2].content.decode()
    )
    shown = json.loads(config.group(1))
    assert set(shown) == {
        "maxRank", "idleCapSeconds", "leaseUrl", "heartbeatSeconds", "token", "submitted", "sessionEnded", "pageExpired"
    }
    assert uuid.UUID(shown["token"]) and shown["submitted"] == [], "the serving token (in the URL too), no values"
    assert shown["sessionEnded"]["href"] == shown["pageExpired"]["href"] == url, "the notices' way back: this page"
    for response in responses:
        assert_no_system_names(response)


def test_a_prws_campaign_is_served_with_sliders_not_ranks(campaign, ann):
    add_screen(campaign, 1)
    campaign.mode = "prws"
    campaign.guidelines = ""
    campaign.save()
    client = login(ann)
    response = client.get(client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"])
    assert response.status_code == 200
    assert b'type="range"' in response.content and b'name="rank_' not in response.content


def test_the_page_keeps_its_lease_while_the_judge_works(campaign, ann, settings):
    settings.JUDGE_LEASE_MINUTES = 10
    add_screen(campaign, 0)
    client = acknowledged(login(ann), campaign)
    token = token_in(client.get(reverse("judge-campaign", args=[campaign.pk])))
    page = client.get(reverse("judge-screen", args=[token])).content.decode()
    config = json.loads(re.search(r'<script id="judge-config" type="application/json">(.*?)</script>', page).group(1))
    assert config["leaseUrl"] == reverse("judge-lease", args=[token]) and config["heartbeatSeconds"] == 150
    assignment = Assignment.objects.get(token=token)
    Assignment.objects.filter(pk=assignment.pk).update(lease_expires_at=assignment.served_at + timedelta(minutes=1))
    assert client.post(config["leaseUrl"]).status_code == 204
    assignment.refresh_from_db()
    assert assignment.lease_expires_at - assignment.served_at > timedelta(minutes=9)
    other = judge("bob", campaign)
    assert login(other).post(config["leaseUrl"]).status_code == 403
    assert login(ann).get(config["leaseUrl"]).status_code == 405
    csrf = Client(enforce_csrf_checks=True)
    csrf.force_login(ann)
    assert csrf.post(config["leaseUrl"]).status_code == 403


def test_the_lease_of_an_undone_or_reclaimed_screen_is_refused(campaign, ann):
    add_screen(campaign, 0)
    client = acknowledged(login(ann), campaign)
    token = token_in(client.get(reverse("judge-campaign", args=[campaign.pk])))
    Assignment.objects.filter(token=token).update(token=uuid.uuid4())  # given to another judge since
    refused = client.post(reverse("judge-lease", args=[token]))
    assert refused.status_code == 409 and refused.json()["error"] == queue.STALE_MESSAGE


def test_ranks_for_candidates_the_screen_no_longer_shows_are_refused(campaign, ann):
    screen = add_screen(campaign, 1)
    client = acknowledged(login(ann), campaign)
    url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    page = client.get(url).content.decode()
    keys = re.findall(r'<input type="hidden" name="candidate_(\d+)" value="([0-9a-f]{20})">', page)
    assert [int(position) for position, _ in keys] == [0, 1, 2, 3]
    shown = list(screen.slots.order_by("position").values_list("candidate_id", flat=True))
    token = uuid.UUID(url.rstrip("/").rsplit("/", 1)[1])
    assert [key for _, key in keys] == [candidate_key(token, pk) for pk in shown], "keyed HMACs of this serving"
    assert not {key for _, key in keys} & {candidate_key(uuid.uuid4(), pk) for pk in shown}, "another serving differs"
    posted = {**ranks_data(4, [1, 2, 3, 4]), **{f"candidate_{position}": key for position, key in keys}}
    ScreenCandidate.objects.filter(screen=screen).delete()
    ScreenCandidate.objects.bulk_create(
        ScreenCandidate(screen=screen, candidate_id=pk, position=i) for i, pk in enumerate(shown[1:] + shown[:1])
    )
    refused = client.post(url, posted)
    assert refused.status_code == 409 and b"its corrections changed after it was served" in refused.content
    assert client.post(url, ranks_data(4, [1, 2, 3, 4])).status_code == 409, "a post without keys is refused"
    assert not Judgment.objects.exists()
    assert client.post(url, ranks_data(4, [1, 2, 3, 4], url=url)).status_code == 302
    assert CandidateJudgment.objects.get(rank=1).candidate_id == shown[1]


@pytest.mark.django_db(transaction=True)
def test_a_submit_is_one_transaction_that_also_serves_the_next_screen(campaign, ann):
    """The submit, the next screen's claim and the undo offer (a URL parameter, not a session write) commit once."""
    add_screen(campaign, 1)
    add_screen(campaign, 2)
    client = acknowledged(login(ann), campaign)
    url = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    with CaptureQueriesContext(connection) as queries:
        posted = client.post(url, ranks_data(4, url=url))
    assert posted.status_code == 302
    assert [q["sql"] for q in queries.captured_queries].count("COMMIT") == 1
    following = Assignment.objects.get(status=Assignment.Status.SERVED)
    assert posted["Location"] == f"/judge/screens/{following.token}/?undo={token_in_url(url)}"
    assert b"Undo it" in client.get(posted["Location"]).content


def judge_round_queries(client: Client, campaign) -> dict[str, int]:
    """The queries of each page of one round of a judge's work: home, the campaign page (the served screen), the
    screen, a submit (which claims the next screen), the next screen, undo, the undone screen and a flag."""
    counts = {}

    def count(page: str, call):
        with CaptureQueriesContext(connection) as queries:
            response = call()
        assert response.status_code in (200, 302), (page, response.status_code)
        counts[page] = len(queries)
        return response

    count("home", lambda: client.get(reverse("judge-home")))
    url = count("campaign", lambda: client.get(reverse("judge-campaign", args=[campaign.pk])))["Location"]
    count("screen", lambda: client.get(url))
    posted = {**ranks_data(len(keys_of(url))), **keys_of(url)}
    following = count("submit", lambda: client.post(url, posted))["Location"]
    count("next screen", lambda: client.get(following))
    undone = count("undo", lambda: client.post(reverse("judge-undo", args=[campaign.pk]),
                                               {"token": str(token_in_url(url))}))["Location"]
    count("undone screen", lambda: client.get(undone))
    count("flag", lambda: client.post(reverse("judge-flag", args=[token_in_url(undone)]), {"reason": "garbled"}))
    return counts


def test_a_judges_pages_ask_as_many_queries_however_large_the_campaign_grows(campaign, ann):
    """Other judges' judgments, more screens and the judge's own earlier judgments add no query to any page of the
    judge's round (the costs of the queries are bench-marked in benchmarks/judge_pages.py)."""
    for line in range(6):
        add_screen(campaign, line, slots=2)
    client = acknowledged(login(ann), campaign)
    judge_round_queries(client, campaign)
    before = judge_round_queries(client, campaign)
    bob = judge("bob", campaign)
    for line in list(range(6)) * 3:
        add_screen(campaign, line, slots=2)
    for user, screens in ((bob, 12), (ann, 4)):
        for _ in range(screens):
            served = queue.next_assignment(campaign, user)
            queue.submit_ranking(served.token, user, [1] * served.screen.slots.count(), queue.candidate_keys(served))
    queue.next_assignment(campaign, ann)
    assert Judgment.objects.filter(assignment__judge=bob).count() == 12
    assert judge_round_queries(client, campaign) == before
