"""Runs whose worker or process died go back to the queue: a heartbeat on every claim, start and progress report,
and the dispatcher (Celery beat's ``send_waiting_analyses``, ``manage.py requeue_analyses``) puts back the claimed
runs silent for ``ANALYSIS_CLAIM_SECONDS``, once, and computes them again. On PostgreSQL, with a real process killed
in the middle of its analysis."""
from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from gecappraise.child_process import DATABASES_VARIABLE
from ranking.core.parameters import AnalysisParameters
from ranking.models import AnalysisRun
from ranking.runs import PUT_BACK, create_run, mark_running, put_back_stalled, set_progress
from ranking.tasks import send_waiting_analyses

from .factories import synthetic_campaign
from .test_tasks import FAST, wait_for

REPO = Path(__file__).resolve().parents[2]
HOUR_AGO = timedelta(hours=1)


def backdate(run: AnalysisRun, by: timedelta) -> None:
    AnalysisRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - by)


@pytest.mark.django_db
def test_claims_starts_and_progress_beat_and_only_silent_claimed_runs_are_put_back(settings):
    settings.ANALYSIS_CLAIM_SECONDS = 600
    campaign = synthetic_campaign("heartbeat", np.random.default_rng(21))
    running, silent, fresh_queued, sent, done = (create_run(campaign, FAST) for _ in range(5))
    mark_running(running.pk)
    running.refresh_from_db()
    assert running.heartbeat_at is not None and timezone.now() - running.heartbeat_at < timedelta(seconds=60)
    backdate(running, HOUR_AGO)
    set_progress(running.pk, 30.0, "bootstrap trueskill")  # a report renews the claim
    mark_running(silent.pk)
    set_progress(silent.pk, 55.0, "bootstrap trueskill")
    backdate(silent, HOUR_AGO)
    AnalysisRun.objects.filter(pk=sent.pk).update(task_id="sent-long-ago", heartbeat_at=timezone.now() - HOUR_AGO)
    AnalysisRun.objects.filter(pk=done.pk).update(status="done", result={"campaign": "x"}, progress=100,
                                                  heartbeat_at=timezone.now() - HOUR_AGO)
    AnalysisRun.objects.filter(pk=fresh_queued.pk).update(created_at=timezone.now() - HOUR_AGO)

    assert put_back_stalled() == 2  # the silent running run and the run sent an hour ago
    assert put_back_stalled() == 0  # once
    state = {run.pk: run for run in AnalysisRun.objects.filter(campaign=campaign)}
    for pk in (silent.pk, sent.pk):
        assert (state[pk].status, state[pk].task_id, state[pk].progress, state[pk].stage, state[pk].heartbeat_at) == (
            "queued", "", 0.0, PUT_BACK, None)
    assert (state[running.pk].status, state[running.pk].progress) == ("running", 30.0)
    assert state[fresh_queued.pk].status == "queued" and state[fresh_queued.pk].stage == ""  # never claimed
    assert state[done.pk].status == "done"


@pytest.mark.django_db
def test_a_run_from_before_heartbeats_counts_from_its_start(settings):
    campaign = synthetic_campaign("legacy", np.random.default_rng(22))
    legacy = create_run(campaign, FAST)
    AnalysisRun.objects.filter(pk=legacy.pk).update(status="running", started_at=timezone.now() - HOUR_AGO)
    assert put_back_stalled(claim_seconds=3600 * 2) == 0
    assert put_back_stalled(claim_seconds=600) == 1


@pytest.mark.django_db
def test_beat_puts_back_a_run_whose_worker_died_and_sends_it_again(settings):
    """The test settings' Celery is eager: the tasks sent again compute the run here."""
    settings.ANALYSIS_EXECUTION = "celery"
    campaign = synthetic_campaign("worker-died", np.random.default_rng(23))
    run = create_run(campaign, FAST)
    AnalysisRun.objects.filter(pk=run.pk).update(task_id="lost-tasks")
    mark_running(run.pk)  # a chunk task started, then its worker was killed
    set_progress(run.pk, 40.0, "bootstrap trueskill")
    assert send_waiting_analyses() == 0  # its claim is fresh: left alone
    backdate(run, timedelta(seconds=django_settings.ANALYSIS_CLAIM_SECONDS + 1))
    assert send_waiting_analyses() == 1
    run.refresh_from_db()
    assert run.status == "done" and run.task_id not in {"", "lost-tasks"} and run.progress == 100.0
    assert run.attempts > 1  # the dead worker's attempt and the new ones


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_requeue_analyses_recomputes_the_run_of_a_killed_embedded_process(settings):
    settings.ANALYSIS_EXECUTION = "process"
    campaign = synthetic_campaign("killed", np.random.default_rng(24), n_rankings=400)
    run = create_run(campaign, AnalysisParameters(bootstrap=1000, chunk_size=100, seed=9))
    env = {**os.environ, DATABASES_VARIABLE: json.dumps(django_settings.DATABASES, default=str),
           "DJANGO_SETTINGS_MODULE": "tests.settings"}
    process = subprocess.Popen([sys.executable, "-m", "ranking.compute_run"], cwd=REPO, env=env,
                               stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(run, {"running", "done", "failed"}, timeout=120)
        assert run.status == "running", run.error  # it imports the numeric stack only now: seconds left to kill it
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        process.kill()
    time.sleep(1.0)
    run.refresh_from_db()
    assert run.status == "running"  # the dead process's run does not recover by itself

    settings.ANALYSIS_CLAIM_SECONDS = 3600
    out = io.StringIO()
    call_command("requeue_analyses", stdout=out)
    assert out.getvalue().strip() == "Computed 0 waiting analyses."  # within its claim: might still be working
    settings.ANALYSIS_CLAIM_SECONDS = 1
    call_command("requeue_analyses", stdout=out)
    assert out.getvalue().strip().splitlines()[1:] == [
        "Put back 1 analysis whose worker stopped reporting for 1 s in the queue.",
        "Computed 1 waiting analysis.",
    ]
    run.refresh_from_db()
    assert run.status == "done" and run.progress == 100.0 and run.error == ""
    connection.close()
