"""The one place that turns a campaign's database rows into the analysis core's arrays.

Judgments are read in the order they were stored. Systems of kind ``control`` (attention checks, METHODS 11)
are quality-control outputs, not contestants: they are dropped from every candidate, and a candidate produced by
control systems only is dropped from its ranking. Flagged screens become skipped rankings (no candidates), as
``skipped="true"`` items are in Appraise XML. Screens the organizer excluded (``Screen.excluded``) are left out
with all their judgments. Training answers are not Judgments and never reach here. The judgments of the
``ignored_judges`` (an analysis parameter; by default ``admin``, METHODS 3) are left out and counted in the
snapshot.

PRWS campaigns (METHODS 11) are read by ``load_scores``: every scored candidate with all its systems, the systems
of kind ``input`` as *Source* and those of kind ``control`` as *Source+error* for the raters' quality check.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np
from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import Count, Q, QuerySet

from annotation.models import CandidateJudgment, Judgment, JudgmentSnapshot, System
from annotation.services.outputs import (
    batched,
    campaign_outputs,
    candidate_systems,
    shared_system_tuples,
    streamed_by_judgment,
)

from .core.parameters import IGNORED_JUDGES
from .core.rankings import RankingItem, Rankings

if TYPE_CHECKING:
    from .core.prws import Scores

#: Judgments rater QC leaves out: ``(username, after, up_to)``, the judge's judgment ids in ``(after, up_to]``.
ExcludedRange = tuple[str, int | None, int | None]


@dataclass(frozen=True)
class Snapshot:
    """What data an analysis saw: enough to tell whether it is still current and to recompute it. ``ignored``
    counts the judgments of the ignored judges, which the analysis leaves out."""

    judgments: int
    last_judgment_at: str | None
    last_judgment_id: int | None
    ignored: dict[str, int]


def campaign_snapshot(
    campaign, ignored_judges: Collection[str] = IGNORED_JUDGES, up_to: int | None = None
) -> Snapshot:
    """The number of judgments of ``campaign`` (with an id up to ``up_to``, if given), the time of the last one, the
    highest judgment id (the snapshot the raw downloads name too, ``JudgmentQuerySet.snapshot``), and the number of
    judgments by each of the ``ignored_judges`` who judged, up to that id."""
    judgments = Judgment.objects.of_campaign(campaign)
    if up_to is not None:
        judgments = judgments.filter(id__lte=up_to)
    taken = judgments.snapshot()
    by_ignored = judgments.up_to(taken).filter(assignment__judge__username__in=list(ignored_judges))
    ignored = dict(by_ignored.values_list("assignment__judge__username").annotate(Count("id")).order_by())
    at = taken.last_judgment_at
    return Snapshot(taken.judgments, at.isoformat() if at else None, taken.last_judgment_id, ignored)


def contestant_names(campaign) -> list[str]:
    """The campaign's systems that are ranked: every kind but ``control``."""
    return list(
        System.objects.filter(campaign=campaign).exclude(kind=System.Kind.CONTROL).order_by("name")
        .values_list("name", flat=True)
    )


def selected_judgments(
    campaign, up_to: int | None = None, judge: str | None = None, after: int | None = None,
    ignored_judges: Collection[str] = IGNORED_JUDGES, excluded_ranges: Sequence[ExcludedRange] = (),
) -> QuerySet[Judgment]:
    """The campaign's judgments with an id up to ``up_to`` (a snapshot's ``last_judgment_id``) and above ``after``,
    of ``judge`` if given; never those of screens the organizer excluded (``Screen.excluded``), nor those of the
    ``ignored_judges``, nor those rater QC excluded (``excluded_ranges``: ``(username, after, up_to)``, the judge's
    judgments with an id in ``(after, up_to]``, None unbounded; ``annotation.services.rater_qc``)."""
    judgments = without_ranges(
        Judgment.objects.filter(assignment__screen__campaign=campaign, assignment__screen__excluded=False)
        .exclude(assignment__judge__username__in=list(ignored_judges)),
        excluded_ranges,
    )
    if up_to is not None:
        judgments = judgments.filter(id__lte=up_to)
    if after is not None:
        judgments = judgments.filter(id__gt=after)
    if judge is not None:
        judgments = judgments.filter(assignment__judge__username=judge)
    return judgments


