"""Celery tasks of analyses: thin wrappers around ``ranking.runs``.

``enqueue`` sends one task per bootstrap chunk (both methods) as the header of a chord whose body combines the
samples and computes the rest; the chunks run on as many workers as there are. Tasks acknowledge late and are
rejected back to the queue when their worker dies, so a killed worker's task runs again elsewhere; every task is
idempotent (a chunk is a pure function of the run; the body writes the result once). Transient database errors
are retried with backoff. In the embedded mode (no broker) the same chord runs in-process.

When the broker is unreachable (a Redis outage) a new run stays queued, marked as waiting, and nothing else fails:
``resend_waiting`` (called by the analyses page and ``manage.py requeue_analyses``) sends it once the broker is back.
"""
from __future__ import annotations

import logging

import kombu.exceptions
import numpy as np
import redis.exceptions
from celery import chord, shared_task
from django.db import OperationalError, transaction

from .core.analysis import METHODS, chunk_sizes
from .models import AnalysisRun
from .runs import add_progress, compute_chunk, finish, mark_failed, mark_running, run_parameters

RETRY = {"autoretry_for": (OperationalError,), "retry_backoff": True, "max_retries": 3}
BOOTSTRAP_SHARE = 80.0
"""Percent of a run's progress that its bootstrap chunks account for."""
BROKER_ERRORS = (kombu.exceptions.OperationalError, redis.exceptions.ConnectionError, ConnectionError)
WAITING = "waiting for the task queue"

logger = logging.getLogger(__name__)


def enqueue(run: AnalysisRun) -> None:
    """Queue the run's tasks once the transaction that created it commits."""
    transaction.on_commit(lambda: _send(run.pk, run_parameters(run)))


def resend_waiting() -> int:
    """Send the queued runs that the broker did not take when they were created; returns how many were sent."""
    waiting = AnalysisRun.objects.filter(status=AnalysisRun.Status.QUEUED, task_id="")
    return sum(_send(run.pk, run_parameters(run)) for run in waiting)


def _send(run_id: int, parameters) -> bool:
    """Send the run's chord; False (and the run marked waiting) when the broker cannot be reached."""
    sizes = chunk_sizes(parameters.bootstrap, parameters.chunk_size)
    header = [
        bootstrap_chunk_task.si(run_id, method, chunk, size)
        for method in METHODS
        for chunk, size in enumerate(sizes)
    ]
    body = finish_analysis_task.s(run_id).on_error(analysis_failed_task.s(run_id))
    try:
        result = chord(header)(body)
    except BROKER_ERRORS as exc:
        logger.warning("analysis %s is waiting: the task queue is unreachable (%s)", run_id, exc)
        AnalysisRun.objects.filter(pk=run_id, status=AnalysisRun.Status.QUEUED).update(stage=WAITING)
        return False
    AnalysisRun.objects.filter(pk=run_id, task_id="").update(task_id=result.id or "eager")
    return True


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, **RETRY)
def bootstrap_chunk_task(self, run_id: int, method: str, chunk: int, size: int) -> dict:
    """One chunk of one method's bootstrap samples."""
    mark_running(run_id)
    samples = compute_chunk(run_id, method, chunk, size)
    parameters = run_parameters(AnalysisRun.objects.get(pk=run_id))
    n_chunks = len(chunk_sizes(parameters.bootstrap, parameters.chunk_size)) * len(METHODS)
    add_progress(run_id, BOOTSTRAP_SHARE / n_chunks, f"bootstrap {method}")
    return {"method": method, "chunk": chunk, "samples": samples}


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, **RETRY)
def finish_analysis_task(self, chunks: list[dict], run_id: int) -> int:
    """Combine the chunks in order and store the whole analysis."""
    samples = {
        method: np.concatenate([
            np.asarray(part["samples"], dtype=np.float64)
            for part in sorted((c for c in chunks if c["method"] == method), key=lambda c: c["chunk"])
        ])
        for method in METHODS
    }
    mark_running(run_id)
    finish(run_id, samples=samples)
    return run_id


@shared_task
def analysis_failed_task(request, exc, traceback, run_id: int) -> None:
    """Errback of the chord: a chunk or the body failed for good."""
    mark_failed(run_id, f"{type(exc).__name__}: {exc}")
