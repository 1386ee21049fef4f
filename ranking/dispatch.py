"""Starting analyses: a request records a queued run and returns at once; where the run is computed depends on
the ``ANALYSIS_EXECUTION`` setting.

- ``celery`` (the default with a broker): the run waits in the database until ``ranking.tasks.send_waiting`` sends
  it to the workers (Celery beat every ``ANALYSIS_DISPATCH_SECONDS``, or ``manage.py requeue_analyses``). The
  request touches neither the broker nor the result backend, so the pages answer at once during a Redis outage.
- ``process`` (the default without a broker: the embedded mode, ``./dev demo``): a new Python process
  (``python -m ranking.compute_run``) computes the waiting runs one after another and writes their progress to
  their rows, as the workers do; at most ``ANALYSIS_PROCESSES`` runs (default 1) are computed at once, so that
  analyses started in a row wait their turn instead of sharing the cores (eight at once took a 2-core server).
  The web process imports no numeric code and lends the analysis neither its CPU time nor its interpreter lock,
  so its pages stay quick while an analysis runs; a process costs its start (~2-3 s of imports).
- ``inline``: the run is computed in the requesting thread once its transaction commits (the test settings).

This module imports no NumPy, SciPy or numba (the numeric core is loaded where a run is computed), nor Celery.
"""
from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection, transaction

from annotation.models import Campaign
from gecappraise import child_process

from .core.parameters import AnalysisParameters
from .models import AnalysisRun
from .runs import claim_for_a_process, create_run, execute_in_process, progress_recorder, put_back_stalled

logger = logging.getLogger(__name__)


#: Key of the advisory locks under which analyses of a campaign are started (the second is the campaign's id).
_START_LOCK = 0x4153


class TooManyAnalyses(Exception):
    """The campaign has ``ANALYSES_PER_CAMPAIGN`` analyses queued or running: none was started; the message says
    so."""


def start_analysis(campaign: Campaign, parameters: AnalysisParameters, *, requested_by=None) -> AnalysisRun:
    """Record a queued run of the campaign as it is now and hand it to the configured execution (after commit).

    Raises ``TooManyAnalyses``, recording nothing, while the campaign has ``ANALYSES_PER_CAMPAIGN`` runs queued or
    running (0: no limit): a script or a page starting analyses in a loop would otherwise hold every worker (the
    embedded mode's process) with one campaign's runs, each up to ``MAX_BOOTSTRAP`` samples, and the other
    campaigns' analyses behind them. The count and the new run are one step under a lock of the campaign's
    (PostgreSQL; SQLite serializes writes anyway), so requests at once cannot pass the limit together."""
    limit = settings.ANALYSES_PER_CAMPAIGN
    with transaction.atomic():
        if limit and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_START_LOCK, campaign.pk])
        unfinished = AnalysisRun.objects.filter(campaign=campaign).unfinished().count()
        if limit and unfinished >= limit:
            raise TooManyAnalyses(
                f"This campaign has {unfinished} analyses queued or running, the most it may have at once "
                f"(ANALYSES_PER_CAMPAIGN); start another once one of them is done or failed. Nothing was started.")
        run = create_run(campaign, parameters, requested_by=requested_by)
        mode = settings.ANALYSIS_EXECUTION
        if mode == "process":
            transaction.on_commit(start_process)
        elif mode == "inline":
            transaction.on_commit(lambda: compute_here(run.pk))
    return run


def compute_here(run_id: int) -> None:
    """Compute the run in this thread, its progress written to its row. A failure is recorded on the run and
    logged, not raised (the caller is a request, a command or the embedded mode's process)."""
    try:
        execute_in_process(AnalysisRun.objects.get(pk=run_id), progress=progress_recorder(run_id))
    except Exception:
        logger.exception("analysis %s failed", run_id)


def requeue() -> int:
    """Hand on the runs that are queued and not yet sent: to the workers (``celery``), or computed here, one after
    another, in the other modes. Returns how many were sent or computed."""
    if settings.ANALYSIS_EXECUTION == "celery":
        from .tasks import send_waiting  # Celery is imported by the callers that send, not with the URLs

        return send_waiting()
    waiting = list(AnalysisRun.objects.waiting().values_list("pk", flat=True))
    for run_id in waiting:
        compute_here(run_id)
    return len(waiting)


def start_process() -> None:
    """Start ``python -m ranking.compute_run`` as a child process (``gecappraise.child_process``) and leave it,
    unless ``ANALYSIS_PROCESSES`` runs are computed already (the process computing them takes the new one next).
    First puts back the runs of a process that died (``put_back_stalled``), so that they are computed again."""
    put_back_stalled()
    if AnalysisRun.objects.claimed().count() < settings.ANALYSIS_PROCESSES:
        child_process.start("ranking.compute_run")


def compute_waiting() -> int:
    """Compute waiting runs here, one after another, while fewer than ``ANALYSIS_PROCESSES`` are claimed
    (``claim_for_a_process``); returns how many. What ``python -m ranking.compute_run`` does."""
    computed = 0
    while (run_id := claim_for_a_process(settings.ANALYSIS_PROCESSES)) is not None:
        compute_here(run_id)
        computed += 1
    return computed
