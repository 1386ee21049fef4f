"""The analyses through the REST API: an organizer (with an API token, as a script would) starts an analysis, follows
it and downloads its reports; the campaigns of others answer 404; bad parameters are a 400 that starts nothing.
Before, the API could neither start an analysis nor give a report, and the pages' addresses of reports sent an API
token to the login page."""
from __future__ import annotations

import json

import numpy as np
import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from annotation.permissions import ORGANIZERS_GROUP
from annotation.services.api_tokens import create_token
from ranking.models import AnalysisRun
from tests.annotation.test_api_schema import check, resolved, schema  # noqa: F401 (the schema fixture)

from .factories import synthetic_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    return synthetic_campaign("api analyses", np.random.default_rng(9))


def token_client(user: User) -> Client:
    """A client that sends ``user``'s API token, as a script does (no login session)."""
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    return Client(HTTP_AUTHORIZATION=f"Token {create_token(user)[1]}")


@pytest.fixture
def organizer(campaign) -> Client:
    user = User.objects.create_user("org")
    campaign.organizers.add(user)
    return token_client(user)


def test_an_organizer_starts_an_analysis_follows_it_and_downloads_its_reports(
        campaign, organizer, django_capture_on_commit_callbacks):
    url = reverse("api-campaign-analyses", args=[campaign.pk])
    with django_capture_on_commit_callbacks(execute=True):
        started = organizer.post(url, {"bootstrap": 200, "seed": 4}, content_type="application/json")
    assert started.status_code == 202, started.content
    run = AnalysisRun.objects.get()
    assert started.json()["id"] == run.pk and started.json()["status"] == "queued"
    assert run.parameters["bootstrap"] == 200 and run.seed == 4 and run.parameters["confidence"] == 0.95
    listed = organizer.get(url).json()
    assert [entry["id"] for entry in listed] == [run.pk] and listed[0]["status"] == "done"
    followed = organizer.get(reverse("api-campaign-analysis", args=[campaign.pk, run.pk])).json()
    assert followed["progress"] == 100 and set(followed["reports"]) == {"json", "html", "tex", "csv"}
    report = organizer.get(followed["reports"]["json"])
    assert report.status_code == 200 and report["Content-Type"] == "application/json"
    assert report["Content-Disposition"] == f'attachment; filename="api-analyses-analysis-{run.pk}-seed4.json"'
    analysis = json.loads(report.content)
    assert analysis["campaign"] == "api analyses" and analysis["parameters"]["bootstrap"] == 200
    for extension, starts in (("html", b"<!doctype html>"), ("tex", b"\\documentclass"), ("csv", b"section,")):
        body = organizer.get(followed["reports"][extension]).content
        assert body.lstrip().startswith(starts), (extension, body[:80])


def test_bad_parameters_are_a_400_naming_the_field_and_start_nothing(campaign, organizer):
    url = reverse("api-campaign-analyses", args=[campaign.pk])
    for body, errors in (
        ({"bootstrap": 10}, {"bootstrap": ["Ensure this value is greater than or equal to 100."]}),
        ({"confidence": 1.5}, {"confidence": ["Ensure this value is less than or equal to 0.999."]}),
        ({"accuracy_folds": 1}, {"accuracy_folds": ["Cross-validation needs at least 2 folds; 0 skips it."]}),
        ({"boostrap": 200}, {"boostrap": ["This endpoint takes no part named 'boostrap'; it takes: bootstrap, "
                                          "confidence, seed, accuracy_folds."]}),
        ([200], {"__all__": ["Send an object of the analysis parameters (or an empty one)."]}),
        ({"csrfmiddlewaretoken": "x"}, {"csrfmiddlewaretoken": [  # a form's token; the schema takes no such property
            "This endpoint takes no part named 'csrfmiddlewaretoken'; it takes: bootstrap, confidence, seed, "
            "accuracy_folds."]}),
    ):
        response = organizer.post(url, body, content_type="application/json")
        assert (response.status_code, response.json()) == (400, errors), body
    assert not AnalysisRun.objects.exists()


