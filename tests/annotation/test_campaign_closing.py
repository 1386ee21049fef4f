"""Closing a campaign and opening it again from its page, the API, ``manage.py close_campaign`` and the admin, all
through ``campaign_closing``: only the admin's campaign form could close a campaign, so an organizer could not end
their own study, and a crowd study's workers got their codes only when an admin did it."""
from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.management.commands import close_campaign
from annotation.models import Campaign, CrowdSession
from annotation.services import campaign_closing, crowd_completion, queue

from .factories import add_screen, small_campaign
from .test_crowd import admin_form, crowd, open_screen, prolific, submit, workers_csv  # noqa: F401 (fixture)

User = get_user_model()


@pytest.fixture
def organizer(crowd) -> Client:  # noqa: F811 (the fixture of test_crowd)
    client = Client()
    client.force_login(User.objects.get(username="orga"))
    return client


def judged_sessions(campaign: Campaign) -> list[str]:
    """The ids of workers whose sessions have screens submitted: two workers judge one screen each, one holds a screen
    and judges none."""
    for worker in ("W1", "W2"):
        client = Client()
        submit(client, open_screen(client, prolific(campaign, worker)))
    open_screen(Client(), prolific(campaign, "IDLE"))
    return ["W1", "W2"]


def codes(campaign: Campaign) -> dict[str, str]:
    return {row["worker_id"]: row["code"] for row in workers_csv(campaign)[1]}


def expected_codes(campaign: Campaign, workers: list[str]) -> dict[str, str]:
    return {worker: crowd_completion.completion_code(campaign, "prolific", worker, "S1", "completed")
            for worker in workers} | {"IDLE": ""}


def test_the_organizer_closes_a_crowd_study_from_its_page_and_its_workers_get_their_codes(crowd, organizer):  # noqa: F811
    workers = judged_sessions(crowd)
    page = organizer.get(reverse("campaign-detail", args=[crowd.pk])).content.decode()
    assert re.search(r'id="campaign-closed-at">Open<', page)
    assert f'id="close-link" href="{reverse("campaign-close", args=[crowd.pk])}"' in page
    confirm = organizer.get(reverse("campaign-close", args=[crowd.pk]))
    text = confirm.content.decode()
    assert confirm.status_code == 200 and "Judges can no longer get or submit screens" in text
    assert "Every worker who submitted a screen in a session gets that session's completion code now" in text
    assert "(judges hold 3 screens now)" in text and "2 sessions would get their code now." in text
    assert 'name="csrfmiddlewaretoken"' in text
    crowd.refresh_from_db()
    assert crowd.closed_at is None, "the confirmation page changes nothing"
    response = organizer.post(reverse("campaign-close", args=[crowd.pk]), follow=True)
    crowd.refresh_from_db()
    assert crowd.closed_at is not None
    when = campaign_closing.closed_at_text(crowd.closed_at)
    assert f"Closed campaign 'crowd' at {when}. 2 crowd sessions got their completion code." in [
        str(message) for message in response.context["messages"]]
    assert codes(crowd) == expected_codes(crowd, workers)
    page = response.content.decode()
    assert f'id="campaign-closed-at">Closed at {when}<' in page
    assert re.search(r'id="close-link" href="[^"]+" hidden>', page) and 'id="study-closed-note"' in page
    live = organizer.get(reverse("campaign-dashboard", args=[crowd.pk])).json()
    assert (live["closed_at"], live["closed_at_text"]) == (crowd.closed_at.isoformat(), when)


def test_the_confirmation_counts_nothing_where_nothing_is_held_or_owed(db):
    campaign = small_campaign("quiet")
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="root-password-1"))
    text = client.get(reverse("campaign-close", args=[campaign.pk])).content.decode()
    assert "(no judge holds one now)" in text and "would get" not in text


def test_closing_a_closed_campaign_says_so_and_changes_nothing(crowd, organizer):  # noqa: F811
    judged_sessions(crowd)
    campaign_closing.close(crowd)
    closed_at, before = crowd.closed_at, codes(crowd)
    confirm = organizer.get(reverse("campaign-close", args=[crowd.pk])).content.decode()
    assert "closing it again changes nothing" in confirm and 'id="close-campaign"' not in confirm
    response = organizer.post(reverse("campaign-close", args=[crowd.pk]), follow=True)
    crowd.refresh_from_db()
    assert crowd.closed_at == closed_at and codes(crowd) == before
    assert [str(message) for message in response.context["messages"]] == [
        f"Campaign 'crowd' was closed already, at {campaign_closing.closed_at_text(closed_at)}; nothing was changed."]


def test_a_close_that_another_one_overtook_changes_nothing(crowd):  # noqa: F811
    """Two organizers close at once: the second read the campaign open, and its close, made second under the locks,
    found it closed. It would have set another time and ended the sessions again."""
    stale = Campaign.objects.get(pk=crowd.pk)
    campaign_closing.close(crowd)
    with pytest.raises(campaign_closing.ClosingRefused, match="was closed already"):
        campaign_closing.close(stale, timezone.now() + timezone.timedelta(hours=1))
    assert Campaign.objects.get(pk=crowd.pk).closed_at == crowd.closed_at == stale.closed_at