def _in_range(username: str, lower: int | None, upper: int | None) -> Q:
    """The judgments of ``username`` with an id in ``(lower, upper]`` (None unbounded)."""
    bounds = Q(assignment__judge__username=username)
    if lower is not None:
        bounds &= Q(id__gt=lower)
    if upper is not None:
        bounds &= Q(id__lte=upper)
    return bounds


def without_ranges(judgments: QuerySet[Judgment], ranges: Sequence[ExcludedRange]) -> QuerySet[Judgment]:
    """``judgments`` without those in any of the ``ranges`` (``(username, after, up_to)``, as rater QC gives
    them)."""
    for username, lower, upper in ranges:
        judgments = judgments.exclude(_in_range(username, lower, upper))
    return judgments


def systems_judged_in(
    campaign, ranges: Sequence[ExcludedRange], up_to: int | None = None, judge: str | None = None,
    ignored_judges: Collection[str] = IGNORED_JUDGES,
) -> frozenset[str]:
    """The contestants (``contestant_names``) shown in the judgments in ``ranges`` (``(username, after, up_to)``;
    rater QC's, which the analyses leave out), selected otherwise as ``selected_judgments`` selects (``up_to``,
    ``judge``, ``ignored_judges``, never an excluded screen's); flagged screens show none. Empty without ranges."""
    if not ranges:
        return frozenset()
    within = Q()
    for part in ranges:
        within |= _in_range(*part)
    judgments = selected_judgments(campaign, up_to, judge, ignored_judges=ignored_judges).filter(
        within, flag__isnull=True)
    judged = CandidateJudgment.objects.filter(judgment__in=judgments).values("candidate_id")
    contestants = set(contestant_names(campaign))
    return frozenset(name for names in candidate_systems(campaign, judged).values() for name in names
                     if name in contestants)


def _contestants_of(systems: Mapping[int, Sequence[str]], contestants: Collection[str]) -> dict[int, tuple[str, ...]]:
    """The ``contestants`` among the systems of each candidate of ``systems``, each distinct tuple held once."""
    kept: dict[tuple[str, ...], tuple[str, ...]] = {}
    shown = {}
    for candidate, names in systems.items():
        key = tuple(names)
        if key not in kept:
            kept[key] = tuple(name for name in key if name in contestants)
        shown[candidate] = kept[key]
    return shown


def _ranking_items(
    judgments: QuerySet[Judgment], systems: Mapping[int, Sequence[str]], chunk_size: int
) -> Iterator[RankingItem]:
    """``judgments`` as ``Rankings.from_items`` items, one at a time in stored order, a candidate named by its
    ``systems`` (without contestants, it is left out); a flagged judgment is a skipped ranking and a judgment
    neither flagged nor showing a candidate is no item. The judgments and their ranks are two queries merged by
    judgment id, streamed from the database ``chunk_size`` judgments at a time."""
    rows = judgments.order_by("id").values_list(
        "id", "assignment__judge__username", "assignment__screen__segment__line", "flag__id"
    )
    ranks = (
        CandidateJudgment.objects.filter(judgment__in=judgments).ranked().in_order()
        .values_list("judgment_id", "candidate_id", "rank")
    )
    streamed = streamed_by_judgment(rows, ranks, chunk_size)
    for (_, username, line, flag), own in streamed:
        shown = [] if flag is not None else [(systems[candidate], rank) for _, candidate, rank in own
                                             if systems[candidate]]
        if flag is not None or shown:
            yield username, line, shown


