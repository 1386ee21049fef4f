"""The judge's PRWS screen over HTTP and the queue's ``submit_scores`` (N19 section 4.2, METHODS 11): sliders that
must be moved, the "Meaning changed" box, idempotent submits, flags, refusals, and no system name on any page."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Campaign, CandidateJudgment, Flag, Judgment
from annotation.services import queue

from .factories import SYSTEM_NAMES, add_screen, candidate_of, judge, small_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    return small_campaign("scored", mode=Campaign.Mode.PRWS)


@pytest.fixture
def ann(campaign):
    return judge("ann", campaign)


def screen_url(client: Client, campaign) -> str:
    return client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]


def served(ann, campaign) -> tuple[Client, str]:
    client = Client()
    client.force_login(ann)
    return client, screen_url(client, campaign)


def scores_data(scores, moved=None, meaning=(), active_ms=900, keys=()) -> dict:
    """A post of ``scores`` (sliders moved unless ``moved`` says otherwise) with the candidate keys ``keys``."""
    data = {f"score_{i}": str(score) for i, score in enumerate(scores)}
    data.update({f"moved_{i}": "1" for i in range(len(scores)) if moved is None or moved[i]})
    data.update({f"meaning_{i}": "1" for i in meaning})
    data["active_ms"] = str(active_ms)
    return {**data, **key_fields(keys)}


def key_fields(keys) -> dict:
    """The hidden fields that post candidate keys."""
    return {f"candidate_{i}": key for i, key in enumerate(keys)}


def page_keys(client: Client, url: str) -> list[str]:
    """The candidate keys in the screen page's form, as a browser posts them."""
    return re.findall(r'name="candidate_\d+" value="([0-9a-f]+)"', client.get(url).content.decode())


def test_the_screen_shows_a_slider_and_a_box_per_correction_and_no_system(campaign, ann):
    add_screen(campaign, 1)
    client, url = served(ann, campaign)
    page = client.get(url).content.decode()
    assert page.count('type="range"') == 4 and page.count('name="meaning_') == 4
    assert page.count('name="moved_') == 4 and 'name="moved_0" value=""' in page, "sliders start unmoved"
    assert "Completely ungrammatical/Garbled" in page and "Perfect" in page and "Meaning changed" in page
    assert "js/prws.js" in page and "js/judge.js" not in page and "Screen 1 of 1" in page
    for name in SYSTEM_NAMES:
        assert name not in page


def test_submit_stores_scores_boxes_and_time_once(campaign, ann):
    screen = add_screen(campaign, 1)
    client, url = served(ann, campaign)
    keys = page_keys(client, url)
    response = client.post(url, scores_data([80, 65.5, 0, 100], meaning=[1], keys=keys))
    assert response.status_code == 302
    judgment = Judgment.objects.get()
    rows = list(judgment.items.order_by("position").values_list("candidate_id", "score", "meaning_changed", "rank"))
    slots = list(screen.slots.order_by("position").values_list("candidate_id", flat=True))
    assert rows == [(slots[0], 80.0, False, None), (slots[1], 65.5, True, None), (slots[2], 0.0, False, None),
                    (slots[3], 100.0, False, None)]
    assert judgment.active_time == min(timedelta(milliseconds=900), judgment.duration), "clamped to the duration"
    again = client.post(url, scores_data([10, 10, 10, 10], keys=keys), follow=True)
    assert "this second submission was not stored" in again.content.decode()
    assert Judgment.objects.count() == 1 and CandidateJudgment.objects.filter(score=10).count() == 0


def test_an_unmoved_slider_is_refused_and_shown_as_it_was(campaign, ann):
    add_screen(campaign, 1)
    client, url = served(ann, campaign)
    keys = page_keys(client, url)
    response = client.post(url, scores_data([80, 50, 30, 20], moved=[True, False, True, True], meaning=[2], keys=keys))
    page = response.content.decode()
    assert response.status_code == 400
    assert "Move the slider of correction 2 before you submit." in page
    assert not Judgment.objects.exists() and Assignment.objects.get().status == "served"
    assert re.search(r'name="score_0"[^>]*value="80"', page) and 'name="moved_0" value="1"' in page
    assert 'name="moved_1" value=""' in page
    assert re.search(r'name="meaning_2" value="1" checked', page)


