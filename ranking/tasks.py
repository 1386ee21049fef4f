"""Celery tasks of analyses (thin wrappers around ``ranking.runs``), and sending waiting runs to them.

A web request never talks to the task queue: it only records a queued run (``ranking.dispatch``). ``send_waiting``
sends the runs nobody has sent yet; the periodic task ``send_waiting_analyses`` (Celery beat, every
``ANALYSIS_DISPATCH_SECONDS``) and ``manage.py requeue_analyses`` call it. A run goes out as a chord: one task per
bootstrap chunk (both methods) as the header, and a body that combines the samples and computes the rest; the chunks
run on as many workers as there are. Tasks acknowledge late and are rejected back to the queue when their worker
dies, so a killed worker's task runs again elsewhere; every task is idempotent (a chunk is a pure function of the
run; the body writes the result once). Transient database errors are retried with backoff.

When the broker or the result backend is unreachable (a Redis outage), ``send_waiting`` leaves the runs queued and
marked as waiting, and sends them on a later call. This module imports no NumPy, SciPy or numba at import time
(web processes load it when they send any task); the tasks import the numeric core when they run.
"""
from __future__ import annotations

import logging

import kombu.exceptions
from celery import chord, uuid
from django.db import OperationalError
from django.utils import timezone

from gecappraise.celery import app

from .core.parameters import METHODS, chunk_sizes
from .models import AnalysisRun
from .runs import (
    add_progress,
    compute_chunk,
    finish,
    mark_failed,
    mark_running,
    progress_recorder,
    put_back_stalled,
    run_parameters,
)

RETRY = {"autoretry_for": (OperationalError,), "retry_backoff": True, "max_retries": 3}
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
    """Claim the run and send its chord; False if another caller claimed it first. If sending fails the claim is
    released and the error raised."""
    task_id = uuid()
    if not AnalysisRun.objects.filter(pk=run_id, status=AnalysisRun.Status.QUEUED, task_id="").update(
        task_id=task_id, stage="", heartbeat_at=timezone.now()
    ):
        return False
    parameters = run_parameters(AnalysisRun.objects.get(pk=run_id))
    header = [
        bootstrap_chunk_task.si(run_id, method, chunk, size)
        for method in METHODS
        for chunk, size in enumerate(chunk_sizes(parameters.bootstrap, parameters.chunk_size))
    ]
    body = finish_analysis_task.s(run_id).on_error(analysis_failed_task.s(run_id))
    try:
        chord(header)(body, task_id=task_id)
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


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, **RETRY)
def bootstrap_chunk_task(self, run_id: int, method: str, chunk: int, size: int) -> dict:
    """One chunk of one method's bootstrap samples."""
    mark_running(run_id)
    samples = compute_chunk(run_id, method, chunk, size)
    parameters = run_parameters(AnalysisRun.objects.get(pk=run_id))
    n_chunks = len(chunk_sizes(parameters.bootstrap, parameters.chunk_size)) * len(METHODS)
    add_progress(run_id, BOOTSTRAP_SHARE / n_chunks, f"bootstrap {method}")
    return {"method": method, "chunk": chunk, "samples": samples}


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, **RETRY)
def finish_analysis_task(self, chunks: list[dict], run_id: int) -> int:
    """Combine the chunks in order and store the whole analysis."""
    import numpy as np

    samples = {
        method: np.concatenate([
            np.asarray(part["samples"], dtype=np.float64)
            for part in sorted((c for c in chunks if c["method"] == method), key=lambda c: c["chunk"])
        ])
        for method in METHODS
    }
    mark_running(run_id)
    finish(run_id, samples=samples, progress=progress_recorder(run_id))
    return run_id


@app.task
def analysis_failed_task(request, exc, traceback, run_id: int) -> None:
    """Errback of the chord: a chunk or the body failed for good."""
    mark_failed(run_id, f"{type(exc).__name__}: {exc}")


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True, **RETRY)
def top_up_active_queue_task(self, campaign_id: int) -> int:
    """Refill the short queue of a campaign with active selection (``active_queue.top_up``); returns the screens
    written."""
    from .active_queue import top_up

    return top_up(campaign_id)
