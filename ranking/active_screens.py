"""Screens chosen by active selection (issue 13), written for the judge queue to serve.

The ranking side of a campaign's short queue: it reads the campaign (its sentences, candidates and ranking
judgments, through ``ranking.loading``), computes the running TrueSkill belief and the Expected Wins rank ranges
(``ranking.core``), picks the next screens with ``ranking.core.active.plan_active_batch`` and writes them with the
annotation app's own screen writer. ``annotation`` never imports this module; the screens it writes are ordinary
screens, so the queue serves them with the campaign's redundancy, repeats and per-judge limits like sampled ones.
"""
from __future__ import annotations

import numpy as np
from django.db import transaction

from annotation.models import Campaign
from annotation.services.outputs import candidate_systems
from annotation.services.sampling import MIN_RANKABLE_CANDIDATES, ScreenPlan
from annotation.services.screens import lock_campaign, next_screen_number, segment_candidates, write_screens

from .core.active import ScreenOptions, belief_from_rankings, overlapping_ranges, pair_weights, plan_active_batch
from .core.bootstrap import rank_ranges, resample_outcome_counts
from .core.expected_wins import expected_wins
from .core.pairs import expanded_pairs, outcome_counts
from .loading import contestant_names, load_rankings

RANGE_SAMPLES = 200
"""Bootstrap resamples behind the rank ranges that mark the unresolved pairs (METHODS 7)."""


def _screen_options(campaign: Campaign, candidates: list[list[int]], names: list[str]) -> ScreenOptions:
    """Each sentence with all its candidates, a candidate holding its contestant systems (control systems left out)."""
    index = {name: i for i, name in enumerate(names)}
    systems = candidate_systems(campaign)
    return ScreenOptions.from_screens(
        [[[index[s] for s in systems[c] if s in index] for c in sentence] for sentence in candidates]
    )


def write_active_screens(campaign: Campaign, count: int) -> range:
    """Write up to ``count`` screens of distinct sentences chosen by active selection after the campaign's last;
    returns their numbers. Each shows at most ``campaign.max_candidates`` candidates. All or nothing, under the
    campaign's lock (the same lock as every screen writer)."""
    if count < 1:
        raise ValueError(f"ask for at least one screen, not {count}")
    if campaign.mode != Campaign.Mode.RANKING:
        raise ValueError(f"active screens are for relative ranking campaigns; {campaign.name} is {campaign.mode}")
    with transaction.atomic():
        lock_campaign(campaign)
        first = next_screen_number(campaign)
        rng = np.random.default_rng([campaign.seed, first, 13])
        names = contestant_names(campaign)
        segment_ids, candidates, _ = segment_candidates(campaign)
        options = _screen_options(campaign, candidates, names)
        rankings = load_rankings(campaign)
        belief = belief_from_rankings(rankings)
        pairs = expanded_pairs(rankings)
        unresolved = None
        if len(pairs):
            samples = expected_wins(resample_outcome_counts(outcome_counts(pairs, len(names)), RANGE_SAMPLES, rng))
            unresolved = overlapping_ranges(*rank_ranges(samples, 0.95))
        batch = plan_active_batch(
            pair_weights(belief, unresolved),
            options,
            options.n_candidates >= MIN_RANKABLE_CANDIDATES,
            count,
            campaign.max_candidates,
            rng,
        )
        plans = [ScreenPlan(segment=screen, candidates=tuple(int(c) for c in shown)) for screen, shown in batch]
        return write_screens(campaign, segment_ids, candidates, plans)
