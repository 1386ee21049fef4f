"""Screens chosen by active selection (issue 13), written for the judge queue to serve.

The ranking side of a campaign's short queue: it reads the campaign's sentences and candidates (for PRWS, the
sentences' kept multiplicities and only the rated, waiting and chosen candidates), takes the running TrueSkill
belief and the outcome counts behind the contested pairs (``ranking.core``) from what it kept (``running_state``),
picks the next screens with ``ranking.core.active.plan_active_batch`` and writes them with the annotation app's own
screen writer. ``annotation`` never imports this module; the screens it writes are ordinary screens, so the queue
serves them with the campaign's redundancy, repeats and per-judge limits like sampled ones. A batch asks each
sentence once and prefers sentences no screen shows yet. PRWS campaigns get EASL's choice
(``write_active_prws_screens``). ``active_queue`` calls both in the background to keep a short queue filled.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from annotation.models import Campaign, Candidate, CandidateJudgment, Screen, ScreenCandidate, Segment
from annotation.random_streams import campaign_rng
from annotation.services.outputs import candidate_systems
from annotation.services.sampling import MIN_RANKABLE_CANDIDATES, ScreenPlan
from annotation.services.screens import (
    kept_multiplicities,
    lock_campaign,
    next_screen_number,
    shown_candidates,
    write_screens,
)

from .core.active import (
    CandidateBeliefs,
    RunningTrueSkill,
    ScreenOptions,
    contested_pairs,
    pair_weights,
    plan_active_batch,
    select_prws_screen,
)
from .core.bootstrap import resample_outcome_counts
from .core.expected_wins import counts_expected_wins
from .core.pairs import expanded_pairs
from .leaderboard import STATE_SECONDS, analysed_rankings, data_version, live_counts
from .loading import contestant_names

RANGE_SAMPLES = 200
"""Bootstrap resamples behind the contested pairs (``core.active.contested_pairs``; METHODS 7)."""
BELIEF_KEY = "active-belief:{pk}:{created}"
"""Cache key of a campaign's kept running belief (``running_state``)."""
SENTENCE_SAMPLE = 2048
"""Sentences one refill reads and scores at most (``_sampled_sentences``): its cost does not grow with the test set."""


def _screen_options(campaign: Campaign, segment_ids: list[int], candidates: list[list[int]],
                    names: list[str]) -> ScreenOptions:
    """Each sentence with all its candidates, a candidate holding its contestant systems (control systems left out);
    only the given sentences' outputs are read."""
    index = {name: i for i, name in enumerate(names)}
    systems = candidate_systems(campaign, Candidate.objects.filter(segment_id__in=segment_ids).values("id"))
    return ScreenOptions.from_screens(
        [[[index[s] for s in systems[c] if s in index] for c in sentence] for sentence in candidates]
    )


def _rankable(segment_ids: np.ndarray) -> tuple[list[int], list[list[int]]]:
    """Those of the sentences with at least two candidates, in the given order, with their candidates (by id)."""
    candidates: dict[int, list[int]] = defaultdict(list)
    rows = Candidate.objects.filter(segment_id__in=segment_ids.tolist()).order_by("segment_id", "id")
    for segment_id, candidate_id in rows.values_list("segment_id", "id"):
        candidates[segment_id].append(candidate_id)
    kept = [s for s in segment_ids.tolist() if len(candidates[s]) >= MIN_RANKABLE_CANDIDATES]
    return kept, [candidates[s] for s in kept]


def _sampled_sentences(campaign: Campaign, count: int, rng: np.random.Generator) -> tuple[list[int], list[list[int]]]:
    """The rankable sentences a refill chooses from, with their candidates: those no screen of the campaign shows
    yet (the diversity of sentences, G15 4.1), or all once fewer than ``count`` are left unshown; at most
    ``SENTENCE_SAMPLE`` of them, a uniform sample, so that a refill reads a bounded part of a large test set."""
    segments = Segment.objects.filter(campaign=campaign).order_by("line").values_list("id", flat=True)
    every = np.fromiter(segments, dtype=np.int64)
    shown = Screen.objects.filter(campaign=campaign).values_list("segment_id", flat=True).distinct()
    fresh = every[~np.isin(every, np.fromiter(shown, dtype=np.int64))]
    for pool in (fresh, every):
        if pool.size > SENTENCE_SAMPLE:
            pool = np.sort(rng.choice(pool, SENTENCE_SAMPLE, replace=False))
        kept, candidates = _rankable(pool)
        if len(kept) >= count:
            break
    return kept, candidates


