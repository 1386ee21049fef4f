"""What the organizer's campaign page shows about judging: each judge's activity and attention checks, and how
many screens carry a check (PRODUCT: "each judge's rate of ranking it last is shown on the dashboard").

A judge's row counts their submitted screens (rankings or scores, and flags), the attention checks among their
judged screens and how often they judged the control worst (ranked it last, or in a PRWS campaign scored it lowest;
``attention.attention_check_rates``; the campaign page words it by the campaign's mode), and the median time on
screen: the median of ``Judgment.duration`` (served to submitted, measured by the server) over their judgments.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.db.models import Count

from ..models import Assignment, Campaign, Judgment, Screen
from .attention import attention_check_rates, control_screens


@dataclass(frozen=True)
class JudgeActivity:
    """One judge of a campaign: screens submitted, attention checks ranked and ranked last, median seconds."""

    judge: str
    submitted: int
    checks: int
    ranked_last: int
    median_seconds: float | None

    @property
    def rate(self) -> float | None:
        """``ranked_last / checks``; None before the judge has ranked an attention check."""
        return self.ranked_last / self.checks if self.checks else None


@dataclass(frozen=True)
class AttentionCoverage:
    """``with_check`` of a campaign's ``screens`` show a control output; ``open`` unserved screens have none."""

    screens: int
    with_check: int
    open: int


def judge_activity(campaign: Campaign) -> list[JudgeActivity]:
    """A row per judge (members of the campaign and anyone who submitted a screen of it), by username."""
    submitted = dict(
        Assignment.objects.filter(campaign=campaign, judge__isnull=False, status=Assignment.Status.SUBMITTED)
        .values("judge__username")
        .annotate(n=Count("id"))
        .values_list("judge__username", "n")
    )
    seconds: dict[str, list[float]] = defaultdict(list)
    durations = Judgment.objects.filter(assignment__campaign=campaign, duration__isnull=False).values_list(
        "assignment__judge__username", "duration"
    )
    for username, duration in durations:
        seconds[username].append(duration.total_seconds())
    rates = {rate.judge: rate for rate in attention_check_rates(campaign)}
    names = set(campaign.judges.values_list("username", flat=True)) | set(submitted) | set(rates)
    return [
        JudgeActivity(
            judge=name,
            submitted=submitted.get(name, 0),
            checks=rates[name].checks if name in rates else 0,
            ranked_last=rates[name].ranked_last if name in rates else 0,
            median_seconds=float(np.median(seconds[name])) if seconds.get(name) else None,
        )
        for name in sorted(names)
    ]


def attention_coverage(campaign: Campaign) -> AttentionCoverage:
    """How many screens show an output of a control system, and how many unserved screens show none.

    "Unserved" is what ``attention.add_attention_checks`` may still change (``Screen.objects.unserved``). Counted
    from the control outputs and the slots taken (both indexed), never screen by screen.
    """
    checked = control_screens(campaign)
    taken = Assignment.objects.filter(campaign=campaign).taken().order_by().values("screen_id")
    total = Screen.objects.filter(campaign=campaign).count()
    served = taken.distinct().count()
    with_check = checked.count()
    unserved_with_check = checked.exclude(screen_id__in=taken).count()
    return AttentionCoverage(screens=total, with_check=with_check, open=total - served - unserved_with_check)
