"""Analysis runs: creating them, computing their parts, and storing their results.

The numeric core (NumPy, SciPy, numba) is imported inside the functions that compute, so that creating and
recording runs (the web's request path) never loads it.

Both ways of running an analysis use these functions: Celery tasks (``ranking.tasks``: the bootstrap chunks of a
run spread over workers, each stored as an ``AnalysisChunk``, and a last step once all are stored) and
``manage.py analyze`` and the embedded mode's process (everything in one process). A run's result is
written once, with status ``done``, in one UPDATE; a run that fails is marked ``failed`` with the error, and a
retried run simply computes again (every part is a pure function of the stored parameters and data snapshot).
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import time
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, NamedTuple

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Value
from django.db.models.functions import Coalesce, Least
from django.utils import timezone

from annotation.models import Campaign, ReferenceSet
from annotation.services.kept_tallies import one_snapshot
from annotation.services.rater_qc import analysis_exclusions

from .contract import analysis_json, metrics_parameters_json, parameters_json, snapshot_json
from .core.parameters import METHODS, AnalysisParameters, chunk_sizes
from .loading import campaign_snapshot, load_rankings, load_scores, systems_judged_in
from .models import AnalysisChunk, AnalysisRun

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
    """A queued run over the campaign's judgments as they are now (the snapshot), without the raters that rater QC
    excludes now (``annotation.services.rater_qc.analysis_exclusions``, stored with the parameters)."""
    exclusions = analysis_exclusions(campaign)
    stored = {
        **parameters_json(parameters, judge), "metrics": dict(metrics) if metrics else None,
        "references": list(campaign.reference_sets.values_list("name", flat=True)),
        "rater_qc": {**exclusions.summary, "earlier_ranges": [list(part) for part in exclusions.earlier],
                     "excluded_ranges": [list(part) for part in exclusions.excluded]},
    }
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


def run_reference_sets(run: AnalysisRun) -> list[ReferenceSet]:
    """The reference sets the run computes metrics from: the campaign's when the run was recorded (``references``,
    by name, of those still there), or all of them now for a run recorded before runs kept them."""
    sets = run.campaign.reference_sets.all()
    names = run.parameters.get("references")
    return list(sets if names is None else sets.filter(name__in=names))


def run_rankings(run: AnalysisRun) -> Rankings:
    """The rankings the run analyses: its campaign's judgments up to the snapshot, of its judge if it has one.

    For a PRWS campaign: the relative judgments derived from the scores of the raters who pass the quality check
    (METHODS 11)."""
    scores = run_scores(run)
    if scores is not None:
        from .core.prws import qualified_rankings

        return qualified_rankings(scores, excluded=qc_excluded(run))
    return load_rankings(run.campaign, up_to=run.snapshot.get("last_judgment_id"), judge=run.parameters.get("judge"),
                         ignored_judges=run_parameters(run).ignored_judges,
                         excluded_ranges=qc_ranges(run, "earlier_ranges") + qc_ranges(run, "excluded_ranges"))


def run_scores(run: AnalysisRun) -> Scores | None:
    """The PRWS scores the run analyses, selected like ``run_rankings``; None for a ranking campaign."""
    if run.campaign.mode != Campaign.Mode.PRWS:
        return None
    return load_scores(run.campaign, up_to=run.snapshot.get("last_judgment_id"), judge=run.parameters.get("judge"),
                       ignored_judges=run_parameters(run).ignored_judges,
                       excluded_ranges=qc_ranges(run, "earlier_ranges"))


def qc_ranges(run: AnalysisRun, kind: str) -> list[tuple[str, int | None, int | None]]:
    """Judgments rater QC leaves out of the run, as ``(username, after, up_to)`` id ranges: ``earlier_ranges``
    (earlier attempts) or ``excluded_ranges`` (the excluded raters' current attempts); none for older runs."""
    return [tuple(part) for part in run.parameters.get("rater_qc", {}).get(kind, [])]


def qc_excluded(run: AnalysisRun) -> list[str] | None:
    """The raters rater QC excluded from the run (the PRWS statistics leave out exactly these); None for a run
    recorded before rater QC (the PRWS Source+error check then decides alone)."""
    if "rater_qc" not in run.parameters:
        return None
    return [rater["rater"] for rater in run.parameters["rater_qc"]["excluded"]]


def left_out_systems(run: AnalysisRun) -> frozenset[str]:
    """The systems shown in the judgments of the raters rater QC excluded from the run (their current attempts, up
    to the snapshot, of the run's judge if it has one): the analysis says a system it has no judgment of was judged
    only by them (``Analysis.left_out_shown``)."""
    return systems_judged_in(run.campaign, qc_ranges(run, "excluded_ranges"),
                             up_to=run.snapshot.get("last_judgment_id"), judge=run.parameters.get("judge"),
                             ignored_judges=run_parameters(run).ignored_judges)


def ignored_systems(run: AnalysisRun) -> frozenset[str]:
    """The systems shown in the judgments of the run's ignored judges (``ignored_judges``; up to the snapshot, of
    the run's judge if it has one): the analysis says a system it has no judgment of was judged only by them
    (``Analysis.ignored_shown``)."""
    ranges = [(judge, None, None) for judge in run_parameters(run).ignored_judges]
    return systems_judged_in(run.campaign, ranges, up_to=run.snapshot.get("last_judgment_id"),
                             judge=run.parameters.get("judge"), ignored_judges=())


def rater_qc_json(run: AnalysisRun) -> dict | None:
    """The analysis JSON's ``rater_qc``: the rule, the excluded raters with their numbers, those included by hand
    and the earlier attempts left out; None for a run recorded before rater QC."""
    stored = run.parameters.get("rater_qc")
    return None if stored is None else {key: value for key, value in stored.items() if not key.endswith("_ranges")}


def mark_running(run_id: int) -> None:
    """Record that a task of the run started: ``attempts`` counts task executions, so a run whose count exceeds
    its number of tasks had a task run again (after a worker died or a transient error). Done runs stay done."""
    AnalysisRun.objects.filter(pk=run_id).exclude(status=AnalysisRun.Status.DONE).update(
        status=AnalysisRun.Status.RUNNING,
        attempts=F("attempts") + 1,
        started_at=Coalesce(F("started_at"), Value(timezone.now())),
        heartbeat_at=timezone.now(),
        error="",
    )


PUT_BACK = "put back in the queue: its worker stopped reporting"
#: ``task_id`` of a run an embedded-mode process took (``claim_for_a_process``).
PROCESS_CLAIM = "process"
#: Key of the advisory lock under which processes take runs.
_CLAIM_LOCK = (0x414E, 0)


def claim_for_a_process(limit: int) -> int | None:
    """Take the oldest waiting run for this process (sent: ``task_id`` "process", a heartbeat now) if fewer than
    ``limit`` runs are claimed; None when none waits or the limit is reached. Decided under one lock (PostgreSQL),
    so processes started at once never compute more than ``limit`` runs together."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", _CLAIM_LOCK)
        if AnalysisRun.objects.claimed().count() >= limit:
            return None
        run_id = AnalysisRun.objects.waiting().values_list("pk", flat=True).first()
        if run_id is not None:
            AnalysisRun.objects.filter(pk=run_id).update(task_id=PROCESS_CLAIM, heartbeat_at=timezone.now())
        return run_id


def put_back_stalled(claim_seconds: float | None = None) -> int:
    """Put the runs whose claim expired back in the queue (status queued, not sent, progress 0); returns how many.

    A run's claim is its heartbeat (``heartbeat_at``: set when it is sent, started, and at each progress report);
    one silent for ``claim_seconds`` (default: the ``ANALYSIS_CLAIM_SECONDS`` setting) lost its worker or process
    (killed, crashed) and would stay "running" for ever. One conditional UPDATE, so concurrent callers put a run back
    once, and a run that finishes meanwhile stays done; should the old worker still be alive, its writes are
    harmless (progress is only written to running runs, the result once, and every part is a pure function of the
    run)."""
    seconds = settings.ANALYSIS_CLAIM_SECONDS if claim_seconds is None else claim_seconds
    expired = AnalysisRun.objects.stalled(before=timezone.now() - timedelta(seconds=seconds))
    return expired.update(status=AnalysisRun.Status.QUEUED, task_id="", progress=0.0, stage=PUT_BACK,
                          heartbeat_at=None)


def set_progress(run_id: int, percent: float, stage: str) -> None:
    AnalysisRun.objects.filter(pk=run_id, status=AnalysisRun.Status.RUNNING).update(
        progress=min(max(percent, 0.0), 100.0), stage=stage[:100], heartbeat_at=timezone.now()
    )


def add_progress(run_id: int, percent: float, stage: str) -> None:
    """Add to a running run's progress (chunks finish in any order, on any worker)."""
    AnalysisRun.objects.filter(pk=run_id, status=AnalysisRun.Status.RUNNING).update(
        progress=Least(F("progress") + percent, 100.0), stage=stage[:100], heartbeat_at=timezone.now()
    )


def progress_recorder(run_id: int) -> Progress:
    """A core ``progress(fraction, stage)`` callback that writes the running run's progress to its row (what the
    analyses page shows)."""
    return lambda fraction, stage: set_progress(run_id, 100.0 * fraction, stage)


class ChunkSamples(NamedTuple):
    """Bootstrap score ``samples`` (size, S) of one chunk of a run, and the ``data`` they were drawn from (the
    ``rankings_digest`` of the run's rankings as loaded then)."""

    samples: np.ndarray
    data: str


def rankings_digest(rankings: Rankings) -> str:
    """A digest of every name and array of ``rankings``: equal for the same rankings, so that the last step of a run
    finds the chunks drawn from other judgments than its own (an undo, or a judgment that committed late, after the
    worker loaded them)."""
    import numpy as np

    digest = hashlib.sha256()
    for field in dataclasses.fields(rankings):
        value = getattr(rankings, field.name)
        if isinstance(value, np.ndarray):
            digest.update(f"{field.name} {value.dtype} {value.shape}".encode())
            digest.update(np.ascontiguousarray(value).tobytes())
        else:
            digest.update(f"{field.name} {value!r}".encode())
    return digest.hexdigest()


def _drawn(run: AnalysisRun, rankings: Rankings, method: str, chunk: int, size: int) -> ChunkSamples:
    from .core.analysis import bootstrap_chunk
    from .core.pairs import expanded_pairs

    samples = bootstrap_chunk(expanded_pairs(rankings), rankings.n_systems, method, run.seed, chunk, size)
    return ChunkSamples(samples, rankings_digest(rankings))


def compute_chunk(run_id: int, method: str, chunk: int, size: int) -> ChunkSamples:
    """Bootstrap score samples of one chunk of a run, from its rankings read in one snapshot."""
    run = AnalysisRun.objects.select_related("campaign").get(pk=run_id)
    with one_snapshot():
        rankings = run_rankings(run)
    return _drawn(run, rankings, method, chunk, size)


def chunk_plan(run: AnalysisRun) -> list[tuple[str, int, int]]:
    """Every bootstrap chunk of the run as ``(method, chunk, size)``, in the order the samples are combined."""
    parameters = run_parameters(run)
    sizes = chunk_sizes(parameters.bootstrap, parameters.chunk_size)
    return [(method, chunk, size) for method in METHODS for chunk, size in enumerate(sizes)]


def missing_chunks(run: AnalysisRun) -> list[tuple[str, int, int]]:
    """The chunks of ``chunk_plan`` not stored yet (all of them for a new run; those a put-back run still lacks)."""
    stored = set(AnalysisChunk.objects.filter(run=run).values_list("method", "chunk"))
    return [part for part in chunk_plan(run) if part[:2] not in stored]


class StoredChunk(NamedTuple):
    """What ``store_chunk`` did: whether this call stored the chunk, and how many of the run's chunks are stored."""

    stored_now: bool
    stored: int
    total: int

    @property
    def complete(self) -> bool:
        return self.stored == self.total


def store_chunk(run_id: int, method: str, chunk: int, computed: ChunkSamples) -> StoredChunk:
    """Store a chunk's samples once (a task run again finds them stored) and count the run's stored chunks.

    Under a lock on the run's row, so that of the chunks finishing at once exactly one sees the set complete when it
    stores the last one; a task run again after its process was killed past that point sees it complete too, and
    sends the last step again (which is harmless: the result is written once). Nothing is stored for a done run."""
    import numpy as np

    with transaction.atomic():
        run = AnalysisRun.objects.select_for_update().get(pk=run_id)
        total = len(chunk_plan(run))
        if run.status == AnalysisRun.Status.DONE:
            return StoredChunk(False, 0, total)
        buffer = io.BytesIO()
        np.save(buffer, np.ascontiguousarray(computed.samples, dtype=np.float64), allow_pickle=False)
        _, stored_now = AnalysisChunk.objects.get_or_create(
            run=run, method=method, chunk=chunk, defaults={"samples": buffer.getvalue(), "data": computed.data}
        )
        return StoredChunk(stored_now, AnalysisChunk.objects.filter(run=run).count(), total)


def stored_chunks(run: AnalysisRun) -> dict[tuple[str, int], ChunkSamples]:
    """Every stored chunk of the run by ``(method, chunk)``; ``ValueError`` if one is missing."""
    import numpy as np

    missing = missing_chunks(run)
    if missing:
        raise ValueError(f"bootstrap chunks not stored: {', '.join(f'{m} {c}' for m, c, _ in missing)}")
    rows = AnalysisChunk.objects.filter(run=run).values_list("method", "chunk", "samples", "data")
    return {(method, chunk): ChunkSamples(np.load(io.BytesIO(bytes(samples)), allow_pickle=False), data)
            for method, chunk, samples, data in rows}


def combined_samples(
    run: AnalysisRun, chunks: Mapping[tuple[str, int], ChunkSamples], rankings: Rankings
) -> dict[str, np.ndarray]:
    """The run's bootstrap samples ``{method: (B, S)}``: its ``chunks`` (``stored_chunks``) combined in order, those
    drawn from other rankings than ``rankings`` (the last step's) drawn again here from them, so that every part of
    the analysis is of the same judgments."""
    import numpy as np

    data = rankings_digest(rankings)
    parts: dict[str, list[np.ndarray]] = {method: [] for method in METHODS}
    for method, chunk, size in chunk_plan(run):
        stored = chunks[(method, chunk)]
        if stored.data != data:
            stored = _drawn(run, rankings, method, chunk, size)
        parts[method].append(stored.samples)
    return {method: np.concatenate(arrays) for method, arrays in parts.items()}


BOOTSTRAP_FRACTION = 0.8
"""The bootstrap's share of an analysis's progress, as ``core.analysis`` reports it and ``tasks.BOOTSTRAP_SHARE``
(in percent) counts its chunks."""
METRICS_SHARE = 0.15
"""Share of the progress bar the automatic metrics take (campaigns with references): the analysis after its
bootstrap is squeezed from [BOOTSTRAP_FRACTION, 1] into [BOOTSTRAP_FRACTION, 1 - METRICS_SHARE]."""


def analysis_progress(progress: Progress | None, with_metrics: bool) -> Progress | None:
    """The analysis's progress as the run reports it: unchanged without metrics; with them, fractions above
    ``BOOTSTRAP_FRACTION`` (the bootstrap, whose chunks report alone on the workers) squeezed below
    ``1 - METRICS_SHARE``, and its "done" left to the metrics."""
    if progress is None or not with_metrics:
        return progress

    def report(fraction: float, stage: str) -> None:
        if fraction <= BOOTSTRAP_FRACTION:
            progress(fraction, stage)
        elif fraction < 1.0:
            rest = (fraction - BOOTSTRAP_FRACTION) / (1.0 - BOOTSTRAP_FRACTION)
            progress(BOOTSTRAP_FRACTION + rest * (1.0 - METRICS_SHARE - BOOTSTRAP_FRACTION), stage)

    return report


def metrics_progress(progress: Progress | None) -> Progress | None:
    """The metrics' progress (fraction of metric-system pairs scored) in the last ``METRICS_SHARE`` of the bar."""
    if progress is None:
        return None
    return lambda fraction, stage: progress(1.0 - METRICS_SHARE + METRICS_SHARE * fraction, stage)


def finish(
    run_id: int, chunks: Mapping[tuple[str, int], ChunkSamples] | None = None, progress: Progress | None = None
) -> AnalysisRun:
    """Compute the rest of the analysis from the stored ``chunks`` (or everything, without them) and store it; the
    chunks go in the same transaction, so a run is never done with chunks left (a task killed in between is run
    again, and finds the run done).

    The judgments are read in one snapshot of the database, with the run's ``snapshot`` counted again in it (up to
    the last judgment id it had when the run was recorded): a judgment that committed late below that id since, or
    one undone since, is in both or in neither, and a chunk drawn from other judgments is drawn again
    (``combined_samples``)."""
    from .core.analysis import analyze
    from .core.prws import qualified_rankings
    from .metric_evaluation import computed_metrics_json

    run = AnalysisRun.objects.select_related("campaign").get(pk=run_id)
    if run.status == AnalysisRun.Status.DONE:
        return run
    started = time.perf_counter()
    with one_snapshot():
        snapshot = snapshot_json(campaign_snapshot(run.campaign, run_parameters(run).ignored_judges,
                                                   up_to=run.snapshot.get("last_judgment_id")))
        scores = run_scores(run)
        rankings = run_rankings(run) if scores is None else qualified_rankings(scores, excluded=qc_excluded(run))
        left_out, ignored = left_out_systems(run), ignored_systems(run)
    run.snapshot = snapshot
    loaded = time.perf_counter()
    samples = None if chunks is None else combined_samples(run, chunks, rankings)
    reference_sets = run_reference_sets(run)
    with_metrics = bool(reference_sets)
    analysis = analyze(rankings, run_parameters(run), samples=samples, metrics=run.parameters.get("metrics"),
                       progress=analysis_progress(progress, with_metrics), prws=scores, prws_excluded=qc_excluded(run),
                       prws_threshold=run.parameters.get("rater_qc", {}).get("rule", {}).get("control_threshold"),
                       left_out_shown=left_out, ignored_shown=ignored)
    result = analysis_json(analysis, campaign=run.campaign.name, snapshot=run.snapshot,
                           judge=run.parameters.get("judge"))
    qc = rater_qc_json(run)
    if qc is not None:
        result["rater_qc"] = qc
    computed = computed_metrics_json(run.campaign, reference_sets, analysis, rankings, scores,
                                     metrics_progress(progress))
    if computed is not None:
        result["metrics_computed"] = computed
    result["parameters"]["metrics"] = metrics_parameters_json(
        run.parameters.get("metrics") or (), computed["scores"] if computed else (),
        [reference_set.name for reference_set in reference_sets])
    done = {
        "status": AnalysisRun.Status.DONE,
        "snapshot": run.snapshot,
        "progress": 100.0,
        "stage": "done",
        "result": result,
        "timings": {**run.timings, "load_seconds": loaded - started, "analysis_seconds": time.perf_counter() - loaded},
        "finished_at": timezone.now(),
        "error": "",
    }
    with transaction.atomic():
        AnalysisRun.objects.filter(pk=run_id).exclude(status=AnalysisRun.Status.DONE).update(**done)
        AnalysisChunk.objects.filter(run_id=run_id).delete()
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
