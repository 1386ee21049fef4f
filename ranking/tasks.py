"""Celery tasks of analyses (thin wrappers around ``ranking.runs``), and sending waiting runs to them.

A web request never talks to the task queue: it only records a queued run (``ranking.dispatch``). ``send_waiting``
sends the runs nobody has sent yet; the periodic task ``send_waiting_analyses`` (Celery beat, every
``ANALYSIS_DISPATCH_SECONDS``) and ``manage.py requeue_analyses`` call it. A run goes out as one task per bootstrap
chunk (both methods), which run on as many workers as there are; each stores its samples in the database
(``runs.store_chunk``), and the one that stores the last sends the run's last step, which combines them and computes
the rest. Tasks acknowledge late and are rejected back to the queue when their worker dies, so a killed worker's
task runs again elsewhere; every task is idempotent (a chunk is a pure function of the run and is stored once; the
last step writes the result once). Transient database errors are retried with backoff. A run put back in the queue
(``runs.put_back_stalled``) is sent again with only the chunks it still lacks.

When the broker is unreachable (a Redis outage), ``send_waiting`` leaves the runs queued and marked as waiting, and
sends them on a later call. This module imports no NumPy, SciPy or numba at import time (web processes load it when
they send any task); the tasks import the numeric core when they run.
"""
from __future__ import annotations

import logging

import kombu.exceptions
from celery import group, uuid
from django.db import OperationalError
from django.utils import timezone

from gecappraise.celery import app

from .models import AnalysisRun
from .runs import (
    add_progress,
    chunk_plan,
    compute_chunk,
    finish,
    mark_failed,
    mark_running,
    missing_chunks,
    progress_recorder,
    put_back_stalled,
    store_chunk,
    stored_chunks,
)

RETRY = {
    "autoretry_for": (OperationalError, kombu.exceptions.OperationalError),
    "retry_backoff": True,
    "max_retries": 3,
}
"""Retried with backoff: transient database errors, and the broker refusing the last step a chunk sends."""
BOOTSTRAP_SHARE = 80.0
"""Percent of a run's progress that its bootstrap chunks account for."""
WAITING = "waiting for the task queue"

logger = logging.getLogger(__name__)


def queue_errors() -> tuple[type[BaseException], ...]:
    """What sending raises when the broker or the result backend is down: the Redis result backend gives up on
    reconnecting with a bare ``RuntimeError``. (``redis`` is imported here, not with this module: web processes
    load this module but never send.)"""
    import redis.exceptions

    return kombu.exceptions.OperationalError, redis.exceptions.RedisError, ConnectionError, RuntimeError


def send_waiting() -> int:
    """Send the queued runs that have not been sent, oldest first; returns how many this call sent.

    A run is claimed (its ``task_id`` set) before it is sent, so two concurrent callers never send it twice. When
    the task queue cannot be reached the run is released, it and the runs after it are marked waiting, and the call
    stops there (one timeout, not one per run)."""
    sent = 0
    for run_id in AnalysisRun.objects.filter(status=AnalysisRun.Status.QUEUED, task_id="").order_by("id").values_list(
        "pk", flat=True
    ):
        try:
            sent += _send(run_id)
        except queue_errors() as exc:
            logger.warning("analyses are waiting: the task queue is unreachable (%s: %s)", type(exc).__name__, exc)
            AnalysisRun.objects.filter(status=AnalysisRun.Status.QUEUED, task_id="").update(stage=WAITING)
            break
    return sent


def _send(run_id: int) -> bool:
    """Claim the run and send the tasks of the chunks it lacks, or its last step when it lacks none (a put-back
    run whose chunks were all stored; its progress starts at their share). False if another caller claimed it
    first. If sending fails the claim is released and the error raised (chunks already sent are harmless: each is
    stored once)."""
    task_id = uuid()
    if not AnalysisRun.objects.filter(pk=run_id, status=AnalysisRun.Status.QUEUED, task_id="").update(
        task_id=task_id, stage="", heartbeat_at=timezone.now()
    ):
        return False
    run = AnalysisRun.objects.get(pk=run_id)
    missing, total, failed = missing_chunks(run), len(chunk_plan(run)), analysis_failed_task.s(run_id)
    if len(missing) < total:
        AnalysisRun.objects.filter(pk=run_id).update(progress=BOOTSTRAP_SHARE * (total - len(missing)) / total)
    try:
        if missing:
            group(
                bootstrap_chunk_task.si(run_id, method, chunk, size).on_error(failed) for method, chunk, size in missing
            ).apply_async()
        else:
            finish_analysis_task.apply_async((run_id,), link_error=failed)
    except Exception:
        AnalysisRun.objects.filter(pk=run_id, task_id=task_id, status=AnalysisRun.Status.QUEUED).update(task_id="")
        raise
    return True


@app.task(ignore_result=True)
def send_waiting_analyses() -> int:
    """Periodic (Celery beat): put back the runs whose worker stopped reporting (``put_back_stalled``), and send
    them with the analyses that requests recorded since the last call."""
    put_back_stalled()
    return send_waiting()


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True, **RETRY)
def bootstrap_chunk_task(self, run_id: int, method: str, chunk: int, size: int) -> None:
    """One chunk of one method's bootstrap samples, stored; the chunk that completes the run's set (or finds it
    complete when it runs again) sends the last step."""
    mark_running(run_id)
    stored = store_chunk(run_id, method, chunk, compute_chunk(run_id, method, chunk, size))
    if stored.stored_now:
        add_progress(run_id, BOOTSTRAP_SHARE / stored.total, f"bootstrap {method}")
    if stored.complete:
        finish_analysis_task.apply_async((run_id,), link_error=analysis_failed_task.s(run_id))


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True, **RETRY)
def finish_analysis_task(self, run_id: int) -> None:
    """Combine the stored chunks in order, store the whole analysis and drop the chunks (``runs.finish``, in one
    transaction). Sent again for a done run (a chunk's task run again), it does nothing."""
    run = AnalysisRun.objects.get(pk=run_id)
    if run.status == AnalysisRun.Status.DONE:
        return
    chunks = stored_chunks(run)
    mark_running(run_id)
    finish(run_id, chunks=chunks, progress=progress_recorder(run_id))


@app.task(ignore_result=True)
def analysis_failed_task(request, exc, traceback, run_id: int) -> None:
    """Errback of every task of a run: a chunk or the last step failed for good."""
    mark_failed(run_id, f"{type(exc).__name__}: {exc}")


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True, **RETRY)
def top_up_active_queue_task(self, campaign_id: int) -> int:
    """Refill the short queue of a campaign with active selection (``active_queue.top_up``); returns the screens
    written."""
    from .active_queue import top_up

    return top_up(campaign_id)
