"""Imports too large for a web request: recorded as an ImportJob and imported by a background task.

An upload of at most ``settings.IMPORT_IN_REQUEST_BYTES`` in all (``IMPORT_IN_REQUEST_MB``, default 8) is imported
in the request, as before. A larger one (a test set of hundreds of thousands of lines, an Appraise XML file of
many rankings) would hold a web worker for minutes, past gunicorn's timeout: the request stores the files in the
database (``ImportFile``; a worker on another machine needs only the database) and answers at once with the job's
page (``/imports/<id>/``, or 202 and ``/api/imports/{id}/`` in the API), which follows it to the end.

Jobs go where screen jobs and analyses go (``settings.ANALYSIS_EXECUTION``): with ``celery`` they wait until
``annotation.tasks.send_waiting`` (Celery beat) hands them to the workers, so a request never talks to the task
queue; otherwise (the embedded mode, the tests) a job runs in the requesting process once its transaction commits.

``run_import_job`` imports all or nothing, as the request would have, and records the outcome in the same
transaction, under a lock of the job's row: a job whose worker died is rolled back and runs again whole when its
task is delivered again, and a job already done is never imported twice. A refused file fails the job with the
same message the form would have shown (naming the file and line or item); nothing is written then. A finished
job's files are deleted.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ..models import Campaign, ImportFile, ImportJob
from .appraise_import import import_appraise_xml
from .appraise_xml import AppraiseXMLError
from .importing import import_test_set
from .textfiles import InputFileError, NamedFile

logger = logging.getLogger(__name__)

#: What a failed job says when the import raised something other than a refusal of its files.
UNEXPECTED = "The import stopped on an unexpected error and wrote nothing; the server's log has the details."


def in_request(size: int) -> bool:
    """Whether an upload of ``size`` bytes in all is imported within the request (else by a background job)."""
    return size <= settings.IMPORT_IN_REQUEST_BYTES


def record_job(
    kind: str,
    files: Sequence[tuple[str, NamedFile]],
    options: dict,
    requested_by=None,
    campaign: Campaign | None = None,
) -> ImportJob:
    """Store an import of ``files`` (each with the form field it came in) as a queued job; it runs once the caller's
    transaction commits (no broker) or when beat sends it. A test set whose campaign name a waiting job has taken
    already is refused (ValueError), as a campaign of that name would be."""
    with transaction.atomic():
        if kind == ImportJob.Kind.TEST_SET:
            pending = ImportJob.objects.filter(kind=kind, status__in=[ImportJob.Status.QUEUED, ImportJob.Status.RUNNING])
            if pending.filter(options__name=options["name"]).exists():
                raise ValueError(f"a campaign named {options['name']!r} is being imported already")
        job = ImportJob.objects.create(
            kind=kind, campaign=campaign, options=options, requested_by=requested_by,
            size=sum(len(named.data) for _, named in files),
        )
        ImportFile.objects.bulk_create(
            ImportFile(job=job, field=field_name, position=position, name=named.name, data=named.data)
            for position, (field_name, named) in enumerate(files)
        )
        if settings.ANALYSIS_EXECUTION != "celery":
            transaction.on_commit(lambda: run_import_job(job.pk))
    return job


def run_import_job(job_id: int) -> ImportJob:
    """Import the job's files all or nothing and record the outcome with them (module docstring). Returns the job;
    a refused file or an unexpected error fails it (the latter logged) and writes nothing."""
    ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING, started_at=timezone.now()
    )
    try:
        with transaction.atomic():
            job = ImportJob.objects.select_for_update(of=("self",)).select_related("campaign", "requested_by").get(
                pk=job_id
            )
            if job.finished:
                return job
            files = [(f.field, NamedFile(f.name, bytes(f.data))) for f in job.files.all()]
            job.result, job.campaign = _import(job, files)
            job.status, job.finished_at = ImportJob.Status.DONE, timezone.now()
            job.save(update_fields=["result", "campaign", "status", "finished_at"])
            job.files.all().delete()
            return job
    except (InputFileError, AppraiseXMLError) as exc:
        return _failed(job_id, _message(job_id, exc))
    except Exception:
        logger.exception("import job %s failed", job_id)
        return _failed(job_id, UNEXPECTED)


def _import(job: ImportJob, files: list[tuple[str, NamedFile]]) -> tuple[dict, Campaign]:
    """Run the job's import; what it made, and the campaign it went into (for a test set, the new one)."""
    if job.kind == ImportJob.Kind.TEST_SET:
        campaign = import_test_set(files=files, owner=job.requested_by, **job.options)
        if job.requested_by is not None:
            campaign.organizers.add(job.requested_by)
        return {"campaign": campaign.pk, "name": campaign.name, "systems": campaign.systems.count(),
                "segments": campaign.segments.count()}, campaign
    (_, named), = files
    summary = import_appraise_xml(job.campaign, named.data, job.options.get("map_users") or {}, job.requested_by)
    return {"rankings": summary.rankings, "skipped": summary.skipped, "judges": summary.judges,
            "already_imported": summary.already}, job.campaign


def _message(job_id: int, exc: Exception) -> str:
    """The refusal as the form says it (names of files first, as they are): an Appraise XML error gets its file's."""
    text = str(exc)
    if isinstance(exc, AppraiseXMLError):
        name = ImportFile.objects.filter(job_id=job_id).values_list("name", flat=True).first()
        text = f"{name}: {text}" if name else text
    return text[:2000]


def _failed(job_id: int, message: str) -> ImportJob:
    with transaction.atomic():
        ImportJob.objects.filter(pk=job_id).update(
            status=ImportJob.Status.FAILED, error=message, finished_at=timezone.now()
        )
        ImportFile.objects.filter(job_id=job_id).delete()
    return ImportJob.objects.get(pk=job_id)


def recent_jobs(user, days: int = 7) -> list[ImportJob]:
    """The user's import jobs not finished, or finished in the last ``days`` days, newest first."""
    recent = timezone.now() - timedelta(days=days)
    jobs = ImportJob.objects.filter(requested_by=user).exclude(finished_at__lt=recent)
    return list(jobs.select_related("campaign")[:20])
