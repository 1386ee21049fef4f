"""Starting analyses never waits: not for a Redis outage (broker and result backend down, default timeouts, a real
gunicorn), not for the analysis itself (the embedded mode computes in a process of its own); the page's status
endpoint and banner; requeue_analyses without Celery."""
from __future__ import annotations

import http.client
import io
import json
import os
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from ranking import dispatch
from ranking.dispatch import compute_here
from ranking.models import AnalysisRun
from ranking.runs import claim_for_a_process, create_run
from tests.annotation.late_commits import WAIT_SECONDS, waiting_in_another_thread

from .factories import synthetic_campaign
from .test_tasks import FAST, wait_for

REPO = Path(__file__).resolve().parents[2]
PORT = 8103
UNREACHABLE = "redis://127.0.0.1:1/0"
FORM = {"bootstrap": 200, "confidence": 0.95, "seed": 3, "accuracy_folds": 0}
CSRF = "h3" + "x" * 30  # a 32-character CSRF secret, sent as cookie and form field alike


def organizer_of(campaign) -> User:
    organizer = User.objects.create_user("org")
    campaign.organizers.add(organizer)
    return organizer


class Server:
    """A gunicorn serving the product's production settings (DEBUG on for plain static files) from the test
    database, with the broker and the result backend at a closed port."""

    def __init__(self, process: subprocess.Popen, log: Path) -> None:
        self.process = process
        self.log = log

    def request(self, method: str, path: str, session: str, body: dict | None = None) -> tuple[int, dict, bytes, float]:
        """(status, headers, body, seconds) of one request with the session and CSRF cookies."""
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
        headers = {"Cookie": f"sessionid={session}; csrftoken={CSRF}"}
        data = None
        if body is not None:
            data = urlencode({**body, "csrfmiddlewaretoken": CSRF})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        started = time.perf_counter()
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        content = response.read()
        seconds = time.perf_counter() - started
        connection.close()
        return response.status, dict(response.getheaders()), content, seconds


@pytest.fixture
def outage_server(transactional_db, artifacts):
    db = django_settings.DATABASES["default"]
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ANALYSIS_", "CELERY_", "REDIS_"))}
    env.update({
        "DJANGO_SETTINGS_MODULE": "gecappraise.settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": UNREACHABLE,
        "CELERY_RESULT_BACKEND": UNREACHABLE,
        "SECRET_KEY": django_settings.SECRET_KEY,  # the sessions the test makes are signed with it
        "DEBUG": "1",
    })
    log = artifacts / "outage-gunicorn.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "gecappraise.wsgi", "--bind", f"127.0.0.1:{PORT}", "--workers", "1",
         "--timeout", "120"],
        cwd=REPO, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
    )
    server = Server(process, log)
    deadline = time.monotonic() + 90
    while True:
        try:
            if server.request("GET", reverse("login"), "")[0] == 200:  # also loads the URLs (not timed)
                break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"gunicorn did not start; see {log}:\n{log.read_text()[-3000:]}")
        time.sleep(0.3)
    try:
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.mark.slow
def test_pages_answer_at_once_while_the_broker_and_the_result_backend_are_down(outage_server):
    campaign = synthetic_campaign("outage-pages", np.random.default_rng(11))
    client = Client()
    client.force_login(organizer_of(campaign))
    session = client.cookies["sessionid"].value
    page = reverse("campaign-analyses", args=[campaign.pk])

    status, headers, _, seconds = outage_server.request("POST", page, session, FORM)
    assert status == 302 and seconds < 1.0, (status, seconds)
    run = AnalysisRun.objects.get(campaign=campaign)
    assert headers["Location"] == f"{page}?started={run.pk}"
    assert (run.status, run.task_id) == (AnalysisRun.Status.QUEUED, "")

    status, _, body, seconds = outage_server.request("GET", headers["Location"], session)
    assert status == 200 and seconds < 1.0, (status, seconds)
    assert f'id="analysis-banner" role="status" data-run="{run.pk}"' in body.decode()
    status, _, body, seconds = outage_server.request(
        "GET", reverse("campaign-analyses-status", args=[campaign.pk]), session)
    assert status == 200 and seconds < 1.0, (status, seconds)
    assert [(r["id"], r["status"]) for r in json.loads(body)["runs"]] == [(run.pk, "queued")]