def _check_request(campaign: Campaign, count: int, mode: str, rule: str) -> None:
    """Raise ValueError unless ``count`` asks for screens and ``campaign`` is of ``mode`` (``rule`` says why)."""
    if count < 1:
        raise ValueError(f"ask for at least one screen, not {count}")
    if campaign.mode != mode:
        raise ValueError(f"{rule}; {campaign.name} is {campaign.mode}")


@dataclass
class KeptBelief:
    """A campaign's running TrueSkill belief after observing the rankings analysed up to judgment ``last_id`` of
    the leaderboard's live counts named ``token`` (``leaderboard.LiveCounts``), in the order they were stored."""

    token: str
    last_id: int | None
    belief: RunningTrueSkill


def running_state(campaign: Campaign) -> tuple[np.ndarray | None, RunningTrueSkill]:
    """The outcome counts (S, S, 3; None before the first pairwise judgment) of the rankings analysed so far and
    the running TrueSkill belief after them, both kept between refills and updated by the judgments stored since
    (issue 13: an incremental update, no full recomputation).

    The counts are the live leaderboard's (``leaderboard.live_counts``: the judgments the analysis reads, without
    those rater QC leaves out), extended by the new judgments. The belief is kept in Django's cache with the token
    and last judgment id of those counts; a refill observes only the rankings after that id, one judgment after the
    other (``RunningTrueSkill.observe``), which gives the belief a full recomputation in that order gives. When the
    counts were rebuilt (a judgment undone, a screen excluded or put back, a rater QC decision, a cold cache) the
    belief is rebuilt from all rankings too."""
    state = live_counts(campaign, data_version(campaign))
    key = BELIEF_KEY.format(pk=campaign.pk, created=campaign.created_at.timestamp())
    kept: KeptBelief | None = cache.get(key)
    if kept is None or kept.token != state.token or kept.belief.mu.size != len(state.names):
        kept = KeptBelief(state.token, None, RunningTrueSkill.start(len(state.names)))
    if state.last_id is not None and kept.last_id != state.last_id:
        pairs = expanded_pairs(analysed_rankings(campaign, kept.last_id, state.last_id))
        kept.belief.observe(pairs.first, pairs.second, pairs.relation)
        kept.last_id = state.last_id
    cache.set(key, kept, STATE_SECONDS)
    return state.counts, kept.belief


def write_active_screens(campaign: Campaign, count: int) -> range:
    """Write up to ``count`` screens of distinct sentences chosen by active selection after the campaign's last;
    returns their numbers. Each shows at most ``campaign.max_candidates`` candidates. The sentences are chosen
    among ``_sampled_sentences``, by the running belief and the contested pairs (``running_state``,
    ``core.active.contested_pairs``). All or nothing, under the campaign's lock (as every screen writer)."""
    _check_request(campaign, count, Campaign.Mode.RANKING, "active screens are for relative ranking campaigns")
    with transaction.atomic():
        lock_campaign(campaign)
        first = next_screen_number(campaign)
        rng = campaign_rng(campaign, "active", first)
        segment_ids, candidates = _sampled_sentences(campaign, count, rng)
        counts, belief = running_state(campaign)
        options = _screen_options(campaign, segment_ids, candidates, contestant_names(campaign))
        contested = None
        if counts is not None and counts.sum():
            contested = contested_pairs(counts_expected_wins(resample_outcome_counts(counts, RANGE_SAMPLES, rng)))
        batch = plan_active_batch(
            pair_weights(belief, contested),
            options,
            np.ones(options.n_screens, dtype=bool),
            count,
            campaign.max_candidates,
            rng,
        )
        plans = [ScreenPlan(segment=screen, candidates=tuple(int(c) for c in shown)) for screen, shown in batch]
        return write_screens(campaign, segment_ids, candidates, plans)


def _place(candidate: str) -> Coalesce:
    """The place of the row's candidate (the field ``candidate``) among its sentence's candidates by id, 0 for the
    first: those of its sentence with a lower id, counted through the index of the candidates' sentences."""
    earlier = (
        Candidate.objects.filter(segment_id=OuterRef(f"{candidate}__segment_id"), pk__lt=OuterRef(candidate))
        .order_by().values("segment_id").annotate(n=Count("pk")).values("n")
    )
    return Coalesce(Subquery(earlier), 0)


