"""Analysis pages: organizers start analyses and download results; nobody else sees them."""
from __future__ import annotations

import json

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from ranking.models import AnalysisRun

from .factories import synthetic_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    return synthetic_campaign("views", np.random.default_rng(9))


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_organizer_runs_an_analysis_and_downloads_its_json(campaign, django_capture_on_commit_callbacks):
    organizer = User.objects.create_user("org")
    campaign.organizers.add(organizer)
    client = logged_in(organizer)
    url = reverse("campaign-analyses", args=[campaign.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"bootstrap": 200, "confidence": 0.9, "seed": 4, "accuracy_folds": 0})
    assert response.status_code == 302
    run = AnalysisRun.objects.get()
    assert (run.status, run.seed, run.requested_by) == (AnalysisRun.Status.DONE, 4, organizer)
    page = client.get(url).content.decode()
    shown = ("bootstrap samples <strong>200</strong>", "rank range confidence <strong>0.9</strong>",
             "seed <strong>4</strong>", "per-judge confidence <strong>0.9</strong>",
             "accuracy folds <strong>0 (skipped)</strong>", "ignored judges <strong>admin</strong>",
             "judge <strong>all</strong>", "uploaded metrics <strong>none</strong>",
             "metrics computed from <strong>none</strong>")
    assert all(text in page for text in shown) and 'http-equiv="refresh"' not in page
    assert "G15 Table 4" in page and "Slow:" in page
    download = client.get(reverse("campaign-analysis-report", args=[campaign.pk, run.pk, "json"]))
    assert download["Content-Disposition"] == f'attachment; filename="views-analysis-{run.pk}-seed4.json"'
    result = json.loads(download.content)
    assert result["campaign"] == "views" and result["parameters"]["confidence"] == 0.9


def test_bad_parameters_are_refused_with_a_message(campaign):
    organizer = User.objects.create_user("org")
    campaign.organizers.add(organizer)
    response = logged_in(organizer).post(reverse("campaign-analyses", args=[campaign.pk]),
                                         {"bootstrap": 10, "confidence": 1.5, "seed": 1})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Ensure this value is greater than or equal to 100." in page
    assert "Ensure this value is less than or equal to 0.999." in page
    assert not AnalysisRun.objects.exists()



def test_a_campaign_with_analyses_enough_queued_or_running_starts_no_other(campaign, settings):
    """ANALYSES_PER_CAMPAIGN runs queued or running: the page's POST is a 429 saying so, and records nothing. Before,
    every POST recorded one more run, and a page or script in a loop held every worker with one campaign's runs."""
    settings.ANALYSIS_EXECUTION, settings.ANALYSES_PER_CAMPAIGN = "celery", 2  # recorded, never sent: stays queued
    organizer = User.objects.create_user("org")
    campaign.organizers.add(organizer)
    client = logged_in(organizer)
    url = reverse("campaign-analyses", args=[campaign.pk])
    AnalysisRun.objects.create(campaign=campaign, seed=1, status=AnalysisRun.Status.RUNNING)
    AnalysisRun.objects.create(campaign=campaign, seed=1, status=AnalysisRun.Status.FAILED)
    assert client.post(url, {"bootstrap": 200, "confidence": 0.9, "seed": 4}).status_code == 302
    response = client.post(url, {"bootstrap": 200, "confidence": 0.9, "seed": 5})
    assert response.status_code == 429
    assert ("This campaign has 2 analyses queued or running, the most it may have at once (ANALYSES_PER_CAMPAIGN); "
            "start another once one of them is done or failed. Nothing was started.") in response.content.decode()
    assert AnalysisRun.objects.count() == 3


def test_one_accuracy_fold_is_refused_under_its_field_in_the_pages_words(campaign):
    """The form's field is "Accuracy folds"; the message said "accuracy_folds must be 0 (skip) or from 2 to 1,000,
    got 1" above the form, in the names of the code."""
    organizer = User.objects.create_user("org")
    campaign.organizers.add(organizer)
    response = logged_in(organizer).post(reverse("campaign-analyses", args=[campaign.pk]),
                                         {"bootstrap": 100, "confidence": 0.95, "seed": 1, "accuracy_folds": 1})
    assert response.status_code == 400
    message = "Cross-validation needs at least 2 folds; 0 skips it."
    assert response.context["form"].errors == {"accuracy_folds": [message]}
    assert message in response.content.decode()
    assert not AnalysisRun.objects.exists()


@pytest.mark.parametrize("started", ["9" * 5000, "²", "-1", "x"])
def test_a_started_run_that_is_no_run_id_shows_no_banner(campaign, started):
    """``?started=`` names the run just started; anything else is ignored (5,000 digits, more than int() reads, were
    a 500)."""
    organizer = User.objects.create_user("org")
    campaign.organizers.add(organizer)
    AnalysisRun.objects.create(campaign=campaign, seed=1)
    response = logged_in(organizer).get(reverse("campaign-analyses", args=[campaign.pk]), {"started": started})
    assert response.status_code == 200 and response.context["started"] is None


def test_judges_and_other_organizers_cannot_see_analyses(campaign):
    judge = User.objects.get(username="ann")
    stranger = User.objects.create_user("stranger")
    for user in (judge, stranger):
        client = logged_in(user)
        assert client.get(reverse("campaign-analyses", args=[campaign.pk])).status_code == 404
        assert client.post(reverse("campaign-analyses", args=[campaign.pk]), {"bootstrap": 200}).status_code == 404
    assert not AnalysisRun.objects.exists()
