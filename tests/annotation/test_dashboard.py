"""The organizer's live dashboard (judging part) and a screen's page on PostgreSQL: progress against the plan,
repeats, time per screen, judges, flags linking to their screen, excluding a screen from analysis and putting it
back; organizers and admins only."""
from __future__ import annotations

import html
import json
from datetime import timedelta

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from scipy.stats import trim_mean

from annotation.models import Assignment, Campaign, CandidateJudgment, Flag, Judgment, Screen, System
from annotation.services.attention import add_attention_checks
from annotation.services.dashboard import FLAG_LIMIT, NO_TIMES, split_flag_reason

from .factories import add_screen, judge, login, small_campaign

pytestmark = pytest.mark.django_db
User = get_user_model()


def strict(response) -> dict:
    def refuse(constant):
        raise ValueError(f"non-finite number {constant}")

    return json.loads(response.content, parse_constant=refuse)


@pytest.fixture
def organizer():
    return User.objects.create_user("orga")


@pytest.fixture
def campaign(organizer):
    campaign = small_campaign(redundancy=2)
    campaign.organizers.add(organizer)
    return campaign


def submit(assignment: Assignment, user, seconds: float | None, flag: str | None = None) -> Judgment:
    """Store ``user``'s judgment of ``assignment`` (ranks by display position, or a flag), as the queue does."""
    now = timezone.now()
    Assignment.objects.filter(pk=assignment.pk).update(judge=user, status=Assignment.Status.SUBMITTED,
                                                      served_at=now, submitted_at=now)
    judgment = Judgment.objects.create(assignment_id=assignment.pk,
                                       duration=None if seconds is None else timedelta(seconds=seconds))
    if flag is not None:
        Flag.objects.create(judgment=judgment, reason=flag)
        return judgment
    slots = assignment.screen.slots.order_by("position")
    CandidateJudgment.objects.bulk_create(
        CandidateJudgment(judgment=judgment, candidate_id=slot.candidate_id, position=slot.position,
                          rank=slot.position + 1)
        for slot in slots
    )
    return judgment


def dashboard(client: Client, campaign) -> dict:
    response = client.get(reverse("campaign-dashboard", args=[campaign.pk]))
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    return strict(response)


def test_an_empty_campaign_has_a_plan_of_zero_and_no_times(campaign, organizer):
    data = dashboard(login(organizer), campaign)
    assert data["plan"]["screens"] == 0 and data["plan"]["slots"] == 0 and data["plan"]["redundancy"] == 2
    assert data["times"] == {"screens": 0, "median": None, "trimmed_mean": None, "reason": NO_TIMES}
    assert data["judges"] == [] and data["flags"] == {"total": 0, "shown": []}


def test_progress_repeats_times_and_flags(campaign, organizer):
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    judge("cyd", campaign)
    screens = [add_screen(campaign, line, slots=2) for line in (0, 1, 2, 4)]
    slots = {s.number: list(s.assignments.order_by("position")) for s in screens}
    ann_seconds = [10.0, 12.0, 11.0, 400.0]
    for screen, seconds in zip(screens, ann_seconds):
        submit(slots[screen.number][0], ann, seconds)
    submit(slots[0][1], bob, 30.0)
    flagged = submit(slots[1][1], bob, 5.0, flag="Garbled source sentence: the source is cut off")
    Assignment.objects.filter(pk=slots[2][1].pk).update(judge=bob, status=Assignment.Status.SERVED)
    first = slots[0][0]
    Assignment.objects.create(screen=first.screen, judge=ann, position=first.position, repeat_of=first, due_after=4)
    Assignment.objects.create(screen=screens[1], judge=ann, position=first.position, repeat_of=slots[1][0],
                              due_after=9)
    submit(Assignment.objects.create(screen=screens[2], judge=ann, position=first.position,
                                     repeat_of=slots[2][0], due_after=1), ann, None)

    data = dashboard(login(organizer), campaign)
    plan = data["plan"]
    assert (plan["screens"], plan["slots"], plan["submitted"], plan["claimed"]) == (4, 8, 6, 7)
    assert (plan["screens_complete"], plan["screens_started"], plan["excluded_screens"]) == (2, 4, 0)
    assert (plan["judgments"], plan["flags"]) == (7, 1)
    assert (plan["repeats_submitted"], plan["repeats_due"], plan["repeats_later"]) == (1, 1, 1)
    assert data["snapshot"]["judgments"] == 7

    timed = ann_seconds + [30.0, 5.0]
    assert data["times"]["screens"] == 6
    assert data["times"]["median"] == pytest.approx(float(np.median(timed)))
    assert data["times"]["trimmed_mean"] == pytest.approx(float(trim_mean(timed, 0.05)))
    rows = {row["judge"]: row for row in data["judges"]}
    assert list(rows) == ["ann", "bob", "cyd"]
    assert (rows["ann"]["submitted"], rows["ann"]["repeats_submitted"], rows["ann"]["repeats_due"]) == (5, 1, 1)
    assert rows["ann"]["times"]["median"] == pytest.approx(11.5)
    assert rows["ann"]["times"]["trimmed_mean"] == pytest.approx(float(trim_mean(ann_seconds, 0.05)))
    assert (rows["bob"]["submitted"], rows["bob"]["flags"]) == (2, 1)
    assert rows["cyd"]["submitted"] == 0 and rows["cyd"]["times"]["reason"] == NO_TIMES

    flag = data["flags"]["shown"][0]
    assert data["flags"]["total"] == 1
    assert (flag["judgment"], flag["screen"], flag["line"], flag["judge"]) == (flagged.pk, 1, 1, "bob")
    assert (flag["reason"], flag["details"], flag["excluded"]) == ("Garbled source sentence", "the source is cut off",
                                                                  False)
    assert flag["url"] == reverse("campaign-screen", args=[campaign.pk, 1])