@pytest.mark.django_db(transaction=True)
def test_the_embedded_mode_computes_in_a_process_of_its_own_after_the_request_returned(settings):
    settings.ANALYSIS_EXECUTION = "process"
    campaign = synthetic_campaign("process", np.random.default_rng(12))
    client = Client()
    client.force_login(organizer_of(campaign))
    started = time.perf_counter()
    response = client.post(reverse("campaign-analyses", args=[campaign.pk]), FORM)
    answered, seconds = timezone.now(), time.perf_counter() - started
    assert response.status_code == 302 and seconds < 1.0, seconds
    run = AnalysisRun.objects.get(campaign=campaign)
    wait_for(run, {AnalysisRun.Status.DONE, AnalysisRun.Status.FAILED})
    assert run.status == AnalysisRun.Status.DONE, run.error
    assert run.finished_at > answered  # computed after the response, elsewhere than in the request
    assert run.result["parameters"]["seed"] == 3


@pytest.mark.django_db
def test_the_embedded_mode_computes_at_most_analysis_processes_runs_at_once(settings, monkeypatch):
    """Eight analyses started in a row made eight processes on two cores; now the first process takes them in turn."""
    settings.ANALYSIS_EXECUTION, settings.ANALYSIS_PROCESSES = "process", 1
    started = []
    monkeypatch.setattr(dispatch.child_process, "start", lambda module: started.append(module))
    campaign = synthetic_campaign("limited", np.random.default_rng(15))
    first, second = create_run(campaign, FAST), create_run(campaign, FAST)
    dispatch.start_process()
    assert started == ["ranking.compute_run"]
    assert claim_for_a_process(1) == first.pk
    dispatch.start_process()
    assert started == ["ranking.compute_run"], "one run is being computed: no second process"
    assert claim_for_a_process(1) is None and claim_for_a_process(2) == second.pk
    AnalysisRun.objects.filter(pk__in=[first.pk, second.pk]).update(status="queued", task_id="")
    assert dispatch.compute_waiting() == 2
    assert list(AnalysisRun.objects.order_by("finished_at").values_list("pk", "status")) == [
        (first.pk, "done"), (second.pk, "done")]
    dispatch.start_process()
    assert started == ["ranking.compute_run"] * 2, "nothing claimed: a new run would start a process"


@pytest.mark.django_db
def test_a_run_that_fails_in_the_background_is_recorded_failed_and_shown_so():
    campaign = synthetic_campaign("fails", np.random.default_rng(13))
    client = Client()
    client.force_login(organizer_of(campaign))
    run = create_run(campaign, FAST)
    AnalysisRun.objects.filter(pk=run.pk).update(parameters={**run.parameters, "bootstrap": 1})
    compute_here(run.pk)  # logs the error; the request, command or process that called it goes on
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.FAILED and "bootstrap must be from 3 to 100,000" in run.error
    body = client.get(f"{reverse('campaign-analyses', args=[campaign.pk])}?started={run.pk}").content.decode()
    assert f'data-run="{run.pk}">Analysis {run.pk}: <span class="run-label">Failed</span>' in body
    assert '<td class="run-status" data-status="failed"><span class="run-label">Failed</span>' in body


@pytest.mark.django_db
def test_the_status_endpoint_gives_what_the_table_shows_to_organizers_only(settings):
    settings.ANALYSIS_EXECUTION = "celery"  # recorded, never sent: stays queued
    campaign = synthetic_campaign("status", np.random.default_rng(14))
    client = Client()
    client.force_login(organizer_of(campaign))
    done = create_run(campaign, FAST)
    AnalysisRun.objects.filter(pk=done.pk).update(status="done", progress=100, stage="done", result={"campaign": "x"})
    running = create_run(campaign, FAST)
    AnalysisRun.objects.filter(pk=running.pk).update(status="running", progress=42.4, stage="bootstrap trueskill")
    queued = client.post(reverse("campaign-analyses", args=[campaign.pk]), FORM)
    url = reverse("campaign-analyses-status", args=[campaign.pk])
    runs = {run["id"]: run for run in client.get(url).json()["runs"]}
    assert runs[done.pk]["status"] == "done" and runs[done.pk]["label"] == "Done"
    assert [link["label"] for link in runs[done.pk]["reports"]] == ["JSON", "HTML", "Download HTML", "LaTeX", "CSV"]
    json_report = reverse("campaign-analysis-report", args=[campaign.pk, done.pk, "json"])
    assert runs[done.pk]["reports"][0]["url"] == json_report
    assert (runs[running.pk]["progress"], runs[running.pk]["stage"], runs[running.pk]["reports"]) == (
        42.4, "bootstrap trueskill", [])
    new = AnalysisRun.objects.latest("id")
    assert queued["Location"].endswith(f"?started={new.pk}") and runs[new.pk]["label"] == "Queued"

    page = client.get(queued["Location"]).content.decode()
    assert f'Analysis {new.pk}: <span class="run-label">Queued</span>' in page
    assert '<progress max="100" value="42">42%</progress> <span class="run-label">Running</span>' in page
    assert 'http-equiv="refresh"' not in page and "js/analyses.js" in page
    assert client.get(f"{reverse('campaign-analyses', args=[campaign.pk])}?started=²").status_code == 200

    judge = Client()
    judge.force_login(User.objects.get(username="ann"))
    assert judge.get(url).status_code == 404


