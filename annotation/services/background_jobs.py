"""Work too large for a web request, recorded as a BackgroundJob and done by a background task: large imports,
and attention checks on many screens.

An upload of at most ``settings.IMPORT_IN_REQUEST_BYTES`` in all (``IMPORT_IN_REQUEST_MB``, default 8) is imported
in the request. A larger one (a test set of hundreds of thousands of lines, an Appraise XML or PRWS scores file of
many judgments) would hold a web worker for minutes, past gunicorn's timeout: the request stores the files in the
database (``JobFile``; a worker on another machine needs only the database) and answers at once with the job's page
(``/jobs/<id>/``, or 202 and ``/api/jobs/{id}/`` in the API), which follows it to the end. Attention checks on
more than ``attention_requests.MAX_CHECKS_PER_REQUEST`` screens go the same way (no files; the share in
``options``).

Jobs go where screen jobs and analyses go (``settings.ANALYSIS_EXECUTION``): with ``celery`` they wait until
``annotation.tasks.send_waiting`` (Celery beat) hands them to the workers, so a request never talks to the task
queue; in the embedded mode (``process``) a new process (``python -m annotation.run_job background JOB``) does the
job once the request's transaction commits, so the request answers at once; with ``inline`` (the tests) the
requesting thread does it then.

``run_background_job`` does the work all or nothing, as the request would have, and records the outcome in the same
transaction, under a lock of the job's row: a job whose worker died is rolled back and runs again whole when its
task is delivered again, and a job already done never runs twice. A refusal (a bad file, no open screen) fails
the job with the message the form would have shown (naming the file and line or item); nothing is written then.
A finished job's files are deleted.

A job whose process stopped (a restart, a killed process in the embedded mode) is not
left "running": its transaction rolled back, so nothing holds its row's lock any more, and ``fail_abandoned``, run
when jobs are shown, fails it with ``ABANDONED`` (PostgreSQL; with Celery the worker's ``acks_late`` redelivery
runs it again instead).
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from gecappraise import child_process

from ..models import BackgroundJob, Campaign, JobFile
from .appraise_import import AppraiseImportSummary, import_appraise_xml
from .appraise_xml import AppraiseXMLError
from .attention import AttentionCheckError
from .attention_requests import add_checks_in_turn
from .importing import import_test_set
from .score_import import ScoreImportSummary, import_scores
from .textfiles import InputFileError, NamedFile

logger = logging.getLogger(__name__)

#: What a failed job says when its work raised something other than a refusal.
UNEXPECTED = "The job stopped on an unexpected error and wrote nothing; the server's log has the details."


#: What an abandoned job says (``fail_abandoned``).
ABANDONED = ("The process running this job stopped before it finished (the server restarted, or the request ran past "
             "its time limit); nothing was written. Start it again.")
#: How long after its start a running job may be without its row lock (the start is recorded just before the lock
#: is taken).
ABANDONED_AFTER = timedelta(minutes=1)


class JobRefused(ValueError):
    """The job cannot be recorded (the message says why); nothing was stored."""


def in_request(size: int) -> bool:
    """Whether an upload of ``size`` bytes in all is imported within the request (else by a background job)."""
    return size <= settings.IMPORT_IN_REQUEST_BYTES


def record_job(
    kind: str,
    files: Sequence[tuple[str, NamedFile]],
    options: dict,
    requested_by=None,
    campaign: Campaign | None = None,
) -> BackgroundJob:
    """Store a queued job of ``kind`` with its ``options`` and the uploaded ``files`` (each with the form field it came
    in; none for attention checks); it runs once the caller's transaction commits (no broker) or when beat sends it.
    A test set whose campaign name a waiting job has taken already is refused (JobRefused), as a campaign of that
    name would be."""
    with transaction.atomic():
        if kind == BackgroundJob.Kind.TEST_SET:
            pending = BackgroundJob.objects.filter(
                kind=kind, status__in=[BackgroundJob.Status.QUEUED, BackgroundJob.Status.RUNNING]
            )
            if pending.filter(options__name=options["name"]).exists():
                raise JobRefused(f"a campaign named {options['name']!r} is being imported already")
        job = BackgroundJob.objects.create(
            kind=kind, campaign=campaign, options=options, requested_by=requested_by,
            size=sum(len(named.data) for _, named in files),
        )
        JobFile.objects.bulk_create(
            JobFile(job=job, field=field_name, position=position, name=named.name, data=named.data)
            for position, (field_name, named) in enumerate(files)
        )
        if settings.ANALYSIS_EXECUTION == "process":
            transaction.on_commit(lambda: _start_process(job.pk))
        elif settings.ANALYSIS_EXECUTION == "inline":
            transaction.on_commit(lambda: run_background_job(job.pk))
    return job


def _start_process(job_id: int) -> None:
    try:
        child_process.start("annotation.run_job", "background", str(job_id))
    except OSError as exc:
        logger.exception("background job %s could not start", job_id)
        _failed(job_id, f"Could not start: {exc}")


def run_background_job(job_id: int) -> BackgroundJob:
    """Do the job's work all or nothing and record the outcome with it (module docstring). Returns the job; a
    refusal or an unexpected error fails it (the latter logged) and writes nothing."""
    BackgroundJob.objects.filter(pk=job_id, status=BackgroundJob.Status.QUEUED).update(
        status=BackgroundJob.Status.RUNNING, started_at=timezone.now()
    )
    try:
        with transaction.atomic():
            job = BackgroundJob.objects.select_for_update(of=("self",)).select_related("campaign", "requested_by").get(
                pk=job_id
            )
            if job.finished:
                return job
            files = [(f.field, NamedFile(f.name, bytes(f.data))) for f in job.files.all()]
            job.result, job.campaign = _work(job, files)
            job.status, job.finished_at = BackgroundJob.Status.DONE, timezone.now()
            job.save(update_fields=["result", "campaign", "status", "finished_at"])
            job.files.all().delete()
            return job
    except (InputFileError, AppraiseXMLError, AttentionCheckError) as exc:
        return _failed(job_id, _message(job_id, exc))
    except Exception:
        logger.exception("background job %s failed", job_id)
        return _failed(job_id, UNEXPECTED)


def _work(job: BackgroundJob, files: list[tuple[str, NamedFile]]) -> tuple[dict, Campaign]:
    """Do the job's work; what it made, and the campaign it went into (for a test set, the new one)."""
    if job.kind == BackgroundJob.Kind.TEST_SET:
        campaign = import_test_set(files=files, owner=job.requested_by, **job.options)
        if job.requested_by is not None:
            campaign.organizers.add(job.requested_by)
        return {"campaign": campaign.pk, "name": campaign.name, "systems": campaign.systems.count(),
                "segments": campaign.segments.count()}, campaign
    if job.kind == BackgroundJob.Kind.ATTENTION_CHECKS:
        done = add_checks_in_turn(job.campaign, float(job.options["share"]))
        return {"added": done.added, "open": done.open}, job.campaign
    (_, named), = files
    if job.kind == BackgroundJob.Kind.SCORES:  # options: ScoresUploadForm.import_options()
        summary = import_scores(job.campaign, named.data, name=named.name, by=job.requested_by, **job.options)
        return summary.as_result(), job.campaign
    summary = import_appraise_xml(job.campaign, named.data, job.options.get("map_users") or {}, job.requested_by)
    return summary.as_result(), job.campaign


