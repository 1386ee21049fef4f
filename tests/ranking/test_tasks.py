"""Analyses as Celery tasks on a real worker (Redis, PostgreSQL), in-process, and from the command line; sending
the runs that requests recorded (``send_waiting``), also through a broker outage."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import QuerySet

from annotation.models import Judgment
from ranking.core.analysis import AnalysisParameters, chunk_sizes
from ranking.core.parameters import MAX_SEED
from ranking.forms import AnalysisForm
from ranking.models import AnalysisChunk, AnalysisRun
from ranking.runs import compute_chunk, create_run, execute_in_process, missing_chunks, store_chunk
from ranking.tasks import WAITING, finish_analysis_task, send_waiting

from .factories import synthetic_campaign

FAST = AnalysisParameters(bootstrap=200, chunk_size=50, seed=5)
REPO = Path(__file__).resolve().parents[2]


def wait_for(run: AnalysisRun, statuses: set[str], timeout: float = 120.0) -> list[tuple[str, float]]:
    """Poll the run until its status is in ``statuses``; returns the (status, progress) states seen."""
    seen: list[tuple[str, float]] = []
    deadline = time.monotonic() + timeout
    while True:
        run.refresh_from_db()
        state = (run.status, run.progress)
        if not seen or seen[-1] != state:
            seen.append(state)
        if run.status in statuses:
            return seen
        if time.monotonic() > deadline:
            pytest.fail(f"run stayed {run.status} ({run.progress}%) for {timeout} s; states seen: {seen}")
        time.sleep(0.02)


@pytest.mark.django_db
def test_in_process_run_stores_the_analysis_json():
    campaign = synthetic_campaign("in-process", np.random.default_rng(1))
    run = execute_in_process(create_run(campaign, FAST))
    assert run.status == AnalysisRun.Status.DONE and run.progress == 100
    stored = AnalysisRun.objects.get(pk=run.pk)
    assert stored.result["campaign"] == "in-process"
    assert stored.result["parameters"]["seed"] == 5 and stored.result["parameters"]["bootstrap"] == 200
    assert (
        stored.result["snapshot"]["judgments"]
        == Judgment.objects.filter(assignment__screen__campaign=campaign).count()
    )
    assert stored.result["pairs"]["rankings"] == stored.result["snapshot"]["judgments"]
    # synthetic_campaign ranks a higher-numbered system better (its quality is its number plus noise): sys5, sys4
    # and sys3 come first in that order, each in a cluster of its own; sys0-sys2 mostly leave a sentence unchanged
    # (edit rates 1/7-3/7), and identical outputs are one candidate ranked as its best member, so they stay within
    # the noise of one another and form the last cluster (their order among themselves is not asserted).
    systems = stored.result["expected_wins"]["systems"]
    assert [(s["system"], s["cluster"]) for s in systems[:3]] == [("sys5", 1), ("sys4", 2), ("sys3", 3)]
    assert {s["system"] for s in systems[3:]} == {"sys0", "sys1", "sys2"}
    assert [s["cluster"] for s in systems[3:]] == [4, 4, 4]
    scores = [s["score"] for s in systems]
    assert all(a > b for a, b in zip(scores, scores[1:])), scores


@pytest.mark.django_db
def test_eager_tasks_give_the_same_result_as_the_in_process_run():
    campaign = synthetic_campaign("eager", np.random.default_rng(2))
    direct = execute_in_process(create_run(campaign, FAST)).result
    run = create_run(campaign, FAST)
    assert send_waiting() == 1
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.DONE
    assert json.dumps(run.result["expected_wins"], sort_keys=True) == json.dumps(
        direct["expected_wins"], sort_keys=True
    )
    assert json.dumps(run.result["trueskill"], sort_keys=True) == json.dumps(direct["trueskill"], sort_keys=True)


@pytest.mark.django_db
def test_a_failing_analysis_marks_the_run_failed_without_a_result():
    campaign = synthetic_campaign("unscored", np.random.default_rng(3), n_rankings=30)
    run = create_run(campaign, FAST, metrics={"partial": {"sys0": (0.5,)}})
    with pytest.raises(ValueError, match="no metric score for"):
        execute_in_process(run)
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.FAILED and run.result is None
    assert "metric 'partial': no metric score for" in run.error


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_worker_runs_an_analysis_queued_running_done(celery_worker):
    campaign = synthetic_campaign("worker", np.random.default_rng(4))
    expected = execute_in_process(create_run(campaign, FAST)).result
    run = create_run(campaign, FAST)
    assert run.status == AnalysisRun.Status.QUEUED
    assert send_waiting() == 1
    seen = wait_for(run, {AnalysisRun.Status.DONE, AnalysisRun.Status.FAILED})
    assert run.status == AnalysisRun.Status.DONE, run.error
    assert any(status == "running" and 0 < progress < 100 for status, progress in seen), seen
    assert run.result["expected_wins"] == expected["expected_wins"]
    assert run.result["trueskill"] == expected["trueskill"]
    n_tasks = 2 * len(chunk_sizes(FAST.bootstrap, FAST.chunk_size)) + 1
    assert run.attempts == n_tasks


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_a_worker_process_killed_mid_run_leads_to_a_retried_complete_run(celery_worker):
    """A task killed with its process is run again (acks late, rejected on worker loss), and the run completes by
    itself with the results of an undisturbed run: its chunks are counted in the database, so no kill leaves it
    waiting for its claim to expire (as Celery's Redis chord did when a process died between storing a chunk's
    result and counting it)."""
    campaign = synthetic_campaign("killed", np.random.default_rng(5), n_rankings=300)
    parameters = AnalysisParameters(bootstrap=2000, chunk_size=50, seed=6)
    expected = execute_in_process(create_run(campaign, parameters)).result
    run = create_run(campaign, parameters)
    lost_before = celery_worker.lost_tasks()
    send_waiting()
    deadline = time.monotonic() + 60
    last_kill = -1.0
    # Kill until a task dies with its process, at most every 0.5 s: killing new pool processes over and over while
    # they start (as a slow machine showed) never lets them take a task, so none is lost.
    while celery_worker.lost_tasks() == lost_before:
        run.refresh_from_db()
        assert run.status != AnalysisRun.Status.DONE, "the run finished before a task could be killed"
        assert time.monotonic() < deadline, "no task was lost"
        if run.status == AnalysisRun.Status.RUNNING and time.monotonic() - last_kill >= 0.5:
            celery_worker.kill_children()
            last_kill = time.monotonic()
        time.sleep(0.05)
    wait_for(run, {AnalysisRun.Status.DONE, AnalysisRun.Status.FAILED}, timeout=180)
    assert run.status == AnalysisRun.Status.DONE, run.error
    n_tasks = 2 * len(chunk_sizes(parameters.bootstrap, parameters.chunk_size)) + 1
    assert run.attempts >= n_tasks
    assert run.result["expected_wins"] == expected["expected_wins"]
    assert run.result["trueskill"] == expected["trueskill"]
    assert not AnalysisChunk.objects.filter(run=run).exists()


@pytest.mark.celery
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_beat_sends_a_recorded_run_to_the_worker(celery_worker, tmp_path):
    from django.conf import settings

    campaign = synthetic_campaign("beat", np.random.default_rng(9))
    run = create_run(campaign, FAST)  # what a request does: record only
    env = {key: value for key, value in os.environ.items() if key != "ANALYSIS_DISPATCH_SECONDS"}
    db = settings.DATABASES["default"]
    env.update(DJANGO_SETTINGS_MODULE="tests.settings", TEST_CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
               TEST_CELERY_QUEUE=settings.CELERY_TASK_DEFAULT_QUEUE,
               DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}", LOG_LEVEL="INFO")
    log = tmp_path / "beat.log"
    beat = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "gecappraise", "beat", "--schedule", str(tmp_path / "schedule")],
        cwd=REPO, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
    )
    try:
        wait_for(run, {AnalysisRun.Status.DONE, AnalysisRun.Status.FAILED}, timeout=180)
    finally:
        beat.terminate()
        beat.wait(timeout=20)
    assert run.status == AnalysisRun.Status.DONE, (run.error, log.read_text()[-2000:])
    assert run.task_id


@pytest.mark.django_db
def test_analyze_command_writes_the_contract_json(tmp_path):
    campaign = synthetic_campaign("cli", np.random.default_rng(6))
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    systems = sorted(campaign.systems.values_list("name", flat=True))
    (metrics / "scores.m2").write_text(
        "".join(f"{s} {0.1 * i:.2f} {0.2:.2f} {0.05 * i:.2f}\n" for i, s in enumerate(systems))
    )
    (metrics / "scores.bleu").write_text("".join(f"{s} {i}\n" for i, s in enumerate(systems)))
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "cli", "--bootstrap", "100", "--seed", "3", "--metrics", str(metrics),
                 "--out", str(out), stderr=io.StringIO())
    result = json.loads(out.read_text())
    for key in ("campaign", "parameters", "pairs", "agreement", "expected_wins", "trueskill", "head_to_head",
                "metrics", "beta_sweep"):
        assert key in result
    assert result["parameters"]["bootstrap"] == 100 and result["parameters"]["seed"] == 3
    assert set(result["metrics"]) == {"m2", "bleu"}
    assert {row["beta"] for row in result["beta_sweep"]} >= {0.1, 0.18, 0.25, 0.5, 1.0}
    judge_out = tmp_path / "judge.json"
    call_command("analyze", "--campaign", "cli", "--bootstrap", "100", "--judge", "ann", "--out", str(judge_out),
                 stderr=io.StringIO())
    judged = json.loads(judge_out.read_text())
    assert list(judged["pairs"]["per_judge"]) == ["ann"]
    with pytest.raises(CommandError, match="'zed' is not a judge of 'cli'"):
        call_command("analyze", "--campaign", "cli", "--judge", "zed", "--out", str(judge_out))
    runs = AnalysisRun.objects.count()
    for unwritable, reason in [(tmp_path / "missing" / "a.json", "no folder"), (tmp_path, "it is a folder")]:
        # Refused before the analysis: it was computed and recorded, and only then found it could not be written.
        with pytest.raises(CommandError, match=rf"cannot write \({reason}.*\); nothing was done"):
            call_command("analyze", "--campaign", "cli", "--bootstrap", "100", "--out", str(unwritable),
                         stderr=io.StringIO())
    assert AnalysisRun.objects.count() == runs
    with pytest.raises(CommandError, match="none: no such folder"):
        call_command("analyze", "--campaign", "cli", "--metrics", str(tmp_path / "none"), "--out", str(judge_out))
    with pytest.raises(CommandError, match="judge.json: not a folder"):
        call_command("analyze", "--campaign", "cli", "--metrics", str(judge_out), "--out", str(judge_out))
    (tmp_path / "empty").mkdir()
    with pytest.raises(CommandError, match="empty: no scores.<metric> files found"):
        call_command("analyze", "--campaign", "cli", "--metrics", str(tmp_path / "empty"), "--out", str(judge_out))


SEED_RULE = "seed must be a whole number from 0 to 9223372036854775807 (2**63 - 1), got "
#: A whole-number option's refusals (``command_helpers.whole_number_option``): a seed's range is a bigint's.
NOT_FROM_0 = "is not a whole number from 0 (ASCII digits 0-9, such as 42)"
BEYOND_SEEDS = "is out of range (a whole number is at most 9,223,372,036,854,775,807)"


@pytest.mark.django_db
def test_the_fewest_bootstrap_samples_the_commands_take_give_an_analysis(tmp_path):
    """3 samples: each rank range (0.95 for the systems, 0.90 for the judges) drops one at each end."""
    synthetic_campaign("few", np.random.default_rng(6), n_rankings=20)
    out = tmp_path / "out.json"
    call_command("analyze", "--campaign", "few", "--bootstrap", "3", "--out", str(out), stderr=io.StringIO())
    result = json.loads(out.read_text())
    assert result["parameters"]["bootstrap"] == 3
    ranges = [system["range"] for system in result["expected_wins"]["systems"]]
    assert len(ranges) == 6 and all(1 <= low <= high <= 6 for low, high in ranges)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("command", "option", "value", "message"),
    [
        ("analyze", "--seed", "-1", "Error: argument --seed: '-1' " + NOT_FROM_0),
        ("analyze", "--seed", str(2**63), f"Error: argument --seed: '{2**63}' " + BEYOND_SEEDS),
        ("export_report", "--seed", "-1", "Error: argument --seed: '-1' " + NOT_FROM_0),
        ("export_report", "--seed", "9" * 23, f"Error: argument --seed: '{'9' * 23}' " + BEYOND_SEEDS),
        ("export_report", "--seed", "1_0", "Error: argument --seed: '1_0' " + NOT_FROM_0),
        ("analyze", "--bootstrap", "٣٠٠", "Error: argument --bootstrap: '٣٠٠' " + NOT_FROM_0),
        ("analyze", "--correlation-decimals", "+2", "Error: argument --correlation-decimals: '+2' is not a whole "
         "number (ASCII digits 0-9, such as 42 or -1)"),
        ("analyze", "--correlation-decimals", "-5",
         "--correlation-decimals must be from 0 to 15, or -1 for no rounding; got -5"),
        ("analyze", "--correlation-decimals", "16",
         "--correlation-decimals must be from 0 to 15, or -1 for no rounding; got 16"),
        ("analyze", "--bootstrap", "1000000000", "bootstrap must be from 3 to 100,000, got 1000000000"),
        ("export_report", "--bootstrap", "100001", "bootstrap must be from 3 to 100,000, got 100001"),
        ("analyze", "--bootstrap", "2", "bootstrap must be from 3 to 100,000, got 2"),
        ("analyze", "--accuracy-folds", "1001", "accuracy_folds must be 0 (skip) or from 2 to 1,000, got 1001"),
        ("analyze", "--ignored-judges", "admin,amdin", "--ignored-judges names no judge of 'cli': amdin"),
        ("analyze", "--judge", "ann", "'ann' is among --ignored-judges: the analysis would hold no judgment (give "
         "--ignored-judges '' to analyse them)"),
    ],
)
def test_out_of_range_options_are_refused_before_anything_is_written(tmp_path, command, option, value, message):
    synthetic_campaign("cli", np.random.default_rng(6), n_rankings=20)
    out = tmp_path / "out.json"
    report = ["--format", "json", "--run"] if command == "export_report" else []
    ignored = ["--ignored-judges", "ann"] if option == "--judge" else []
    bootstrap = [] if option == "--bootstrap" else ["--bootstrap", "10"]
    with pytest.raises(CommandError) as error:
        call_command(command, "--campaign", "cli", *report, *bootstrap, *ignored, option, value, "--out", str(out),
                     stderr=io.StringIO())
    assert str(error.value) == message
    assert not AnalysisRun.objects.exists() and not out.exists()


def test_the_seed_rule_is_the_analysis_forms():
    fields = AnalysisForm.base_fields
    assert fields["bootstrap"].max_value == AnalysisParameters(bootstrap=100_000).bootstrap
    assert fields["accuracy_folds"].max_value == AnalysisParameters(accuracy_folds=1000).accuracy_folds
    assert AnalysisParameters(seed=MAX_SEED).seed == MAX_SEED == AnalysisForm.base_fields["seed"].max_value
    assert AnalysisForm.base_fields["seed"].min_value == 0
    with pytest.raises(ValueError) as error:
        AnalysisParameters(seed=MAX_SEED + 1)
    assert str(error.value) == SEED_RULE + str(2**63)


@pytest.fixture
def unreachable_broker():
    """The test process publishes to a broker address where nothing listens (a Redis outage), then recovers."""
    from gecappraise.celery import app

    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager", "broker_connection_timeout")}
    saved_pools = (app._pool, app.amqp._producer_pool)
    app.conf.update(broker_url="redis://127.0.0.1:1/0", task_always_eager=False, broker_connection_timeout=1,
                    task_publish_retry=False)
    app._pool = app.amqp._producer_pool = None
    yield
    app.conf.update(**saved, task_publish_retry=True)
    app._pool, app.amqp._producer_pool = saved_pools


@pytest.mark.django_db
def test_a_broker_outage_leaves_runs_waiting_until_it_returns(unreachable_broker):
    from gecappraise.celery import app

    campaign = synthetic_campaign("outage", np.random.default_rng(8))
    first, second = create_run(campaign, FAST), create_run(campaign, FAST)
    assert send_waiting() == 0  # does not raise: the periodic task just tries again later
    for run in (first, second):
        run.refresh_from_db()
        assert (run.status, run.stage, run.task_id) == (AnalysisRun.Status.QUEUED, WAITING, "")
    app.conf.task_always_eager = True  # back (eager: the tasks run here)
    assert send_waiting() == 2
    for run in (first, second):
        run.refresh_from_db()
        assert run.status == AnalysisRun.Status.DONE and run.task_id


@pytest.mark.django_db
def test_a_run_is_sent_once_whoever_sends_it():
    campaign = synthetic_campaign("claimed", np.random.default_rng(10))
    run = create_run(campaign, FAST)
    AnalysisRun.objects.filter(pk=run.pk).update(task_id="sent-by-another-dispatcher")
    assert send_waiting() == 0
    run.refresh_from_db()
    assert (run.status, run.task_id) == (AnalysisRun.Status.QUEUED, "sent-by-another-dispatcher")


def test_beat_sends_waiting_analyses_on_a_short_schedule():
    from gecappraise.celery import app

    entry = app.conf.beat_schedule["send-waiting-analyses"]
    assert entry["task"] == "ranking.tasks.send_waiting_analyses"
    assert entry["task"] in app.tasks
    assert 0 < entry["schedule"] <= 10 and entry["options"]["expires"] <= entry["schedule"]


@pytest.mark.django_db(transaction=True)
def test_a_run_is_done_only_with_its_chunks_dropped(monkeypatch):
    """The last step stores the result and drops the chunks in one transaction: a task that dies between the two
    (here the deletion fails) leaves the run not done and its chunks stored, for the task run again; before, the
    run was done with its chunks left, and the task run again found it done and left them for good."""
    campaign = synthetic_campaign("chunks dropped", np.random.default_rng(8), n_rankings=60)
    run = create_run(campaign, AnalysisParameters(bootstrap=100, chunk_size=50, seed=2))
    for method, chunk, size in missing_chunks(run):
        store_chunk(run.pk, method, chunk, compute_chunk(run.pk, method, chunk, size))
    stored = AnalysisChunk.objects.filter(run=run).count()
    delete = QuerySet.delete

    def dies_deleting_chunks(queryset):
        if queryset.model is AnalysisChunk:
            raise RuntimeError("worker lost")
        return delete(queryset)

    monkeypatch.setattr(QuerySet, "delete", dies_deleting_chunks)
    with pytest.raises(RuntimeError):
        finish_analysis_task(run.pk)
    run.refresh_from_db()
    assert run.status != AnalysisRun.Status.DONE and AnalysisChunk.objects.filter(run=run).count() == stored > 0
    monkeypatch.undo()
    finish_analysis_task(run.pk)
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.DONE and not AnalysisChunk.objects.filter(run=run).exists()
