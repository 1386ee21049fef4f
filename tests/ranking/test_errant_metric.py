"""ERRANT as an optional metric (``ranking.errant_metric``): counting through errant's own compare functions, the
choice of annotator, per-type counts, and the reason given where ERRANT or its spaCy model is missing.

Where the spaCy English model is not installed (it is not on PyPI), the counting is exercised with a blank English
pipeline and a crude tagger (every word a noun): the edits are ERRANT's, only their types are crude. The test
against the official ``errant_parallel``/``errant_compare`` commands runs only where the model is installed."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

errant = pytest.importorskip("errant", reason="ERRANT is not installed (pip install -e '.[errant]')")
spacy = pytest.importorskip("spacy")

from ranking.automatic_metrics import MetricUnavailable, score_errant  # noqa: E402
from ranking.errant_metric import MODEL, corpus_errant, load_annotator  # noqa: E402
from ranking.metric_loading import MetricInputs  # noqa: E402

HAS_MODEL = spacy.util.is_package(MODEL)
BIN = Path(sys.executable).parent
SOURCES = ["He go to home yesterday .", "This are a pen .", "I like it ."]
GOLD = [
    {0: [(1, 2, "go", ("went",)), (2, 3, "to", ("",))], 1: [(1, 2, "go", ("goes",))]},
    {0: [(1, 2, "are", ("is",))]},
    {0: []},
]
GOLD_TYPES = [{0: ["R:VERB:TENSE", "U:PREP"], 1: ["R:VERB:SVA"]}, {0: ["R:VERB:SVA"]}, {0: []}]
GOOD = ["He went home yesterday .", "This is a pen .", "I like it ."]
PARTIAL = ["He goes to home yesterday .", "This are a pen !", "I like it ."]


@pytest.fixture(scope="module")
def crude_annotator():
    from spacy.language import Language

    @Language.component("crude_tags_for_test")
    def crude_tags(doc):
        for token in doc:
            token.tag_, token.pos_ = (".", "PUNCT") if token.is_punct else ("NN", "NOUN")
            token.lemma_, token.dep_ = token.lower_, "dep"
        return doc

    nlp = spacy.blank("en")
    nlp.add_pipe("crude_tags_for_test")
    return errant.load("en", nlp=nlp)


def _score(annotator, hypotheses):
    return corpus_errant(annotator, [annotator.parse(s) for s in SOURCES], hypotheses, GOLD, GOLD_TYPES)


def test_perfect_output_matches_every_gold_edit_of_the_best_annotator(crude_annotator):
    result = _score(crude_annotator, GOOD)
    # sentence 1: the system's one edit "go to" -> "went" (1-3) matches neither annotator's span-based edits
    # annotator 0 expects 1-2 went and 2-3 deleted; ERRANT merges them into one edit 1-3, so FP 1 and FN 2 or 1
    assert result.tp == 1 and result.fp == 1
    assert result.fn == 1  # annotator 1 (one missed edit) is chosen over annotator 0 (two missed)
    assert result.precision == 0.5 and result.recall == 0.5 and result.f_beta == 0.5
    assert result.sentence_counts == [(0, 1, 1), (1, 0, 0), (0, 0, 0)]
    assert result.types["R:VERB:SVA"] == [1, 0, 1]


def test_partial_output_counts_and_types(crude_annotator):
    result = _score(crude_annotator, PARTIAL)
    assert (result.tp, result.fp, result.fn) == (1, 1, 1)
    assert result.types["R:VERB:SVA"] == [1, 0, 1]
    assert result.types["R:PUNCT"] == [0, 1, 0]
    assert result.sentence_f == [1.0, 0.0, 1.0]  # sentence 2: one wrong edit, one missed


def _inputs():
    outputs = {"good": GOOD, "partial": PARTIAL}
    return MetricInputs("c", SOURCES, outputs, gold=GOLD, gold_types=GOLD_TYPES)


@pytest.mark.skipif(HAS_MODEL, reason=f"the spaCy model {MODEL} is installed")
def test_without_the_spacy_model_the_metric_is_unavailable_with_the_reason():
    with pytest.raises(MetricUnavailable, match=f"spaCy English model {MODEL}.*python -m spacy download {MODEL}"):
        score_errant(_inputs())


def test_without_gold_edits_the_metric_is_unavailable():
    with pytest.raises(MetricUnavailable, match="ERRANT needs the campaign's gold edits"):
        score_errant(MetricInputs("c", SOURCES, {"good": GOOD}))


@pytest.mark.skipif(not HAS_MODEL, reason=f"the spaCy English model {MODEL} is not installed (it is not on PyPI: "
                    f"python -m spacy download {MODEL})")
@pytest.mark.skipif(not (BIN / "errant_compare").exists(), reason=f"errant's commands are not in {BIN}")
def test_equals_the_official_errant_compare(tmp_path):
    annotator = load_annotator()
    gold = tmp_path / "gold.m2"
    blocks = []
    for source, by_annotator, types in zip(SOURCES, GOLD, GOLD_TYPES):
        lines = [f"S {source}"]
        for coder, edits in by_annotator.items():
            lines += [f"A {s} {e}|||{t}|||{'||'.join(c)}|||REQUIRED|||-NONE-|||{coder}"
                      for (s, e, _, c), t in zip(edits, types[coder])]
            if not edits:
                lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{coder}")
        blocks.append("\n".join(lines))
    gold.write_text("\n\n".join(blocks) + "\n")
    (tmp_path / "orig").write_text("\n".join(SOURCES) + "\n")
    for hypotheses in (GOOD, PARTIAL):
        (tmp_path / "hyp").write_text("\n".join(hypotheses) + "\n")
        subprocess.run([str(BIN / "errant_parallel"), "-orig", str(tmp_path / "orig"), "-cor", str(tmp_path / "hyp"),
                        "-out", str(tmp_path / "hyp.m2")], check=True)
        printed = subprocess.run([str(BIN / "errant_compare"), "-hyp", str(tmp_path / "hyp.m2"), "-ref", str(gold)],
                                 check=True, capture_output=True, text=True).stdout.split()
        result = _score(annotator, hypotheses)
        index = printed.index("F0.5")
        tp, fp, fn, p, r, f = printed[index + 1 : index + 7]
        assert (result.tp, result.fp, result.fn) == (int(tp), int(fp), int(fn))
        assert (result.precision, result.recall, result.f_beta) == (float(p), float(r), float(f))