def load_rankings(
    campaign, up_to: int | None = None, judge: str | None = None, after: int | None = None,
    ignored_judges: Collection[str] = IGNORED_JUDGES, excluded_ranges: Sequence[ExcludedRange] = (),
) -> Rankings:
    """The campaign's ranking judgments as core ``Rankings`` (METHODS 3), one ranking per judgment in stored order:
    a flagged one as a skipped ranking, an unflagged one with its ranked candidates in the order shown (those of
    control systems only left out), or not at all when none is left.

    ``up_to`` keeps the judgments with an id up to it (a snapshot's ``last_judgment_id``), so that every part of
    one analysis sees the same data; ``judge`` keeps one judge's judgments; ``after`` keeps the judgments with a
    higher id (the new ones, for a leaderboard that adds them to what it has); ``ignored_judges`` and the
    ``excluded_ranges`` of rater QC are left out. Excluded screens are left out.

    Read as three queries, each streamed into arrays (``_chunks``: no row kept as an object) and joined with
    NumPy: the judgments, the contestants' outputs, and the judgments' ranked candidates. The outputs are those of
    the whole campaign (one scan of them costs less than finding the judged candidates a second time) or, ``after``
    an id, those of the judged candidates (a few new judgments read a few).
    """
    judgments = selected_judgments(campaign, up_to, judge, after, ignored_judges, excluded_ranges)
    ranked = CandidateJudgment.objects.filter(judgment__in=judgments).ranked()
    contestants = dict(System.objects.filter(campaign=campaign).exclude(kind=System.Kind.CONTROL)
                       .values_list("id", "name"))
    outputs = campaign_outputs(campaign, None if after is None else ranked.values("candidate_id"))
    ids, judges, lines, flagged, judge_names = _judgment_columns(judgments)
    candidates, candidate_set, system_sets = _system_sets(outputs, contestants)
    ranking, candidate_ranking, rank, shown_set = _shown_candidates(ranked, ids, flagged, candidates, candidate_set)
    return Rankings.from_codes(judge_names, judges[ranking], lines[ranking], candidate_ranking, rank, system_sets,
                               shown_set, system_names=sorted(contestants.values()))


#: How many rows the loaders take from the database's answer at a time.
LOADED_ROWS = 10_000


def _chunks(rows: QuerySet) -> Iterator[list[tuple]]:
    """The rows of ``rows`` (a ``values_list`` of fields without converters) in lists of ``LOADED_ROWS``, from a
    plain cursor: the driver holds the database's whole answer, in C, and Python turns ``LOADED_ROWS`` of its rows
    into objects at a time. Not ``QuerySet.iterator()``: PostgreSQL plans its server-side cursor for the first
    tenth of the rows (``cursor_tuple_fraction``), which took 2-3 times as long on 200,000 rankings, and its
    DECLARE, FETCH and CLOSE doubled the time of a load of a few new judgments. A query Django knows to match no
    row (a filter ``__in`` an empty list: a campaign without contestants) yields none."""
    try:
        sql, params = rows.query.sql_with_params()
    except EmptyResultSet:
        return
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(LOADED_ROWS):
            yield chunk


def _integer_rows(rows: QuerySet, width: int) -> np.ndarray:
    """The rows of ``rows`` (a ``values_list`` of ``width`` integer columns) as an (n, width) array."""
    values = chain.from_iterable(chain.from_iterable(_chunks(rows)))
    return np.fromiter(values, dtype=np.int64).reshape(-1, width)


def _judgment_columns(
    judgments: QuerySet[Judgment],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str | None]]:
    """The ``judgments`` in id order as arrays: ids, judge codes (indices into the judge names, the last item),
    segment lines and whether flagged."""
    codes: dict[str | None, int] = {}
    columns: list[list[np.ndarray]] = [[], [], [], []]
    for chunk in _chunks(judgments.order_by("id").values_list(
        "id", "assignment__judge__username", "assignment__screen__segment__line", "flag__id"
    )):
        pks, usernames, lines, flags = zip(*chunk)
        columns[0].append(np.array(pks, dtype=np.int64))
        columns[1].append(np.array([codes.setdefault(name, len(codes)) for name in usernames], dtype=np.int64))
        columns[2].append(np.array(lines, dtype=np.int64))
        columns[3].append(np.array([flag is not None for flag in flags], dtype=bool))
    ids, judges, lines, flagged = (
        np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
        for parts, dtype in zip(columns, (np.int64, np.int64, np.int64, bool))
    )
    return ids, judges, lines, flagged, list(codes)


