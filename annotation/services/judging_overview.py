"""What the organizer's campaign page shows about judging: its progress (screens, slots, judgments), each judge's
activity and attention checks, and how many screens carry a check (PRODUCT: "each judge's rate of ranking it last
is shown on the dashboard").

A judge's row counts their submitted screens (rankings or scores, and flags), the attention checks among their
judged screens and how often they judged the control worst (ranked it last, or in a PRWS campaign scored it lowest;
``attention.attention_check_rates``; the campaign page words it by the campaign's mode), and the median time on
screen: the median of ``Judgment.duration`` (served to submitted, measured by the server) over their judgments.
The judgments per judge, their times and the attention checks are the live dashboard's kept tallies
(``dashboard.judged_work``, ``kept_tallies``), checked against the submitted slots the page's progress counts.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef

from ..models import Assignment, Campaign
from .attention import attention_check_rates, control_screens
from .dashboard import JudgedWork, judged_work
from .kept_slots import slot_totals
from .kept_tallies import SubmittedSlots
from .screens import screen_count


@dataclass(frozen=True)
class CampaignProgress:
    """A campaign's ``screens``, its ``total`` slots, those ``claimed`` (given to a judge) and ``submitted``, and
    its ``judgments``; ``slots`` are the submitted ones (``kept_tallies.SubmittedSlots``) and ``work`` the judges'
    (``dashboard.judged_work``), for the judging panel."""

    screens: int
    total: int
    claimed: int
    submitted: int
    judgments: int
    slots: SubmittedSlots
    work: JudgedWork


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


def campaign_progress(campaign: Campaign) -> CampaignProgress:
    """The campaign's progress: its slots counted without reading them (``kept_slots.slot_totals``), the screens
    from their numbering (``screens.screen_count``; a campaign may have a million screens), the judgments from the
    kept tallies."""
    totals = slot_totals(campaign)
    slots = totals.submitted_slots
    work = judged_work(campaign, slots)
    return CampaignProgress(screen_count(campaign), totals.total, totals.claimed, slots.count, work.judgments, slots,
                            work)


def judge_activity(campaign: Campaign, progress: CampaignProgress) -> list[JudgeActivity]:
    """A row per judge (members of the campaign and anyone who submitted a screen of it), by username, from the
    judges' work and attention checks kept with the campaign's ``progress`` (``campaign_progress``)."""
    work = progress.work
    rates = {rate.judge: rate for rate in attention_check_rates(campaign, progress.slots)}
    names = set(campaign.judges.values_list("username", flat=True)) | set(work.submitted) | set(rates)
    return [
        JudgeActivity(
            judge=name,
            submitted=work.submitted.get(name, 0),
            checks=rates[name].checks if name in rates else 0,
            ranked_last=rates[name].ranked_last if name in rates else 0,
            median_seconds=work.judge_times[name].median if name in work.judge_times else None,
        )
        for name in sorted(names)
    ]


def attention_coverage(campaign: Campaign) -> AttentionCoverage:
    """How many screens show an output of a control system, and how many unserved screens show none.

    "Unserved" is what ``attention.add_attention_checks`` may still change (``Screen.objects.unserved``). Counted
    from the control outputs and the slots taken (both indexed), never screen by screen; the screens from their
    numbering (``screens.screen_count``).
    """
    checked = control_screens(campaign)
    taken = Assignment.objects.filter(campaign=campaign).taken().order_by()
    total = screen_count(campaign)
    served = taken.values("screen_id").distinct().count()
    with_check = checked.count()
    unserved_with_check = checked.exclude(Exists(taken.filter(screen_id=OuterRef("screen_id")))).count()
    return AttentionCoverage(screens=total, with_check=with_check, open=total - served - unserved_with_check)
