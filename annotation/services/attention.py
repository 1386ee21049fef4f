"""Attention checks: a degraded control output on some screens, and how often each judge ranks it last.

The control is the source sentence with 1-2 errors inserted by the product's corrupter (METHODS 11,
``corrupter.corrupt``), produced by a System of kind ``control``. It is put on a random share of the unserved
screens (``unserved_screens``: every assignment still in the pool, pending and without a judge): at a random
position when the screen has room, otherwise in place of a random candidate (a screen never shows more than M).
A served screen never changes: ``add_attention_checks`` locks the assignments of the screens it chose (``SELECT
... FOR UPDATE``, waiting for a serving under way) and drops those that were served meanwhile; the queue claims
slots with ``SKIP LOCKED``, so judges are served other screens until the checks are written. A judge who reads
the screens ranks it last; the dashboard shows each judge's rate. In a PRWS campaign the rater check compares the
control with the source (N19 section 4.3), so the source's candidate (the output of the ``input`` system) goes on
the screen too.

"Ranked last" means: the control's rank is worse than or equal to every other rank on the screen and strictly
worse than at least one (a screen with everything tied catches nothing); in a PRWS campaign, its score is lower
than or equal to every other and strictly lower than one. Flagged screens do not count.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, QuerySet

from ..models import (
    Assignment,
    Campaign,
    Candidate,
    CandidateJudgment,
    Output,
    Screen,
    ScreenCandidate,
    Segment,
    System,
)
from .corrupter import corrupt
from .kept_tallies import SubmittedSlots, kept_tally

#: The default name of the control system.
CONTROL_SYSTEM = "Source+error"
#: Corruptions tried per sentence before giving up on it (a corruption may equal a real system's output).
CORRUPTION_TRIES = 5
#: Screens whose assignments are locked by one statement.
LOCK_BATCH = 5_000


@dataclass(frozen=True)
class AttentionRate:
    """A judge's attention checks: screens with the control they ranked, how many ranked it last, the rate."""

    judge: str
    checks: int
    ranked_last: int

    @property
    def rate(self) -> float:
        """``ranked_last / checks``."""
        return self.ranked_last / self.checks


def control_candidate(segment: Segment, control: System, rng: np.random.Generator) -> Candidate | None:
    """The segment's control candidate, created on first use with its output, and the segment's ``multiplicities``
    counted again from its outputs; None when no corruption differs from every output. The caller holds the
    campaign's lock (``screens.lock_campaign``), as every writer of a campaign's candidates does."""
    existing = Output.objects.filter(segment=segment, system=control).select_related("candidate").first()
    if existing is not None:
        return existing.candidate
    if not segment.source.split():
        return None
    taken = {text.rstrip() for text in Candidate.objects.filter(segment=segment).values_list("text", flat=True)}
    for _ in range(CORRUPTION_TRIES):
        text = corrupt(segment.source, rng)
        if text not in taken:
            candidate = Candidate.objects.create(segment=segment, text=text)
            Output.objects.create(segment=segment, system=control, candidate=candidate)
            counts = Output.objects.filter(segment=segment).values("candidate_id").annotate(n=Count("id"))
            multiplicities = list(counts.order_by("candidate_id").values_list("n", flat=True))
            Segment.objects.filter(pk=segment.pk).update(multiplicities=multiplicities)
            return candidate
    return None


def place_candidate(shown: list[int], pk: int, keep: list[int], limit: int, rng: np.random.Generator) -> None:
    """Put ``pk`` on the screen at a random position, or in place of a random candidate not in ``keep`` when full."""
    if len(shown) < limit:
        shown.insert(int(rng.integers(len(shown) + 1)), pk)
        return
    replaceable = [i for i, candidate in enumerate(shown) if candidate not in keep]
    shown[replaceable[int(rng.integers(len(replaceable)))]] = pk


def unserved_screens(campaign: Campaign) -> QuerySet:
    """The campaign's screens that attention checks may still change (``Screen.objects.unserved``)."""
    return Screen.objects.filter(campaign=campaign).unserved()


def control_screens(campaign: Campaign) -> QuerySet:
    """Ids of the campaign's screens that show an output of a control system (found from the control outputs).

    The control systems are read first and named by id, so that PostgreSQL estimates their outputs from its
    statistics of each system (a control has far fewer outputs than a system; through the systems' table it
    expects as many and scans every output and every screen's candidates)."""
    controls = list(System.objects.filter(campaign=campaign, kind=System.Kind.CONTROL).values_list("id", flat=True))
    return (
        ScreenCandidate.objects.filter(candidate__outputs__system_id__in=controls)
        .order_by()
        .values("screen_id")
        .distinct()
    )


