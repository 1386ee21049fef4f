"""``ranking.loading.load_rankings`` as it was before it read arrays (1 December): each judgment an item of Python
lists, built by the old ``Rankings.from_items`` (``core/rankings_reference.py``). The tests hold the loader to the
arrays this gives, and ``benchmarks/loading.py`` times it as its baseline. Only a reference: nothing of the product
calls it.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence

from annotation.models import CandidateJudgment
from annotation.services.outputs import candidate_systems
from ranking.core.parameters import IGNORED_JUDGES
from ranking.core.rankings import Rankings
from ranking.loading import ExcludedRange, contestant_names, selected_judgments

from .core.rankings_reference import reference_from_items


def reference_load_rankings(
    campaign, up_to: int | None = None, judge: str | None = None, after: int | None = None,
    ignored_judges: Collection[str] = IGNORED_JUDGES, excluded_ranges: Sequence[ExcludedRange] = (),
) -> Rankings:
    """``load_rankings`` as it was: the candidates' systems, each judgment's shown candidates and the judgments
    read into Python lists, then ``reference_from_items``."""
    judgments = selected_judgments(campaign, up_to, judge, after, ignored_judges, excluded_ranges)
    ranked = CandidateJudgment.objects.filter(judgment__in=judgments).ranked()
    contestants = set(contestant_names(campaign))
    systems = {
        candidate: [name for name in names if name in contestants]
        for candidate, names in candidate_systems(campaign, ranked.values("candidate_id")).items()
    }
    shown: dict[int, list[tuple[tuple[str, ...], int]]] = defaultdict(list)
    for judgment_id, candidate_id, rank in (
        ranked.in_order()
        .values_list("judgment_id", "candidate_id", "rank")
    ):
        if systems[candidate_id]:
            shown[judgment_id].append((tuple(systems[candidate_id]), rank))
    rows = judgments.order_by("id").values_list(
        "id", "assignment__judge__username", "assignment__screen__segment__line", "flag__id"
    )
    items = [
        (username, line, [] if flag is not None else shown[pk])
        for pk, username, line, flag in rows
        if flag is not None or shown[pk]
    ]
    return reference_from_items(items, system_names=sorted(contestants))
