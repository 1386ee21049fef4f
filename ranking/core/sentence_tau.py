"""Sentence-level agreement of a metric with pairwise human judgments: the WMT relative-ranking Kendall's tau-like
formula (Machacek and Bojar 2014; used for GEC metrics by Chollampatt and Ng 2018).

Every two systems on one screen give a pair (METHODS 3: systems sharing a collapsed candidate tie). Pairs the
judge tied are left out. A pair is concordant when the metric's sentence scores order the two systems as the
judge did, discordant when they order them the other way or tie (the WMT 2017-2019 convention, which penalizes a
metric that cannot tell them apart); tau = (concordant - discordant) / (concordant + discordant).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .pairs import pairs_within_groups
from .rankings import Rankings


@dataclass(frozen=True)
class SentenceTau:
    """tau (NaN without a decisive pair), the concordant and discordant pair counts, and how many discordant pairs
    the metric tied."""

    tau: float
    concordant: int
    discordant: int
    metric_ties: int


def relative_ranking_tau(rankings: Rankings, sentence_scores: np.ndarray) -> SentenceTau:
    """Agreement of ``sentence_scores`` (S, N): the metric score of system s on segment line n, with ``rankings``
    (systems indexed as ``rankings.system_names``; higher scores and lower ranks are better). Pairs with a NaN
    metric score are left out."""
    scores = np.asarray(sentence_scores, dtype=np.float64)
    member_ranking = rankings.candidate_ranking[rankings.member_candidate]
    i, j = pairs_within_groups(member_ranking)
    rank = rankings.candidate_rank[rankings.member_candidate]
    human = np.sign(rank[j] - rank[i])
    segment = rankings.ranking_segment[member_ranking[i]]
    first = scores[rankings.member_system[i], segment]
    second = scores[rankings.member_system[j], segment]
    keep = (human != 0) & ~np.isnan(first) & ~np.isnan(second)
    metric = np.sign(first[keep] - second[keep])
    concordant = int(np.sum(metric == human[keep]))
    discordant = int(keep.sum()) - concordant
    ties = int(np.sum(metric == 0))
    total = concordant + discordant
    tau = (concordant - discordant) / total if total else float("nan")
    return SentenceTau(tau, concordant, discordant, ties)