def _prws_beliefs(campaign: Campaign, offsets: np.ndarray, segment_index: dict[int, int]) -> tuple[
        CandidateBeliefs, np.ndarray]:
    """``beliefs_and_free`` of the campaign's candidates, numbered sentence by sentence in line order, a sentence's
    candidates by id (``offsets[i]`` is sentence i's first). Each score and waiting candidate comes with its
    candidate's sentence and place (``_place``), so no other candidate is read."""
    def number(segment: int, place: int) -> int:
        return int(offsets[segment_index[segment]]) + place

    scored = CandidateJudgment.objects.of_campaign(campaign).scored().values_list(
        "candidate__segment_id", _place("candidate_id"), "score"
    )
    waiting = waiting_rows(campaign).values_list("candidate__segment_id", _place("candidate_id")).distinct()
    return beliefs_and_free(int(offsets[-1]), [(number(segment, place), score) for segment, place, score in scored],
                            [number(segment, place) for segment, place in waiting])


def waiting_rows(campaign: Campaign) -> QuerySet:
    """The candidates shown on the campaign's screens still waiting for a judgment (``ScreenQuerySet.waiting``),
    unordered, so that their distinct values are distinct."""
    return ScreenCandidate.objects.filter(screen__in=Screen.objects.filter(campaign=campaign).waiting()).order_by()


def beliefs_and_free(size: int, ratings: list[tuple[int, float]], waiting: list[int]) -> tuple[
        CandidateBeliefs, np.ndarray]:
    """EASL beliefs of ``size`` candidates from every score given so far (``ratings``: candidate number and score),
    and which candidates are free: not ``waiting``, on a screen still waiting for a judgment (pending or served),
    whose ratings are on their way."""
    beliefs = CandidateBeliefs.start(size)
    if ratings:
        rated, scores = zip(*ratings)
        beliefs.observe(np.array(rated), np.array(scores))
    free = np.ones(size, dtype=bool)
    free[waiting] = False
    return beliefs, free


def write_active_prws_screens(campaign: Campaign, count: int) -> range:
    """Write up to ``count`` PRWS screens chosen by EASL (``core.active.select_prws_screen``: first every candidate
    once, then the candidates of the highest Beta variance with partners of similar mean) after the campaign's
    last; returns their numbers. A candidate on a screen waiting for a judgment, or chosen for this batch, does not
    lead a screen again until it has been rated (it may still be a partner, so that every lead has partners and the
    first pass is never put off). All or nothing, under the campaign's lock."""
    _check_request(campaign, count, Campaign.Mode.PRWS, "EASL screens are for PRWS campaigns")
    with transaction.atomic():
        lock_campaign(campaign)
        rng = campaign_rng(campaign, "active", next_screen_number(campaign))
        segment_ids, multiplicities = kept_multiplicities(campaign)
        sizes = np.fromiter(map(len, multiplicities), dtype=np.int64, count=len(multiplicities))
        offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
        beliefs, available = _prws_beliefs(campaign, offsets, {pk: i for i, pk in enumerate(segment_ids)})
        plans = easl_plans(beliefs, available, sizes, campaign.max_candidates, rng, count)
        return write_screens(campaign, segment_ids, shown_candidates(segment_ids, multiplicities, plans), plans)


def easl_plans(beliefs: CandidateBeliefs, available: np.ndarray, sizes: np.ndarray, max_candidates: int,
               rng: np.random.Generator, count: int) -> list[ScreenPlan]:
    """Up to ``count`` EASL screens (``core.active.select_prws_screen``) over the candidates of sentences of
    ``sizes`` candidates each, numbered sentence by sentence: ``beliefs`` and ``available`` (which may lead a screen;
    changed in place as screens are chosen) per candidate. Only candidates of a sentence with at least
    ``MIN_RANKABLE_CANDIDATES`` lead a screen or partner one."""
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    candidate_sentence = np.repeat(np.arange(sizes.size), sizes)
    rankable = sizes[candidate_sentence] >= MIN_RANKABLE_CANDIDATES
    available &= rankable
    plans: list[ScreenPlan] = []
    while len(plans) < count:
        shown = select_prws_screen(beliefs, offsets, candidate_sentence, max_candidates, rng, available,
                                   partners=rankable)
        if shown.size == 0:
            break
        available[shown] = False
        sentence = int(candidate_sentence[shown[0]])
        plans.append(ScreenPlan(segment=sentence, candidates=tuple(int(c - offsets[sentence]) for c in shown)))
    return plans