@pytest.mark.parametrize(
    "data, message",
    [
        (scores_data([101, 1, 1, 1]), "less than or equal to 100"),
        (scores_data(["x", 1, 1, 1]), "Correction 1: the score is not a number from 0 to 100."),
        ({**scores_data([1, 1, 1]), "moved_3": "1"}, "Correction 4 has no score."),
    ],
)
def test_bad_posts_store_nothing(campaign, ann, data, message):
    add_screen(campaign, 1)
    client, url = served(ann, campaign)
    response = client.post(url, {**data, **key_fields(page_keys(client, url))})
    assert response.status_code == 400 and message in response.content.decode()
    assert not Judgment.objects.exists()


def test_flag_a_prws_screen_and_a_bad_flag_keeps_the_sliders(campaign, ann):
    add_screen(campaign, 1)
    client, url = served(ann, campaign)
    token = url.rstrip("/").split("/")[-1]
    bad = client.post(reverse("judge-flag", args=[token]), {"reason": "other"})
    assert bad.status_code == 400 and bad.content.decode().count('type="range"') == 4
    client.post(reverse("judge-flag", args=[token]), {"reason": "garbled"})
    assert Flag.objects.get().reason == "Garbled source sentence" and not CandidateJudgment.objects.exists()


def test_queue_checks_scores(campaign, ann):
    add_screen(campaign, 1)
    assignment = queue.next_assignment(campaign, ann)
    keys = queue.candidate_keys(assignment)
    with pytest.raises(queue.InvalidScores, match="Score every one of the 4 corrections"):
        queue.submit_scores(assignment.token, ann, [1, 2], [False, False], keys)
    with pytest.raises(queue.InvalidScores, match="from 0 .* to 100 .*; got 120"):
        queue.submit_scores(assignment.token, ann, [1, 2, 3, 120], [False] * 4, keys)
    with pytest.raises(queue.InvalidRanking, match="PRWS"):
        queue.submit_ranking(assignment.token, ann, [1, 2, 3, 4], keys)
    assert not Judgment.objects.exists()
    result = queue.submit_scores(assignment.token, ann, [1, 2, 3, 4], [True, False, False, False], keys)
    assert result.created and result.judgment.items.filter(meaning_changed=True).count() == 1
    repeated = queue.submit_scores(assignment.token, ann, [9, 9, 9, 9], [False] * 4, keys)
    assert not repeated.created and repeated.judgment == result.judgment


def test_a_ranking_campaign_takes_no_scores():
    ranked = small_campaign("ranked")
    bob = judge("bob", ranked)
    add_screen(ranked, 2)
    assignment = queue.next_assignment(ranked, bob)
    with pytest.raises(queue.InvalidScores, match="ranks outputs"):
        queue.submit_scores(assignment.token, bob, [50, 50, 50], [False] * 3, queue.candidate_keys(assignment))
    assert candidate_of(ranked, 2, "INPUT").judgments.count() == 0


def test_scores_for_candidates_the_screen_no_longer_shows_are_refused(campaign, ann):
    screen = add_screen(campaign, 1)
    client, url = served(ann, campaign)
    keys = page_keys(client, url)
    assert len(keys) == 4
    slots = list(screen.slots.order_by("position"))
    for slot in slots:
        slot.position += 10
        slot.save()
    for slot in slots:
        slot.position = 13 - slot.position
        slot.save()
    refused = client.post(url, scores_data([80, 60, 40, 20], keys=keys))
    assert refused.status_code == 409 and "its corrections changed after it was served" in refused.content.decode()
    assert client.post(url, scores_data([80, 60, 40, 20])).status_code == 409, "a post without keys is refused"
    assert not Judgment.objects.exists() and Assignment.objects.get().status == "served"
    assert client.post(url, scores_data([80, 60, 40, 20], keys=page_keys(client, url))).status_code == 302
    best = CandidateJudgment.objects.get(score=80)
    assert best.candidate_id == slots[-1].candidate_id and best.position == 0
