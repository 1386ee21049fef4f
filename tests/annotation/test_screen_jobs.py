"""Bounded work per request: a request writes at most MAX_SCREENS_PER_REQUEST screens itself, larger ones become a
background ScreenJob with progress on the campaign page and in the API, and more than MAX_SCREENS_PER_JOB is
refused with a message; a job whose process stopped is failed with what it wrote and goes on from there
(PostgreSQL)."""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation import tasks
from annotation.models import Assignment, Campaign, Screen, ScreenCandidate, ScreenJob
from annotation.services import screen_jobs, screens
from annotation.services.screens import MAX_SCREENS_PER_JOB, create_screens, screen_count

from .factories import small_campaign
from .late_commits import committed_after
from .test_api_schema import check, schema  # noqa: F401 (the schema fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_caps(monkeypatch):
    """Caps small enough for a fast test: 5 screens at once, jobs written 4 at a time."""
    monkeypatch.setattr(screen_jobs, "MAX_SCREENS_PER_REQUEST", 5)
    monkeypatch.setattr(screen_jobs, "JOB_CHUNK", 4)



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


@pytest.mark.django_db(transaction=True)
def test_in_the_embedded_mode_a_process_of_its_own_writes_the_job_after_the_request_answered(
    small_caps, organizer, settings
):
    """``process`` (``./dev demo``): the request records the job and answers; a new process writes the screens (in
    chunks of its own size) and they are those one request would have written."""
    settings.ANALYSIS_EXECUTION = "process"
    at_once, by_job = owned(organizer, "at once", redundancy=2), owned(organizer, "by job", redundancy=2)
    create_screens(at_once, 13)
    started = time.perf_counter()
    response = client_of(organizer).post(reverse("campaign-screens", args=[by_job.pk]), {"count": 13})
    answered, seconds = timezone.now(), time.perf_counter() - started
    assert response.status_code == 302 and seconds < 1.0, seconds
    job = ScreenJob.objects.get(campaign=by_job)
    deadline = time.monotonic() + 60
    while job.status not in {ScreenJob.Status.DONE, ScreenJob.Status.FAILED} and time.monotonic() < deadline:
        time.sleep(0.2)
        job.refresh_from_db()
    assert (job.status, job.created, job.error) == (ScreenJob.Status.DONE, 13, "")
    assert job.finished_at > answered, "written after the response, elsewhere than in the request"
    assert contents(by_job) == contents(at_once)


def test_a_job_whose_process_cannot_start_fails_and_can_go_on(
    small_caps, organizer, no_child_process, settings, django_capture_on_commit_callbacks
):
    campaign = owned(organizer, "cannot start")
    with django_capture_on_commit_callbacks(execute=True):
        job = screen_jobs.request_screens(campaign, 9).job
    job.refresh_from_db()
    assert (job.status, job.error, job.created) == (ScreenJob.Status.FAILED, "Could not start: no more processes", 0)
    settings.ANALYSIS_EXECUTION = "inline"
    with django_capture_on_commit_callbacks(execute=True):
        assert screen_jobs.resume_job(job)
    job.refresh_from_db()
    assert (job.status, job.created) == (ScreenJob.Status.DONE, 9)


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


@contextmanager
def second_connection() -> Iterator[psycopg.Connection]:
    """A connection of its own to the test database, as another process has."""
    params = connection.settings_dict
    with psycopg.connect(dbname=params["NAME"], host=params["HOST"], port=params["PORT"] or 5432,
                         user=params["USER"], autocommit=True) as other:
        yield other


def lock_taken(other: psycopg.Connection, job: ScreenJob) -> bool:
    """Whether ``other`` takes the job's advisory lock (and so nobody else holds it); released again at once."""
    taken = other.execute("SELECT pg_try_advisory_lock(%s, %s)", [screen_jobs.LOCK_CLASS, job.pk]).fetchone()[0]
    if taken:
        other.execute("SELECT pg_advisory_unlock(%s, %s)", [screen_jobs.LOCK_CLASS, job.pk])
    return taken


