"""A set of relative rankings (G15 §4.2-4.3, METHODS 3) held as flat NumPy arrays.

A *ranking* is one judge's answer to one screen: the shown candidates (collapsed outputs, each carrying the systems
that produced it) with ranks 1 (best) .. M, ties allowed. A ranking with no candidates is a flagged/skipped screen:
it counts as a ranking (G15 Table 1 counts 2,319 rankings, 13 of them skipped) but yields no pairs.

Layout (R rankings, C shown candidates, M candidate-system memberships)::

    ranking_judge[R], ranking_segment[R]            judge index, segment (src-id)
    candidate_ranking[C], candidate_rank[C]         the ranking a candidate belongs to, its rank
    candidate_name[C]                               index into ``candidate_names`` (sorted, so index order = name order)
    member_candidate[M], member_system[M]           one row per (candidate, system) membership

Rows are grouped: candidates by ranking, memberships by candidate, both in input order.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

RankingItem = tuple[str, int, Sequence[tuple[tuple[str, ...], int]]]


def candidate_name(systems: Iterable[str]) -> str:
    """A candidate's name: its system names sorted and joined by one space (METHODS 1), e.g. ``"IITB INPUT IPN"``."""
    return " ".join(sorted(systems))


def _system_names(occurring: set[str], system_names: Sequence[str] | None) -> tuple[str, ...]:
    """The systems, sorted: ``system_names`` (each a column even when it occurs nowhere), or else those
    ``occurring``; a system occurring outside ``system_names`` is refused."""
    if system_names is None:
        return tuple(sorted(occurring))
    names = tuple(sorted(set(system_names)))
    unknown = occurring.difference(names)
    if unknown:
        raise ValueError(f"systems not in system_names: {', '.join(sorted(unknown))}")
    return names


def _screen_candidates(shown: Sequence[tuple[Sequence[str], int]], where: str) -> list[tuple[tuple[str, ...], int]]:
    """Validate one screen's ``(systems, rank)`` candidates; return ``(sorted systems, rank)`` for each."""
    seen: set[str] = set()
    result = []
    for systems, rank in shown:
        systems = tuple(systems)
        if not systems:
            raise ValueError(f"{where}: a candidate names no system")
        if not isinstance(rank, (int, np.integer)) or isinstance(rank, bool) or rank < 1:
            raise ValueError(f"{where}: rank {rank!r} is not a positive integer")
        if seen.intersection(systems) or len(set(systems)) < len(systems):
            raise ValueError(f"{where}: a system occurs twice on one screen")
        seen.update(systems)
        result.append((tuple(sorted(systems)), int(rank)))
    return result