def test_trimmed_mean_cuts_five_percent_at_each_end(campaign, organizer):
    ann = judge("ann", campaign)
    seconds = [20.0] * 18 + [1.0, 5000.0]
    for i, value in enumerate(seconds):
        submit(add_screen(campaign, i % 6).assignments.get(), ann, value)
    times = dashboard(login(organizer), campaign)["times"]
    assert times["trimmed_mean"] == pytest.approx(20.0), "one of 20 values is cut at each end"
    assert times["median"] == 20.0


def test_flags_are_newest_first_and_limited(campaign, organizer):
    ann = judge("ann", campaign)
    for i in range(FLAG_LIMIT + 3):
        submit(add_screen(campaign, i % 6).assignments.first(), ann, 3.0, flag=f"Other: number {i}")
    flags = dashboard(login(organizer), campaign)["flags"]
    assert flags["total"] == FLAG_LIMIT + 3 and len(flags["shown"]) == FLAG_LIMIT
    assert flags["shown"][0]["details"] == f"number {FLAG_LIMIT + 2}"


def test_attention_results_per_judge(campaign, organizer):
    ann = judge("ann", campaign)
    screen = add_screen(campaign, 4)
    add_attention_checks(campaign, 1.0, np.random.default_rng(1))
    control = screen.slots.get(candidate__outputs__system__kind=System.Kind.CONTROL).position
    judgment = submit(screen.assignments.first(), ann, 8.0)
    last = screen.slots.count()
    for item in judgment.items.all():
        item.rank = last if item.position == control else 1
        item.save(update_fields=["rank"])
    row = dashboard(login(organizer), campaign)["judges"][0]
    assert (row["judge"], row["checks"], row["ranked_last"], row["attention_rate"]) == ("ann", 1, 1, 1.0)


def test_split_flag_reason():
    assert split_flag_reason("Needs more context to judge") == ("Needs more context to judge", "")
    assert split_flag_reason("Other: a: b") == ("Other", "a: b")
    assert split_flag_reason("") == ("flagged", "")


def test_the_screen_page_shows_systems_and_judgments_and_excludes_the_screen(campaign, organizer):
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    screen = add_screen(campaign, 4, slots=2)
    first, second = screen.assignments.order_by("position")
    submit(first, ann, 12.0)
    submit(second, bob, 4.0, flag="Unreadable corrections: <b>broken</b>")
    client = login(organizer)
    url = reverse("campaign-screen", args=[campaign.pk, screen.number])
    page = client.get(url).content.decode()
    for text in ("It have many problem .", "ZEPHYRSYS", "MARMOTFIX", "Flagged: <strong>Unreadable corrections</strong>",
                 "&lt;b&gt;broken&lt;/b&gt;", "Counted in analyses", "12.0 s"):
        assert text in page
    assert "<b>broken</b>" not in page

    exclusion = reverse("campaign-screen-exclusion", args=[campaign.pk, screen.number])
    response = client.post(exclusion, {"action": "exclude"}, follow=True)
    assert response.redirect_chain[-1][0] == url
    assert "is excluded from analysis" in response.content.decode()
    assert Screen.objects.get(pk=screen.pk).excluded
    assert dashboard(client, campaign)["plan"]["excluded_screens"] == 1
    assert dashboard(client, campaign)["flags"]["shown"][0]["excluded"] is True
    assert "already excluded" in client.post(exclusion, {"action": "exclude"}, follow=True).content.decode()
    response = client.post(exclusion, {"action": "delete"}, follow=True)
    assert "Nothing was changed" in response.content.decode() and Screen.objects.get(pk=screen.pk).excluded
    client.post(exclusion, {"action": "include"})
    assert not Screen.objects.get(pk=screen.pk).excluded


