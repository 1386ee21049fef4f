"""Automatic metrics of a campaign's systems from its own test set and references: M2, GLEU, chrF++ and, where
ERRANT and a spaCy English model are installed, ERRANT (``errant_metric.py``).

``compute_metrics`` takes ``MetricInputs`` (``metric_loading.py``) and returns, per metric, the system scores
(with precision and recall where the metric has them) and the sentence scores, in the order of the campaign's
lines. M2 needs the campaign's M2 gold edits; GLEU and chrF++ its reference texts (with an M2 file only, its
annotators' corrected sentences are not derived: import the reference texts too).
"""
from __future__ import annotations

import functools
import io
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from .metric_loading import MetricInputs

METRICS = ("m2", "gleu", "chrf", "errant")
"""The metrics computed by default, by their WMT names (lower case); ERRANT only where installed."""


class MetricUnavailable(ValueError):
    """A metric cannot be computed for this campaign; the message says why (missing references, package)."""


@dataclass
class MetricScores:
    """One metric's scores: per system the corpus score, precision and recall (None where undefined) and the
    sentence scores; ``statistics`` per system the sentences' sufficient statistics (N, K), which add up over any
    set of sentences to statistics from which ``from_statistics`` gives the corpus score (for synthetic systems), as
    stored or, where that would be large, stored compactly and given by ``expand_statistics`` of the stored ones."""

    metric: str
    system: dict[str, float] = field(default_factory=dict)
    precision: dict[str, float | None] = field(default_factory=dict)
    recall: dict[str, float | None] = field(default_factory=dict)
    counts: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    segments: dict[str, list[float]] = field(default_factory=dict)
    types: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    statistics: dict[str, np.ndarray] = field(default_factory=dict)
    expand_statistics: Callable[[np.ndarray], np.ndarray] = lambda stored: stored
    from_statistics: Callable[[np.ndarray], float] | None = None


Tick = Callable[[str], None] | None
"""Called with each system's name once a scorer has scored it (progress)."""
Progress = Callable[[float, str], None]
"""``progress(fraction_done, stage)`` as ``core.analysis.Progress``."""


def _systems(inputs: MetricInputs, tick: Tick) -> Iterator[tuple[str, list[str]]]:
    """The systems and their outputs; ``tick(system)`` after each has been scored."""
    for system, lines in inputs.outputs.items():
        yield system, lines
        if tick is not None:
            tick(system)


def _tokens(lines: Sequence[str]) -> list[list[str]]:
    return [line.split() for line in lines]


def _m2_scores(beta: float = 0.5) -> MetricScores:
    def f_beta(counts: np.ndarray) -> float:
        from .core.m2 import precision_recall_f

        return precision_recall_f(*counts, beta)[2]

    return MetricScores("m2", from_statistics=f_beta)


def score_m2(inputs: MetricInputs, beta: float = 0.5, tick: Tick = None) -> MetricScores:
    """M2 F-beta, precision and recall of every system against the campaign's M2 gold (``core/m2.py``)."""
    from .core.m2 import corpus_m2

    if inputs.gold is None:
        raise MetricUnavailable("M2 needs the campaign's gold edits: import an M2 file (import_references --m2)")
    sources = _tokens(inputs.sources)
    result = _m2_scores(beta)
    cache: dict = {}
    for system, lines in _systems(inputs, tick):
        scored = corpus_m2(sources, _tokens(lines), inputs.gold, beta=beta, cache=cache)
        result.system[system] = scored.f_beta
        result.precision[system] = scored.precision
        result.recall[system] = scored.recall
        result.counts[system] = (scored.correct, scored.proposed, scored.gold)
        result.segments[system] = list(scored.sentence_f)
        result.statistics[system] = np.array(
            [(c.correct, c.proposed, c.gold) for c in scored.sentence_counts], dtype=np.float64
        ).reshape(-1, 3)
    return result


def _references(inputs: MetricInputs, metric: str) -> list[list[str]]:
    if not inputs.references:
        raise MetricUnavailable(
            f"{metric} needs corrected reference texts: import them (import_references REFERENCE_FILE...)"
        )
    return list(inputs.references.values())


def _gleu_scores(sentences: int, references: int) -> tuple[MetricScores, Callable[[], np.ndarray]]:
    """Empty GLEU scores of ``sentences`` against ``references`` texts, and their reference draws (drawn once, when
    first asked for)."""
    from .core.gleu import draw_statistics, gleu_of_draws, reference_draws

    draws = functools.cache(lambda: reference_draws(sentences, references))
    result = MetricScores(
        "gleu",
        expand_statistics=lambda stats: draw_statistics(stats, draws()),
        from_statistics=lambda totals: gleu_of_draws(totals.reshape(len(draws()), -1)),
    )
    return result, draws


