"""The Django admin: every model is registered (enumerated with apps.get_models(), so models added later are
covered), every changelist answers 200 for an admin with rows in it, and support's questions have answers there."""
from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import User
from django.db.models import Q
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Campaign, Candidate, CandidateJudgment, Judgment, Screen
from annotation.services import queue
from annotation.services.invites import create_invite
from annotation.services.training import add_training_screen, answer_training
from ranking.models import AnalysisChunk, AnalysisRun
from tests.annotation.factories import add_screen, judge, small_campaign

pytestmark = pytest.mark.django_db

#: Framework tables that are not the product's data, and why the admin leaves them out.
NOT_REGISTERED = {
    "admin.LogEntry": "the admin's own history, shown on each object's History page",
    "auth.Permission": "fixed by the code; roles are groups and flags on users",
    "contenttypes.ContentType": "Django's table of models",
    "sessions.Session": "login sessions: secrets, not support data",
    "axes.AccessAttemptExpiration": "django-axes' internal expiry of an attempt (attempts themselves are listed)",
}


@pytest.fixture
def admin_client() -> Client:
    """A superuser's client, with a campaign holding a judged and a flagged screen, a training answer, an invite
    and a failed analysis with a stored bootstrap chunk."""
    user = User.objects.create_superuser("root", password="pw")
    campaign = small_campaign("support", owner=user)
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    add_screen(campaign, 0, judges=[ann, bob])
    served = queue.next_assignment(campaign, ann)
    queue.submit_ranking(served.token, ann, [1, 2, 2, 3][: served.screen.slots.count()], queue.candidate_keys(served))
    flagged = queue.next_assignment(campaign, bob)
    queue.flag_screen(flagged.token, bob, "garbled")
    segment = campaign.segments.get(line=1)
    training = add_training_screen(campaign, segment, list(segment.candidates.order_by("id"))[:2], [1, 2])
    answer_training(training, ann, [1, 2])
    create_invite(campaign, "carol", user)
    failed = AnalysisRun.objects.create(campaign=campaign, seed=7, status=AnalysisRun.Status.FAILED,
                                        parameters={"bootstrap": 1000, "confidence": 0.95, "accuracy_folds": 0},
                                        error="no judgments to analyse")
    AnalysisChunk.objects.create(run=failed, method="trueskill", chunk=0, samples=b"")
    client = Client()
    client.force_login(user)
    return client


def test_every_model_is_registered_in_the_admin():
    missing = [model._meta.label for model in apps.get_models()
               if not admin.site.is_registered(model) and model._meta.label not in NOT_REGISTERED]
    assert missing == [], f"models missing from the admin: {missing}"
    product = [label for label in NOT_REGISTERED if label.split(".")[0] in ("annotation", "ranking")]
    assert product == []


def test_every_changelist_and_a_change_page_answer_200_for_an_admin(admin_client):
    wrong = []
    for model in admin.site._registry:
        info = model._meta.app_label, model._meta.model_name
        listing = admin_client.get(reverse("admin:{}_{}_changelist".format(*info)))
        if listing.status_code != 200:
            wrong.append(f"{model._meta.label} list: {listing.status_code}")
        searched = admin_client.get(reverse("admin:{}_{}_changelist".format(*info)), {"q": "ann 1"})
        if searched.status_code != 200:
            wrong.append(f"{model._meta.label} search: {searched.status_code}")
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            page = admin_client.get(reverse("admin:{}_{}_change".format(*info), args=[first.pk]))
            if page.status_code != 200:
                wrong.append(f"{model._meta.label} page: {page.status_code}")
    assert wrong == []


def test_support_finds_a_judges_assignments_a_screens_judgments_and_a_runs_parameters_and_error(admin_client):
    found = admin_client.get(reverse("admin:annotation_assignment_changelist"), {"q": "ann"}).context["cl"]
    assert found.result_count >= 1 and {a.judge.username for a in found.result_list} == {"ann"}, \
        "the page as text may hold 'bob' by chance (its CSRF token)"

    screen = Screen.objects.get()
    screens = admin_client.get(reverse("admin:annotation_screen_changelist")).content.decode()
    link = f"{reverse('admin:annotation_judgment_changelist')}?assignment__screen__id__exact={screen.pk}"
    assert link in screens
    judgments = admin_client.get(link)
    assert judgments.status_code == 200
    assert judgments.context["cl"].result_count == 2
    flagged = admin_client.get(reverse("admin:annotation_judgment_changelist"), {"flagged": "yes"})
    assert [j.assignment.judge.username for j in flagged.context["cl"].result_list] == ["bob"]

    runs = admin_client.get(reverse("admin:ranking_analysisrun_changelist")).content.decode()
    assert "accuracy_folds 0, bootstrap 1000, confidence 0.95" in runs and "no judgments to analyse" in runs


