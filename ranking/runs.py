"""Analysis runs: creating them, computing their parts, and storing their results.

The numeric core (NumPy, SciPy, numba) is imported inside the functions that compute, so that creating and
recording runs (the web's request path) never loads it.

Both ways of running an analysis use these functions: Celery tasks (``ranking.tasks``: the bootstrap chunks of a
run spread over workers as a chord) and ``manage.py analyze`` (everything in one process). A run's result is
written once, with status ``done``, in one UPDATE; a run that fails is marked ``failed`` with the error, and a
retried run simply computes again (every part is a pure function of the stored parameters and data snapshot).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Mapping

from django.db.models import F, Value
from django.db.models.functions import Coalesce, Least
from django.utils import timezone

from annotation.models import Campaign

from .contract import analysis_json, parameters_json, snapshot_json
from .core.parameters import AnalysisParameters
from .loading import campaign_snapshot, load_rankings, load_scores
from .models import AnalysisRun

if TYPE_CHECKING:
    import numpy as np

    from .core.analysis import Progress
    from .core.prws import Scores
    from .core.rankings import Rankings


def create_run(
    campaign: Campaign,
    parameters: AnalysisParameters,
    *,
    judge: str | None = None,
    metrics: Mapping | None = None,
    requested_by=None,
) -> AnalysisRun:
    """A queued run over the campaign's judgments as they are now (the snapshot)."""
    stored = {**parameters_json(parameters, judge), "metrics": dict(metrics) if metrics else None}
    return AnalysisRun.objects.create(
        campaign=campaign,
        parameters=stored,
        seed=parameters.seed,
        snapshot=snapshot_json(campaign_snapshot(campaign, parameters.ignored_judges)),
        requested_by=requested_by,
    )


def run_parameters(run: AnalysisRun) -> AnalysisParameters:
    """The core parameters stored with a run."""
    fields = AnalysisParameters.__dataclass_fields__
    return AnalysisParameters(**{k: v for k, v in run.parameters.items() if k in fields})


def run_rankings(run: AnalysisRun) -> Rankings:
    """The rankings the run analyses: its campaign's judgments up to the snapshot, of its judge if it has one.

    For a PRWS campaign: the relative judgments derived from the scores of the raters who pass the quality check
    (METHODS 11)."""
    scores = run_scores(run)
    if scores is not None:
        from .core.prws import qualified_rankings

        return qualified_rankings(scores)
    return load_rankings(run.campaign, up_to=run.snapshot.get("last_judgment_id"), judge=run.parameters.get("judge"),
                         ignored_judges=run_parameters(run).ignored_judges)


def run_scores(run: AnalysisRun) -> Scores | None:
    """The PRWS scores the run analyses, selected like ``run_rankings``; None for a ranking campaign."""
    if run.campaign.mode != Campaign.Mode.PRWS:
        return None
    return load_scores(run.campaign, up_to=run.snapshot.get("last_judgment_id"), judge=run.parameters.get("judge"),
                       ignored_judges=run_parameters(run).ignored_judges)


def mark_running(run_id: int) -> None:
    """Record that a task of the run started: ``attempts`` counts task executions, so a run whose count exceeds
    its number of tasks had a task run again (after a worker died or a transient error). Done runs stay done."""
    AnalysisRun.objects.filter(pk=run_id).exclude(status=AnalysisRun.Status.DONE).update(
        status=AnalysisRun.Status.RUNNING,
        attempts=F("attempts") + 1,
        started_at=Coalesce(F("started_at"), Value(timezone.now())),
        error="",
    )


def set_progress(run_id: int, percent: float, stage: str) -> None:
    AnalysisRun.objects.filter(pk=run_id, status=AnalysisRun.Status.RUNNING).update(
        progress=min(max(percent, 0.0), 100.0), stage=stage[:100]
    )


def add_progress(run_id: int, percent: float, stage: str) -> None:
    """Add to a running run's progress (chunks finish in any order, on any worker)."""
    AnalysisRun.objects.filter(pk=run_id, status=AnalysisRun.Status.RUNNING).update(
        progress=Least(F("progress") + percent, 100.0), stage=stage[:100]
    )


def progress_recorder(run_id: int) -> Progress:
    """A core ``progress(fraction, stage)`` callback that writes the running run's progress to its row (what the
    analyses page shows)."""
    return lambda fraction, stage: set_progress(run_id, 100.0 * fraction, stage)


def compute_chunk(run_id: int, method: str, chunk: int, size: int) -> list[list[float]]:
    """Bootstrap score samples of one chunk of a run, as nested lists (for a task result)."""
    from .core.analysis import bootstrap_chunk
    from .core.pairs import expanded_pairs

    run = AnalysisRun.objects.select_related("campaign").get(pk=run_id)
    rankings = run_rankings(run)
    samples = bootstrap_chunk(expanded_pairs(rankings), rankings.n_systems, method, run.seed, chunk, size)
    return samples.tolist()


def finish(run_id: int, samples: Mapping[str, np.ndarray] | None = None, progress: Progress | None = None) -> AnalysisRun:
    """Compute the rest of the analysis from the chunks' samples (or everything, without them) and store it."""
    from .core.analysis import analyze
    from .core.prws import qualified_rankings
    from .metric_evaluation import computed_metrics_json

    run = AnalysisRun.objects.select_related("campaign").get(pk=run_id)
    if run.status == AnalysisRun.Status.DONE:
        return run
    started = time.perf_counter()
    scores = run_scores(run)
    rankings = run_rankings(run) if scores is None else qualified_rankings(scores)
    loaded = time.perf_counter()
    analysis = analyze(rankings, run_parameters(run), samples=samples, metrics=run.parameters.get("metrics"),
                       progress=progress, prws=scores)
    result = analysis_json(analysis, campaign=run.campaign.name, snapshot=run.snapshot,
                           judge=run.parameters.get("judge"))
    computed = computed_metrics_json(run.campaign, analysis, rankings)
    if computed is not None:
        result["metrics_computed"] = computed
    done = {
        "status": AnalysisRun.Status.DONE,
        "progress": 100.0,
        "stage": "done",
        "result": result,
        "timings": {**run.timings, "load_seconds": loaded - started, "analysis_seconds": time.perf_counter() - loaded},
        "finished_at": timezone.now(),
        "error": "",
    }
    AnalysisRun.objects.filter(pk=run_id).exclude(status=AnalysisRun.Status.DONE).update(**done)
    for field, value in done.items():
        setattr(run, field, value)  # keeps the result's key order, which jsonb does not
    return run


def mark_failed(run_id: int, error: str) -> None:
    """Record a failure (the run keeps no partial result)."""
    AnalysisRun.objects.filter(pk=run_id).exclude(status=AnalysisRun.Status.DONE).update(
        status=AnalysisRun.Status.FAILED, error=error[:10000], finished_at=timezone.now()
    )


def execute_in_process(run: AnalysisRun, progress: Progress | None = None) -> AnalysisRun:
    """Run the whole analysis here and now (``manage.py analyze``); failures mark the run failed and re-raise."""
    mark_running(run.pk)
    try:
        return finish(run.pk, progress=progress)
    except Exception as exc:
        mark_failed(run.pk, f"{type(exc).__name__}: {exc}")
        raise
