"""The WMT relative-ranking tau of metric sentence scores against pairwise human judgments."""
from __future__ import annotations

import math

import numpy as np

from ranking.core.rankings import Rankings
from ranking.core.sentence_tau import relative_ranking_tau


def test_concordant_discordant_and_ties():
    # line 0: A best, then B, C and D tied last; line 1: collapsed candidate "A B" above C
    rankings = Rankings.from_items(
        [
            ("j1", 0, [(("A",), 1), (("B",), 2), (("C",), 3), (("D",), 3)]),
            ("j1", 1, [(("A", "B"), 1), (("C",), 2)]),
        ],
        ["A", "B", "C", "D"],
    )
    scores = np.array([[0.9, 0.5], [0.9, 0.2], [0.1, 0.5], [0.3, np.nan]])
    result = relative_ranking_tau(rankings, scores)
    # line 0 human pairs (C-D tied, left out): A>B metric tie -> discordant; A>C, A>D, B>C, B>D concordant
    # line 1: A>C metric tie -> discordant; B>C ordered the other way -> discordant; A-B share a candidate (tie)
    assert (result.concordant, result.discordant, result.metric_ties) == (4, 3, 2)
    assert math.isclose(result.tau, 1 / 7)


def test_no_decisive_pair_is_nan():
    rankings = Rankings.from_items([("j1", 0, [(("A",), 1), (("B",), 1)])], ["A", "B"])
    assert math.isnan(relative_ranking_tau(rankings, np.zeros((2, 1))).tau)
