"""GLEU for grammatical error correction with several references (Napoles et al. 2015; "GLEU without tuning", 2016).

The version of github cnap/gec-ranking's ``compute_gleu``: per sentence and n = 1..4, the hypothesis n-grams
matching the reference minus those matching source n-grams absent from the reference (at least 0), over the
hypothesis n-grams; corpus GLEU is ``exp(min(0, 1 - r/c) + mean log precision)`` of the summed statistics, 0 when
any statistic is 0. With several references each iteration draws one reference per sentence (``random.seed(101 j)``
and Python 2's ``randint``, i.e. ``int(random() * k)``, so the draws are the script's); the score is the mean over
500 iterations (1 with one reference). Sentence GLEU is the mean over the references of the smoothed GLEU (zero
statistics counted as 1), as its ``--debug`` output prints.

Written here rather than taken from the ``gleu`` package on PyPI: that package is a command line tool whose
tokenization is a module-wide setting, and its sentence-level score is unsmoothed, unlike the script's.
"""
from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ORDER = 4
ITERATIONS = 500


def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) + 1 - n))


@dataclass(frozen=True)
class _Reference:
    """One reference of one sentence as the statistics read it: its length, and per n = 1..ORDER its n-grams and
    the source's n-grams it lacks (which a hypothesis is penalised for keeping)."""

    length: int
    ngrams: tuple[Counter, ...]
    source_only: tuple[Counter, ...]


def _reference(source: Sequence[str], reference: Sequence[str]) -> _Reference:
    ngrams, source_only = [], []
    for n in range(1, ORDER + 1):
        r_ngrams = _ngrams(reference, n)
        s_only = _ngrams(source, n)
        for key in set(s_only) & set(r_ngrams):
            del s_only[key]
        ngrams.append(r_ngrams)
        source_only.append(s_only)
    return _Reference(len(reference), tuple(ngrams), tuple(source_only))


def _statistics(reference: _Reference, hypothesis: Sequence[str], h_ngrams: Sequence[Counter]) -> list[int]:
    stats = [len(hypothesis), reference.length]
    for n, (h, r, s_only) in enumerate(zip(h_ngrams, reference.ngrams, reference.source_only), start=1):
        matched = sum((h & r).values()) - sum((h & s_only).values())
        stats += [max(matched, 0), max(len(hypothesis) + 1 - n, 0)]
    return stats


def sentence_statistics(source: Sequence[str], reference: Sequence[str], hypothesis: Sequence[str]) -> np.ndarray:
    """``(c, r, match_1, total_1, ..., match_4, total_4)`` of one tokenized hypothesis against one reference."""
    h_ngrams = [_ngrams(hypothesis, n) for n in range(1, ORDER + 1)]
    return np.array(_statistics(_reference(source, reference), hypothesis, h_ngrams), dtype=np.int64)


def gleu_from_statistics(stats: Sequence[float], smooth: bool = False) -> float:
    """GLEU of summed statistics; 0 when any is 0 (``smooth`` counts zeros as 1, for single sentences)."""
    if smooth:
        stats = [s if s != 0 else 1 for s in stats]
    if any(s == 0 for s in stats):
        return 0.0
    c, r = stats[0], stats[1]
    log_precision = sum(math.log(float(x) / y) for x, y in zip(stats[2::2], stats[3::2])) / 4
    return math.exp(min(0.0, 1 - float(r) / c) + log_precision)


def gleu_of_draws(totals: np.ndarray) -> float:
    """Corpus GLEU from per-iteration summed statistics (iterations, 2 + 2 * ORDER): the mean over iterations of
    ``gleu_from_statistics`` (0 for an iteration with a zero statistic), as ``corpus_gleu`` averages them."""
    totals = np.asarray(totals, dtype=np.float64)
    positive = np.all(totals > 0, axis=1)
    safe = np.where(totals > 0, totals, 1.0)
    log_precision = np.log(safe[:, 2::2] / safe[:, 3::2]).sum(axis=1) / ORDER
    brevity = np.minimum(0.0, 1 - safe[:, 1] / safe[:, 0])
    return float(np.mean(np.where(positive, np.exp(brevity + log_precision), 0.0)))


