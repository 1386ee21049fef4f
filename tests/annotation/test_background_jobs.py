"""Uploads over IMPORT_IN_REQUEST_MB are imported by a background BackgroundJob (issue 7, "unbounded work per
request"): the request stores the files and answers at once with the job's page (or 202 in the API); the job
imports all or nothing, as the request would have, records a refusal naming the file and line, is never imported
twice, and only its requester and the campaign's organizers may follow it (PostgreSQL)."""
from __future__ import annotations

import html
import threading
import time
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation import tasks
from annotation.models import BackgroundJob, Campaign, Candidate, JobFile, Judgment
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services import background_jobs

from .test_api_schema import check, schema  # noqa: F401 (the schema fixture)
from .test_appraise_xml import ITEM
from .test_importing import SOURCE, SYSTEMS, _zip
from .test_organizer import form_data, upload

pytestmark = pytest.mark.django_db



@pytest.fixture
def small_limit(settings):
    """Every upload of more than 100 bytes goes to a background job."""
    settings.IMPORT_IN_REQUEST_BYTES = 100


def client_of(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_sizes_decide_where_an_import_runs(settings):
    settings.IMPORT_IN_REQUEST_BYTES = 8 * 1024 * 1024
    assert background_jobs.in_request(8 * 1024 * 1024) and not background_jobs.in_request(8 * 1024 * 1024 + 1)


def test_a_large_test_set_from_the_form_is_a_job_that_creates_the_campaign(
    small_limit, organizer, django_capture_on_commit_callbacks
):
    client = client_of(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("campaign-create"), form_data(
            source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()]))
    job = BackgroundJob.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("background-job", args=[job.pk])
    campaign = Campaign.objects.get(name="web")
    assert (job.status, job.campaign, job.kind) == (BackgroundJob.Status.DONE, campaign, BackgroundJob.Kind.TEST_SET)
    assert job.result == {"campaign": campaign.pk, "name": "web", "systems": 4, "segments": 4}
    assert campaign.owner == organizer and organizer in campaign.organizers.all()
    assert not JobFile.objects.exists(), "a finished job's files are deleted"
    page = client.get(response["Location"]).content.decode()
    assert "Campaign web: 4 systems, 4 sentences." in page and 'http-equiv="refresh"' not in page
    assert reverse("campaign-detail", args=[campaign.pk]) in page
    listing = client.get(reverse("campaign-list")).content.decode()
    assert 'id="imports"' in listing and reverse("background-job", args=[job.pk]) in listing


@pytest.mark.django_db(transaction=True)
def test_in_the_embedded_mode_a_process_of_its_own_imports_after_the_request_answered(
    small_limit, organizer, settings
):
    settings.ANALYSIS_EXECUTION = "process"
    client = client_of(organizer)
    started = time.perf_counter()
    response = client.post(reverse("campaign-create"), form_data(
        source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()]))
    answered, seconds = timezone.now(), time.perf_counter() - started
    job = BackgroundJob.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("background-job", args=[job.pk])
    assert seconds < 1.0, seconds
    deadline = time.monotonic() + 60
    while not job.finished and time.monotonic() < deadline:
        time.sleep(0.2)
        job.refresh_from_db()
    assert (job.status, job.error) == (BackgroundJob.Status.DONE, "")
    assert job.finished_at > answered, "imported after the response, elsewhere than in the request"
    assert job.result == {"campaign": Campaign.objects.get(name="web").pk, "name": "web", "systems": 4, "segments": 4}


def test_a_job_whose_process_cannot_start_fails_with_the_reason(
    small_limit, organizer, no_child_process, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client_of(organizer).post(reverse("campaign-create"), form_data(
            source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()]))
    job = BackgroundJob.objects.get()
    assert (job.status, job.error) == (BackgroundJob.Status.FAILED, "Could not start: no more processes")
    assert not JobFile.objects.exists() and not Campaign.objects.filter(name="web").exists()


