"""Requests for screens: at once up to ``screens.MAX_SCREENS_PER_REQUEST``, else a ScreenJob in the background.

One web request writes at most ``MAX_SCREENS_PER_REQUEST`` screens (a few seconds); a request for more (up to
``MAX_SCREENS_PER_JOB``) is recorded as a queued ScreenJob and returns at once. Jobs go where analyses go
(``settings.ANALYSIS_EXECUTION``): with ``celery`` they are handed to the workers by ``annotation.tasks.send_waiting``
(Celery beat), so a request never talks to the task queue; otherwise (the embedded mode, the tests) a job runs in
the requesting process once its transaction commits.

``run_job`` plans the job's screens as one batch (``screens.plan_batch``, seeded with the job's ``first_number``)
and writes them ``JOB_CHUNK`` at a time, each chunk in one transaction with the job's ``created`` count under the
campaign's lock; the organizer's page reads that count as the job's progress. A job that stopped half-way (a
worker killed, the database gone) goes on from ``created`` when it runs again, so the task is idempotent; every
screen of a job is one the same request would have written at once.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ..models import Campaign, ScreenJob
from .screens import (
    MAX_SCREENS_PER_JOB,
    MAX_SCREENS_PER_REQUEST,
    create_screens,
    lock_campaign,
    next_screen_number,
    plan_batch,
    planned_count,
    write_screens,
)

#: Screens written per transaction of a job.
JOB_CHUNK = 10_000

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScreensRequest:
    """What a request for screens did: ``created`` screens written at once, or ``job`` queued for the rest."""

    created: int = 0
    job: ScreenJob | None = None


def request_screens(campaign: Campaign, count: int | None, requested_by=None) -> ScreensRequest:
    """Write ``count`` screens (None: full coverage) at once when they are at most ``MAX_SCREENS_PER_REQUEST``,
    else record a ScreenJob for them. Raises ValueError (nothing written) when none can be planned or they are more
    than ``MAX_SCREENS_PER_JOB``."""
    planned = planned_count(campaign, count)
    if planned > MAX_SCREENS_PER_JOB:
        raise ValueError(f"one request adds at most {MAX_SCREENS_PER_JOB:,} screens; this one asks for {planned:,}")
    if planned <= MAX_SCREENS_PER_REQUEST:
        return ScreensRequest(created=len(create_screens(campaign, count)))
    with transaction.atomic():
        lock_campaign(campaign)
        job = ScreenJob.objects.create(
            campaign=campaign, requested=planned, first_number=next_screen_number(campaign), requested_by=requested_by
        )
        if settings.ANALYSIS_EXECUTION != "celery":
            transaction.on_commit(lambda: run_job(job.pk))
    return ScreensRequest(job=job)


def run_job(job_id: int) -> ScreenJob:
    """Write the job's screens that are not written yet, chunk by chunk; a failure is recorded on the job (status
    failed, with the reason) and raised. Running a done job again does nothing; a failed one goes on (a retry)."""
    job = ScreenJob.objects.select_related("campaign").get(pk=job_id)
    if job.status == ScreenJob.Status.DONE:
        return job
    ScreenJob.objects.filter(pk=job.pk).update(status=ScreenJob.Status.RUNNING)
    try:
        segment_ids, candidates, plans = plan_batch(job.campaign, job.requested, job.first_number)
        while job.created < job.requested:
            with transaction.atomic():
                lock_campaign(job.campaign)
                job = ScreenJob.objects.select_for_update().select_related("campaign").get(pk=job.pk)
                chunk = plans[job.created : job.created + JOB_CHUNK]
                write_screens(job.campaign, segment_ids, candidates, chunk)
                job.created += len(chunk)
                job.save(update_fields=["created"])
    except Exception as exc:
        logger.exception("screen job %s failed", job.pk)
        ScreenJob.objects.filter(pk=job.pk).update(
            status=ScreenJob.Status.FAILED, error=str(exc)[:500], finished_at=timezone.now()
        )
        raise
    ScreenJob.objects.filter(pk=job.pk).update(status=ScreenJob.Status.DONE, finished_at=timezone.now())
    job.refresh_from_db()
    return job


def active_jobs(campaign: Campaign) -> list[ScreenJob]:
    """The campaign's jobs that are not done, and those finished in the last day, newest first (its page shows
    them)."""
    recent = timezone.now() - timedelta(days=1)
    return list(
        campaign.screen_jobs.exclude(status=ScreenJob.Status.DONE, finished_at__lt=recent)
        .order_by("-requested_at")[:10]
    )
