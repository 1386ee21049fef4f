"""``Rankings.from_items`` as it was before it built through ``Rankings.from_codes`` (1 December): every item's
candidates in Python lists, then each array from them. The tests hold ``from_items`` and ``from_codes`` to the
arrays this gives; ``tests/ranking/loading_reference.py`` builds the old loader's rankings with it.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ranking.core.rankings import RankingItem, Rankings, candidate_name
from ranking.core.rankings import _screen_candidates as checked_candidates
from ranking.core.rankings import _system_names as system_names_of


def _screen_candidates(
    shown: Sequence[tuple[Sequence[str], int]], where: str
) -> list[tuple[str, tuple[str, ...], int]]:
    """One screen's candidates checked as ``from_items`` checks them (``rankings._screen_candidates``, unchanged by
    ``from_codes``): ``(name, sorted systems, rank)`` for each."""
    return [(candidate_name(systems), systems, rank) for systems, rank in checked_candidates(shown, where)]


def reference_from_items(items: Iterable[RankingItem], system_names: Sequence[str] | None = None) -> Rankings:
    """``Rankings.from_items`` as it was: every item's candidates in Python lists, then each array from them."""
    judges: list[str] = []
    segments: list[int] = []
    candidates: list[tuple[int, str, tuple[str, ...], int]] = []
    for index, (judge, segment, shown) in enumerate(items):
        where = f"ranking #{index + 1} (judge {judge!r}, segment {segment})"
        if not isinstance(segment, (int, np.integer)) or segment < 0:
            raise ValueError(f"{where}: segment must be a non-negative integer")
        candidates.extend((len(judges), *candidate) for candidate in _screen_candidates(shown, where))
        judges.append(str(judge))
        segments.append(int(segment))

    names = system_names_of({system for _, _, systems, _ in candidates for system in systems}, system_names)
    judge_names = tuple(sorted(set(judges)))
    cand_names = tuple(sorted({name for _, name, _, _ in candidates}))

    system_index = {name: i for i, name in enumerate(names)}
    judge_index = {name: i for i, name in enumerate(judge_names)}
    cand_index = {name: i for i, name in enumerate(cand_names)}
    member_candidate = [c for c, (_, _, systems, _) in enumerate(candidates) for _ in systems]
    member_system = [system_index[s] for _, _, systems, _ in candidates for s in systems]
    return Rankings(
        system_names=names,
        judge_names=judge_names,
        candidate_names=cand_names,
        ranking_judge=np.array([judge_index[j] for j in judges], dtype=np.int64),
        ranking_segment=np.array(segments, dtype=np.int64),
        candidate_ranking=np.array([c[0] for c in candidates], dtype=np.int64),
        candidate_rank=np.array([c[3] for c in candidates], dtype=np.int64),
        candidate_name=np.array([cand_index[c[1]] for c in candidates], dtype=np.int64),
        member_candidate=np.array(member_candidate, dtype=np.int64),
        member_system=np.array(member_system, dtype=np.int64),
    )