def _lock_unserved(screen_ids: list[int]) -> list[int]:
    """Lock the assignments of ``screen_ids`` (waiting for servings under way) and return, in order, the screens
    that are still unserved; until the transaction ends no judge can be served them."""
    kept = set(screen_ids)
    for start in range(0, len(screen_ids), LOCK_BATCH):
        rows = (
            Assignment.objects.select_for_update()
            .filter(screen_id__in=screen_ids[start : start + LOCK_BATCH])
            .order_by("id")
            .values_list("screen_id", "status", "judge_id")
        )
        for screen_id, status, judge_id in rows:
            if judge_id is not None or status != Assignment.Status.PENDING:
                kept.discard(screen_id)
    return [pk for pk in screen_ids if pk in kept]


class AttentionCheckError(ValueError):
    """Attention checks cannot be added as asked (the message says why); nothing was changed."""


def add_attention_checks(
    campaign: Campaign, share: float, rng: np.random.Generator, system_name: str = CONTROL_SYSTEM
) -> int:
    """Put the control output on ``share`` (0 < share <= 1) of the unserved screens without one; return how many.

    Screens are drawn uniformly without replacement from ``rng``; so are the control's position and, on a full
    screen, the candidate it replaces. A drawn screen that a judge is served before its assignments are locked
    keeps its candidates (and is not counted). Takes the campaign's lock, as screen creation does.
    """
    if not 0 < share <= 1:
        raise AttentionCheckError(f"share must be in (0, 1], got {share}")
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        control, _ = System.objects.get_or_create(
            campaign=campaign, name=system_name, defaults={"kind": System.Kind.CONTROL}
        )
        if control.kind != System.Kind.CONTROL:
            raise AttentionCheckError(f"{system_name!r} is a system of the campaign, not a control")
        eligible = list(
            unserved_screens(campaign)
            .exclude(pk__in=control_screens(campaign))
            .order_by("number")
            .values_list("id", flat=True)
        )
        chosen = np.sort(rng.choice(eligible, size=round(share * len(eligible)), replace=False))
        locked = _lock_unserved(chosen.tolist())
        added = 0
        for screen in Screen.objects.filter(id__in=locked).select_related("segment").order_by("number"):
            candidate = control_candidate(screen.segment, control, rng)
            if candidate is None:
                continue
            shown = list(screen.slots.order_by("position").values_list("candidate_id", flat=True))
            required = [candidate.pk]
            if campaign.mode == Campaign.Mode.PRWS:
                source = Output.objects.filter(segment=screen.segment, system__kind=System.Kind.INPUT).first()
                if source is not None and source.candidate_id not in shown:
                    required.append(source.candidate_id)
            for pk in required:
                place_candidate(shown, pk, keep=required, limit=campaign.max_candidates, rng=rng)
            screen.slots.all().delete()
            Screen.objects.filter(pk=screen.pk).update(control=True)
            ScreenCandidate.objects.bulk_create(
                ScreenCandidate(screen=screen, candidate_id=pk, position=i) for i, pk in enumerate(shown)
            )
            added += 1
    return added


def attention_check_rates(campaign: Campaign, slots: SubmittedSlots | None = None) -> list[AttentionRate]:
    """Per judge (by username), the judged screens showing a control output and how often it was judged worst:
    ranked last (ranking campaigns) or scored lowest (PRWS: the same rule on ``-score`` as the rank). Kept between
    calls and extended by the judgments stored since (``kept_tallies``, checked against the campaign's
    ``submitted_slots``, read here when not given): the dashboard asks on every poll."""
    def add(tally: tuple[Counter, Counter], after: int, up_to: int) -> None:
        _count_checks(campaign, after, up_to, *tally)

    checks, last = kept_tally(campaign, "attention-checks", None, lambda: (Counter(), Counter()), add, slots).tally
    return [AttentionRate(judge, checks[judge], last[judge]) for judge in sorted(checks)]


def _count_checks(campaign: Campaign, after: int, up_to: int, checks: Counter, last: Counter) -> None:
    """Add the attention checks of the judgments of ids in ``(after, up_to]`` to ``checks`` and ``last``."""
    is_control = Output.objects.filter(candidate=OuterRef("candidate"), system__kind=System.Kind.CONTROL)
    rows = (
        CandidateJudgment.objects.of_campaign(campaign).filter(judgment_id__gt=after, judgment_id__lte=up_to)
        .annotate(control=Exists(is_control))
        .values_list("judgment_id", "judgment__assignment__judge__username", "rank", "score", "control")
    )
    screens: dict[int, tuple[str, list[float], list[float]]] = {}
    for judgment, judge, rank, score, control in rows:
        _, controls, others = screens.setdefault(judgment, (judge, [], []))
        (controls if control else others).append(float(rank) if rank is not None else -score)
    for judge, controls, others in screens.values():
        if controls and others:
            checks[judge] += 1
            last[judge] += controls[0] >= max(others) and controls[0] > min(others)
