"""GLEU of several systems against one set of references (``GleuScorer``): the references are counted once, and the
statistics and scores are those of each sentence scored on its own."""
from __future__ import annotations

import numpy as np

from ranking.core import gleu

SOURCES = ["he go to school yesterday".split(), "she have a apple".split(), "it is fine".split()]
REFERENCES = [
    ["he went to school yesterday".split(), "she has an apple".split(), "it is fine".split()],
    ["he went to the school yesterday".split(), "she has the apple".split(), "it is fine .".split()],
]
SYSTEMS = [
    ["he went to school yesterday".split(), "she have a apple".split(), "it is fine".split()],
    ["he go to school yesterday".split(), "she has an apple".split(), "it is fine".split()],
    ["he went to school yesterday".split(), "she has a apple".split(), "it fine".split()],
]


def test_scorer_counts_each_reference_once_and_scores_as_each_sentence_alone(monkeypatch):
    counted = []
    reference = gleu._reference
    monkeypatch.setattr(gleu, "_reference", lambda *args: counted.append(args) or reference(*args))
    scorer = gleu.GleuScorer(SOURCES, REFERENCES)
    results = [scorer.score(hypotheses) for hypotheses in SYSTEMS]
    assert len(counted) == len(SOURCES) * len(REFERENCES)  # once, for the three systems together

    monkeypatch.setattr(gleu, "_reference", reference)
    draws = gleu.reference_draws(len(SOURCES), len(REFERENCES))
    for hypotheses, result in zip(SYSTEMS, results):
        expected = np.array([[gleu.sentence_statistics(SOURCES[i], r[i], hypotheses[i]) for r in REFERENCES]
                             for i in range(len(SOURCES))])
        assert np.array_equal(result.statistics, expected)
        totals = expected[np.arange(len(SOURCES))[None, :], draws].sum(axis=1)
        assert result.score == float(np.mean([gleu.gleu_from_statistics(row.tolist()) for row in totals]))
        assert result.sentence_scores == tuple(
            float(np.mean([gleu.gleu_from_statistics(row.tolist(), smooth=True) for row in expected[i]]))
            for i in range(len(SOURCES))
        )
        alone = gleu.corpus_gleu(SOURCES, REFERENCES, hypotheses)
        assert (alone.score, alone.sentence_scores) == (result.score, result.sentence_scores)