def _first_system_shown_twice(member_ranking: np.ndarray, member_system: np.ndarray, n_systems: int) -> int | None:
    """The first ranking in which a system has two memberships (``member_ranking`` non-decreasing), or None."""
    keys = member_ranking * max(n_systems, 1)
    keys += member_system
    keys.sort(kind="stable")
    twice = np.flatnonzero(keys[1:] == keys[:-1])
    return int(keys[twice[0]] // max(n_systems, 1)) if twice.size else None


@dataclass(frozen=True)
class SystemsAndJudges:
    """What judgments held as flat arrays (:class:`Rankings`, ``prws.Scores``) share: sorted system and judge names,
    which system and judge indices index, and their numbers S and J (the first two fields of both)."""

    system_names: tuple[str, ...]
    judge_names: tuple[str, ...]

    @property
    def n_systems(self) -> int:
        return len(self.system_names)

    @property
    def n_judges(self) -> int:
        return len(self.judge_names)


@dataclass(frozen=True)
class Rankings(SystemsAndJudges):
    """Relative rankings as flat arrays; build with :meth:`from_items` or :meth:`from_codes`. See the module
    docstring for the layout."""

    candidate_names: tuple[str, ...]
    ranking_judge: np.ndarray
    ranking_segment: np.ndarray
    candidate_ranking: np.ndarray
    candidate_rank: np.ndarray
    candidate_name: np.ndarray
    member_candidate: np.ndarray
    member_system: np.ndarray

    @classmethod
    def from_items(cls, items: Iterable[RankingItem], system_names: Sequence[str] | None = None) -> Rankings:
        """Build from ``(judge, segment, [(systems, rank), ...])`` items; an empty candidate list is a skipped ranking.

        Every item is kept (leaving judges out, as METHODS 3 leaves out ``admin``, is the caller's selection: see
        ``AnalysisParameters.ignored_judges``). ``system_names`` (optional) fixes the set of systems, which may
        include systems never shown; otherwise it is every system that occurs. Names are sorted either way. Judges are
        sorted by name. Raises ``ValueError`` (and builds nothing) when a rank is not a positive integer, a candidate
        names no system, a system occurs twice on one screen, or a system is not in ``system_names``; the message
        names the first such item. The items are checked one by one and then built by :meth:`from_codes`.
        """
        judges: dict[str, int] = {}
        system_sets: dict[tuple[str, ...], int] = {}
        ranking_judge: list[int] = []
        segments: list[int] = []
        candidate_ranking: list[int] = []
        candidate_rank: list[int] = []
        candidate_set: list[int] = []
        for index, (judge, segment, shown) in enumerate(items):
            where = f"ranking #{index + 1} (judge {judge!r}, segment {segment})"
            if not isinstance(segment, (int, np.integer)) or segment < 0:
                raise ValueError(f"{where}: segment must be a non-negative integer")
            for systems, rank in _screen_candidates(shown, where):
                candidate_ranking.append(index)
                candidate_rank.append(rank)
                candidate_set.append(system_sets.setdefault(systems, len(system_sets)))
            ranking_judge.append(judges.setdefault(str(judge), len(judges)))
            segments.append(int(segment))
        return cls.from_codes(
            list(judges), ranking_judge, segments, candidate_ranking, candidate_rank, list(system_sets),
            candidate_set, system_names,
        )

    @classmethod
    def from_codes(
        cls,
        judges: Sequence[str],
        ranking_judge: ArrayLike,
        ranking_segment: ArrayLike,
        candidate_ranking: ArrayLike,
        candidate_rank: ArrayLike,
        system_sets: Sequence[Sequence[str]],
        candidate_set: ArrayLike,
        system_names: Sequence[str] | None = None,
    ) -> Rankings:
        """Build from arrays whose judges and candidates are codes into lists of names, in whatever order: the
        vectorized constructor (what :meth:`from_items` and ``ranking.loading`` build with).

        Ranking r (shape (R,) arrays) is judged by ``judges[ranking_judge[r]]`` on segment ``ranking_segment[r]``;
        candidate c (shape (C,) arrays, grouped by ranking in ranking order: ``candidate_ranking`` non-decreasing)
        is shown in ranking ``candidate_ranking[c]`` at rank ``candidate_rank[c]`` and produced by the systems
        ``system_sets[candidate_set[c]]``. Codes that no ranking or candidate uses are left out, and codes whose
        names are equal (a set's systems in another order) are one judge or one candidate name. The result is what
        :meth:`from_items` gives for the same rankings: names sorted, the rows in the given order, each candidate's
        memberships in system order; it holds int64 arrays given for ``ranking_segment``, ``candidate_ranking`` and
        ``candidate_rank`` as they are, not copies. Raises ``ValueError`` naming the first ranking concerned when a
        segment is negative, a rank is below 1, a candidate names no system, or a system occurs twice on one
        screen, and when a system is not in ``system_names`` (optional, as in :meth:`from_items`) or the arrays do
        not fit together.
        """
        ranking_judge, ranking_segment, candidate_ranking, candidate_rank, candidate_set = (
            np.asarray(values, dtype=np.int64)
            for values in (ranking_judge, ranking_segment, candidate_ranking, candidate_rank, candidate_set)
        )
        n_rankings, n_candidates = ranking_judge.size, candidate_ranking.size
        if (ranking_judge.shape != ranking_segment.shape or ranking_judge.ndim != 1
                or not candidate_ranking.shape == candidate_rank.shape == candidate_set.shape == (n_candidates,)):
            raise ValueError("the ranking arrays, or the candidate arrays, are not of one length")
        if n_rankings and not 0 <= ranking_judge.min() <= ranking_judge.max() < len(judges):
            raise ValueError("a judge code is not an index into judges")
        if n_candidates and not 0 <= candidate_set.min() <= candidate_set.max() < len(system_sets):
            raise ValueError("a candidate code is not an index into system_sets")
        if n_candidates and (
            candidate_ranking[0] < 0 or candidate_ranking[-1] >= n_rankings or np.any(np.diff(candidate_ranking) < 0)
        ):
            raise ValueError("candidate_ranking is not a non-decreasing index into the rankings")

        def where(ranking: int) -> str:
            judge = str(judges[ranking_judge[ranking]])
            return f"ranking #{ranking + 1} (judge {judge!r}, segment {ranking_segment[ranking]})"

        negative = np.flatnonzero(ranking_segment < 0)
        if negative.size:
            raise ValueError(f"{where(int(negative[0]))}: segment must be a non-negative integer")
        below = np.flatnonzero(candidate_rank < 1)
        if below.size:
            first = int(below[0])
            raise ValueError(f"{where(int(candidate_ranking[first]))}: rank {int(candidate_rank[first])!r} is not "
                             "a positive integer")

        used_judges = np.unique(ranking_judge)
        labels = [str(judges[code]) for code in used_judges]
        judge_names = tuple(sorted(set(labels)))
        judge_index = {name: i for i, name in enumerate(judge_names)}
        judge_of_code = np.zeros(len(judges), dtype=np.int64)
        judge_of_code[used_judges] = [judge_index[label] for label in labels]

        used_sets = np.unique(candidate_set)
        sorted_sets = [tuple(sorted(system_sets[code])) for code in used_sets]
        problems = {
            int(code): "a candidate names no system" if not systems else "a system occurs twice on one screen"
            for code, systems in zip(used_sets, sorted_sets) if len(set(systems)) < len(systems) or not systems
        }
        if problems:
            first = int(np.flatnonzero(np.isin(candidate_set, list(problems)))[0])
            raise ValueError(f"{where(int(candidate_ranking[first]))}: {problems[int(candidate_set[first])]}")
        names = _system_names({system for systems in sorted_sets for system in systems}, system_names)
        system_index = {name: i for i, name in enumerate(names)}
        set_labels = [candidate_name(systems) for systems in sorted_sets]
        cand_names = tuple(sorted(set(set_labels)))
        cand_index = {name: i for i, name in enumerate(cand_names)}
        name_of_set = np.zeros(len(system_sets), dtype=np.int64)
        name_of_set[used_sets] = [cand_index[label] for label in set_labels]
        size_of_set = np.zeros(len(system_sets), dtype=np.int64)
        size_of_set[used_sets] = [len(systems) for systems in sorted_sets]
        start_of_set = np.zeros(len(system_sets), dtype=np.int64)
        start_of_set[used_sets] = np.cumsum(size_of_set[used_sets]) - size_of_set[used_sets]
        set_members = np.array([system_index[s] for systems in sorted_sets for s in systems], dtype=np.int64)

        sizes = size_of_set[candidate_set]
        member_candidate = np.repeat(np.arange(n_candidates, dtype=np.int64), sizes)
        member_at = np.arange(member_candidate.size, dtype=np.int64)
        member_at += np.repeat(start_of_set[candidate_set] - (np.cumsum(sizes) - sizes), sizes)
        member_system = set_members[member_at]
        shown_twice = _first_system_shown_twice(candidate_ranking[member_candidate], member_system, len(names))
        if shown_twice is not None:
            raise ValueError(f"{where(shown_twice)}: a system occurs twice on one screen")
        return cls(
            system_names=names,
            judge_names=judge_names,
            candidate_names=cand_names,
            ranking_judge=judge_of_code[ranking_judge],
            ranking_segment=ranking_segment,
            candidate_ranking=candidate_ranking,
            candidate_rank=candidate_rank,
            candidate_name=name_of_set[candidate_set],
            member_candidate=member_candidate,
            member_system=member_system,
        )

    @property
    def n_rankings(self) -> int:
        """Number of rankings, skipped ones included."""
        return int(self.ranking_judge.size)

    def rankings_per_judge(self) -> np.ndarray:
        """Number of rankings (skipped included) of each judge, shape (J,)."""
        return np.bincount(self.ranking_judge, minlength=self.n_judges)

    def shown_systems(self) -> np.ndarray:
        """Boolean (J, S): the systems shown in at least one of judge j's rankings, whether or not beside another
        system (a system only ever shown alone is judged but in no pair)."""
        shown = np.zeros((self.n_judges, self.n_systems), dtype=bool)
        shown[self.ranking_judge[self.candidate_ranking[self.member_candidate]], self.member_system] = True
        return shown

    def for_judges(self, keep: Sequence[int] | np.ndarray) -> Rankings:
        """The rankings of the judges whose indices are in ``keep``; names, systems and indices stay the same."""
        keep_ranking = np.isin(self.ranking_judge, np.asarray(keep, dtype=np.int64))
        new_ranking = np.cumsum(keep_ranking) - 1
        keep_candidate = keep_ranking[self.candidate_ranking]
        new_candidate = np.cumsum(keep_candidate) - 1
        keep_member = keep_candidate[self.member_candidate]
        return Rankings(
            system_names=self.system_names,
            judge_names=self.judge_names,
            candidate_names=self.candidate_names,
            ranking_judge=self.ranking_judge[keep_ranking],
            ranking_segment=self.ranking_segment[keep_ranking],
            candidate_ranking=new_ranking[self.candidate_ranking[keep_candidate]],
            candidate_rank=self.candidate_rank[keep_candidate],
            candidate_name=self.candidate_name[keep_candidate],
            member_candidate=new_candidate[self.member_candidate[keep_member]],
            member_system=self.member_system[keep_member],
        )
