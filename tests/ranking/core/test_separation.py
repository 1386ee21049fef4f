"""The estimate of more judgments the unresolved pairs need (ranking/core/separation.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from ranking.core import separation


def test_comparisons_needed_is_the_sample_size_of_a_test_of_the_mean():
    wins, losses, ties = 30.0, 20.0, 10.0
    won, lost, n = 30.5, 20.5, 61.0
    delta, spread = (won - lost) / n, math.sqrt((won + lost) / n - ((won - lost) / n) ** 2)
    expected = ((norm.ppf(0.975) + norm.ppf(0.8)) * spread / delta) ** 2
    assert separation.comparisons_needed(wins, losses, ties) == pytest.approx(expected)
    assert separation.comparisons_needed(losses, wins, ties) == pytest.approx(expected), "either order"
    assert separation.comparisons_needed(5, 5, 3) == math.inf


def test_at_the_estimated_size_the_test_separates_the_pair_with_the_stated_power():
    """Simulated pairs with win/tie/loss chances (0.45, 0.2, 0.35): after n* comparisons a two-sided z-test of the
    mean comparison rejects 'no difference' in about 80% of campaigns."""
    rng = np.random.default_rng(2024)
    probabilities = np.array([0.45, 0.2, 0.35])
    needed = separation.comparisons_needed(*(1000 * probabilities[[0, 2, 1]]))
    n = int(math.ceil(needed))
    outcomes = rng.multinomial(n, probabilities, size=4000)
    x_mean = (outcomes[:, 0] - outcomes[:, 2]) / n
    x_var = (outcomes[:, 0] + outcomes[:, 2]) / n - x_mean**2
    rejected = np.abs(x_mean) / np.sqrt(x_var / n) > norm.ppf(0.975)
    assert rejected.mean() == pytest.approx(0.8, abs=0.03)


def test_more_judgments_scales_with_how_often_the_pair_is_compared():
    counts = np.zeros((3, 3, 3), dtype=np.int64)
    counts[0, 1] = [12, 3, 8]  # 0 beat 1 twelve times, lost eight
    counts[0, 2] = [4, 0, 4]
    one, tied, never = separation.more_judgments(counts, [(0, 1), (2, 0), (1, 2)], judgments=100)
    more = max(0.0, separation.comparisons_needed(12, 8, 3) - 23) * 100 / 23
    assert (one.first, one.second, one.judgments) == (0, 1, math.ceil(more))
    assert (tied.judgments, tied.reason) == (None, separation.LOOKS_TIED)
    assert (never.judgments, never.reason) == (None, separation.NEVER_COMPARED)
    half_as_often = separation.more_judgments(counts, [(1, 0)], judgments=200)[0]
    assert half_as_often.judgments == pytest.approx(2 * one.judgments, abs=1)
    counts[0, 1] = [120, 30, 80]
    assert separation.more_judgments(counts, [(0, 1)], judgments=1000)[0].judgments == 0, "already enough"
