"""Starting analyses: a request records a queued run and returns at once; where the run is computed depends on
the ``ANALYSIS_EXECUTION`` setting.

- ``celery`` (the default with a broker): the run waits in the database until ``ranking.tasks.send_waiting`` sends
  it to the workers (Celery beat every ``ANALYSIS_DISPATCH_SECONDS``, or ``manage.py requeue_analyses``). The
  request touches neither the broker nor the result backend, so the pages answer at once during a Redis outage.
- ``process`` (the default without a broker: the embedded mode, ``./dev demo``): a new Python process
  (``python -m ranking.compute_run RUN_ID``) computes the run and writes its progress to its row, as the workers
  do. The web process imports no numeric code and lends the analysis neither its CPU time nor its interpreter lock,
  so its pages stay quick while an analysis runs; a run costs the new process's start (~2-3 s of imports).
- ``inline``: the run is computed in the requesting thread once its transaction commits (the test settings).

This module imports no NumPy, SciPy or numba (the numeric core is loaded where a run is computed), nor Celery.
"""
from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction

from annotation.models import Campaign
from gecappraise import child_process

from .core.parameters import AnalysisParameters
from .models import AnalysisRun
from .runs import create_run, execute_in_process, progress_recorder

logger = logging.getLogger(__name__)


def start_analysis(campaign: Campaign, parameters: AnalysisParameters, *, requested_by=None) -> AnalysisRun:
    """Record a queued run of the campaign as it is now and hand it to the configured execution (after commit)."""
    run = create_run(campaign, parameters, requested_by=requested_by)
    mode = settings.ANALYSIS_EXECUTION
    if mode == "process":
        transaction.on_commit(lambda: start_process(run.pk))
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
    waiting = list(
        AnalysisRun.objects.filter(status=AnalysisRun.Status.QUEUED).order_by("id").values_list("pk", flat=True)
    )
    for run_id in waiting:
        compute_here(run_id)
    return len(waiting)


def start_process(run_id: int) -> None:
    """Start ``python -m ranking.compute_run RUN_ID`` as a child process (``gecappraise.child_process``) and leave
    it."""
    child_process.start("ranking.compute_run", str(run_id))