def test_a_campaign_with_analyses_enough_queued_or_running_starts_no_other(
        campaign, organizer, settings, schema):  # noqa: F811
    """A script starting analyses in a loop: once the campaign has ANALYSES_PER_CAMPAIGN queued or running, each POST
    is a 429 saying so and records nothing, until one of them is done; other campaigns are not counted. Before, each
    recorded one more run, up to 100,000 bootstrap samples each, and held every worker."""
    settings.ANALYSIS_EXECUTION, settings.ANALYSES_PER_CAMPAIGN = "celery", 3  # recorded, never sent: stays queued
    url = reverse("api-campaign-analyses", args=[campaign.pk])
    other = synthetic_campaign("other analyses", np.random.default_rng(3))
    for _ in range(3):
        AnalysisRun.objects.create(campaign=other, seed=1)
    answers = [organizer.post(url, {"bootstrap": 100_000}, content_type="application/json") for _ in range(5)]
    assert [answer.status_code for answer in answers] == [202, 202, 202, 429, 429]
    assert answers[3].json() == {"detail": "This campaign has 3 analyses queued or running, the most it may have at "
                                 "once (ANALYSES_PER_CAMPAIGN); start another once one of them is done or failed. "
                                 "Nothing was started."}
    check(schema, "/api/campaigns/{id}/analyses/", "post", answers[3])
    assert AnalysisRun.objects.filter(campaign=campaign).count() == 3
    AnalysisRun.objects.filter(pk=answers[0].json()["id"]).update(status=AnalysisRun.Status.DONE, result={})
    assert organizer.post(url, {}, content_type="application/json").status_code == 202
    settings.ANALYSES_PER_CAMPAIGN = 0
    assert organizer.post(url, {}, content_type="application/json").status_code == 202, "0: no limit"


def test_a_report_of_a_run_not_done_is_a_409(campaign, organizer):
    run = AnalysisRun.objects.create(campaign=campaign, seed=1)
    followed = organizer.get(reverse("api-campaign-analysis", args=[campaign.pk, run.pk])).json()
    assert followed["status"] == "queued" and followed["reports"] == {}
    response = organizer.get(reverse("api-campaign-analysis-report", args=[campaign.pk, run.pk, "json"]))
    assert response.status_code == 409 and "it has reports once it is done" in response.json()["detail"]


def test_a_report_of_a_failed_run_says_it_will_have_none(campaign, organizer):
    """A failed run is never done: its 409 said "Analysis N is failed: it has reports once it is done"."""
    run = AnalysisRun.objects.create(campaign=campaign, seed=1, status=AnalysisRun.Status.FAILED,
                                     error="bootstrap must be from 3 to 100,000, got 1")
    response = organizer.get(reverse("api-campaign-analysis-report", args=[campaign.pk, run.pk, "csv"]))
    assert (response.status_code, response.json()) == (409, {"detail": f"Analysis {run.pk} failed, so it has no "
                                                             "reports; start another. Its error: bootstrap must be "
                                                             "from 3 to 100,000, got 1"})


def test_other_organizers_find_no_campaign_and_no_run(campaign):
    run = AnalysisRun.objects.create(campaign=campaign, seed=1, status=AnalysisRun.Status.DONE,
                                     result={"campaign": "api analyses"})
    stranger = token_client(User.objects.create_user("other"))
    for url in (reverse("api-campaign-analyses", args=[campaign.pk]),
                reverse("api-campaign-analysis", args=[campaign.pk, run.pk]),
                reverse("api-campaign-analysis-report", args=[campaign.pk, run.pk, "json"])):
        assert stranger.get(url).json() == {"detail": "Not found."}, url
        assert stranger.options(url).status_code == 404, url
    assert stranger.post(reverse("api-campaign-analyses", args=[campaign.pk]), {},
                         content_type="application/json").status_code == 404
    assert AnalysisRun.objects.count() == 1


