"""Requests for screens: at once up to ``screens.MAX_SCREENS_PER_REQUEST``, else a ScreenJob in the background.

One web request writes at most ``MAX_SCREENS_PER_REQUEST`` screens (a few seconds); a request for more (up to
``MAX_SCREENS_PER_JOB``) is recorded as a queued ScreenJob and returns at once. Jobs go where analyses go
(``settings.ANALYSIS_EXECUTION``): with ``celery`` they are handed to the workers by ``annotation.tasks.send_waiting``
(Celery beat), so a request never talks to the task queue; in the embedded mode (``process``) a new process
(``python -m annotation.run_job screens JOB``) writes them once the request's transaction commits, so the request
answers at once; with ``inline`` (the tests) the requesting thread writes them then.

``run_job`` plans the job's screens as one batch (``screens.plan_batch``, seeded with the job's ``first_number``)
and writes them ``JOB_CHUNK`` at a time, each chunk in one transaction with the job's ``created`` count under the
campaign's lock; the organizer's page reads that count as the job's progress. A job that stopped half-way (a
worker killed, the database gone) goes on from ``created`` when it runs again, so the task is idempotent; every
screen of a job is one the same request would have written at once.

A job whose process stopped (a restart, a killed process in the embedded mode) is not
left "running": ``run_job`` holds a PostgreSQL session-level advisory lock on the job from before it marks it
running until it has recorded the outcome, and the database releases that lock when the process's connection
ends. ``fail_abandoned``, run when jobs are shown, fails a running job whose lock it can take, with ``ABANDONED``;
its screens written so far stay, and ``resume_job`` (the organizer's "Go on") queues it again to write the rest.
With Celery the worker's late acknowledgement redelivers a lost job instead. The same lock keeps a job from
running twice at once (a redelivery while the first worker still writes waits, then finds it done).
"""
from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from gecappraise import child_process

from ..models import Campaign, ScreenJob
from .kept_tallies import one_snapshot
from .screens import (
    MAX_SCREENS_PER_JOB,
    MAX_SCREENS_PER_REQUEST,
    create_screens,
    lock_campaign,
    next_screen_number,
    plan_batch,
    planned_count,
    screen_count,
    write_screens,
)

#: Screens written per transaction of a job.
JOB_CHUNK = 10_000

logger = logging.getLogger(__name__)

#: What a job whose process stopped says (``fail_abandoned``); formatted with its counts.
ABANDONED = ("The process adding these screens stopped (the server restarted, or the request ran past its time "
             "limit) after {created:,} of {requested:,}; those stay. Go on to add the rest.")
#: Why a job that is not failed cannot go on (``resume_job`` returned False).
NOT_STOPPED = "Only a job that stopped can go on."
#: First key of the advisory locks that mark a running screen job (the second is the job's id).
LOCK_CLASS = 0x5C4E


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
        _hand_on(job.pk)
    return ScreensRequest(job=job)


def _hand_on(job_id: int) -> None:
    """Have the job run where ``ANALYSIS_EXECUTION`` says, once the caller's transaction commits (module docstring);
    with ``celery``, beat sends it."""
    mode = settings.ANALYSIS_EXECUTION
    if mode == "process":
        transaction.on_commit(lambda: _start_process(job_id))
    elif mode == "inline":
        transaction.on_commit(lambda: run_job(job_id), robust=True)  # its failure is the job's, not the request's


def _start_process(job_id: int) -> None:
    try:
        child_process.start("annotation.run_job", "screens", str(job_id))
    except OSError as exc:
        logger.exception("screen job %s could not start", job_id)
        ScreenJob.objects.filter(pk=job_id).update(
            status=ScreenJob.Status.FAILED, error=f"Could not start: {exc}"[:500], finished_at=timezone.now()
        )


def run_job(job_id: int) -> ScreenJob:
    """Write the job's screens that are not written yet, chunk by chunk, holding the job's advisory lock (module
    docstring); a failure is recorded on the job (status failed, with the reason) and raised. Running a done job
    again does nothing; a failed one goes on (a retry)."""
    with _job_lock(job_id, wait=True):
        return _write_job(job_id)