def test_the_job_imports_what_the_request_would_have(small_limit, organizer, settings,
                                                    django_capture_on_commit_callbacks):
    client = client_of(organizer)
    archive = _zip({"source": SOURCE, **SYSTEMS})
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("campaign-create"), form_data(
            name="by job", archive=SimpleUploadedFile("run.zip", archive, content_type="application/zip")))
    settings.IMPORT_IN_REQUEST_BYTES = 10**9
    client.post(reverse("campaign-create"), form_data(
        name="at once", archive=SimpleUploadedFile("run.zip", archive, content_type="application/zip")))

    def contents(name: str) -> list[tuple[int, str, list[str]]]:
        return sorted(
            (c.segment.line, c.text, sorted(c.outputs.values_list("system__name", flat=True)))
            for c in Candidate.objects.filter(segment__campaign__name=name).select_related("segment")
        )

    assert contents("by job") == contents("at once") and contents("at once")


def test_a_refused_file_fails_the_job_with_the_forms_message_and_writes_nothing(
    small_limit, organizer, django_capture_on_commit_callbacks
):
    client = client_of(organizer)
    systems = [upload(name, data) for name, data in SYSTEMS.items()] + [upload("short", b"too short\n")]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("campaign-create"), form_data(source=upload("source", SOURCE), systems=systems))
    job = BackgroundJob.objects.get()
    response = client.get(response["Location"])
    assert job.status == BackgroundJob.Status.FAILED and job.campaign is None
    assert job.error == "short: 1 line, but the source file (source) has 4 lines"
    page = response.content.decode()
    assert "Failed: nothing was imported." in page and "short: 1 line, but the source file" in page
    assert not Campaign.objects.exists() and not Candidate.objects.exists() and not JobFile.objects.exists()


def test_with_celery_the_request_only_records_the_job_and_beat_sends_it_once(small_limit, organizer, settings):
    settings.ANALYSIS_EXECUTION = "celery"
    client = client_of(organizer)
    response = client.post(reverse("campaign-create"), form_data(
        source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()]), follow=True)
    job = BackgroundJob.objects.get()
    assert job.status == BackgroundJob.Status.QUEUED and not Campaign.objects.exists()
    assert 'http-equiv="refresh"' in response.content.decode() and "Queued: waiting for a worker" in \
        response.content.decode()
    assert sorted(JobFile.objects.values_list("field", "name")) == [
        ("source", "source"), *sorted(("systems", name) for name in SYSTEMS)]
    second = client.post(reverse("campaign-create"), form_data(
        source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()]))
    assert second.status_code == 400 and "is being imported already" in second.content.decode()
    assert tasks.send_waiting() == 1, "beat hands it to a worker (tasks are eager in the test settings)"
    assert tasks.send_waiting() == 0, "once"
    job.refresh_from_db()
    assert job.status == BackgroundJob.Status.DONE and Campaign.objects.get().name == "web"
    assert background_jobs.run_background_job(job.pk).status == BackgroundJob.Status.DONE
    assert Campaign.objects.count() == 1, "a job done is never imported twice"


def test_a_large_appraise_file_is_a_job_in_the_page_and_the_api(
    small_limit, organizer, schema, django_capture_on_commit_callbacks  # noqa: F811
):
    client = client_of(organizer)
    settings_free = form_data(source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()])
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("campaign-create"), settings_free)
    campaign = Campaign.objects.get()
    xml = ITEM.format(src=0, group="alpha beta").encode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("campaign-appraise-import", args=[campaign.pk]),
                               {"file": SimpleUploadedFile("j.xml", xml)})
    response = client.get(response["Location"])
    assert "Imported 2 rankings (1 skipped) by 2 judges." in response.content.decode()
    assert Judgment.objects.count() == 2
    with django_capture_on_commit_callbacks(execute=True):
        again = client.post(f"/api/campaigns/{campaign.pk}/appraise-xml/", {"file": SimpleUploadedFile("j.xml", xml)})
    assert again.status_code == 202, again.content
    check(schema, "/api/campaigns/{id}/appraise-xml/", "post", again)
    assert again["Location"] == f"/api/jobs/{again.json()['id']}/"
    followed = client.get(again["Location"])
    check(schema, "/api/jobs/{job_id}/", "get", followed)
    assert followed.json()["status"] == "done" and followed.json()["result"] == {
        "rankings": 0, "skipped": 0, "judges": 0, "already_imported": 2}
    with django_capture_on_commit_callbacks(execute=True):
        bad = client.post(f"/api/campaigns/{campaign.pk}/appraise-xml/",
                          {"file": SimpleUploadedFile("bad.xml", b"<oops" + b" " * 200)})
    failed = client.get(bad["Location"]).json()
    assert failed["status"] == "failed" and failed["error"].startswith("bad.xml: not well-formed XML")
    assert Judgment.objects.count() == 2


