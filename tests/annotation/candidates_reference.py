"""How screen planning read a campaign's candidates before the segments kept their multiplicities (migration 0028):
every candidate of the campaign with its outputs counted. The migration's test holds the kept multiplicities to the
counts this gives, and ``benchmarks/active_prws_refill.py`` times the active PRWS refill that read them so as its
baseline. Only a reference: nothing of the product calls it.
"""
from __future__ import annotations

from collections import defaultdict

from django.db.models import Count

from annotation.models import Campaign, Candidate, Segment


def segment_candidates(campaign: Campaign) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """The campaign's segments in line order with their candidates (by id) and each candidate's system count."""
    segment_ids = list(Segment.objects.filter(campaign=campaign).order_by("line").values_list("id", flat=True))
    candidates: dict[int, list[int]] = defaultdict(list)
    multiplicities: dict[int, list[int]] = defaultdict(list)
    rows = (
        Candidate.objects.filter(segment__campaign=campaign)
        .annotate(n=Count("outputs"))
        .order_by("segment_id", "id")
        .values_list("segment_id", "id", "n")
    )
    for segment_id, candidate_id, n in rows:
        candidates[segment_id].append(candidate_id)
        multiplicities[segment_id].append(n)
    return segment_ids, [candidates[s] for s in segment_ids], [multiplicities[s] for s in segment_ids]
