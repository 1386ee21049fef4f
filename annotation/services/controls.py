"""Control screens placed by the sampler (N19 section 4.2; METHODS 11).

A campaign with ``control_share`` > 0 makes that share of every batch of new screens a control screen: the
source's candidate (the output of the system of kind ``input``) and *Source+error* (the source with 1-2 errors
from the product's corrupter, the output of the control system) shown beside the sampled candidates, as N19
showed them. Each is put at a random position, or in place of a random sampled candidate when the screen is
full (M), so a control screen still shows at most M candidates. Such screens are marked ``Screen.control``.

Which screens of a batch become controls, and where the two go, is drawn from a generator seeded with the
campaign's seed and the batch's first screen number, so a batch is reproducible. Rater QC
(``rater_qc``) reads every screen showing both, in ranking and PRWS campaigns alike.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..models import Campaign, Output, Segment, System
from ..random_streams import campaign_rng
from .attention import CONTROL_SYSTEM, control_candidate, place_candidate


def require_source(campaign: Campaign) -> None:
    """Raise ValueError when the campaign asks for control screens but has no system of kind ``input`` (the
    source imported as a system, e.g. ``INPUT`` or GMEG's ``source``), whose output is the Source shown."""
    if campaign.control_share > 0 and not campaign.systems.filter(kind=System.Kind.INPUT).exists():
        raise ValueError(
            "control screens show the source beside Source+error: import the source as a system too (name the "
            "source file among the system files) or set the share of control screens to 0"
        )


def place_controls(
    campaign: Campaign, segment_ids: Sequence[int], shown: list[list[int]], first_number: int
) -> list[bool]:
    """Make ``control_share`` of the planned screens control screens, in place: ``segment_ids[i]`` is screen i's
    segment and ``shown[i]`` its candidate ids in display order. Returns, per screen, whether it is one.

    ``round(share * n)`` screens are drawn uniformly without replacement; a drawn screen whose segment has no
    source output, or no corruption that differs from every output, stays as planned (and is not a control).
    The caller holds the campaign's lock in a transaction (the control system and candidates are created here).
    """
    marked = [False] * len(shown)
    if campaign.control_share <= 0 or not shown:
        return marked
    require_source(campaign)
    rng = campaign_rng(campaign, "controls", first_number)
    control, _ = System.objects.get_or_create(
        campaign=campaign, name=CONTROL_SYSTEM, defaults={"kind": System.Kind.CONTROL}
    )
    if control.kind != System.Kind.CONTROL:
        raise ValueError(f"{CONTROL_SYSTEM!r} is a system of the campaign, not a control")
    chosen = np.sort(rng.choice(len(shown), size=round(campaign.control_share * len(shown)), replace=False))
    sources = dict(
        Output.objects.filter(segment_id__in={segment_ids[i] for i in chosen.tolist()}, system__kind=System.Kind.INPUT)
        .values_list("segment_id", "candidate_id")
    )
    segments = Segment.objects.in_bulk({segment_ids[i] for i in chosen.tolist()})
    for i in chosen.tolist():
        source = sources.get(segment_ids[i])
        segment = segments[segment_ids[i]]
        corrupted = (
            control_candidate(segment, control, campaign_rng(campaign, "corrupter", segment.line))
            if source is not None else None
        )
        if corrupted is None:
            continue
        required = [source, corrupted.pk]
        for pk in required:
            if pk not in shown[i]:
                place_candidate(shown[i], pk, keep=required, limit=campaign.max_candidates, rng=rng)
        marked[i] = True
    return marked