@pytest.mark.parametrize("mode, said, unsaid", [
    (Campaign.Mode.RANKING, "Ranks: 1 is best.", "Scores"),
    (Campaign.Mode.PRWS, 'Scores: 0–100, 100 is best; * marks "meaning changed".', "Ranks"),
])
def test_the_screen_page_explains_the_values_its_campaigns_judges_give(organizer, mode, said, unsaid):
    """The hint under a screen's judgments explained ranks and PRWS scores on every screen: a PRWS campaign's
    judges give no ranks, a ranking campaign's no scores."""
    campaign = small_campaign(f"values-{mode}", mode=mode)
    campaign.organizers.add(organizer)
    screen = add_screen(campaign, 4)
    page = login(organizer).get(reverse("campaign-screen", args=[campaign.pk, screen.number])).content.decode()
    hint = " ".join(html.unescape(page[page.index('id="screen-judgments"'):page.index("</section>",
                                                                                   page.index('id="screen-judgments"'))])
                    .split())
    assert said in hint and unsaid not in hint


def test_only_organizers_and_admins_reach_the_dashboard_and_screen_pages(campaign, organizer):
    screen = add_screen(campaign, 4)
    judge_user = judge("judy", campaign)
    other = User.objects.create_user("other-orga")
    admin = User.objects.create_superuser("boss")
    urls = [reverse("campaign-dashboard", args=[campaign.pk]), reverse("campaign-screen", args=[campaign.pk, 0])]
    exclusion = reverse("campaign-screen-exclusion", args=[campaign.pk, screen.number])
    for url in urls:
        assert Client().get(url).status_code == 302
        assert login(judge_user).get(url).status_code == 404
        assert login(other).get(url).status_code == 404
        assert login(admin).get(url).status_code == 200
    for user in (judge_user, other):
        assert login(user).post(exclusion, {"action": "exclude"}).status_code == 404
    assert not Screen.objects.get(pk=screen.pk).excluded
    assert login(organizer).get(exclusion).status_code == 405
    assert login(organizer).get(reverse("campaign-screen", args=[campaign.pk, 99])).status_code == 404
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(organizer)
    assert csrf_client.post(exclusion, {"action": "exclude"}).status_code == 403


def test_the_campaign_page_holds_the_dashboard(campaign, organizer):
    page = login(organizer).get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    for text in ('id="dashboard"', reverse("campaign-dashboard", args=[campaign.pk]),
                 reverse("campaign-leaderboard", args=[campaign.pk]), reverse("campaign-history", args=[campaign.pk]),
                 "js/dashboard.js"):
        assert text in page


def test_the_screen_page_reads_the_systems_of_its_own_candidates_only(organizer):
    """The page of one screen read the systems behind every candidate of the campaign (600,000 output rows of 31
    systems x 20,000 sentences, a second); it asks for its screen's candidates."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    campaign = small_campaign("screen-systems")
    campaign.organizers.add(organizer)
    screen = add_screen(campaign, 4)
    client = login(organizer)
    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("campaign-screen", args=[campaign.pk, screen.number]))
    assert page.status_code == 200
    outputs = [q["sql"] for q in queries.captured_queries if 'FROM "annotation_output"' in q["sql"]]
    assert outputs and all('"annotation_output"."candidate_id" IN' in sql for sql in outputs), outputs


def test_the_rater_checks_say_their_time_is_the_active_time_which_the_judges_table_is_not(campaign, organizer):
    """Rater QC's (c) counts the active time the judge's browser measured, the judges table the time from serving
    to submit: the two medians of one judge differ on one page (20 s and 5 s here), so both pages say which is
    which. They said only "(c) time"."""
    ann = judge("ann", campaign)
    judgment = submit(add_screen(campaign, 4).assignments.first(), ann, 20.0)
    Judgment.objects.filter(pk=judgment.pk).update(active_time=timedelta(seconds=5))
    client = login(organizer)
    data = dashboard(client, campaign)
    assert data["judges"][0]["times"]["median"] == 20.0 and data["rater_qc"]["raters"][0]["median_seconds"] == 5.0
    said = "the active time on screen that the judge's browser measured, where it did"
    for name in ("campaign-detail", "campaign-raters"):
        page = html.unescape(client.get(reverse(name, args=[campaign.pk])).content.decode())
        assert said in " ".join(page.split()), name
