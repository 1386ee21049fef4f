"""What the judge's own pages say about the judge's own submits (G15 section 4.2): how many of their screens they
flagged, and the values of a submit, which the undone screen shows again so that Undo does not make the judge
start over.

Every function filters by the judge, so no judge learns about another judge's work.
"""
from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractBaseUser

from ..models import Campaign, CandidateJudgment, Flag


def flagged_count(campaign: Campaign, judge: AbstractBaseUser) -> int:
    """How many of ``judge``'s submitted screens of ``campaign`` are flags."""
    return Flag.objects.filter(
        judgment__assignment__screen__campaign=campaign, judgment__assignment__judge=judge
    ).count()


def was_flag(token: uuid.UUID | str, judge: AbstractBaseUser) -> bool:
    """Whether ``judge``'s submit of the screen served as ``token`` is a flag."""
    return Flag.objects.filter(judgment__assignment__token=token, judgment__assignment__judge=judge).exists()


def submitted_values(token: uuid.UUID | str, judge: AbstractBaseUser) -> list[dict]:
    """The values ``judge`` submitted for the screen served as ``token``, one dict per shown candidate in display
    order: ``{"rank": r}`` (ranking) or ``{"score": s, "first": f, "meaning": bool}`` (PRWS, ``first`` the slider's
    first value after it was moved, the score when not recorded); empty for a flag or no submit."""
    items = CandidateJudgment.objects.filter(
        judgment__assignment__token=token, judgment__assignment__judge=judge
    ).order_by("position")
    return [
        {"rank": rank} if rank is not None else _scored(score, first, meaning)
        for rank, score, first, meaning in items.values_list("rank", "score", "slider_first", "meaning_changed")
    ]


def _scored(score: float, first: float | None, meaning: bool) -> dict:
    return {"score": round(score), "first": round(score if first is None else first), "meaning": meaning}
