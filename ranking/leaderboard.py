"""The live leaderboard of the organizer's dashboard: Expected Wins over all judgments so far, and its history.

The leaderboard ranks the systems by Expected Wins with bootstrap rank ranges and clusters (G15 §5.1-5.2, METHODS
5, 7) over every ranking analysed so far, computed on request (a bootstrap of the win counts costs milliseconds,
``core.win_counts``), never as a queued job. Its history has one checkpoint per ``HISTORY_STEP`` rankings: the
full-data Expected Wins scores at that point, and the number of system pairs the bootstrap ranges separate, so the
organizer sees the ranking converge. The stopping hint says whether the clusters stayed the same over the last K
rankings of the history. Each unresolved pair (overlapping rank ranges) comes with an estimate of the judgments
its separation still needs at the campaign's rate of comparing it (``core.separation``; ``more_judgments``).

"Rankings analysed" are the judgments the analysis reads (``loading``): a flagged screen counts as a skipped
ranking (G15 Table 1); judgments of excluded screens do not count. A PRWS campaign is ranked on the relative
judgments of its scores, from the raters who pass the quality check (``core.prws.qualified_rankings``), as its
analysis is. The judgments rater QC leaves out (``annotation.services.rater_qc.analysis_exclusions``: excluded
raters, earlier attempts) are left out as in the analysis; a change of those exclusions rebuilds the counts.

Cost: a campaign's outcome counts (``LiveCounts``, small) and its checkpoints (``History``) stay in Django's cache
as two entries. A request loads only the judgments stored since (``loading.load_rankings(after=...)``) and adds
their counts, touching the checkpoints only when it crosses a multiple of ``HISTORY_STEP``. A judgment that
committed late (after one of a higher id was counted, as concurrent submits do) is counted by reading again the
judgments since the reads that completed the newest checkpoint (``Tail``), in id order, as a rebuild reads them.
When judgments were deleted (a judge's undo), a late one precedes that point, a screen was excluded or put back,
or the cache is cold, everything is rebuilt from all judgments (a checkpoint whose counts did not change keeps its
bootstrap). The leaderboard itself is cached by the
data's version (``DataVersion``: last judgment id, number of judgments and sum of their ids, excluded screens), so
polling an unchanged campaign costs two aggregate queries. A checkpoint's bootstrap is computed once; the history
request computes the missing ones for at most ``HISTORY_BUDGET_SECONDS`` (most useful first: the newest, which
the stopping hint needs, then the whole curve coarse to fine) and says how many are still missing.

Undefined values are ``None`` with a ``reason`` beside them (no pairwise judgment yet, fewer than two systems, or
every judgment so far is one rater QC leaves out); in that last case ``rater_qc_url`` is the campaign's rater QC
page, where the organizer decides on the raters.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.core.cache import cache
from django.db.models import Count, Max, Sum
from django.urls import reverse

from annotation.models import Assignment, Campaign, Judgment, RaterStatus, Screen
from annotation.services.kept_tallies import (
    ATTEMPTS,
    Held,
    Stored,
    SubmittedSlots,
    judgments_after,
    one_snapshot,
    recent_ids,
    stored_since,
    unchanged,
)
from annotation.services.rater_qc import QcExclusions, analysis_exclusions

if TYPE_CHECKING:
    import numpy as np

    from .core.bootstrap import RankedSystem, RankingResult
    from .core.rankings import Rankings

LEADERBOARD_BOOTSTRAP = 1000
"""Bootstrap samples of the live leaderboard (as the analysis's default)."""
HISTORY_BOOTSTRAP = 200
"""Bootstrap samples of each history checkpoint (fewer than the leaderboard's: there can be a thousand checkpoints)."""
CONFIDENCE = 0.95
HISTORY_STEP = 100
"""One history checkpoint per this many rankings analysed."""
STOPPING_K = 200
"""Default K of the stopping hint: clusters unchanged over the last K rankings."""
HISTORY_BUDGET_SECONDS = 0.25
"""Most time one history request spends on checkpoints' bootstraps; the rest are computed by the next requests."""
HISTORY_DECIMALS = 4
"""Decimals of a checkpoint's scores in the history (the chart, and the table's three): the dashboard fetches the
history on every poll while checkpoints are computed, and at 2,000 checkpoints of 50 systems the scores in full
were 2.1 MB a poll."""
STATE_SECONDS = 24 * 3600
"""How long a campaign's counts stay cached without a request."""
NO_PAIRS = "no pairwise judgment yet"
NOT_COMPARED = "not compared with another system yet"
QC_EXCLUDED_ONLY = "the judgments so far are all from raters whom rater QC excluded"
QC_LEFT_OUT_ONLY = ("the judgments so far are all ones rater QC leaves out: from raters it excluded, or from attempts "
                    "before a fresh one")
TOO_FEW_SYSTEMS = "fewer than two systems to rank"


@dataclass(frozen=True)
class DataVersion:
    """What the leaderboard depends on, read from one index (``Assignment``'s ``assignment_submitted``): the number
    and id sum of the campaign's submitted slots (each holds one judgment) and the time of the last submit, and a
    digest of its excluded screens and of the organizer's rater QC decisions (``RaterStatus``). A submit, an undo
    (the slot leaves ``submitted``), an undo submitted again (a later submit), an exclusion and a rater decision
    change it; so do deleted screens, not edits of judgments in Django's admin."""

    submitted: int
    slot_sum: int
    last_submit: str | None
    excluded: str
    excluded_screens: int

    @property
    def key(self) -> str:
        return f"{self.submitted}-{self.slot_sum}-{self.last_submit}-{self.excluded}"


@dataclass(frozen=True)
class CheckpointRanking:
    """The bootstrap at a checkpoint: how many system pairs its rank ranges separate, and its clusters."""

    separated: int
    partition: tuple[int, ...]


@dataclass
class Checkpoint:
    """The first ``rankings`` rankings: full-data Expected Wins (None without pairs) and, once computed, the
    bootstrap ranking; ``digest`` names their outcome counts (S x S x 3). ``step`` is what its last
    ``HISTORY_STEP`` rankings added to those counts, in the smallest unsigned type that holds it (a ranking adds at
    most 1 to a cell, so 8 bits): ``History.counts`` adds the steps up, and a history holds S x S x 3 bytes a
    checkpoint, not the 8-byte counts of each."""

    rankings: int
    digest: str
    scores: list[float] | None
    step: np.ndarray
    ranking: CheckpointRanking | None = None


@dataclass(frozen=True)
class Tail:
    """``LiveCounts`` as they stood before the reads that completed their newest checkpoint: ``after`` their last
    judgment id then, and what they held. A judgment that commits late with an id above ``after`` is counted by
    reading the judgments after ``after`` again in id order, as a rebuild from all judgments reads them (the
    checkpoints since are then those of a rebuild), rather than by reading all judgments."""

    after: int
    judgments: int
    slot_sum: int
    rankings: int
    counts: np.ndarray | None
    since_checkpoint: np.ndarray | None


@dataclass
class LiveCounts:
    """A campaign's outcome counts of its judgments up to id ``last_id``: ``judgments`` of them, of slots whose ids
    sum to ``slot_sum``, the last submitted at ``last_submit``; ``rankings`` of them analysed, without the judgments
    rater QC left out (``qc`` names those exclusions). ``token`` names the ``History`` built with them."""

    names: tuple[str, ...]
    excluded: str
    token: str
    qc: str = ""
    last_id: int | None = None
    judgments: int = 0
    slot_sum: int = 0
    last_submit: str | None = None
    rankings: int = 0
    counts: np.ndarray | None = None
    since_checkpoint: np.ndarray | None = None
    """The part of ``counts`` added since the last checkpoint (the next checkpoint's step so far)."""
    raters: list[dict] | None = None
    recent: tuple[int, ...] = ()
    """The ids of the last ``kept_tallies.RECENT`` judgments counted, where late commits are looked for."""
    tail: Tail | None = None
    counted: bool = True
    """False for counts read while judgments changed under the reads (``kept_tallies.unchanged``): shown once,
    never cached."""

    def at(self, version: DataVersion) -> bool:
        """Whether these are the counts of ``version``."""
        return (self.judgments, self.slot_sum, self.last_submit, self.excluded) == (
            version.submitted, version.slot_sum, version.last_submit, version.excluded)

    @property
    def held(self) -> Held:
        """The judgments counted, as the kept tallies name them."""
        return Held(last_id=self.last_id or 0, count=self.judgments, slot_sum=self.slot_sum, recent=self.recent)

    def hold(self, campaign: Campaign, stored: Stored, n: int, total: int) -> None:
        """Count ``n`` more judgments, whose slots' ids sum to ``total``: those ``stored`` since."""
        self.recent = recent_ids(campaign, self.held, stored)
        self.last_id = stored.after["last"] or None
        self.judgments, self.slot_sum = self.judgments + n, self.slot_sum + total


@dataclass
class History:
    """The checkpoints of the ``LiveCounts`` with the same ``token``: one per ``HISTORY_STEP`` of its rankings."""

    token: str
    checkpoints: list[Checkpoint] = field(default_factory=list)

    def matches(self, state: LiveCounts) -> bool:
        return self.token == state.token and len(self.checkpoints) == state.rankings // HISTORY_STEP

    def counts(self, index: int) -> np.ndarray:
        """The outcome counts (int64) of the rankings up to checkpoint ``index``: the sum of the steps so far."""
        import numpy as np

        total = np.zeros(self.checkpoints[index].step.shape, dtype=np.int64)
        for point in self.checkpoints[:index + 1]:
            total += point.step
        return total


def data_version(campaign: Campaign) -> DataVersion:
    """The campaign's data version (two queries on partial indexes, whatever the campaign's size, and one of the
    campaign's rater decisions)."""
    slots = Assignment.objects.filter(campaign=campaign, status=Assignment.Status.SUBMITTED).aggregate(
        n=Count("id"), sum=Sum("id"), last=Max("submitted_at")
    )
    excluded = list(
        Screen.objects.filter(campaign=campaign, excluded=True).order_by("id").values_list("id", flat=True)
    )
    decisions = list(RaterStatus.objects.filter(campaign=campaign).order_by("judge_id").values_list(
        "judge_id", "decision", "attempt_after"))
    digest = hashlib.sha256(f"{excluded};{decisions}".encode()).hexdigest()[:16]
    last = slots["last"].isoformat() if slots["last"] else None
    return DataVersion(slots["n"], slots["sum"] or 0, last, digest, len(excluded))


def _cache_key(campaign: Campaign, what: str) -> str:
    return f"live-ranking:{what}:{campaign.pk}:{campaign.created_at.timestamp()}"


def _digest(counts: np.ndarray) -> str:
    return hashlib.sha1(counts.astype("<i8").tobytes()).hexdigest()


def _rankings(
    campaign: Campaign, after: int | None, up_to: int | None, qc: QcExclusions
) -> tuple[Rankings, list[dict] | None]:
    """The rankings analysed among the judgments with ids in (after, up_to], without those rater QC leaves out
    (``qc``, as the analysis does); a PRWS campaign's always from the start, with each rater's Source+error check
    (``rater_checks``, against the campaign's ``qc_control_threshold``) and the raters rater QC excluded left out."""
    from .core.prws import qualified_rankings, rater_quality
    from .loading import load_rankings, load_scores

    if campaign.mode == Campaign.Mode.PRWS:
        scores = load_scores(campaign, up_to=up_to, excluded_ranges=qc.earlier)
        excluded = [rater["rater"] for rater in qc.summary["excluded"]]
        threshold = campaign.qc_control_threshold
        return (
            qualified_rankings(scores, threshold=threshold, excluded=excluded),
            rater_checks(rater_quality(scores, threshold=threshold, excluded=excluded)),
        )
    return load_rankings(campaign, up_to=up_to, after=after, excluded_ranges=qc.earlier + qc.excluded), None


def analysed_rankings(campaign: Campaign, after: int | None, up_to: int | None) -> Rankings:
    """The rankings the leaderboard counts among the judgments with ids in (after, up_to] (``_rankings``)."""
    return _rankings(campaign, after, up_to, analysis_exclusions(campaign))[0]


def rater_checks(quality) -> list[dict]:
    """A PRWS campaign's Source+error check per rater (N19 §4.3, METHODS 11; ``core.prws.RaterQuality``): screens
    showing both, how many scored Source+error lower, the rate (None without such screens) and the exclusion."""
    return [
        {
            "judge": judge,
            "screens": int(quality.screens[j]),
            "passed": int(quality.passed[j]),
            "rate": float(quality.rate[j]) if quality.screens[j] else None,
            **({} if quality.screens[j] else {"reason": "no screen showed both Source and Source+error"}),
            "excluded": bool(quality.excluded[j]),
        }
        for j, judge in enumerate(quality.judge_names)
    ]


def _extend(state: LiveCounts, rankings: Rankings, previous: dict[tuple[int, str], CheckpointRanking]
            ) -> list[Checkpoint]:
    """Add ``rankings`` (the next ones after ``state``'s) to ``state``; return the checkpoints they complete, one
    per multiple of ``HISTORY_STEP``, with the bootstrap of ``previous`` where their counts are the same."""
    import numpy as np

    from .core.expected_wins import counts_expected_wins
    from .core.win_counts import step_counts

    start = state.rankings
    first = (start // HISTORY_STEP + 1) * HISTORY_STEP
    ends = list(range(first - start, rankings.n_rankings + 1, HISTORY_STEP))
    steps = step_counts(rankings, [*ends, rankings.n_rankings])
    at = np.zeros_like(steps[0]) if state.counts is None else state.counts
    step = np.zeros_like(steps[0]) if state.since_checkpoint is None else state.since_checkpoint
    checkpoints = []
    for end, added in zip(ends, steps):
        n = start + end
        at, step = at + added, step + added
        digest = _digest(at)
        scores = None
        if len(state.names) >= 2 and at.sum() > 0:
            scores = [float(x) for x in counts_expected_wins(at)]
        compact = step.astype(np.min_scalar_type(int(step.max())))
        checkpoints.append(Checkpoint(n, digest, scores, compact, previous.get((n, digest))))
        step = np.zeros_like(step)
    state.counts, state.since_checkpoint = at + steps[-1], step + steps[-1]
    state.rankings = start + rankings.n_rankings
    return checkpoints


def live_counts(campaign: Campaign, version: DataVersion, rebuild: bool = False) -> LiveCounts:
    """The campaign's counts at ``version`` (or later): the cached ones, extended by the judgments stored since,
    or rebuilt from all judgments (always with ``rebuild``). Keeps the cached ``History`` in step; caches only
    ``counted`` counts. Reads in one snapshot (``kept_tallies.one_snapshot``)."""
    with one_snapshot():
        return _live_counts(campaign, version, rebuild)


def _live_counts(campaign: Campaign, version: DataVersion, rebuild: bool) -> LiveCounts:
    from .loading import contestant_names

    state: LiveCounts | None = cache.get(_cache_key(campaign, "counts"))
    if not rebuild and state is not None and state.at(version):
        return state
    names = tuple(contestant_names(campaign))
    qc = analysis_exclusions(campaign)
    qc_digest = hashlib.sha256(repr((qc.earlier, qc.excluded)).encode()).hexdigest()[:16]
    extensible = (
        not rebuild and state is not None and state.excluded == version.excluded and state.names == names
        and state.qc == qc_digest and campaign.mode != Campaign.Mode.PRWS
    )
    stored = None
    if extensible:
        stored = stored_since(campaign, state.held, SubmittedSlots(version.submitted, version.slot_sum))
    if stored is None or not _add(campaign, state, stored, qc):
        state = _rebuilt(campaign, names, version.excluded, qc, qc_digest)
    if (state.judgments, state.slot_sum) == (version.submitted, version.slot_sum):
        state.last_submit = version.last_submit
    if state.counted:
        cache.set(_cache_key(campaign, "counts"), state, STATE_SECONDS)
    return state


def _add(campaign: Campaign, state: LiveCounts, stored: Stored, qc: QcExclusions) -> bool:
    """Add the judgments ``stored`` since ``state`` (``kept_tallies.stored_since``) to it and its history: the new
    ones after its last id, or with judgments that committed late, the ``Tail`` read again. False, with nothing
    added, when those judgments changed while they were read (``unchanged``), or a late one precedes the tail."""
    if stored.late:
        return _recount_tail(campaign, state, stored, qc)
    added = stored.after
    if not added["n"]:
        return True
    rankings, raters = _rankings(campaign, state.last_id, added["last"], qc)
    if not unchanged(campaign, state.last_id or 0, added):
        return False
    before = Tail(state.last_id or 0, state.judgments, state.slot_sum, state.rankings, state.counts,
                  state.since_checkpoint)
    checkpoints = _extend(state, rankings, {})
    state.raters, state.tail = raters, before if checkpoints else state.tail
    state.hold(campaign, stored, added["n"], added["sum"])
    history_key = _cache_key(campaign, "history")
    history: History | None = cache.get(history_key) if checkpoints else None
    if history is not None and history.token == state.token:
        history.checkpoints.extend(checkpoints)
        cache.set(history_key, history, STATE_SECONDS)
    return True


def _recount_tail(campaign: Campaign, state: LiveCounts, stored: Stored, qc: QcExclusions) -> bool:
    """Count the judgments ``stored`` since ``state``, some of which committed late, by reading again those after
    its ``Tail`` (``_add``): the counts and the checkpoints since the tail become those a rebuild gives, and a
    checkpoint whose counts did not change keeps its bootstrap."""
    tail = state.tail
    if tail is None or stored.late[0] <= tail.after:
        return False
    last = stored.after["last"]
    new, new_sum = len(stored.late) + stored.after["n"], stored.late_sum + stored.after["sum"]
    since_tail = {"n": state.judgments - tail.judgments + new, "sum": state.slot_sum - tail.slot_sum + new_sum,
                  "last": last}
    rankings, raters = _rankings(campaign, tail.after, last, qc)
    if not unchanged(campaign, tail.after, since_tail):
        return False
    history_key = _cache_key(campaign, "history")
    history: History | None = cache.get(history_key)
    matching = history is not None and history.token == state.token
    previous = {(c.rankings, c.digest): c.ranking for c in history.checkpoints if c.ranking} if matching else {}
    state.rankings, state.counts, state.since_checkpoint = tail.rankings, tail.counts, tail.since_checkpoint
    checkpoints = _extend(state, rankings, previous)
    state.raters = raters
    state.hold(campaign, stored, new, new_sum)
    if matching:
        history.checkpoints[tail.rankings // HISTORY_STEP:] = checkpoints
        cache.set(history_key, history, STATE_SECONDS)
    return True


def _rebuilt(campaign: Campaign, names: tuple[str, ...], excluded: str, qc: QcExclusions, qc_digest: str
             ) -> LiveCounts:
    """New counts and history from all the campaign's judgments (read again, at most ``ATTEMPTS`` times, while
    judgments change under the reads: ``LiveCounts.counted``); checkpoints keep the bootstrap of the cached history
    where their counts did not change."""
    import uuid

    history_key = _cache_key(campaign, "history")
    old: History | None = cache.get(history_key)
    previous = {(c.rankings, c.digest): c.ranking for c in old.checkpoints if c.ranking} if old else {}
    for _ in range(ATTEMPTS):
        totals = judgments_after(campaign, 0)
        rankings, raters = _rankings(campaign, None, totals["last"], qc)
        counted = unchanged(campaign, 0, totals)
        if counted:
            break
    state = LiveCounts(names=names, excluded=excluded, token=uuid.uuid4().hex, qc=qc_digest, raters=raters,
                       counted=counted)
    state.hold(campaign, Stored((), 0, totals, 0), totals["n"], totals["sum"])
    cache.set(history_key, History(state.token, _extend(state, rankings, previous)), STATE_SECONDS)
    return state


def live_history(campaign: Campaign, version: DataVersion) -> tuple[LiveCounts, History]:
    """The campaign's counts and checkpoints at ``version``, rebuilt when the cached checkpoints are not those of
    the counts (evicted, or overwritten by a concurrent request)."""
    state = live_counts(campaign, version)
    history: History | None = cache.get(_cache_key(campaign, "history"))
    if history is None or not history.matches(state):
        state = live_counts(campaign, version, rebuild=True)
        history = cache.get(_cache_key(campaign, "history"))
    return state, history


def _number(value: float) -> float | None:
    """A finite float, or None (the caller gives the reason)."""
    import math

    return float(value) if math.isfinite(value) else None


def _rng(campaign: Campaign, *extra: int):
    """The campaign's ``live`` random stream; checkpoints add their number of rankings as a key."""
    from annotation.random_streams import campaign_rng

    return campaign_rng(campaign, "live", *extra)


def _reason(campaign: Campaign, state: LiveCounts) -> str | None:
    """Why the leaderboard has no ranking (None when it has one)."""
    if len(state.names) < 2:
        return TOO_FEW_SYSTEMS
    if state.counts is None or state.counts.sum() == 0:
        return _rater_qc_reason(campaign, state) or NO_PAIRS
    return None


def _rater_qc_reason(campaign: Campaign, state: LiveCounts) -> str | None:
    """``QC_EXCLUDED_ONLY`` when every judgment of ``state`` is of a rater rater QC excludes now (their current
    attempt), ``QC_LEFT_OUT_ONLY`` when every one is that or of an attempt before a fresh one; None when some
    judgment is neither, or there is none."""
    from .loading import without_ranges

    if not state.judgments:
        return None
    qc = analysis_exclusions(campaign)
    judgments = Judgment.objects.filter(assignment__campaign=campaign, id__lte=state.last_id)
    if not without_ranges(judgments, qc.excluded).exists():
        return QC_EXCLUDED_ONLY
    if not without_ranges(judgments, qc.earlier + qc.excluded).exists():
        return QC_LEFT_OUT_ONLY
    return None


def _snapshot(state: LiveCounts, version: DataVersion) -> dict:
    return {
        "judgments": state.judgments,
        "rankings": state.rankings,
        "last_judgment_id": state.last_id,
        "excluded_screens": version.excluded_screens,
    }


def _ranked_rows(state: LiveCounts, result: RankingResult) -> tuple[list[dict], list[list[str]]]:
    """The leaderboard's rows in rank order and the unresolved pairs."""
    from .core.win_counts import unresolved_pairs

    unresolved = unresolved_pairs(result)
    overlapping: dict[str, list[str]] = {name: [] for name in state.names}
    for a, b in unresolved:
        overlapping[a].append(b)
        overlapping[b].append(a)
    compared = _pairs_per_system(state)
    rows = [
        {
            "system": row.system,
            "score": _number(row.score),
            "full_data_score": _number(row.full_data_score),
            "range": list(row.range) if row.ranked else None,
            "cluster": row.cluster,
            "pairs": compared[row.system],
            "unresolved_with": overlapping[row.system],
            **({} if row.ranked else {"reason": _unranked_reason(row, result)}),
        }
        for row in result.systems
    ]
    return rows, [list(pair) for pair in unresolved]


def _unranked_reason(row: RankedSystem, result: RankingResult) -> str:
    """Why a system of the leaderboard has no rank range (nor, if never compared, a score): the analysis's reasons
    (``contract``)."""
    from .contract import FEW_SAMPLES, SAMPLES_COMPARE

    if not row.judged:
        return NOT_COMPARED
    return FEW_SAMPLES.format(n=row.samples, total=f"{result.n_samples:,}", confidence=result.confidence,
                              rule=SAMPLES_COMPARE)


def _pairs_per_system(state: LiveCounts) -> dict[str, int]:
    """How many expanded pairs (ties included) each system is in."""
    per_pair = state.counts.sum(axis=-1)
    return {name: int(per_pair[i].sum() + per_pair[:, i].sum()) for i, name in enumerate(state.names)}


def _more_judgments(state: LiveCounts, unresolved: list[list[str]]) -> dict:
    """How many more judgments the unresolved pairs need (``core.separation``): each pair's estimate, and ``all``,
    the largest of them (None with a reason when no pair has one)."""
    from .core.separation import CONFIDENCE, POWER, more_judgments

    index = {name: i for i, name in enumerate(state.names)}
    estimates = more_judgments(state.counts, [(index[a], index[b]) for a, b in unresolved], state.rankings)
    known = [estimate.judgments for estimate in estimates if estimate.judgments is not None]
    reason = None if known else ("every pair is separated" if not estimates else "no unresolved pair has an estimate")
    return {
        "confidence": CONFIDENCE,
        "power": POWER,
        "all": max(known) if known else None,
        "reason": reason,
        "without_estimate": len(estimates) - len(known),
        "pairs": [
            {"pair": [state.names[e.first], state.names[e.second]], "judgments": e.judgments, "reason": e.reason}
            for e in estimates
        ],
    }


def compute_leaderboard(campaign: Campaign, state: LiveCounts, version: DataVersion) -> dict:
    """The leaderboard JSON of ``state`` (see the module docstring); a PRWS campaign's adds its raters' checks."""
    from .core.win_counts import expected_wins_ranking

    n_pairs = len(state.names) * (len(state.names) - 1) // 2
    result = {
        "snapshot": _snapshot(state, version),
        "parameters": {"method": "expected_wins", "bootstrap": LEADERBOARD_BOOTSTRAP, "confidence": CONFIDENCE,
                       "seed": campaign.seed},
        "reason": _reason(campaign, state),
    }
    if result["reason"] in (QC_EXCLUDED_ONLY, QC_LEFT_OUT_ONLY):
        result["rater_qc_url"] = reverse("campaign-raters", args=[campaign.pk])
    if state.raters is not None:
        result["raters"] = {"threshold": campaign.qc_control_threshold, "checks": state.raters}
    if result["reason"] is not None:
        empty = {"score": None, "full_data_score": None, "range": None, "cluster": None, "unresolved_with": []}
        pairs = _pairs_per_system(state) if state.counts is not None else {}
        result["systems"] = [{"system": name, **empty, "pairs": pairs.get(name, 0)} for name in state.names]
        result["system_pairs"] = {"total": n_pairs, "separated": None, "unresolved": [], "reason": result["reason"],
                                  "more_judgments": None}
        return result
    ranking = expected_wins_ranking(state.counts, state.names, LEADERBOARD_BOOTSTRAP, CONFIDENCE, _rng(campaign))
    rows, unresolved = _ranked_rows(state, ranking)
    result["systems"] = rows
    result["system_pairs"] = {"total": n_pairs, "separated": n_pairs - len(unresolved), "unresolved": unresolved,
                              "more_judgments": _more_judgments(state, unresolved)}
    return result


def leaderboard(campaign: Campaign) -> dict:
    """The campaign's live leaderboard, from the cache while its data are unchanged. A leaderboard is cached under
    its data version only when its counts are that version's: counts that took in judgments committed after the
    version was read would otherwise answer for it again once those are undone."""
    version = data_version(campaign)
    key = _cache_key(campaign, "leaderboard")
    cached = cache.get(key)
    if cached is not None and cached[0] == version.key:
        return cached[1]
    state = live_counts(campaign, version)
    result = compute_leaderboard(campaign, state, version)
    if state.counted and state.at(version):
        cache.set(key, (version.key, result), STATE_SECONDS)
    return result


def fill_order(n: int, recent: int) -> list[int]:
    """Checkpoint indices 0..n-1, most useful first: the last ``recent`` (newest first), then the rest coarse to
    fine (every 2^k-th checkpoint, halving k), so that a partly computed history already spans the whole range."""
    order = list(range(n - 1, max(n - recent, 0) - 1, -1))
    seen = set(order)
    stride = 1 << max(n.bit_length() - 1, 0)
    while stride >= 1:
        for index in range(stride - 1, n, stride):
            if index not in seen:
                order.append(index)
                seen.add(index)
        stride //= 2
    return order


def _compute_checkpoints(campaign: Campaign, state: LiveCounts, history: History, k: int, budget: float) -> bool:
    """Bootstrap the missing checkpoints in ``fill_order`` until ``budget`` seconds have passed (at least one);
    return whether any was computed."""
    from .core.win_counts import cluster_partition, expected_wins_ranking, unresolved_pairs

    deadline = time.perf_counter() + budget
    n_pairs = len(state.names) * (len(state.names) - 1) // 2
    changed = False
    for index in fill_order(len(history.checkpoints), k // HISTORY_STEP + 1):
        point = history.checkpoints[index]
        if point.ranking is not None or point.scores is None:
            continue
        if changed and time.perf_counter() > deadline:
            break
        result = expected_wins_ranking(history.counts(index), state.names, HISTORY_BOOTSTRAP, CONFIDENCE,
                                       _rng(campaign, point.rankings))
        point.ranking = CheckpointRanking(
            n_pairs - len(unresolved_pairs(result)), cluster_partition(result, state.names)
        )
        changed = True
    return changed


def stopping_hint(history: History, k: int) -> dict:
    """Whether the clusters stayed the same over the last ``k`` rankings of the history (its newest checkpoints)."""
    from .core.win_counts import stable_since

    hint = {"k": k, "met": False, "stable_since": None, "stable_for": None, "reason": None}
    trailing = []
    for point in reversed(history.checkpoints):
        if point.ranking is None:
            break
        trailing.append(point)
    trailing.reverse()
    if not history.checkpoints or history.checkpoints[-1].scores is None:
        hint["reason"] = (f"it compares the clusters at every {HISTORY_STEP}th ranking with pairwise judgments, and "
                          "there is none yet")
    elif not trailing:
        hint["reason"] = "the newest checkpoint is still being computed"
    else:
        since = stable_since([p.rankings for p in trailing], [p.ranking.partition for p in trailing])
        hint.update(stable_since=since, stable_for=trailing[-1].rankings - since)
        hint["met"] = hint["stable_for"] >= k
    return hint


def history(campaign: Campaign, k: int = STOPPING_K, budget: float = HISTORY_BUDGET_SECONDS) -> dict:
    """The campaign's history (one checkpoint per ``HISTORY_STEP`` rankings) and stopping hint for ``k``."""
    version = data_version(campaign)
    state, history = live_history(campaign, version)
    if _compute_checkpoints(campaign, state, history, k, budget):
        cache.set(_cache_key(campaign, "history"), history, STATE_SECONDS)
    points = [
        {
            "rankings": point.rankings,
            "scores": None if point.scores is None else [round(value, HISTORY_DECIMALS) for value in point.scores],
            "separated_pairs": point.ranking.separated if point.ranking else None,
            **({"reason": NO_PAIRS} if point.scores is None else {}),
        }
        for point in history.checkpoints
    ]
    pending = sum(1 for point in history.checkpoints if point.ranking is None and point.scores is not None)
    return {
        "snapshot": _snapshot(state, version),
        "parameters": {"step": HISTORY_STEP, "bootstrap": HISTORY_BOOTSTRAP, "confidence": CONFIDENCE,
                       "seed": campaign.seed},
        "systems": list(state.names),
        "system_pairs": len(state.names) * (len(state.names) - 1) // 2,
        "points": points,
        "pending": pending,
        "stopping": stopping_hint(history, k),
    }