def imported_summary(job: BackgroundJob) -> str | None:
    """What a finished import of judgments (Appraise XML, PRWS scores) added, in the organizer's words (the
    summary's ``text``, as the request that imports the file itself says it); None for another job, or one not
    done."""
    if job.status != BackgroundJob.Status.DONE or not job.result:
        return None
    if job.kind == BackgroundJob.Kind.APPRAISE_XML:
        return AppraiseImportSummary.from_result(job.result).text()
    if job.kind == BackgroundJob.Kind.SCORES:
        return ScoreImportSummary.from_result(job.result).text()
    return None


def _message(job_id: int, exc: Exception) -> str:
    """The refusal as the form says it (names of files first, as they are): an Appraise XML error gets its file's."""
    text = str(exc)
    if isinstance(exc, AppraiseXMLError):
        name = JobFile.objects.filter(job_id=job_id).values_list("name", flat=True).first()
        text = f"{name}: {text}" if name else text
    return text[:2000]


def _failed(job_id: int, message: str) -> BackgroundJob:
    with transaction.atomic():
        BackgroundJob.objects.filter(pk=job_id).update(
            status=BackgroundJob.Status.FAILED, error=message, finished_at=timezone.now()
        )
        JobFile.objects.filter(job_id=job_id).delete()
    return BackgroundJob.objects.get(pk=job_id)


def fail_abandoned(now=None) -> int:
    """Fail the running jobs that no process works on any more, with ``ABANDONED``; how many.

    ``run_background_job`` holds its job's row lock from just after recording the start to the end, so a job
    running for more than ``ABANDONED_AFTER`` whose row can be locked (``SKIP LOCKED`` passes over the others) lost
    its process, and its transaction rolled back. Only where no Celery worker runs jobs (the workers redeliver a
    lost job) and on databases with row locks (PostgreSQL)."""
    if settings.ANALYSIS_EXECUTION == "celery" or not connection.features.has_select_for_update_skip_locked:
        return 0
    now = now or timezone.now()
    with transaction.atomic():
        running = BackgroundJob.objects.filter(
            status=BackgroundJob.Status.RUNNING, started_at__lt=now - ABANDONED_AFTER
        )
        abandoned = list(running.select_for_update(skip_locked=True).values_list("pk", flat=True))
        if abandoned:
            BackgroundJob.objects.filter(pk__in=abandoned).update(
                status=BackgroundJob.Status.FAILED, error=ABANDONED, finished_at=now
            )
            JobFile.objects.filter(job_id__in=abandoned).delete()
            logger.warning("background jobs %s failed: their process stopped", abandoned)
    return len(abandoned)


def recent_jobs(user, days: int = 7) -> list[BackgroundJob]:
    """The user's jobs not finished, or finished in the last ``days`` days, newest first (``fail_abandoned``
    first)."""
    fail_abandoned()
    recent = timezone.now() - timedelta(days=days)
    jobs = BackgroundJob.objects.filter(requested_by=user).exclude(finished_at__lt=recent)
    return list(jobs.select_related("campaign")[:20])
