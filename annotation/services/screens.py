"""Creating a campaign's screens and their pool of assignment slots (METHODS 2, G15 section 4.1).

Screens are planned by ``sampling.plan_screens`` from the campaign's sampling method, M and seed and the segments'
kept multiplicities (``Segment.multiplicities``; only the candidates of the segments planned are read), and written
with ``redundancy`` unclaimed Assignment slots each (``judge`` is NULL until a judge claims one; see
``queue``). A batch of screens is reproducible: its random generator is seeded with the campaign's seed and
the number of the batch's first screen, so the same seed and the same calls give the same screens.

Screens are numbered 0, 1, ... without gaps in creation order and are deleted only with their campaign, so the
next number is also the campaign's screen count (``screen_count``, one index lookup however many there are).
Rows are written with COPY on PostgreSQL (``bulk_rows``). One web request writes at most
``MAX_SCREENS_PER_REQUEST`` screens; larger requests become a ScreenJob (``screen_jobs``).
"""
from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence

from django.db import transaction
from django.db.models import Max, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from gecappraise.plurals import counted

from ..models import Assignment, Campaign, Candidate, Screen, ScreenCandidate, Segment, System
from ..random_streams import campaign_rng
from .bulk_rows import insert_rows, insert_rows_with_ids
from .controls import place_controls, require_source
from .kept_slots import count_written_slots
from .sampling import MIN_RANKABLE_CANDIDATES, ScreenPlan, plan_screens

#: The most screens one web request (form or API) writes itself; more are written by a background job.
MAX_SCREENS_PER_REQUEST = 10_000
#: The most screens one request may ask for (a background job writes them); more are refused.
MAX_SCREENS_PER_JOB = 1_000_000
#: Segments whose candidates one query reads (``shown_candidates``).
CANDIDATE_BATCH = 5_000


def kept_multiplicities(campaign: Campaign) -> tuple[list[int], list[list[int]]]:
    """The campaign's segments in line order and each one's candidates' system counts, as the segments keep them
    (``Segment.multiplicities``): what planning samples from, without reading a candidate. The lists are read as
    text and decoded as one JSON array (a decode per segment took most of the time at 20,000 segments)."""
    rows = (
        Segment.objects.filter(campaign=campaign).order_by("line")
        .values_list("id", Cast("multiplicities", output_field=TextField()))
    )
    segment_ids, texts = [], []
    for segment_id, text in rows:
        segment_ids.append(segment_id)
        texts.append(text)
    return segment_ids, json.loads(f"[{','.join(texts)}]")


def shown_candidates(
    segment_ids: Sequence[int], multiplicities: Sequence[Sequence[int]], plans: Sequence[ScreenPlan]
) -> dict[int, list[int]]:
    """The candidates (by id, in id order) of the segments ``plans`` show, by the plans' segment index (the place of
    the segment in ``segment_ids``): only those segments' candidates are read. Raises ValueError when a segment's
    candidates are not those its kept ``multiplicities`` count."""
    wanted = sorted({plan.segment for plan in plans})
    index = {segment_ids[i]: i for i in wanted}
    candidates: dict[int, list[int]] = {i: [] for i in wanted}
    for start in range(0, len(wanted), CANDIDATE_BATCH):
        batch = [segment_ids[i] for i in wanted[start : start + CANDIDATE_BATCH]]
        rows = Candidate.objects.filter(segment_id__in=batch).order_by("segment_id", "id")
        for segment_id, candidate_id in rows.values_list("segment_id", "id"):
            candidates[index[segment_id]].append(candidate_id)
    for i in wanted:
        if len(candidates[i]) != len(multiplicities[i]):
            raise ValueError(f"segment {segment_ids[i]} has {len(candidates[i])} candidates, but its multiplicities "
                             f"count {len(multiplicities[i])}")
    return candidates


def next_screen_number(campaign: Campaign) -> int:
    """The number the campaign's next screen gets (screens are numbered 0, 1, ... in creation order)."""
    last = Screen.objects.filter(campaign=campaign).aggregate(n=Max("number"))["n"]
    return 0 if last is None else last + 1


def screen_count(campaign: Campaign) -> int:
    """How many screens the campaign has: its next screen number (numbers have no gaps)."""
    return next_screen_number(campaign)


def next_slot_position(campaign: Campaign) -> int:
    """The position the campaign's next assignment slot gets (slots are handed out in position order)."""
    last = Assignment.objects.filter(campaign=campaign).aggregate(n=Max("position"))["n"]
    return 0 if last is None else last + 1


class NoScreenPossible(ValueError):
    """No screen can ever be made of the campaign (``no_screen_reason``): whatever is asked, nothing is added."""


def no_screen_reason(campaign: Campaign) -> str | None:
    """Why no screen can ever be made of the campaign, or None when one can.

    A screen compares at least two different corrections of a sentence, so judges need at least two systems (the
    source counts when it is judged: a system of kind ``input``; the control systems of attention checks do not)
    whose outputs differ on some sentence (by the campaign's ``distinct_histogram``, counted at import). A campaign
    of one system is imported all the same: its outputs can be scored against references. A campaign added in the
    admin has no system at all (an import makes at least one)."""
    systems = dict(campaign.systems.exclude(kind=System.Kind.CONTROL).values_list("name", "kind"))
    if len(systems) < MIN_RANKABLE_CANDIDATES:
        need = "judges compare the corrections of at least two systems (the source counts when it is judged)"
        if not systems:
            return (f"{need}, and this campaign has none: it was made without a test set (in the admin); import the "
                    "test set as a new campaign")
        [(name, kind)] = systems.items()
        if kind == System.Kind.INPUT:
            return f"{need}, and this campaign has one, its source {name}; import the test set again with a system"
        return (f"{need}, and this campaign has one, {name}, and does not judge its source; import the test set "
                "again with another system or with the source judged too")
    if all(int(distinct) < MIN_RANKABLE_CANDIDATES for distinct in campaign.distinct_histogram):
        return (f"its {len(systems)} systems ({', '.join(sorted(systems))}) give the same output on every sentence, "
                "so a screen would show one correction and nothing to compare")
    return None


