"""Celery tasks of campaigns: writing large screen requests (thin wrappers around ``services.screen_jobs``).

A web request only records a ScreenJob; ``send_waiting`` hands the recorded jobs to the workers (the periodic task
``send_waiting_screen_jobs``, Celery beat). A job's task acknowledges late and goes back to the queue when its worker
dies; it is idempotent (``run_job`` goes on from the screens already written), and transient database errors are
retried with backoff. When the broker is unreachable the jobs stay queued and a later call sends them.
"""
from __future__ import annotations

import logging

import kombu.exceptions
import redis.exceptions
from django.db import OperationalError
from django.utils import timezone

from gecappraise.celery import app

from .models import ScreenJob
from .services.screen_jobs import run_job

QUEUE_ERRORS = (kombu.exceptions.OperationalError, redis.exceptions.RedisError, ConnectionError, RuntimeError)
"""What sending raises when the broker or the result backend is down."""

logger = logging.getLogger(__name__)


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, autoretry_for=(OperationalError,),
             retry_backoff=True, max_retries=5, ignore_result=True)
def run_screen_job_task(self, job_id: int) -> int:
    """Write the screens of ScreenJob ``job_id`` not written yet; returns how many it holds now."""
    return run_job(job_id).created


def send_waiting() -> int:
    """Hand the queued jobs nobody has sent yet to the workers, oldest first; returns how many were sent. A job is
    claimed (``sent_at`` set) before it is sent; when the task queue is unreachable the claim is released and the
    call stops (a later call sends it)."""
    sent = 0
    waiting = ScreenJob.objects.filter(status=ScreenJob.Status.QUEUED, sent_at__isnull=True).order_by("id")
    for job_id in waiting.values_list("pk", flat=True):
        if not ScreenJob.objects.filter(pk=job_id, sent_at__isnull=True).update(sent_at=timezone.now()):
            continue
        try:
            run_screen_job_task.delay(job_id)
        except QUEUE_ERRORS as exc:
            logger.warning("screen jobs are waiting: the task queue is unreachable (%s: %s)", type(exc).__name__, exc)
            ScreenJob.objects.filter(pk=job_id).update(sent_at=None)
            break
        sent += 1
    return sent


@app.task(ignore_result=True)
def send_waiting_screen_jobs() -> int:
    """Periodic (Celery beat): send the screen jobs that requests recorded since the last call."""
    return send_waiting()