def _write_job(job_id: int) -> ScreenJob:
    job = ScreenJob.objects.select_related("campaign").get(pk=job_id)
    if job.status == ScreenJob.Status.DONE:
        return job
    ScreenJob.objects.filter(pk=job.pk).update(status=ScreenJob.Status.RUNNING, error="", finished_at=None)
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


@contextmanager
def _job_lock(job_id: int, wait: bool) -> Iterator[bool]:
    """Hold the session-level advisory lock of screen job ``job_id`` on this connection (PostgreSQL; elsewhere
    nothing is locked and this yields True). With ``wait`` it waits for the lock; else it yields whether it got it."""
    if connection.vendor != "postgresql":
        yield True
        return
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT pg_{'' if wait else 'try_'}advisory_lock(%s, %s)", [LOCK_CLASS, job_id])
        held = True if wait else cursor.fetchone()[0]
    try:
        yield held
    finally:
        if held:
            # A lost connection has released the lock already; its error must not hide the one that ended the run.
            with suppress(DatabaseError), connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_CLASS, job_id])


def fail_abandoned(campaign: Campaign) -> int:
    """Fail the campaign's running jobs that no process works on any more (their advisory lock is free), with
    ``ABANDONED``; how many. Only where no Celery worker runs jobs (``ANALYSIS_EXECUTION`` not ``celery``) and on
    PostgreSQL."""
    if settings.ANALYSIS_EXECUTION == "celery" or connection.vendor != "postgresql":
        return 0
    failed = 0
    running = campaign.screen_jobs.filter(status=ScreenJob.Status.RUNNING)
    for job_id, created, requested in running.values_list("pk", "created", "requested"):
        with _job_lock(job_id, wait=False) as free:
            if free and ScreenJob.objects.filter(pk=job_id, status=ScreenJob.Status.RUNNING).update(
                status=ScreenJob.Status.FAILED, finished_at=timezone.now(),
                error=ABANDONED.format(created=created, requested=requested),
            ):
                logger.warning("screen job %s failed: its process stopped", job_id)
                failed += 1
    return failed


def resume_job(job: ScreenJob) -> bool:
    """Queue a failed job again to write the screens it has not written (the organizer's "Go on"): it runs once the
    caller's transaction commits (no broker) or when beat sends it. Returns whether it did (False: the job had not
    failed, and nothing changed)."""
    if not ScreenJob.objects.filter(pk=job.pk, status=ScreenJob.Status.FAILED).update(
        status=ScreenJob.Status.QUEUED, error="", finished_at=None, sent_at=None
    ):
        return False
    _hand_on(job.pk)
    return True


def active_jobs(campaign: Campaign) -> list[ScreenJob]:
    """The campaign's jobs that are not done, and those finished in the last day, newest first (its page shows
    them; abandoned ones are failed first)."""
    fail_abandoned(campaign)
    return recent_jobs(campaign)


def recent_jobs(campaign: Campaign) -> list[ScreenJob]:
    """``active_jobs`` without failing the abandoned ones first: it only reads, so it can read in a snapshot
    (``kept_tallies.one_snapshot``, read-only) beside the campaign's screens, which a job's progress counts."""
    recent = timezone.now() - timedelta(days=1)
    return list(
        campaign.screen_jobs.exclude(status=ScreenJob.Status.DONE, finished_at__lt=recent)
        .order_by("-requested_at")[:10]
    )


@dataclass(frozen=True)
class ScreensState:
    """The campaign's screen count (``total``) and its ``jobs`` adding screens (``active_jobs``), read in one
    snapshot, so that a job done is never shown beside the count from before its last screens."""

    total: int
    jobs: list[ScreenJob]


def screens_state(campaign: Campaign) -> ScreensState:
    """The campaign's screens and jobs now, the abandoned jobs failed first (``fail_abandoned`` writes, so it runs
    before the snapshot)."""
    fail_abandoned(campaign)
    with one_snapshot():
        return ScreensState(screen_count(campaign), recent_jobs(campaign))