def test_a_run_of_another_campaign_is_not_found_under_this_one(campaign, organizer):
    """Every method, OPTIONS too, of a run not of the campaign in the address is a 404: OPTIONS answered 200 for any
    run id, a run of another campaign or none."""
    other = synthetic_campaign("other analyses", np.random.default_rng(3))
    theirs = AnalysisRun.objects.create(campaign=other, seed=1, status=AnalysisRun.Status.DONE,
                                        result={"campaign": "other analyses"})
    for run_id in (theirs.pk, theirs.pk + 1):
        for url in (reverse("api-campaign-analysis", args=[campaign.pk, run_id]),
                    reverse("api-campaign-analysis-report", args=[campaign.pk, run_id, "json"])):
            for method in (organizer.get, organizer.options):
                response = method(url)
                assert (response.status_code, response.json()) == (404, {"detail": "Not found."}), (url, method)


def test_real_responses_match_the_schema(campaign, organizer, schema, django_capture_on_commit_callbacks):  # noqa: F811
    """Each answer is one the schema documents, with its body: the run's progress is a float (it said integer), and a
    report comes as its own media type (it said application/octet-stream)."""
    analyses, item = "/api/campaigns/{id}/analyses/", "/api/campaigns/{id}/analyses/{run_id}/"
    report = "/api/campaigns/{id}/analyses/{run_id}/report.{extension}"
    url = reverse("api-campaign-analyses", args=[campaign.pk])
    waiting = AnalysisRun.objects.create(campaign=campaign, seed=1, progress=12.5)
    with django_capture_on_commit_callbacks(execute=True):
        started = organizer.post(url, {"bootstrap": 100}, content_type="application/json")
    check(schema, analyses, "post", started)
    check(schema, analyses, "post", organizer.post(url, {"bootstrap": "x"}, content_type="application/json"))
    check(schema, analyses, "get", organizer.get(url))
    run = started.json()["id"]
    check(schema, item, "get", organizer.get(reverse("api-campaign-analysis", args=[campaign.pk, waiting.pk])))
    check(schema, item, "get", organizer.get(reverse("api-campaign-analysis", args=[campaign.pk, run + 1])))
    for extension, media in (("json", "application/json"), ("html", "text/html"), ("tex", "application/x-tex"),
                             ("csv", "text/csv")):
        response = organizer.get(reverse("api-campaign-analysis-report", args=[campaign.pk, run, extension]),
                                 HTTP_ACCEPT=media)  # a client made from the schema asks for the report's type
        assert response.status_code == 200, (extension, response.content[:200])
        check(schema, report, "get", response)
    check(schema, report, "get", organizer.get(reverse("api-campaign-analysis-report",
                                                       args=[campaign.pk, waiting.pk, "csv"])))


def test_the_schema_states_the_bounds_the_form_takes(schema, campaign, organizer, settings):  # noqa: F811
    """The request's schema says each parameter's bounds, as the form checks them (it said any integer or number, so a
    client following it had most of what it sent refused), and a body at those bounds is taken."""
    settings.ANALYSIS_EXECUTION, settings.ANALYSES_PER_CAMPAIGN = "celery", 0  # recorded, never sent
    body = schema["paths"]["/api/campaigns/{id}/analyses/"]["post"]["requestBody"]["content"]["application/json"]
    properties = resolved(body["schema"], schema)["properties"]
    bounds = {name: (field["minimum"], field["maximum"]) for name, field in properties.items()}
    assert bounds == {"bootstrap": (100, 100_000), "confidence": (0.5, 0.999), "seed": (0, 2**63 - 1),
                      "accuracy_folds": (0, 1000)}
    url = reverse("api-campaign-analyses", args=[campaign.pk])
    for end in (0, 1):
        sent = {name: limits[end] for name, limits in bounds.items()}
        response = organizer.post(url, sent, content_type="application/json")
        assert response.status_code == 202, response.content
