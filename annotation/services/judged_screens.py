"""Writing screens that were judged elsewhere (Appraise XML rankings, PRWS score files) as the product's rows.

Each judged screen becomes a Screen of its segment showing its candidates in the given order, a submitted
Assignment of its judge, a Judgment (keeping the source's duration and ids) with one CandidateJudgment per
candidate, or a Flag when the screen was flagged. Judges are users by name, created without a usable password
when new and made judges of the campaign. Callers check their input first and call these inside a transaction.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Iterable, Sequence

from django.contrib.auth import get_user_model

from ..models import Assignment, Campaign, CandidateJudgment, Flag, Judgment, Screen, ScreenCandidate, Segment
from .screens import next_screen_number, next_slot_position


@dataclass(frozen=True)
class JudgedCandidate:
    """A shown candidate's rank (ranking) or score and meaning-changed box (PRWS)."""

    candidate: int
    rank: int | None = None
    score: float | None = None
    meaning_changed: bool = False


@dataclass(frozen=True)
class JudgedScreen:
    """One judge's judgment of a screen of the segment at ``line``; ``flag_reason`` set for a flagged screen."""

    line: int
    judge: str
    candidates: Sequence[JudgedCandidate]
    duration: timedelta | None = None
    flag_reason: str | None = None
    external_id: str = ""
    external_doc_id: str = ""
    external_group: str = ""


def judges_by_name(campaign: Campaign, names: Iterable[str]) -> dict:
    """The users named ``names`` (created without a usable password when new), made judges of ``campaign``."""
    User = get_user_model()
    users = {}
    for username in dict.fromkeys(names):
        user, created = User.objects.get_or_create(username=username)
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        users[username] = user
    campaign.judges.add(*users.values())
    return users


def write_judged_screens(campaign: Campaign, screens: Sequence[JudgedScreen]) -> dict:
    """Write ``screens`` after the campaign's existing screens; returns the judges by name."""
    users = judges_by_name(campaign, (screen.judge for screen in screens))
    segments = dict(Segment.objects.filter(campaign=campaign).values_list("line", "id"))
    first, first_position = next_screen_number(campaign), next_slot_position(campaign)
    rows = Screen.objects.bulk_create(
        (Screen(campaign=campaign, segment_id=segments[s.line], number=first + i) for i, s in enumerate(screens)),
        batch_size=5000,
    )
    ScreenCandidate.objects.bulk_create(
        (
            ScreenCandidate(screen=row, candidate_id=shown.candidate, position=position)
            for row, screen in zip(rows, screens)
            for position, shown in enumerate(screen.candidates)
        ),
        batch_size=10000,
    )
    assignments = Assignment.objects.bulk_create(
        (
            Assignment(screen=row, judge=users[screen.judge], position=first_position + i,
                       status=Assignment.Status.SUBMITTED)
            for i, (row, screen) in enumerate(zip(rows, screens))
        ),
        batch_size=5000,
    )
    judgments = Judgment.objects.bulk_create(
        (
            Judgment(assignment=assignment, duration=screen.duration, external_id=screen.external_id,
                     external_doc_id=screen.external_doc_id, external_group=screen.external_group)
            for assignment, screen in zip(assignments, screens)
        ),
        batch_size=5000,
    )
    CandidateJudgment.objects.bulk_create(
        (
            CandidateJudgment(judgment=judgment, candidate_id=shown.candidate, position=position, rank=shown.rank,
                              score=shown.score, meaning_changed=shown.meaning_changed)
            for judgment, screen in zip(judgments, screens)
            for position, shown in enumerate(screen.candidates)
        ),
        batch_size=10000,
    )
    Flag.objects.bulk_create(
        Flag(judgment=judgment, reason=screen.flag_reason)
        for judgment, screen in zip(judgments, screens)
        if screen.flag_reason is not None
    )
    return users