@pytest.mark.django_db
def test_a_running_run_no_worker_reported_on_for_a_minute_says_so_and_when_it_is_put_back(settings):
    """A worker killed whole leaves its chunk with the broker for an hour; the run goes back to the queue after
    ANALYSIS_CLAIM_SECONDS without a report, and meanwhile the page says why it stands still."""
    settings.ANALYSIS_EXECUTION, settings.ANALYSIS_CLAIM_SECONDS = "celery", 600
    campaign = synthetic_campaign("quiet", np.random.default_rng(16))
    client = Client()
    client.force_login(organizer_of(campaign))
    quiet, fresh = create_run(campaign, FAST), create_run(campaign, FAST)
    AnalysisRun.objects.filter(pk__in=[quiet.pk, fresh.pk]).update(status="running", stage="bootstrap trueskill",
                                                                     heartbeat_at=timezone.now())
    AnalysisRun.objects.filter(pk=quiet.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=3, seconds=5))
    status = client.get(reverse("campaign-analyses-status", args=[campaign.pk])).json()
    runs = {run["id"]: run for run in status["runs"]}
    note = ("bootstrap trueskill; no word from a worker for 3 minutes; it goes back to the queue after 10 minutes "
            "without one")
    assert (runs[quiet.pk]["stage"], runs[fresh.pk]["stage"]) == (note, "bootstrap trueskill")
    assert f"({note})" in client.get(reverse("campaign-analyses", args=[campaign.pk])).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("execution", "said", "sent"),
    [("process", "Computed 1 waiting analysis.", False), ("celery", "Sent 1 waiting analysis to the workers.", True)],
)
def test_requeue_analyses_computes_or_sends_the_waiting_runs(settings, execution, said, sent):
    """Without Celery the command computes the waiting runs itself; with it, it sends them to the workers (the test
    settings' Celery is eager: the tasks run here)."""
    settings.ANALYSIS_EXECUTION = execution
    campaign = synthetic_campaign(f"requeue-{execution}", np.random.default_rng(15))
    run = create_run(campaign, FAST)
    out = io.StringIO()
    call_command("requeue_analyses", stdout=out)
    assert out.getvalue().strip() == said
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.DONE and bool(run.task_id) == sent


@pytest.mark.django_db(transaction=True)
def test_analyses_started_at_once_do_not_pass_the_limit_together(settings):
    """Two requests start an analysis of a campaign with one place left (ANALYSES_PER_CAMPAIGN): the second waits for
    the first to commit, counts its run, and is refused; each counting before the other's run was recorded, both
    would be started."""
    settings.ANALYSIS_EXECUTION, settings.ANALYSES_PER_CAMPAIGN = "celery", 1
    campaign = synthetic_campaign("at once", np.random.default_rng(16))
    started, release = threading.Event(), threading.Event()

    def first() -> None:
        with transaction.atomic():
            dispatch.start_analysis(campaign, FAST)
            started.set()
            release.wait(WAIT_SECONDS)

    with waiting_in_another_thread(first, for_a_lock=False):
        assert started.wait(WAIT_SECONDS)
        with pytest.raises(dispatch.TooManyAnalyses):
            with waiting_in_another_thread(lambda: dispatch.start_analysis(campaign, FAST)):
                release.set()
    assert AnalysisRun.objects.count() == 1