def stopped_mid_way(organizer: User, settings) -> ScreenJob:
    """A job of 9 screens whose process died after the first chunk of 4: it is left running, its lock gone."""
    settings.ANALYSIS_EXECUTION = "celery"
    job = screen_jobs.request_screens(owned(organizer, "stopped"), 9).job
    write = screens.write_screens

    def die_in_second_chunk(*args):
        if ScreenJob.objects.get(pk=job.pk).created:
            raise SystemExit("the process is killed")
        return write(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(screen_jobs, "write_screens", die_in_second_chunk)
        with pytest.raises(SystemExit):
            screen_jobs.run_job(job.pk)
    ScreenJob.objects.filter(pk=job.pk).update(status=ScreenJob.Status.RUNNING)  # a killed process records nothing
    settings.ANALYSIS_EXECUTION = "inline"  # a job that goes on runs in the request's thread, as in the embedded mode
    return job


def test_a_job_whose_process_stopped_shows_as_failed_with_what_it_wrote_and_goes_on(
    small_caps, organizer, settings, django_capture_on_commit_callbacks
):
    at_once = owned(organizer, "at once")
    create_screens(at_once, 9)
    job = stopped_mid_way(organizer, settings)
    client = client_of(organizer)
    page = client.get(reverse("campaign-detail", args=[job.campaign.pk])).content.decode()
    job.refresh_from_db()
    assert (job.status, job.created) == (ScreenJob.Status.FAILED, 4)
    assert job.error == screen_jobs.ABANDONED.format(created=4, requested=9)
    assert "stopped (the server restarted" in page and "after 4 of 9; those stay" in page
    resume = reverse("campaign-screen-job-resume", args=[job.campaign.pk, job.pk])
    assert f'action="{resume}"' in page and ">Go on</button>" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(resume, follow=True)
    assert "Going on with the 5 screens not added yet" in response.content.decode()
    job.refresh_from_db()
    assert (job.status, job.created, job.error) == (ScreenJob.Status.DONE, 9, "")
    assert contents(job.campaign) == contents(at_once), "the screens one request would have written"
    with second_connection() as other:
        assert lock_taken(other, job), "the run released its lock"


def test_a_job_another_process_is_writing_is_left_running(small_caps, organizer, settings):
    job = stopped_mid_way(organizer, settings)
    with second_connection() as other:
        other.execute("SELECT pg_advisory_lock(%s, %s)", [screen_jobs.LOCK_CLASS, job.pk])
        assert screen_jobs.fail_abandoned(job.campaign) == 0
        job.refresh_from_db()
        assert job.status == ScreenJob.Status.RUNNING
    assert screen_jobs.fail_abandoned(job.campaign) == 1, "the lock went with the other connection"
    settings.ANALYSIS_EXECUTION = "celery"
    ScreenJob.objects.filter(pk=job.pk).update(status=ScreenJob.Status.RUNNING)
    assert screen_jobs.fail_abandoned(job.campaign) == 0, "Celery redelivers a lost job itself"


def test_only_a_job_that_stopped_can_go_on(small_caps, organizer, settings):
    job = stopped_mid_way(organizer, settings)
    client = client_of(organizer)
    with second_connection() as other:
        other.execute("SELECT pg_advisory_lock(%s, %s)", [screen_jobs.LOCK_CLASS, job.pk])  # it is being written
        response = client.post(reverse("campaign-screen-job-resume", args=[job.campaign.pk, job.pk]), follow=True)
        page = response.content.decode()
        job.refresh_from_db()
    assert "Only a job that stopped can go on." in page and ">Go on</button>" not in page
    assert (job.status, job.created) == (ScreenJob.Status.RUNNING, 4), "nothing changed"


def test_the_api_shows_a_stopped_job_and_goes_on_with_it(
    small_caps, organizer, settings, schema, django_capture_on_commit_callbacks  # noqa: F811
):
    job = stopped_mid_way(organizer, settings)
    client = client_of(organizer)
    state = client.get(f"/api/campaigns/{job.campaign.pk}/screens/").json()
    assert [(j["status"], j["created"]) for j in state["jobs"]] == [("failed", 4)]
    assert state["jobs"][0]["error"] == screen_jobs.ABANDONED.format(created=4, requested=9)
    path = "/api/campaigns/{id}/screen-jobs/{screen_job_id}/resume/"
    url = f"/api/campaigns/{job.campaign.pk}/screen-jobs/{job.pk}/resume/"
    with django_capture_on_commit_callbacks(execute=True):
        resumed = client.post(url)
    assert resumed.status_code == 202 and resumed.json()["id"] == job.pk
    check(schema, path, "post", resumed)
    job.refresh_from_db()
    assert (job.status, job.created) == (ScreenJob.Status.DONE, 9)
    again = client.post(url)
    assert again.status_code == 400 and again.json() == {"__all__": [screen_jobs.NOT_STOPPED]}
    check(schema, path, "post", again)
    elsewhere = owned(organizer, "elsewhere")
    missing = client.post(f"/api/campaigns/{elsewhere.pk}/screen-jobs/{job.pk}/resume/")
    assert missing.status_code == 404, "a job of another campaign"
    check(schema, path, "post", missing)
    for address in (f"/api/campaigns/{elsewhere.pk}/screen-jobs/{job.pk}/resume/",
                    f"/api/campaigns/{job.campaign.pk}/screen-jobs/{job.pk + 1}/resume/"):
        assert client.options(address).json() == {"detail": "Not found."}, "OPTIONS: as the POST, a 404"
    assert client.options(url).status_code == 200


def test_a_job_that_fails_in_the_request_answers_the_page_and_shows_its_error(
    small_caps, organizer, monkeypatch, settings, django_capture_on_commit_callbacks
):
    settings.ANALYSIS_EXECUTION = "inline"
    campaign = owned(organizer, "fails")

    def disk_full(*args):
        raise RuntimeError("disk full")

    monkeypatch.setattr(screen_jobs, "write_screens", disk_full)
    client = client_of(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("campaign-screens", args=[campaign.pk]), {"count": 9})
    assert response.status_code == 302, "the job's failure is not the request's"
    page = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "Failed: disk full" in page and ">Go on</button>" in page
    assert ScreenJob.objects.get(campaign=campaign).status == ScreenJob.Status.FAILED


def test_with_celery_a_job_that_goes_on_waits_for_beat_to_send_it_again(small_caps, organizer, monkeypatch, settings):
    settings.ANALYSIS_EXECUTION = "celery"
    job = screen_jobs.request_screens(owned(organizer, "celery retry"), 9).job

    def database_gone(*args):
        raise RuntimeError("database gone")

    with monkeypatch.context() as patch:
        patch.setattr(screen_jobs, "write_screens", database_gone)
        with pytest.raises(RuntimeError):
            screen_jobs.run_job(job.pk)  # as a worker runs it
    job.refresh_from_db()
    assert (job.status, job.error) == (ScreenJob.Status.FAILED, "database gone")
    response = client_of(organizer).post(reverse("campaign-screen-job-resume", args=[job.campaign.pk, job.pk]))
    assert response.status_code == 302
    job.refresh_from_db()
    assert (job.status, job.sent_at, job.error, job.finished_at) == (ScreenJob.Status.QUEUED, None, "", None)
    assert tasks.send_waiting() == 1, "beat hands it to a worker again (tasks are eager in the test settings)"
    job.refresh_from_db()
    assert (job.status, job.created) == (ScreenJob.Status.DONE, 9)


#: The reads of one poll that a job's end must not fall between: the campaign's screens counted (by their last
#: number), and its jobs listed (newest first).
SCREENS_COUNTED = 'MAX("annotation_screen"."number")'
JOBS_LISTED = 'ORDER BY "annotation_screenjob"."requested_at" DESC'


def polled(client: Client, campaign: Campaign, endpoint: str) -> tuple[int, list[tuple[str, int]]]:
    """The screen count and each job's status and screens written, as the dashboard or the API's screens state
    gives them."""
    if endpoint == "dashboard":
        data = client.get(reverse("campaign-dashboard", args=[campaign.pk])).json()
        return data["plan"]["screens"], [(job["status"], job["created"]) for job in data["screen_jobs"]]
    data = client.get(f"/api/campaigns/{campaign.pk}/screens/").json()
    return data["total"], [(job["status"], job["created"]) for job in data["jobs"]]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("endpoint", ["dashboard", "api"])
@pytest.mark.parametrize("between", [SCREENS_COUNTED, JOBS_LISTED], ids=["after-the-count", "after-the-jobs"])
def test_one_poll_shows_a_job_done_only_beside_its_screens(small_caps, organizer, settings, endpoint, between):
    """The dashboard read its numbers in one snapshot and the jobs after it, and the API's screens state read the
    jobs, then the screens: a job that ended between the two reads was shown "Done", 9 written, beside the count of
    0 screens from before (the dashboard's browser test saw it once); or "Queued" beside 9 screens. One poll now
    reads both in one snapshot, whichever read the job's end follows."""
    settings.ANALYSIS_EXECUTION = "celery"  # the request records the job; the test runs it
    campaign = owned(organizer)
    job = screen_jobs.request_screens(campaign, 9).job
    client = client_of(organizer)
    with committed_after(between, lambda: screen_jobs.run_job(job.pk)):
        first = polled(client, campaign, endpoint)
    assert first in [(0, [("queued", 0)]), (9, [("done", 9)])]
    assert polled(client, campaign, endpoint) == (9, [("done", 9)])