def test_the_api_creates_a_campaign_by_job(small_limit, organizer, schema,  # noqa: F811
                                           django_capture_on_commit_callbacks):
    client = client_of(organizer)
    data = form_data(source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/campaigns/", data)
    assert response.status_code == 202, response.content
    check(schema, "/api/campaigns/", "post", response)
    body = client.get(response["Location"]).json()
    assert body["status"] == "done" and body["campaign"] == Campaign.objects.get(name="web").pk
    assert body["page"] == reverse("background-job", args=[body["id"]])


def test_the_api_takes_files_streamed_to_disk(small_limit, organizer, settings, django_capture_on_commit_callbacks):
    """A request over FILE_UPLOAD_MAX_MEMORY_SIZE (5 MB) has its files on disk, which copying the request's data
    for the defaults deep-copied: every such upload was a 500, so no upload reached a background job by the API."""
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 0
    data = form_data(source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()])
    with django_capture_on_commit_callbacks(execute=True):
        response = client_of(organizer).post("/api/campaigns/", data)
    assert response.status_code == 202, response.content
    assert client_of(organizer).get(response["Location"]).json()["status"] == "done"
    assert Campaign.objects.get(name="web").systems.count() == len(SYSTEMS) + 1


def test_a_campaign_name_the_import_refuses_is_refused_before_a_job_is_recorded(small_limit, organizer):
    """A name with a line separator was taken with a 202, and the job failed on it; the form says so at once."""
    def data() -> dict:
        return form_data(name="two\u2028lines", source=upload("source", SOURCE),
                         systems=[upload(n, d) for n, d in SYSTEMS.items()])

    message = "campaign name: the non-printable character U+2028 at column 4"
    assert client_of(organizer).post("/api/campaigns/", data()).json() == {"name": [message]}
    page = client_of(organizer).post(reverse("campaign-create"), data())
    assert page.status_code == 400 and message in page.content.decode()
    assert not BackgroundJob.objects.exists() and not Campaign.objects.exists()


@pytest.mark.parametrize(("name", "message"), [
    (".hidden", "system name '.hidden': a system name has 1 to 100 letters"),
    ("ALPHA", "system names 'alpha' and 'ALPHA' are the same name in other letter case"),
])
def test_a_system_name_the_import_refuses_is_refused_before_a_job_is_recorded(small_limit, organizer, name, message):
    """A system file named '.hidden' was taken with a 202, and the job failed on its name."""
    systems = [upload(n, d) for n, d in SYSTEMS.items()] + [upload(name, next(iter(SYSTEMS.values())))]
    response = client_of(organizer).post("/api/campaigns/", form_data(source=upload("source", SOURCE),
                                                                      systems=systems))
    assert response.status_code == 400 and response.json()["systems"][0].startswith(message), response.content
    assert not BackgroundJob.objects.exists() and not Campaign.objects.exists()


