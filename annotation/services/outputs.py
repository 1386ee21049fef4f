"""Which systems produced which candidate: the one query every export and analysis loader shares."""
from __future__ import annotations

from collections import defaultdict

from django.db.models import QuerySet

from ..models import Campaign, Output


def candidate_systems(campaign: Campaign, candidates: QuerySet | None = None) -> dict[int, list[str]]:
    """The names of the systems behind each candidate of the campaign, or of ``candidates`` (a query of the
    campaign's candidate ids, e.g. the judged ones: a loader of a few new judgments then reads a few rows, not the
    whole test set; the query alone selects the rows, so that the plan cannot loop over the campaign's segments)."""
    if candidates is None:
        outputs = Output.objects.filter(segment__campaign=campaign)
    else:
        outputs = Output.objects.filter(candidate_id__in=candidates)
    systems: dict[int, list[str]] = defaultdict(list)
    for candidate_id, name in outputs.values_list("candidate_id", "system__name"):
        systems[candidate_id].append(name)
    return systems