def test_judgments_are_read_only_in_the_admin(admin_client):
    judgment = Judgment.objects.filter(flag__isnull=True).get()
    url = reverse("admin:annotation_judgment_change", args=[judgment.pk])
    page = admin_client.get(url).content.decode()
    assert 'name="_save"' not in page
    assert admin_client.post(url, {}).status_code == 403
    assert admin_client.get(reverse("admin:annotation_judgment_add")).status_code == 403
    assert admin_client.post(reverse("admin:annotation_judgment_delete", args=[judgment.pk]),
                             {"post": "yes"}).status_code == 403
    for name in ("candidatejudgment", "flag"):
        assert admin_client.get(reverse(f"admin:annotation_{name}_add")).status_code == 403
    assert Judgment.objects.count() == 2


def test_assignments_are_listed_by_campaign_in_the_order_their_slots_are_handed_out(admin_client):
    other = small_campaign("other")
    for line in (2, 1, 3):
        add_screen(other, line, slots=2)
    Assignment.objects.filter(campaign=other, position=0).update(position=9)
    listed = admin_client.get(reverse("admin:annotation_assignment_changelist")).context["cl"].result_list
    rows = [(assignment.campaign_id, assignment.position, assignment.pk) for assignment in listed]
    assert rows == sorted(rows) and len(rows) == Assignment.objects.count()
    assert {campaign for campaign, _, _ in rows} == {other.pk, Campaign.objects.get(name="support").pk}


def test_a_search_matches_numbers_and_tokens_as_values_and_names_in_part(admin_client):
    """A number matches the screens of that number ("01" is 1), a token its assignment (written in any case), a word
    the judges whose name holds it, and a word is no number, so it skips the number fields; every term must match."""
    campaign = Campaign.objects.get(name="support")
    ann = User.objects.get(username="ann")
    for line in (1, 2):
        add_screen(campaign, line, judges=[ann])
    url = reverse("admin:annotation_assignment_changelist")

    def found(term: str) -> list[int]:
        return sorted(assignment.pk for assignment in admin_client.get(url, {"q": term}).context["cl"].result_list)

    def ids(**lookups) -> list[int]:
        return sorted(Assignment.objects.filter(**lookups).values_list("pk", flat=True))

    assert found("01") == ids(screen__number=1) and len(found("01")) == 1
    assert found("١") == found("+1") == found("1.0") == [], "a number is ASCII digits (int() read ١ as 1)"
    served = Assignment.objects.get(judge=ann, screen__number=0)
    assert found(str(served.token).upper()) == [served.pk]
    assert found("ann") == ids(judge=ann) and len(found("ann")) == 3
    assert found('ann "0"') == [served.pk]
    assert found("nobody") == [] and found("bob 2") == []
    judgments = admin_client.get(reverse("admin:annotation_judgment_changelist"), {"q": "0"}).context["cl"]
    assert judgments.result_count == 2, "both judgments of screen 0"


def test_a_search_through_a_many_to_many_relation_lists_each_row_once(admin_client):
    """"A new document starts here ." is one candidate of three systems; searching for a letter of two of their
    names lists it once, and the count says so."""
    url = reverse("admin:annotation_candidate_changelist")
    listed = admin_client.get(url, {"q": "e"}).context["cl"]
    expected = Candidate.objects.filter(Q(text__icontains="e") | Q(systems__name__icontains="e")).distinct()
    pks = [candidate.pk for candidate in listed.result_list]
    assert len(pks) == len(set(pks)) == listed.result_count == expected.count()
    shared = Candidate.objects.get(text="A new document starts here .")
    assert shared.systems.filter(name__icontains="e").count() == 2 and shared.pk in pks


def test_judged_candidates_are_filtered_by_rank(admin_client):
    listed = admin_client.get(reverse("admin:annotation_candidatejudgment_changelist"), {"rank": "2"}).context["cl"]
    assert {item.rank for item in listed.result_list} == {2}
    assert listed.result_count == CandidateJudgment.objects.filter(rank=2).count() >= 1
    for value in ("9" * 5000, "²", "99"):  # int() refuses 4,300+ digits: a 500
        response = admin_client.get(reverse("admin:annotation_candidatejudgment_changelist"), {"rank": value})
        assert response.status_code in (200, 302), value