def test_the_organizer_opens_the_campaign_again_and_a_new_session_goes_on(crowd, organizer):  # noqa: F811
    client = Client()
    submit(client, open_screen(client, prolific(crowd, "W1")))
    organizer.post(reverse("campaign-close", args=[crowd.pk]))
    code = CrowdSession.objects.get().code
    page = organizer.get(reverse("campaign-detail", args=[crowd.pk])).content.decode()
    assert f'id="reopen-link" href="{reverse("campaign-reopen", args=[crowd.pk])}">' in page
    confirm = organizer.get(reverse("campaign-reopen", args=[crowd.pk])).content.decode()
    assert "A session that got its completion code at the close stays complete" in confirm
    response = organizer.post(reverse("campaign-reopen", args=[crowd.pk]), follow=True)
    crowd.refresh_from_db()
    assert crowd.closed_at is None
    assert str(list(response.context["messages"])[0]).startswith("Opened campaign 'crowd' again")
    assert re.search(r'id="campaign-closed-at">Open<', response.content.decode())
    assert organizer.get(reverse("campaign-dashboard", args=[crowd.pk])).json()["closed_at"] is None
    assert CrowdSession.objects.get().code == code, "the code given at the close stands"
    assert "/judge/screens/" in open_screen(client, prolific(crowd, "W1", session="S2"))
    again = organizer.post(reverse("campaign-reopen", args=[crowd.pk]), follow=True)
    assert [str(message) for message in again.context["messages"]] == [
        "Campaign 'crowd' is open; nothing was changed."]


def test_a_judge_of_a_closed_campaign_gets_and_submits_nothing_and_again_once_it_is_open(db):
    campaign = small_campaign("ranked")
    judge = User.objects.create_user("judge", password="pw")
    campaign.judges.add(judge)
    add_screen(campaign, 0)
    add_screen(campaign, 1)
    served = queue.next_assignment(campaign, judge)
    campaign_closing.close(campaign)
    keys = queue.candidate_keys(served)
    with pytest.raises(queue.CampaignClosed):
        queue.submit_ranking(served.token, judge, [1] * len(keys), keys, None)
    assert queue.next_assignment(campaign, judge) is None
    campaign_closing.reopen(campaign)
    assert queue.submit_ranking(served.token, judge, [1] * len(keys), keys, None).created


def api(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_api_closes_and_reopens_a_crowd_study(crowd):  # noqa: F811
    workers = judged_sessions(crowd)
    owner = api(User.objects.get(username="orga"))
    closed = owner.post(f"/api/campaigns/{crowd.pk}/close/")
    assert closed.status_code == 200, closed.content
    crowd.refresh_from_db()
    assert closed.json()["completed_sessions"] == 2 and closed.json()["closed_at"] is not None
    assert codes(crowd) == expected_codes(crowd, workers)
    assert owner.get(f"/api/campaigns/{crowd.pk}/").json()["closed_at"] == closed.json()["closed_at"]
    again = owner.post(f"/api/campaigns/{crowd.pk}/close/")
    assert again.status_code == 400 and "was closed already" in again.json()["__all__"][0]
    assert Campaign.objects.get(pk=crowd.pk).closed_at == crowd.closed_at
    reopened = owner.post(f"/api/campaigns/{crowd.pk}/reopen/")
    assert (reopened.status_code, reopened.json()) == (200, {"closed_at": None})
    assert Campaign.objects.get(pk=crowd.pk).closed_at is None
    refused = owner.post(f"/api/campaigns/{crowd.pk}/reopen/")
    assert refused.status_code == 400 and refused.json() == {"__all__": ["Campaign 'crowd' is open; nothing was "
                                                                          "changed."]}


def test_the_command_closes_and_reopens_and_refuses_a_second_close(crowd):  # noqa: F811
    workers = judged_sessions(crowd)
    out = StringIO()
    call_command("close_campaign", "--campaign", "crowd", stdout=out)
    crowd.refresh_from_db()
    assert out.getvalue() == (f"Closed campaign 'crowd' at {campaign_closing.closed_at_text(crowd.closed_at)}. "
                              "2 crowd sessions got their completion code.\n")
    assert codes(crowd) == expected_codes(crowd, workers)
    with pytest.raises(CommandError, match="was closed already, at .*; nothing was changed"):
        call_command("close_campaign", "--campaign", "crowd")
    out = StringIO()
    call_command("close_campaign", "--campaign", "crowd", "--reopen", stdout=out)
    assert out.getvalue().startswith("Opened campaign 'crowd' again") and Campaign.objects.get().closed_at is None
    with pytest.raises(CommandError, match="is open; nothing was changed"):
        call_command("close_campaign", "--campaign", "crowd", "--reopen")
    with pytest.raises(CommandError, match="no campaign named 'nope'"):
        call_command("close_campaign", "--campaign", "nope")
    assert close_campaign.Command.help == close_campaign.__doc__


@pytest.fixture
def admin(db) -> Client:
    return api(User.objects.create_superuser("root", password="pw"))


def test_the_admin_opens_a_campaign_again_through_the_service(crowd, admin, monkeypatch):  # noqa: F811
    campaign_closing.close(crowd)
    called = []
    reopen = campaign_closing.reopen
    monkeypatch.setattr(campaign_closing, "reopen", lambda campaign: called.append(campaign.pk) or reopen(campaign))
    data = admin_form(admin, crowd, closed_at_0="", closed_at_1="")
    response = admin.post(reverse("admin:annotation_campaign_change", args=[crowd.pk]), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert called == [crowd.pk] and Campaign.objects.get().closed_at is None