def score_gleu(inputs: MetricInputs, tick: Tick = None) -> MetricScores:
    """GLEU (cnap/gec-ranking's ``compute_gleu``, all reference texts) of every system (``core/gleu.py``)."""
    from .core.gleu import GleuScorer

    references = [_tokens(lines) for lines in _references(inputs, "GLEU")]
    sources = _tokens(inputs.sources)
    result, draws = _gleu_scores(len(sources), len(references))
    scorer = GleuScorer(sources, references, draws())
    for system, lines in _systems(inputs, tick):
        scored = scorer.score(_tokens(lines))
        result.system[system] = scored.score
        result.segments[system] = list(scored.sentence_scores)
        result.statistics[system] = scored.statistics.astype(np.float64)
    return result


def _chrf():
    from sacrebleu.metrics import CHRF

    return CHRF(word_order=2)


def _chrf_score(chrf, statistics) -> float:
    """sacrebleu's score of summed per-sentence statistics: what corpus_score and sentence_score return."""
    return chrf._compute_score_from_stats(list(statistics)).score / 100


def _chrf_scores() -> MetricScores:
    chrf = functools.cache(_chrf)
    return MetricScores("chrf", from_statistics=lambda totals: _chrf_score(chrf(), totals.tolist()))


def score_chrf(inputs: MetricInputs, tick: Tick = None) -> MetricScores:
    """chrF++ (sacrebleu's ``CHRF(word_order=2)``, N19's CHRF++) of every system against all reference texts;
    corpus and sentence scores on sacrebleu's 0-100 scale divided by 100.

    sacrebleu's corpus score is its score of the summed sentence statistics, and its sentence score that of one
    sentence's, so each sentence's statistics are all that is computed here: once per distinct (sentence,
    output) pair, as systems often give the same output (CoNLL-14: about a third as many pairs as system
    sentences), with sacrebleu's own statistics code and each sentence's references read once; scores are equal to
    ``corpus_score`` and ``sentence_score`` (tests/ranking/test_score_metrics.py). Calling those per system computes
    every statistic three times and reads the references with each (benchmarks/chrf.py)."""
    references = _references(inputs, "chrF++")
    chrf = _chrf()
    score = functools.partial(_chrf_score, chrf)
    result = _chrf_scores()
    # sacrebleu's own per-sentence statistics (its corpus score sums them; no public accessor exists): each
    # sentence's references are read once, each distinct (sentence, output) pair is matched once
    cached = chrf._cache_references(references)
    pairs: dict[tuple[int, str], int] = {}
    rows = []
    for lines in inputs.outputs.values():
        for i, line in enumerate(lines):
            if (i, line) not in pairs:
                pairs[(i, line)] = len(rows)
                rows.append(chrf._compute_segment_statistics(chrf._preprocess_segment(line), cached[i]))
    table = np.array(rows, dtype=np.float64)
    for system, lines in _systems(inputs, tick):
        statistics = table[[pairs[(i, line)] for i, line in enumerate(lines)]]
        result.statistics[system] = statistics
        result.system[system] = score(statistics.sum(axis=0).tolist())
        result.segments[system] = [score(row.tolist()) for row in statistics]
    return result


def _errant_scores(beta: float = 0.5) -> MetricScores:
    def f_beta(counts: np.ndarray) -> float:
        from .errant_metric import f_from_counts

        return f_from_counts(counts, beta)

    return MetricScores("errant", from_statistics=f_beta)


def score_errant(inputs: MetricInputs, beta: float = 0.5, tick: Tick = None) -> MetricScores:
    """ERRANT F-beta, precision, recall and per-type [TP, FP, FN] of every system against the campaign's M2 gold
    (``errant_metric.py``); unavailable without an M2 file or without ERRANT and its spaCy model."""
    from .errant_metric import ErrantMissing, corpus_errant, load_annotator

    if inputs.gold is None:
        raise MetricUnavailable("ERRANT needs the campaign's gold edits: import an M2 file (import_references --m2)")
    try:
        annotator = load_annotator()
    except ErrantMissing as exc:
        raise MetricUnavailable(str(exc)) from None
    sources = [annotator.parse(line) for line in inputs.sources]
    result = _errant_scores(beta)
    for system, lines in _systems(inputs, tick):
        scored = corpus_errant(annotator, sources, lines, inputs.gold, inputs.gold_types, beta)
        result.system[system] = scored.f_beta
        result.precision[system] = scored.precision
        result.recall[system] = scored.recall
        result.counts[system] = (scored.tp, scored.tp + scored.fp, scored.tp + scored.fn)
        result.types[system] = scored.types
        result.segments[system] = scored.sentence_f
        result.statistics[system] = np.array(scored.sentence_counts, dtype=np.float64).reshape(-1, 3)
    return result


