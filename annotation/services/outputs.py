"""Which systems produced which candidate: the one query every export and analysis loader shares."""
from __future__ import annotations

from collections import defaultdict

from ..models import Campaign, Output


def candidate_systems(campaign: Campaign) -> dict[int, list[str]]:
    """The names of the systems behind each candidate of the campaign."""
    systems: dict[int, list[str]] = defaultdict(list)
    for candidate_id, name in Output.objects.filter(segment__campaign=campaign).values_list(
        "candidate_id", "system__name"
    ):
        systems[candidate_id].append(name)
    return systems
