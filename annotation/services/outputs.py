"""Which systems produced which candidate: the one query every export and analysis loader shares; and how the
streamed exports read their rows: two queries merged by judgment id (``merged_by_judgment``, ``streamed_by_judgment``),
written a batch at a time (``batched``)."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from itertools import islice
from typing import TypeVar

from django.db import transaction
from django.db.models import QuerySet

from ..models import Campaign, Output
from .kept_tallies import one_snapshot

T = TypeVar("T")


def candidate_systems(
    campaign: Campaign, candidates: QuerySet | Collection[int] | None = None
) -> dict[int, list[str]]:
    """The names of the systems behind each candidate of the campaign, or of ``candidates`` (a query of the
    campaign's candidate ids, e.g. the judged ones: a loader of a few new judgments then reads a few rows, not the
    whole test set; the query alone selects the rows, so that the plan cannot loop over the campaign's segments;
    or the ids themselves, e.g. those of one screen or of one batch of an export)."""
    systems: dict[int, list[str]] = defaultdict(list)
    for candidate_id, name in campaign_outputs(campaign, candidates).values_list("candidate_id", "system__name"):
        systems[candidate_id].append(name)
    return systems


def campaign_outputs(campaign: Campaign, candidates: QuerySet | Collection[int] | None = None) -> QuerySet[Output]:
    """The outputs of the campaign, or of ``candidates`` (as in ``candidate_systems``), unordered."""
    if candidates is None:
        return Output.objects.filter(segment__campaign=campaign)
    return Output.objects.filter(candidate_id__in=candidates)


def shared_system_tuples(campaign: Campaign) -> dict[int, tuple[str, ...]]:
    """The sorted names of the systems behind each candidate of the campaign, each distinct tuple held once (a test
    set of 30 systems has a few hundred of them for 300,000 candidates): what an export of every judgment looks up,
    in a map whose size is the test set's, whatever the number of judgments."""
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}
    names: dict[int, tuple[str, ...]] = {}
    for candidate, systems in candidate_systems(campaign).items():
        key = tuple(sorted(systems))
        names[candidate] = shared.setdefault(key, key)
    return names


def merged_by_judgment(judgments: Iterable[tuple], items: Iterable[tuple]) -> Iterator[tuple[tuple, list[tuple]]]:
    """Each row of ``judgments`` (its id first) with the rows of ``items`` of that judgment (the judgment id
    first), both in ascending judgment id: two streamed queries joined as a merge join does, one pass over each.
    Item rows of a judgment that ``judgments`` does not hold (one stored between the two queries) are passed over."""
    pending = iter(items)
    item = next(pending, None)
    for row in judgments:
        while item is not None and item[0] < row[0]:
            item = next(pending, None)
        own = []
        while item is not None and item[0] == row[0]:
            own.append(item)
            item = next(pending, None)
        yield row, own


def streamed_by_judgment(judgments: QuerySet, items: QuerySet, chunk_size: int) -> Iterator[tuple[tuple, list[tuple]]]:
    """``merged_by_judgment`` of two row queries (``values_list``, each in ascending judgment id), read through
    server-side cursors, ``chunk_size`` judgments and five times as many items a fetch, in a transaction held while
    they are read, so that PostgreSQL hands the rows over as it finds them. Outside a transaction Django declares its
    cursors WITH HOLD, and PostgreSQL reads the whole result of such a cursor before it gives the first row.

    Both are read in one snapshot of the database (``kept_tallies.one_snapshot``): read each in its own, a judgment
    undone after the first query began came without its items, and one stored meanwhile with items passed over."""
    with one_snapshot(), transaction.atomic(savepoint=False):  # SQLite: one transaction, as one_snapshot's elsewhere
        yield from merged_by_judgment(judgments.iterator(chunk_size=chunk_size),
                                      items.iterator(chunk_size=5 * chunk_size))


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """The ``items`` in lists of ``size`` in their order, the last one shorter, none empty, each read only when it is
    asked for (so a stream of rows stays a stream): ``itertools.batched`` of Python 3.12, in lists, for 3.11."""
    if size < 1:
        raise ValueError(f"a batch holds at least one item, not {size}")
    pending = iter(items)
    while batch := list(islice(pending, size)):
        yield batch
