"""Celery tasks of campaigns: writing large screen requests and importing large uploads (thin wrappers around
``services.screen_jobs`` and ``services.background_jobs``).

A web request only records a ScreenJob or an BackgroundJob; ``send_waiting`` hands the recorded jobs to the workers (the
periodic task ``send_waiting_jobs``, Celery beat). A job's task acknowledges late and goes back to the queue when
its worker dies; both are idempotent (``run_job`` goes on from the screens already written, ``run_background_job``
imports all or nothing and never twice), and transient database errors are retried with backoff. When the broker is
unreachable the jobs stay queued and a later call sends them.
"""
from __future__ import annotations

import logging

import kombu.exceptions
import redis.exceptions
from django.db import OperationalError
from django.utils import timezone

from gecappraise.celery import app

from .models import BackgroundJob, ScreenJob
from .services.background_jobs import run_background_job
from .services.screen_jobs import run_job

QUEUE_ERRORS = (kombu.exceptions.OperationalError, redis.exceptions.RedisError, ConnectionError, RuntimeError)
"""What sending raises when the broker or the result backend is down."""

logger = logging.getLogger(__name__)


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, autoretry_for=(OperationalError,),
             retry_backoff=True, max_retries=5, ignore_result=True)
def run_screen_job_task(self, job_id: int) -> int:
    """Write the screens of ScreenJob ``job_id`` not written yet; returns how many it holds now."""
    return run_job(job_id).created


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, autoretry_for=(OperationalError,),
             retry_backoff=True, max_retries=5, ignore_result=True)
def run_background_job_task(self, job_id: int) -> str:
    """Import the files of BackgroundJob ``job_id`` (all or nothing); returns its status."""
    return run_background_job(job_id).status


def _send(model, task) -> tuple[int, bool]:
    """Send ``model``'s queued jobs nobody has sent yet to ``task``, oldest first: (how many were sent, whether the
    task queue answered). A job is claimed (``sent_at`` set) before it is sent; when the task queue is unreachable
    the claim is released and sending stops."""
    sent = 0
    waiting = model.objects.filter(status=model.Status.QUEUED, sent_at__isnull=True).order_by("id")
    for job_id in waiting.values_list("pk", flat=True):
        if not model.objects.filter(pk=job_id, sent_at__isnull=True).update(sent_at=timezone.now()):
            continue
        try:
            task.delay(job_id)
        except QUEUE_ERRORS as exc:
            logger.warning("jobs are waiting: the task queue is unreachable (%s: %s)", type(exc).__name__, exc)
            model.objects.filter(pk=job_id).update(sent_at=None)
            return sent, False
        sent += 1
    return sent, True


def send_waiting() -> int:
    """Hand the queued screen and import jobs nobody has sent yet to the workers; returns how many were sent."""
    screens, reachable = _send(ScreenJob, run_screen_job_task)
    if not reachable:
        return screens
    imports, _ = _send(BackgroundJob, run_background_job_task)
    return screens + imports


@app.task(ignore_result=True)
def send_waiting_jobs() -> int:
    """Periodic (Celery beat): send the screen and import jobs that requests recorded since the last call."""
    return send_waiting()
