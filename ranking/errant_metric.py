"""ERRANT F0.5 (Bryant et al. 2017), overall and per error type, as ``errant_compare`` scores it: an optional extra
(``pip install -e '.[errant]'`` plus a spaCy English model, ``python -m spacy download en_core_web_sm``).

The hypothesis edits are ERRANT's own (``Annotator.annotate`` of the source and the system's output, both parsed by
spaCy without re-tokenizing); the reference edits are the campaign's M2 gold edits, each annotator in turn, with
its alternative corrections joined by ``||`` as ``errant_compare`` reads them from an M2 file. Counting, the choice
of annotator per sentence (highest cumulative F, then more TP, fewer FP, fewer FN) and the per-type counts are
``errant.commands.compare_m2``'s functions (span-based correction, its defaults), not a re-implementation.
"""
from __future__ import annotations

import importlib.util
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

MODEL = "en_core_web_sm"
"""The spaCy model ``errant.load("en")`` uses."""
COMPARE_DEFAULTS = SimpleNamespace(beta=0.5, dt=False, ds=False, cse=False, single=False, multi=False, filt=[],
                                   verbose=False)
"""``errant_compare``'s default options: span-based correction, F0.5, no filter."""


class ErrantMissing(RuntimeError):
    """ERRANT or its spaCy English model is not installed; the message says which and how to install it."""


#: Why ERRANT cannot score where it is not installed.
NOT_INSTALLED = "ERRANT is not installed: pip install -e '.[errant]'"


def installed() -> bool:
    """Whether the ``errant`` package can be imported (found, not imported: importing it loads spaCy)."""
    return importlib.util.find_spec("errant") is not None


def load_annotator() -> Any:
    """ERRANT's English annotator; raises ``ErrantMissing`` naming what is missing."""
    try:
        import errant
    except ImportError:
        raise ErrantMissing(NOT_INSTALLED) from None
    try:
        return errant.load("en")
    except OSError:
        raise ErrantMissing(
            f"ERRANT needs the spaCy English model {MODEL} (not on PyPI): python -m spacy download {MODEL}"
        ) from None


@dataclass
class ErrantResult:
    """Corpus TP/FP/FN with the official P, R, F (rounded to 4 decimals as ``errant_compare`` prints them), the
    per-type [TP, FP, FN], each sentence's chosen (TP, FP, FN) and its sentence-level F (best annotator for it
    alone)."""

    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f_beta: float
    types: dict[str, list[int]] = field(default_factory=dict)
    sentence_counts: list[tuple[int, int, int]] = field(default_factory=list)
    sentence_f: list[float] = field(default_factory=list)


def reference_edits(gold: dict[int, list[tuple]], types: dict[int, list[str]]) -> list[list]:
    """The gold edits of one sentence as ``compare_m2.simplify_edits`` gives them: [start, end, type, correction,
    annotator], a noop edit for an annotator without edits."""
    edits = []
    for annotator in sorted(gold):
        if not gold[annotator]:
            edits.append([-1, -1, "noop", "-NONE-", annotator])
        for (start, end, _, corrections), error_type in zip(gold[annotator], types[annotator]):
            edits.append([start, end, error_type, "||".join(corrections), annotator])
    return edits


def hypothesis_edits(annotator: Any, source: Any, hypothesis: str) -> list[list]:
    """ERRANT's edits from a parsed source to a hypothesis, as ``errant_parallel`` writes them (coder 0)."""
    edits = annotator.annotate(source, annotator.parse(hypothesis))
    return [[e.o_start, e.o_end, e.type, e.c_str, 0] for e in edits]


def f_from_counts(counts: Sequence[float], beta: float = 0.5) -> float:
    """``errant_compare``'s F-beta of summed (TP, FP, FN)."""
    from errant.commands import compare_m2

    return compare_m2.computeFScore(*counts, beta)[2]


def corpus_errant(
    annotator: Any,
    parsed_sources: Sequence[Any],
    hypotheses: Sequence[str],
    gold: Sequence[dict[int, list[tuple]]],
    gold_types: Sequence[dict[int, list[str]]],
    beta: float = 0.5,
) -> ErrantResult:
    """ERRANT of one system's ``hypotheses`` against the gold (``errant_compare -hyp -ref``, span-based)."""
    from errant.commands import compare_m2

    args = SimpleNamespace(**{**vars(COMPARE_DEFAULTS), "beta": beta})
    best = Counter({"tp": 0, "fp": 0, "fn": 0})
    types: dict = {}
    sentence_f, sentence_counts = [], []
    for number, (source, hypothesis) in enumerate(zip(parsed_sources, hypotheses)):
        hyp = compare_m2.process_edits(hypothesis_edits(annotator, source, hypothesis), args)
        ref = compare_m2.process_edits(reference_edits(gold[number], gold_types[number]), args)
        alone, _ = compare_m2.evaluate_edits(hyp, ref, Counter({"tp": 0, "fp": 0, "fn": 0}), number, "", args)
        sentence_f.append(compare_m2.computeFScore(alone["tp"], alone["fp"], alone["fn"], beta)[2])
        counts, by_type = compare_m2.evaluate_edits(hyp, ref, best, number, "", args)
        best += Counter(counts)
        sentence_counts.append((counts["tp"], counts["fp"], counts["fn"]))
        types = compare_m2.merge_dict(types, by_type)
    precision, recall, f_beta = compare_m2.computeFScore(best["tp"], best["fp"], best["fn"], beta)
    return ErrantResult(best["tp"], best["fp"], best["fn"], precision, recall, f_beta,
                        dict(sorted(types.items())), sentence_counts, sentence_f)