def draw_statistics(stats: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Per sentence the statistics of the reference each iteration draws, flattened: ``stats`` (N, R, 2 + 2 * ORDER)
    and ``draws`` (iterations, N) give (N, iterations * (2 + 2 * ORDER)), which add up over sentences to the
    per-iteration totals ``gleu_of_draws`` reads (after a reshape to (iterations, 2 + 2 * ORDER))."""
    n = stats.shape[0]
    return stats[np.arange(n)[None, :], draws].transpose(1, 0, 2).reshape(n, -1)


def reference_draws(sentences: int, references: int, iterations: int = ITERATIONS) -> np.ndarray:
    """The reference index of each sentence in each iteration, as ``compute_gleu`` draws them."""
    if references == 1:
        return np.zeros((1, sentences), dtype=np.int64)
    draws = np.empty((iterations, sentences), dtype=np.int64)
    generator = random.Random()
    for j in range(iterations):
        generator.seed(j * 101, version=1)
        draws[j] = [int(generator.random() * references) for _ in range(sentences)]
    return draws


@dataclass(frozen=True)
class GleuResult:
    """Corpus GLEU (mean over iterations) with its standard deviation, the sentence-level GLEU, and the sentence
    statistics against each reference (N, R, 2 + 2 * ORDER), from which ``draw_statistics`` and ``gleu_of_draws``
    give the GLEU of any subset of the sentences."""

    score: float
    std: float
    sentence_scores: tuple[float, ...]
    statistics: np.ndarray


class GleuScorer:
    """GLEU of hypotheses (one system's, or several systems' one after another) against one test set's tokenized
    ``sources`` and ``references`` (``references[k][i]``: reference k of sentence i), sharing the reference draws
    (``draws``, from ``reference_draws`` by default).

    The references' n-grams and the source n-grams each lacks are counted once, not once per system, and a
    sentence's hypothesis that an earlier system gave too is not counted again (CoNLL-14: 7,435 distinct of 17,056
    system sentences): the statistics and scores are those of ``sentence_statistics`` per sentence and reference."""

    def __init__(
        self,
        sources: Sequence[Sequence[str]],
        references: Sequence[Sequence[Sequence[str]]],
        draws: np.ndarray | None = None,
    ) -> None:
        if not references:
            raise ValueError("GLEU needs at least one reference")
        n = len(sources)
        if any(len(reference) != n for reference in references):
            raise ValueError("sources, references and hypotheses differ in number of sentences")
        self._references = [[_reference(sources[i], reference[i]) for reference in references] for i in range(n)]
        self._reference_count = len(references)
        self._draws = reference_draws(n, len(references)) if draws is None else draws
        self._scored: dict[tuple[int, tuple[str, ...]], tuple[np.ndarray, float]] = {}

    def _sentence(self, i: int, hypothesis: Sequence[str]) -> tuple[np.ndarray, float]:
        """The statistics of sentence ``i``'s hypothesis against each reference, and its sentence GLEU."""
        key = (i, tuple(hypothesis))
        scored = self._scored.get(key)
        if scored is None:
            h_ngrams = [_ngrams(hypothesis, n) for n in range(1, ORDER + 1)]
            stats = np.array([_statistics(reference, hypothesis, h_ngrams) for reference in self._references[i]],
                             dtype=np.int64)
            sentence = float(np.mean([gleu_from_statistics(row.tolist(), smooth=True) for row in stats]))
            scored = self._scored[key] = (stats, sentence)
        return scored

    def score(self, hypotheses: Sequence[Sequence[str]]) -> GleuResult:
        """GLEU of tokenized ``hypotheses``, one per sentence."""
        n = len(self._references)
        if len(hypotheses) != n:
            raise ValueError("sources, references and hypotheses differ in number of sentences")
        scored = [self._sentence(i, hypothesis) for i, hypothesis in enumerate(hypotheses)]
        stats = np.array([row for row, _ in scored], dtype=np.int64).reshape(n, self._reference_count, 2 * ORDER + 2)
        totals = stats[np.arange(n)[None, :], self._draws].sum(axis=1)
        scores = [gleu_from_statistics(row.tolist()) for row in totals]
        sentence = tuple(value for _, value in scored)
        return GleuResult(float(np.mean(scores)), float(np.std(scores)), sentence, stats)


def corpus_gleu(
    sources: Sequence[Sequence[str]],
    references: Sequence[Sequence[Sequence[str]]],
    hypotheses: Sequence[Sequence[str]],
    draws: np.ndarray | None = None,
) -> GleuResult:
    """GLEU of tokenized ``hypotheses``; ``references[k][i]`` is reference k of sentence i.

    ``draws`` (from ``reference_draws``) may be passed to share them between systems; ``GleuScorer`` shares the
    references' counts too.
    """
    if len(sources) != len(hypotheses):
        raise ValueError("sources, references and hypotheses differ in number of sentences")
    return GleuScorer(sources, references, draws).score(hypotheses)
