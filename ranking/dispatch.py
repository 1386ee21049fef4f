"""Starting analyses: a request records a queued run and returns at once; where the run is computed depends on
the ``ANALYSIS_EXECUTION`` setting.

- ``celery`` (the default with a broker): the run waits in the database until ``ranking.tasks.send_waiting`` sends
  it to the workers (Celery beat every ``ANALYSIS_DISPATCH_SECONDS``, or ``manage.py requeue_analyses``). The
  request touches neither the broker nor the result backend, so the pages answer at once during a Redis outage.
- ``thread`` (the default without a broker: the embedded mode, ``./dev demo``): one background thread of this
  process computes the runs one after another, writing their progress to their rows as the workers do. A run that
  was still queued or running when the process stopped stays so; ``requeue_analyses`` computes queued ones.
- ``inline``: the run is computed in the requesting thread once its transaction commits (the test settings).

This module imports no NumPy, SciPy or numba: the numeric core is loaded where a run is computed.
"""
from __future__ import annotations

import logging
import queue
import threading

from django.conf import settings
from django.db import connections, transaction

from annotation.models import Campaign

from .core.parameters import AnalysisParameters
from .models import AnalysisRun
from .runs import create_run, progress_recorder

EXECUTION_MODES = ("celery", "thread", "inline")

logger = logging.getLogger(__name__)


def start_analysis(campaign: Campaign, parameters: AnalysisParameters, *, requested_by=None) -> AnalysisRun:
    """Record a queued run of the campaign as it is now and hand it to the configured execution (after commit)."""
    run = create_run(campaign, parameters, requested_by=requested_by)
    mode = settings.ANALYSIS_EXECUTION
    if mode == "thread":
        transaction.on_commit(lambda: _background.submit(run.pk))
    elif mode == "inline":
        transaction.on_commit(lambda: compute_here(run.pk))
    return run


def compute_here(run_id: int) -> None:
    """Compute the run in this thread, its progress written to its row. A failure is recorded on the run and
    logged, not raised (the caller is a request or a background thread)."""
    from .runs import execute_in_process

    try:
        execute_in_process(AnalysisRun.objects.get(pk=run_id), progress=progress_recorder(run_id))
    except Exception:
        logger.exception("analysis %s failed", run_id)


def requeue() -> int:
    """Hand on the runs that are queued and not yet sent: to the workers (``celery``), or computed here, one after
    another, in the other modes. Returns how many were sent or computed."""
    if settings.ANALYSIS_EXECUTION == "celery":
        from .tasks import send_waiting

        return send_waiting()
    waiting = list(
        AnalysisRun.objects.filter(status=AnalysisRun.Status.QUEUED).order_by("id").values_list("pk", flat=True)
    )
    for run_id in waiting:
        compute_here(run_id)
    return len(waiting)


class BackgroundRunner:
    """One daemon thread that computes the submitted runs in order; started on the first submit. Runs go one at a
    time: an analysis already uses every core (numba's threads), and numba's parallel kernels must not be entered
    from two threads at once."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(self, run_id: int) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="analyses", daemon=True)
                self._thread.start()
        self._queue.put(run_id)

    def _work(self) -> None:
        while True:
            run_id = self._queue.get()
            try:
                compute_here(run_id)
            finally:
                connections.close_all()


_background = BackgroundRunner()
