"""Hybrid super-sampling: synthetic systems mix two real systems' sentences; human and metric scores from them."""
from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import CHRF

from ranking.core.synthetic_systems import (
    SHARES,
    plan_synthetic_systems,
    synthetic_human_scores,
    synthetic_metric_scores,
)


def test_plan_mixes_two_distinct_systems_at_the_shares():
    plan = plan_synthetic_systems(4, 20, 200, np.random.default_rng(1))
    assert np.all(plan.first != plan.second)
    assert set(np.round(plan.from_first.sum(axis=1) / 20, 1)) <= set(np.round(SHARES, 1))
    again = plan_synthetic_systems(4, 20, 200, np.random.default_rng(1))
    assert np.array_equal(plan.from_first, again.from_first)


def test_human_scores_are_means_of_the_chosen_rated_sentences():
    human = np.array([[10.0, 20.0, np.nan, 40.0], [50.0, 60.0, 70.0, np.nan]])
    plan = plan_synthetic_systems(2, 4, 30, np.random.default_rng(2))
    got = synthetic_human_scores(human, plan)
    for k in range(30):
        chosen = np.where(plan.from_first[k], human[plan.first[k]], human[plan.second[k]])
        assert got[k] == pytest.approx(np.nanmean(chosen))


def test_metric_scores_equal_the_metric_on_the_mixed_output():
    hypotheses = [["a b c", "x y z", "one two"], ["a b d", "x y", "one three"]]
    references = [["a b c", "x y z", "one two"]]
    chrf = CHRF(word_order=2)
    statistics = np.array([chrf._extract_corpus_statistics(h, references) for h in hypotheses], dtype=np.float64)
    plan = plan_synthetic_systems(2, 3, 10, np.random.default_rng(3))
    got = synthetic_metric_scores(statistics, plan, lambda row: chrf._compute_score_from_stats(row.tolist()).score)
    for k in range(10):
        mixed = [hypotheses[plan.first[k] if plan.from_first[k, i] else plan.second[k]][i] for i in range(3)]
        assert got[k] == pytest.approx(chrf.corpus_score(mixed, references).score)


def test_gleu_from_drawn_statistics_equals_corpus_gleu_of_the_mixed_output():
    from ranking.core.gleu import corpus_gleu, draw_statistics, gleu_of_draws, reference_draws, sentence_statistics

    rng = np.random.default_rng(4)
    words = ["a", "b", "c", "d", "e"]
    sources = [list(rng.choice(words, 6)) for _ in range(8)]
    references = [[list(rng.choice(words, 6)) for _ in range(8)] for _ in range(3)]
    hypotheses = [[list(rng.choice(words, 5 + k)) for _ in range(8)] for k in range(3)]
    draws = reference_draws(8, 3)

    def statistics(s):
        stats = np.array([[sentence_statistics(sources[i], r[i], hypotheses[s][i]) for r in references]
                          for i in range(8)], dtype=np.float64)
        return draw_statistics(stats, draws)

    plan = plan_synthetic_systems(3, 8, 12, np.random.default_rng(5))
    got = synthetic_metric_scores(statistics, plan, lambda row: gleu_of_draws(row.reshape(len(draws), -1)))
    for k in range(12):
        mixed = [hypotheses[plan.first[k] if plan.from_first[k, i] else plan.second[k]][i] for i in range(8)]
        assert got[k] == pytest.approx(corpus_gleu(sources, references, mixed, draws).score, abs=1e-12)
