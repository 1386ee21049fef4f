"""Bounded work per request: a request writes at most MAX_SCREENS_PER_REQUEST screens itself, larger ones become a
background ScreenJob with progress on the campaign page and in the API, and more than MAX_SCREENS_PER_JOB is
refused with a message (PostgreSQL)."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from annotation import tasks
from annotation.models import Assignment, Campaign, Screen, ScreenCandidate, ScreenJob
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services import screen_jobs, screens
from annotation.services.screens import MAX_SCREENS_PER_JOB, create_screens, screen_count

from .factories import small_campaign
from .test_api_schema import check, schema  # noqa: F401 (the schema fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_caps(monkeypatch):
    """Caps small enough for a fast test: 5 screens at once, jobs written 4 at a time."""
    monkeypatch.setattr(screen_jobs, "MAX_SCREENS_PER_REQUEST", 5)
    monkeypatch.setattr(screen_jobs, "JOB_CHUNK", 4)


@pytest.fixture
def organizer() -> User:
    user = User.objects.create_user("olga")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    return user


def owned(organizer: User, name: str = "jobs", **options) -> Campaign:
    campaign = small_campaign(name, **options)
    campaign.organizers.add(organizer)
    return campaign


def client_of(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def contents(campaign: Campaign) -> list[tuple[int, int, list[int]]]:
    """Each screen's number, line and candidates' lines-and-texts in display order, and its slots' positions."""
    rows = []
    for screen in Screen.objects.filter(campaign=campaign).order_by("number").select_related("segment"):
        shown = [slot.candidate.text for slot in ScreenCandidate.objects.filter(screen=screen).order_by("position")]
        slots = list(Assignment.objects.filter(screen=screen).order_by("position").values_list("position", flat=True))
        rows.append((screen.number, screen.segment.line, shown, slots))
    return rows


def test_a_request_beyond_the_cap_becomes_a_job_that_writes_what_one_request_would(
    small_caps, organizer, django_capture_on_commit_callbacks
):
    at_once, by_job = owned(organizer, "at once", redundancy=2), owned(organizer, "by job", redundancy=2)
    create_screens(at_once, 13)
    client = client_of(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/campaigns/{by_job.pk}/screens/", {"count": 13})
    assert response.status_code == 202, response.content
    job = ScreenJob.objects.get(pk=response.json()["id"])
    assert (job.requested, job.created, job.status) == (13, 13, ScreenJob.Status.DONE), "no broker: run on commit"
    assert contents(by_job) == contents(at_once), "same screens, numbers and slots as one request's"
    state = client.get(f"/api/campaigns/{by_job.pk}/screens/").json()
    assert state["total"] == 13 and [(j["id"], j["created"], j["status"]) for j in state["jobs"]] == [
        (job.pk, 13, "done")]
    small = client.post(f"/api/campaigns/{by_job.pk}/screens/", {"count": 5})
    assert small.status_code == 201 and small.json() == {"created": 5, "total": 18}


def test_more_than_a_job_may_write_is_refused_with_the_maximum_and_writes_nothing(organizer):
    campaign = owned(organizer)
    client = client_of(organizer)
    response = client.post(f"/api/campaigns/{campaign.pk}/screens/", {"count": MAX_SCREENS_PER_JOB + 1})
    assert response.status_code == 400
    assert response.json() == {"count": [f"The number of screens must be a whole number from 1 to "
                                         f"{MAX_SCREENS_PER_JOB:,}."]}
    page = client.post(reverse("campaign-screens", args=[campaign.pk]), {"count": MAX_SCREENS_PER_JOB + 1},
                       follow=True)
    assert f"from 1 to {MAX_SCREENS_PER_JOB:,}. No screen was added." in page.content.decode()
    assert not Screen.objects.exists() and not ScreenJob.objects.exists()


def test_full_coverage_of_more_sentences_than_the_cap_is_a_job_too(
    small_caps, organizer, monkeypatch, django_capture_on_commit_callbacks
):
    campaign = owned(organizer, sampling=Campaign.Sampling.FULL)
    with pytest.raises(ValueError, match="full coverage has 6 rankable sentences"):
        screen_jobs.request_screens(campaign, 7)
    monkeypatch.setattr(screen_jobs, "MAX_SCREENS_PER_REQUEST", 2)
    with django_capture_on_commit_callbacks(execute=True):
        done = screen_jobs.request_screens(campaign, None)
    assert done.job is not None and done.job.requested == 6 and screen_count(campaign) == 6
    assert sorted(Screen.objects.values_list("segment__line", flat=True)) == [0, 1, 2, 3, 4, 5]


def test_with_celery_the_request_only_records_the_job_and_its_progress_shows_on_the_page(
    small_caps, organizer, settings
):
    settings.ANALYSIS_EXECUTION = "celery"
    campaign = owned(organizer)
    client = client_of(organizer)
    response = client.post(reverse("campaign-screens", args=[campaign.pk]), {"count": 9}, follow=True)
    page = response.content.decode()
    assert "Adding 9 screens in the background" in page
    job = ScreenJob.objects.get()
    assert job.status == ScreenJob.Status.QUEUED and job.sent_at is None and not Screen.objects.exists()
    assert 'id="screen-jobs"' in page and '<progress max="9" value="0">' in page and "Queued" in page
    assert tasks.send_waiting() == 1, "beat hands it to a worker (tasks are eager in the test settings)"
    assert tasks.send_waiting() == 0, "once"
    job.refresh_from_db()
    assert (job.created, job.status) == (9, ScreenJob.Status.DONE) and screen_count(campaign) == 9
    assert '<progress max="9" value="9">' in client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()


def test_a_job_that_failed_half_way_goes_on_where_it_stopped(small_caps, organizer, monkeypatch, settings):
    settings.ANALYSIS_EXECUTION = "celery"
    at_once, by_job = owned(organizer, "at once"), owned(organizer, "by job")
    create_screens(at_once, 10)
    job = screen_jobs.request_screens(by_job, 10).job
    write = screens.write_screens
    calls = []

    def fail_second_chunk(*args):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("database went away")
        return write(*args)

    monkeypatch.setattr(screen_jobs, "write_screens", fail_second_chunk)
    with pytest.raises(RuntimeError):
        screen_jobs.run_job(job.pk)
    job.refresh_from_db()
    assert (job.created, job.status, job.error) == (4, ScreenJob.Status.FAILED, "database went away")
    assert screen_count(by_job) == 4, "the first chunk stays; the second was rolled back whole"
    assert screen_jobs.run_job(job.pk).status == ScreenJob.Status.DONE, "a retry goes on"
    assert contents(by_job) == contents(at_once)


def test_the_api_description_states_the_job_and_the_screens_state(small_caps, organizer, schema):  # noqa: F811
    campaign = owned(organizer)
    client = client_of(organizer)
    path = "/api/campaigns/{id}/screens/"
    accepted = client.post(f"/api/campaigns/{campaign.pk}/screens/", {"count": 6})
    assert accepted.status_code == 202
    check(schema, path, "post", accepted)
    state = client.get(f"/api/campaigns/{campaign.pk}/screens/")
    assert state.status_code == 200 and state.json()["jobs"][0]["requested"] == 6
    check(schema, path, "get", state)
