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

RankingItem = tuple[str, int, Sequence[tuple[tuple[str, ...], int]]]


def candidate_name(systems: Iterable[str]) -> str:
    """A candidate's name: its system names sorted and joined by one space (METHODS 1), e.g. ``"IITB INPUT IPN"``."""
    return " ".join(sorted(systems))


def _screen_candidates(
    shown: Sequence[tuple[Sequence[str], int]], where: str
) -> list[tuple[str, tuple[str, ...], int]]:
    """Validate one screen's ``(systems, rank)`` candidates; return ``(name, sorted systems, rank)`` for each."""
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
        result.append((candidate_name(systems), tuple(sorted(systems)), int(rank)))
    return result


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
    """Relative rankings as flat arrays; build with :meth:`from_items`. See the module docstring for the layout."""

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
        names no system, a system occurs twice on one screen, or a system is not in ``system_names``.
        """
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

        occurring = {system for _, _, systems, _ in candidates for system in systems}
        if system_names is None:
            names = tuple(sorted(occurring))
        else:
            names = tuple(sorted(set(system_names)))
            unknown = occurring.difference(names)
            if unknown:
                raise ValueError(f"systems not in system_names: {', '.join(sorted(unknown))}")
        judge_names = tuple(sorted(set(judges)))
        cand_names = tuple(sorted({name for _, name, _, _ in candidates}))

        system_index = {name: i for i, name in enumerate(names)}
        judge_index = {name: i for i, name in enumerate(judge_names)}
        cand_index = {name: i for i, name in enumerate(cand_names)}
        member_candidate = [c for c, (_, _, systems, _) in enumerate(candidates) for _ in systems]
        member_system = [system_index[s] for _, _, systems, _ in candidates for s in systems]
        return cls(
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