def test_only_the_requester_and_the_campaigns_organizers_follow_a_job(
    small_limit, organizer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client_of(organizer).post(reverse("campaign-create"), form_data(
            source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()]))
    job = BackgroundJob.objects.get()
    co_organizer = User.objects.create_user("co")
    job.campaign.organizers.add(co_organizer)
    other = User.objects.create_user("other")
    other.groups.add(Group.objects.get(name=ORGANIZERS_GROUP))
    admin = User.objects.create_superuser("root")
    for user, status in ((organizer, 200), (co_organizer, 200), (admin, 200), (other, 404)):
        client = client_of(user)
        assert client.get(reverse("background-job", args=[job.pk])).status_code == status, user
        assert client.get(f"/api/jobs/{job.pk}/").status_code == status, user
    assert Client().get(f"/api/jobs/{job.pk}/").status_code == 403
    assert Client().get(reverse("background-job", args=[job.pk])).status_code == 302


def running_job(organizer: User, started: timedelta) -> BackgroundJob:
    """A job recorded as running since ``started`` ago, with its file."""
    job = BackgroundJob.objects.create(kind=BackgroundJob.Kind.APPRAISE_XML, requested_by=organizer,
                                       status=BackgroundJob.Status.RUNNING, started_at=timezone.now() - started)
    JobFile.objects.create(job=job, field="file", position=0, name="judgments.xml", data=b"<x/>")
    return job


@contextmanager
def row_locked(job: BackgroundJob):
    """The job's row locked by another connection, as the process running it holds it."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                BackgroundJob.objects.select_for_update().get(pk=job.pk)
                locked.set()
                release.wait(30)
        finally:
            connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    assert locked.wait(10)
    try:
        yield
    finally:
        release.set()
        thread.join()


@pytest.mark.django_db(transaction=True)
def test_a_job_whose_process_stopped_fails_when_shown_and_a_working_one_runs_on(organizer, settings):
    settings.ANALYSIS_EXECUTION = "process"
    stopped = running_job(organizer, timedelta(minutes=5))
    starting = running_job(organizer, timedelta(seconds=10))
    working = running_job(organizer, timedelta(minutes=5))
    client = client_of(organizer)
    with row_locked(working):
        page = client.get(reverse("background-job", args=[stopped.pk]))
    assert page.status_code == 200 and background_jobs.ABANDONED in html.unescape(page.content.decode())
    statuses = dict(BackgroundJob.objects.values_list("pk", "status"))
    assert statuses == {stopped.pk: "failed", starting.pk: "running", working.pk: "running"}
    assert list(JobFile.objects.values_list("job_id", flat=True).order_by("job_id")) == [starting.pk, working.pk]
    followed = client.get(f"/api/jobs/{working.pk}/").json()
    assert followed["status"] == "failed" and followed["error"] == background_jobs.ABANDONED, "no lock held now"


@pytest.mark.django_db(transaction=True)
def test_with_celery_workers_a_lost_job_is_left_to_their_redelivery(organizer, settings):
    settings.ANALYSIS_EXECUTION = "celery"
    job = running_job(organizer, timedelta(hours=1))
    assert client_of(organizer).get(reverse("background-job", args=[job.pk])).status_code == 200
    assert background_jobs.fail_abandoned() == 0
    job.refresh_from_db()
    assert job.status == BackgroundJob.Status.RUNNING and job.files.exists()


@pytest.mark.parametrize(("kind", "result", "said"), [
    (BackgroundJob.Kind.TEST_SET, {"name": "tiny", "systems": 1, "segments": 1},
     "Campaign tiny: 1 system, 1 sentence."),
    (BackgroundJob.Kind.TEST_SET, {"name": "big", "systems": 13, "segments": 1312},
     "Campaign big: 13 systems, 1,312 sentences."),
    (BackgroundJob.Kind.ATTENTION_CHECKS, {"added": 1, "open": 1},
     "Added attention checks to 1 of the 1 unserved screen without one."),
])
def test_a_finished_job_counts_one_in_the_singular(organizer, kind, result, said):
    """The page of a finished job said "1 systems, 1 sentences" and "of the 1 unserved screens"."""
    job = BackgroundJob.objects.create(kind=kind, requested_by=organizer, status=BackgroundJob.Status.DONE,
                                       finished_at=timezone.now(), result=result, options={"share": 1.0})
    page = html.unescape(client_of(organizer).get(reverse("background-job", args=[job.pk])).content.decode())
    assert said in " ".join(page.split())