SCORERS = {"m2": score_m2, "gleu": score_gleu, "chrf": score_chrf, "errant": score_errant}

REFERENCE_KIND = {"m2": "m2", "gleu": "text", "chrf": "text", "errant": "m2"}
"""The kind of reference set (``annotation.models.ReferenceSet.Kind``) each metric reads: its scores change with
those sets only (the systems' outputs do not change after their import)."""
SCORES_VERSION = 1
"""The version of the scorers' results: stored scores (``metric_store``) of another version are computed again. Add
one when a scorer's scores change."""


def pack(scores: MetricScores) -> tuple[dict, bytes]:
    """``scores`` as JSON (the systems in order, ERRANT's per-type counts) and NumPy arrays in compressed ``.npz``
    bytes, every value as it is (``unpack`` gives them back; an undefined precision or recall is stored as NaN), also
    of no system (a campaign whose systems are all controls)."""
    systems = list(scores.system)

    def column(values: dict) -> np.ndarray:
        return np.array([np.nan if values[s] is None else values[s] for s in systems], dtype=np.float64)

    arrays = {
        "system": column(scores.system),
        "segments": np.array([scores.segments[s] for s in systems], dtype=np.float64).reshape(len(systems), -1)
        if systems else np.zeros((0, 0)),
        "statistics": np.stack([scores.statistics[s] for s in systems]) if systems else np.zeros(0),
    }
    if scores.precision:
        arrays.update(precision=column(scores.precision), recall=column(scores.recall))
    if scores.counts:
        arrays["counts"] = np.array([scores.counts[s] for s in systems], dtype=np.int64).reshape(-1, 3)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return {"systems": systems, "types": scores.types}, buffer.getvalue()


def unpack(metric: str, details: dict, data: bytes) -> MetricScores:
    """The ``MetricScores`` of ``metric`` that ``pack`` stored as ``details`` and ``data``."""
    with np.load(io.BytesIO(data), allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}
    statistics = arrays["statistics"]
    if metric == "gleu":
        sentences, references = statistics.shape[1:3] if statistics.ndim == 4 else (0, 1)
        result, _ = _gleu_scores(sentences, references)
    else:
        result = {"m2": _m2_scores, "chrf": _chrf_scores, "errant": _errant_scores}[metric]()
    systems = details["systems"]

    def defined(value: float) -> float | None:
        return None if np.isnan(value) else value

    for index, system in enumerate(systems):
        result.system[system] = arrays["system"][index].item()
        result.segments[system] = arrays["segments"][index].tolist()
        result.statistics[system] = statistics[index]
        if "precision" in arrays:
            result.precision[system] = defined(arrays["precision"][index].item())
            result.recall[system] = defined(arrays["recall"][index].item())
        if "counts" in arrays:
            result.counts[system] = tuple(arrays["counts"][index].tolist())
    result.types = details["types"]
    return result


COMPILING_M2 = "metric m2: compiling the M2 scorer (first run only)"


def _starting(metric: str) -> str:
    """The stage of ``metric`` before its first system is scored: M2's says when its numba kernels are compiled."""
    if metric == "m2":
        from .core.m2_kernel import compiled_on_disk

        if not compiled_on_disk():
            return COMPILING_M2
    return f"metric {metric}: starting"


def compute_metrics(
    inputs: MetricInputs, metrics: Sequence[str] = METRICS, progress: Progress | None = None
) -> tuple[dict[str, MetricScores], dict[str, str]]:
    """The scores of each metric that can be computed, and for each that cannot, the reason; ``progress`` hears
    "metric NAME: starting" (or ``COMPILING_M2``) before each metric and "metric NAME: SYSTEM (k of n)" after each
    system of each metric (a metric that cannot be computed counts done)."""
    scores, unavailable = {}, {}
    total = max(len(metrics) * len(inputs.outputs), 1)
    done = 0

    def tick(metric: str, system: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done / total, f"metric {metric}: {system} ({done} of {total})")

    for index, metric in enumerate(metrics):
        if progress is not None:
            progress(done / total, _starting(metric))
        try:
            scores[metric] = SCORERS[metric](inputs, tick=lambda system, metric=metric: tick(metric, system))
        except MetricUnavailable as exc:
            unavailable[metric] = str(exc)
            done = (index + 1) * len(inputs.outputs)
            if progress is not None:
                progress(min(done / total, 1.0), f"metric {metric}: skipped")
    return scores, unavailable