def _system_sets(
    outputs: QuerySet, contestants: dict[int, str]
) -> tuple[np.ndarray, np.ndarray, list[tuple[str, ...]]]:
    """The contestants' systems of each candidate of ``outputs``: the candidate ids (ascending), the code of each
    one's set of systems, and the sets (names in order, each distinct set once). A candidate of control systems
    only has none and is not among them. Each set is found as a bit mask, a 64-bit word per 64 systems."""
    names = sorted(contestants.values())
    system_ids = np.array(sorted(contestants), dtype=np.int64)
    index_of_id = np.array([names.index(contestants[pk]) for pk in system_ids], dtype=np.int64)
    produced = _integer_rows(
        outputs.filter(system_id__in=list(contestants)).values_list("candidate_id", "system_id"), 2)
    if not produced.size:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), []
    candidate, system = produced[:, 0], index_of_id[np.searchsorted(system_ids, produced[:, 1])]
    order = np.lexsort((system, candidate))
    candidate, system = candidate[order], system[order]
    starts = np.flatnonzero(np.r_[True, candidate[1:] != candidate[:-1]])
    words = np.zeros((starts.size, -(-len(names) // 64)), dtype=np.uint64)
    bit = np.left_shift(np.uint64(1), (system % 64).astype(np.uint64))
    for word in range(words.shape[1]):
        words[:, word] = np.bitwise_or.reduceat(np.where(system // 64 == word, bit, np.uint64(0)), starts)
    order = np.lexsort(words.T)
    words = words[order]
    first = np.r_[True, np.any(words[1:] != words[:-1], axis=1)]
    code = np.empty(order.size, dtype=np.int64)
    code[order] = np.cumsum(first) - 1
    held = (words[first][:, :, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    sets = [tuple(names[i] for i in np.flatnonzero(row)) for row in held.reshape(int(first.sum()), -1)]
    return candidate[starts], code, sets


def _shown_candidates(
    ranked: QuerySet[CandidateJudgment], ids: np.ndarray, flagged: np.ndarray, candidates: np.ndarray,
    candidate_set: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The judgments (``ids``, ascending, and whether ``flagged``) that are rankings, and the ranked candidates
    shown in them, read from ``ranked`` in judgment and screen order: which judgments are rankings (a flagged one,
    or one with a shown candidate of ``candidates``), and each shown candidate's ranking, rank and system set code
    (``candidate_set``). Rows of another judgment (one stored after ``ids`` was read) are passed over, as are
    those of a flagged judgment."""
    shown = _integer_rows(ranked.in_order().values_list("judgment_id", "candidate_id", "rank"), 3)
    judgment = _positions(ids, shown[:, 0])
    candidate = _positions(candidates, shown[:, 1])
    kept = (judgment >= 0) & (candidate >= 0)
    kept[kept] = ~flagged[judgment[kept]]
    judgment, candidate = judgment[kept], candidate[kept]
    ranking = flagged | (np.bincount(judgment, minlength=ids.size) > 0)
    return ranking, (np.cumsum(ranking) - 1)[judgment], shown[kept, 2], candidate_set[candidate]


def _positions(sorted_values: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The index of each of ``values`` in ``sorted_values`` (ascending, distinct), -1 where it is not there."""
    at = np.searchsorted(sorted_values, values)
    found = at < sorted_values.size
    found[found] = sorted_values[at[found]] == values[found]
    return np.where(found, at, -1)


#: Rankings a batch of ``ranking_batches``: a ranking covering 31 systems has 465 expanded pairs, so a batch's chunk
#: of the expanded TSV is at most about 5 MB.
RANKING_BATCH = 500


def ranking_batches(campaign, size: int | None = None, up_to: int | None = None) -> Iterator[Rankings]:
    """The rankings of ``load_rankings(campaign, up_to)`` (its default selection) in stored order, ``size``
    (``RANKING_BATCH``) at a time, each batch ``Rankings`` of its own with every contestant as a system: streamed
    from the database, two queries merged by judgment id beside the one map of the test set's candidates' systems,
    so the queries and the memory held do not grow with the judgments. A batch's judge and candidate indices are
    its own; names sort as in one ``Rankings`` of them all, so pairs are ordered the same."""
    size = size or RANKING_BATCH
    contestants = contestant_names(campaign)
    systems = _contestants_of(shared_system_tuples(campaign), set(contestants))
    for batch in batched(_ranking_items(selected_judgments(campaign, up_to), systems, size), size):
        yield Rankings.from_items(batch, system_names=contestants)


def pairwise_batches(campaign, snapshot: JudgmentSnapshot) -> Iterator[Rankings]:
    """The rankings of the campaign's pairwise judgments in ``snapshot`` (the TSV downloads; the judgments with an
    id up to its last, as an analysis of it reads them): ``ranking_batches`` of a ranking campaign; of a PRWS
    campaign, the relative judgments of every rater's scores (``core.prws.relative_rankings``, as its analyses
    compare them, here of the raters the quality check would leave out too), in one batch."""
    up_to = snapshot.id_bound
    if campaign.mode != campaign.Mode.PRWS:
        yield from ranking_batches(campaign, up_to=up_to)
        return
    from .core.prws import relative_rankings  # SciPy: imported only where PRWS scores are read

    yield relative_rankings(load_scores(campaign, up_to=up_to))


def load_scores(
    campaign, up_to: int | None = None, judge: str | None = None, after: int | None = None,
    ignored_judges: Collection[str] = IGNORED_JUDGES, excluded_ranges: Sequence[ExcludedRange] = (),
) -> Scores:
    """The campaign's PRWS ratings as core ``Scores`` (METHODS 11), one item per judgment in stored order.

    A candidate is unchanged when its text is the source's (trailing whitespace stripped, as in collapsing).
    Flagged screens are screens without ratings. ``up_to``, ``judge``, ``after``, ``ignored_judges`` and
    ``excluded_ranges`` select judgments as in ``load_rankings``.
    """
    from .core.prws import ScoredCandidate, Scores  # SciPy: imported only where PRWS scores are analysed

    judgments = selected_judgments(campaign, up_to, judge, after, ignored_judges, excluded_ranges)
    kinds = dict(System.objects.filter(campaign=campaign).values_list("name", "kind"))
    systems = candidate_systems(campaign)
    shown: dict[int, list[ScoredCandidate]] = defaultdict(list)
    for judgment_id, candidate_id, score, meaning_changed, text, source in (
        CandidateJudgment.objects.filter(judgment__in=judgments).scored().in_order()
        .values_list("judgment_id", "candidate_id", "score", "meaning_changed", "candidate__text",
                     "candidate__segment__source")
    ):
        unchanged = text.rstrip() == source.rstrip()
        shown[judgment_id].append(ScoredCandidate(tuple(systems[candidate_id]), score, meaning_changed, unchanged))
    rows = judgments.order_by("id").values_list(
        "id", "assignment__judge__username", "assignment__screen__segment__line", "flag__id"
    )
    items = [(username, line, shown[pk]) for pk, username, line, flag in rows if flag is not None or shown[pk]]
    return Scores.from_items(
        items,
        system_names=sorted(kinds),
        source_systems=[name for name, kind in kinds.items() if kind == System.Kind.INPUT],
        control_systems=[name for name, kind in kinds.items() if kind == System.Kind.CONTROL],
    )
