"""Automatic metrics of a campaign's systems from its own test set and references: M2, GLEU and chrF++.

``compute_metrics`` takes ``MetricInputs`` (``metric_loading.py``) and returns, per metric, the system scores
(with precision and recall where the metric has them) and the sentence scores, in the order of the campaign's
lines. M2 needs the campaign's M2 gold edits; GLEU and chrF++ its reference texts (with an M2 file only, its
annotators' corrected sentences are not derived: import the reference texts too).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .metric_loading import MetricInputs

METRICS = ("m2", "gleu", "chrf")
"""The metrics computed by default, by their WMT names (lower case)."""


class MetricUnavailable(ValueError):
    """A metric cannot be computed for this campaign; the message says why (missing references, package)."""


@dataclass
class MetricScores:
    """One metric's scores: per system the corpus score, precision and recall (None where undefined) and the
    sentence scores."""

    metric: str
    system: dict[str, float] = field(default_factory=dict)
    precision: dict[str, float | None] = field(default_factory=dict)
    recall: dict[str, float | None] = field(default_factory=dict)
    counts: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    segments: dict[str, list[float]] = field(default_factory=dict)


def _tokens(lines: Sequence[str]) -> list[list[str]]:
    return [line.split() for line in lines]


def score_m2(inputs: MetricInputs, beta: float = 0.5) -> MetricScores:
    """M2 F-beta, precision and recall of every system against the campaign's M2 gold (``core/m2.py``)."""
    from .core.m2 import corpus_m2

    if inputs.gold is None:
        raise MetricUnavailable("M2 needs the campaign's gold edits: import an M2 file (import_references --m2)")
    sources = _tokens(inputs.sources)
    result = MetricScores("m2")
    cache: dict = {}
    for system, lines in inputs.outputs.items():
        scored = corpus_m2(sources, _tokens(lines), inputs.gold, beta=beta, cache=cache)
        result.system[system] = scored.f_beta
        result.precision[system] = scored.precision
        result.recall[system] = scored.recall
        result.counts[system] = (scored.correct, scored.proposed, scored.gold)
        result.segments[system] = list(scored.sentence_f)
    return result


def _references(inputs: MetricInputs, metric: str) -> list[list[str]]:
    if not inputs.references:
        raise MetricUnavailable(
            f"{metric} needs corrected reference texts: import them (import_references REFERENCE_FILE...)"
        )
    return list(inputs.references.values())


def score_gleu(inputs: MetricInputs) -> MetricScores:
    """GLEU (cnap/gec-ranking's ``compute_gleu``, all reference texts) of every system (``core/gleu.py``)."""
    from .core.gleu import corpus_gleu, reference_draws

    references = [_tokens(lines) for lines in _references(inputs, "GLEU")]
    sources = _tokens(inputs.sources)
    draws = reference_draws(len(sources), len(references))
    result = MetricScores("gleu")
    for system, lines in inputs.outputs.items():
        scored = corpus_gleu(sources, references, _tokens(lines), draws)
        result.system[system] = scored.score
        result.segments[system] = list(scored.sentence_scores)
    return result


def score_chrf(inputs: MetricInputs) -> MetricScores:
    """chrF++ (sacrebleu's ``CHRF(word_order=2)``, N19's CHRF++) of every system against all reference texts;
    corpus and sentence scores on sacrebleu's 0-100 scale divided by 100."""
    from sacrebleu.metrics import CHRF

    references = _references(inputs, "chrF++")
    chrf = CHRF(word_order=2)
    result = MetricScores("chrf")
    for system, lines in inputs.outputs.items():
        result.system[system] = chrf.corpus_score(lines, references).score / 100
        result.segments[system] = [
            chrf.sentence_score(line, [reference[i] for reference in references]).score / 100
            for i, line in enumerate(lines)
        ]
    return result


SCORERS = {"m2": score_m2, "gleu": score_gleu, "chrf": score_chrf}


def compute_metrics(inputs: MetricInputs, metrics: Sequence[str] = METRICS) -> tuple[dict[str, MetricScores], dict[str, str]]:
    """The scores of each metric that can be computed, and for each that cannot, the reason."""
    scores, unavailable = {}, {}
    for metric in metrics:
        try:
            scores[metric] = SCORERS[metric](inputs)
        except MetricUnavailable as exc:
            unavailable[metric] = str(exc)
    return scores, unavailable