def planned_count(campaign: Campaign, count: int | None) -> int:
    """How many screens a request for ``count`` (None: full coverage) creates; ValueError when none can be planned
    (``NoScreenPossible`` when none ever can, ``no_screen_reason``).

    Checks what ``plan_screens`` and ``controls.place_controls`` would refuse, from one count of the rankable
    sentences (those with at least two candidates, by their kept ``multiplicities``), without planning.
    """
    if (reason := no_screen_reason(campaign)) is not None:
        raise NoScreenPossible(f"no screen can be made: {reason}")
    if count is not None and count < 1:
        raise ValueError(f"ask for at least one screen, not {count}")
    require_source(campaign)
    # A segment with an entry at index MIN - 1 of its multiplicities has at least MIN candidates.
    rankable = Segment.objects.filter(
        campaign=campaign, **{f"multiplicities__{MIN_RANKABLE_CANDIDATES - 1}__isnull": False}
    ).count()
    if rankable == 0:
        raise ValueError(f"no sentence can be sampled: none has at least {MIN_RANKABLE_CANDIDATES} candidates")
    if campaign.sampling == Campaign.Sampling.FULL:
        if count is not None and count > rankable:
            raise ValueError(
                f"full coverage has {counted(rankable, 'rankable sentence')}; ask for at most that many screens or "
                "leave the number empty"
            )
        return rankable if count is None else count
    if count is None:
        raise ValueError(f"give the number of screens: only full coverage plans every sentence, and this campaign's "
                         f"sampling is {campaign.get_sampling_display()}")
    return count


def plan_batch(
    campaign: Campaign, count: int | None, first_number: int
) -> tuple[list[int], dict[int, list[int]], list[ScreenPlan]]:
    """The campaign's segments (``kept_multiplicities``), ``count`` screens planned with the campaign's ``screens``
    random stream for ``first_number`` (``random_streams.campaign_rng``) and the candidates of the segments they
    show (``shown_candidates``): the screens planning every candidate would give, reading only those segments'."""
    segment_ids, multiplicities = kept_multiplicities(campaign)
    rng = campaign_rng(campaign, "screens", first_number)
    plans = plan_screens(multiplicities, count, campaign.max_candidates, campaign.sampling, rng)
    return segment_ids, shown_candidates(segment_ids, multiplicities, plans), plans


def write_screens(
    campaign: Campaign,
    segment_ids: Sequence[int],
    candidates: Sequence[Sequence[int]] | Mapping[int, Sequence[int]],
    plans: Sequence[ScreenPlan],
) -> range:
    """Write planned screens after the campaign's last, each with ``campaign.redundancy`` pool slots in screen
    order (counted in the campaign's kept counts, ``kept_slots``), ``campaign.control_share`` of them made control
    screens (``controls.place_controls``); returns their numbers. ``candidates[i]`` are segment i's candidates (by
    id, in id order), for at least the segments the plans show. The caller holds the campaign's lock in a
    transaction."""
    first, start = next_screen_number(campaign), next_slot_position(campaign)
    now = timezone.now()
    screen_segments = [segment_ids[plan.segment] for plan in plans]
    shown = [[candidates[plan.segment][index] for index in plan.candidates] for plan in plans]
    control = place_controls(campaign, screen_segments, shown, first)
    screen_ids = insert_rows_with_ids(
        Screen,
        ("campaign", "segment", "number", "created_at", "excluded", "control"),
        [(campaign.pk, segment, first + i, now, False, control[i]) for i, segment in enumerate(screen_segments)],
    )
    insert_rows(
        ScreenCandidate,
        ("screen", "candidate", "position"),
        (
            (screen_id, candidate, position)
            for screen_id, candidate_ids in zip(screen_ids, shown)
            for position, candidate in enumerate(candidate_ids)
        ),
    )
    redundancy = campaign.redundancy
    slot_ids = insert_rows_with_ids(
        Assignment,
        ("screen", "campaign", "position", "due_after", "status", "token"),
        [
            (screen_id, campaign.pk, start + i * redundancy + copy, 0, Assignment.Status.PENDING, uuid.uuid4())
            for i, screen_id in enumerate(screen_ids)
            for copy in range(redundancy)
        ],
    )
    count_written_slots(campaign, slot_ids)
    return range(first, first + len(plans))


def lock_campaign(campaign: Campaign) -> None:
    """Take the campaign's row lock (inside a transaction): screen writers and attention checks wait for it."""
    Campaign.objects.select_for_update().filter(pk=campaign.pk).first()


def create_screens(campaign: Campaign, count: int | None = None) -> range:
    """Plan and write ``count`` more screens (all rankable sentences once for full coverage with None), at once and
    all or nothing; returns the new screens' numbers. Web requests call it for at most ``MAX_SCREENS_PER_REQUEST``
    (see ``screen_jobs.request_screens``).
    """
    with transaction.atomic():
        lock_campaign(campaign)
        first = next_screen_number(campaign)
        segment_ids, candidates, plans = plan_batch(campaign, count, first)
        return write_screens(campaign, segment_ids, candidates, plans)
