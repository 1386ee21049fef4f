"""What the organizer's live dashboard shows about judging (the leaderboard comes from ``ranking``, by URL).

- Progress against the plan: the campaign's screens and their original (non-repeat) slots, ``redundancy`` per
  screen; slots submitted, screens complete (every original slot submitted) and started; judgments, flags and
  excluded screens; repeats (intra-annotator screens) submitted, due now (the judge has submitted ``due_after``
  screens) and scheduled for later.
- Per judge: screens submitted (originals and repeats), repeats due, flags, attention checks ranked and how often
  the control was ranked last (``attention.attention_check_rates``), and time per screen.
- Time per screen: ``Judgment.duration`` (served to submitted, measured by the server; Appraise's duration for
  imported judgments), as the median and the 5-95% trimmed mean (``scipy.stats.trim_mean`` cutting 5% at each end),
  per judge and over all judgments. None (with a reason) without any timed judgment.
- Rater quality control (``rater_qc``): each rater's numbers, verdict and why, and how many are left out.
- Flags, newest first (at most ``FLAG_LIMIT``, with the total): judge, screen, reason and details (a flag's text is
  its reason's label, then ": " and the judge's details, as ``forms.FlagForm`` stores it), and whether the screen is
  excluded from analysis.

Everything is aggregated in the database except the durations, the attention checks and rater QC, whose tallies
are kept in Django's cache and extended by the judgments stored since (``kept_tallies``).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field

from django.db.models import Count, F, Max, Q

from ..models import Assignment, Campaign, Flag, Judgment, Screen
from .attention import attention_check_rates
from .kept_tallies import kept_tally
from .rater_qc import QcRule, campaign_verdicts

#: The most flags listed (the total is given too).
FLAG_LIMIT = 100
#: Share of the durations cut at each end for the trimmed mean.
TRIM = 0.05
NO_TIMES = "no timed judgment yet"


@dataclass(frozen=True)
class Plan:
    """Progress of the campaign against its plan of ``screens`` x ``redundancy`` original slots."""

    screens: int
    redundancy: int
    slots: int
    submitted: int
    claimed: int
    screens_complete: int
    screens_started: int
    judgments: int
    flags: int
    excluded_screens: int
    repeats_submitted: int
    repeats_due: int
    repeats_later: int


@dataclass(frozen=True)
class ScreenTimes:
    """Time per screen in seconds over ``screens`` timed judgments; None (see ``reason``) without any."""

    screens: int
    median: float | None
    trimmed_mean: float | None
    reason: str | None = None


@dataclass(frozen=True)
class JudgeProgress:
    """One judge's row of the dashboard."""

    judge: str
    submitted: int
    repeats_submitted: int
    repeats_due: int
    flags: int
    checks: int
    ranked_last: int
    attention_rate: float | None
    times: ScreenTimes


@dataclass(frozen=True)
class FlagRow:
    """A flagged screen: who flagged it, why, and whether the organizer excluded it."""

    judgment: int
    screen: int
    line: int
    judge: str
    reason: str
    details: str
    flagged_at: str | None
    excluded: bool


def split_flag_reason(text: str) -> tuple[str, str]:
    """A flag's stored text as (reason, details): the label before the first ": ", the judge's words after it."""
    reason, _, details = text.partition(": ")
    return (reason or "flagged", details)


def _versions(campaign: Campaign) -> tuple[int | None, int]:
    """The campaign's last judgment id and number of judgments: what the cached time summaries depend on."""
    latest = Judgment.objects.filter(assignment__campaign=campaign).aggregate(last=Max("id"), n=Count("id"))
    return latest["last"], latest["n"]


def campaign_plan(campaign: Campaign, repeats: dict[str, dict[str, int]]) -> Plan:
    """The campaign's progress against its plan (a few aggregate queries, whatever its size), with the repeats of
    ``repeats_by_judge``."""
    originals = Assignment.objects.filter(campaign=campaign, repeat_of__isnull=True).aggregate(
        slots=Count("id"),
        submitted=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)),
        claimed=Count("id", filter=Q(judge__isnull=False)),
    )
    per_screen = (
        Assignment.objects.filter(campaign=campaign, repeat_of__isnull=True).values("screen")
        .annotate(slots=Count("id"), done=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)))
        .aggregate(complete=Count("screen", filter=Q(done=F("slots"))), started=Count("screen", filter=Q(done__gt=0)))
    )
    return Plan(
        screens=Screen.objects.filter(campaign=campaign).count(),
        redundancy=campaign.redundancy,
        slots=originals["slots"],
        submitted=originals["submitted"],
        claimed=originals["claimed"],
        screens_complete=per_screen["complete"],
        screens_started=per_screen["started"],
        judgments=Judgment.objects.filter(assignment__campaign=campaign).count(),
        flags=Flag.objects.filter(judgment__assignment__campaign=campaign).count(),
        excluded_screens=Screen.objects.filter(campaign=campaign, excluded=True).count(),
        repeats_submitted=sum(r["submitted"] for r in repeats.values()),
        repeats_due=sum(r["due"] for r in repeats.values()),
        repeats_later=sum(r["later"] for r in repeats.values()),
    )


def _submitted_by_judge(campaign: Campaign) -> dict[str, int]:
    return dict(
        Assignment.objects.filter(campaign=campaign, status=Assignment.Status.SUBMITTED)
        .values("judge__username").annotate(n=Count("id")).values_list("judge__username", "n")
    )


def repeats_by_judge(campaign: Campaign) -> dict[str, dict[str, int]]:
    """Per judge: repeats submitted, due now and scheduled for later (``queue``: due once the judge has submitted
    ``due_after`` screens of the campaign)."""
    submitted = _submitted_by_judge(campaign)
    result: dict[str, dict[str, int]] = defaultdict(lambda: {"submitted": 0, "due": 0, "later": 0})
    rows = Assignment.objects.filter(campaign=campaign, repeat_of__isnull=False).values_list(
        "judge__username", "status", "due_after"
    )
    for judge, status, due_after in rows:
        if status == Assignment.Status.SUBMITTED:
            result[judge]["submitted"] += 1
        elif submitted.get(judge, 0) >= due_after:
            result[judge]["due"] += 1
        else:
            result[judge]["later"] += 1
    return result


def screen_times(seconds: list[float]) -> ScreenTimes:
    """The median and the 5-95% trimmed mean of ``seconds``."""
    if not seconds:
        return ScreenTimes(0, None, None, NO_TIMES)
    import numpy as np
    from scipy.stats import trim_mean

    values = np.asarray(seconds, dtype=np.float64)
    return ScreenTimes(len(seconds), float(np.median(values)), float(trim_mean(values, TRIM)))


@dataclass
class _Times:
    """Each judge's seconds per screen, and the summaries of them (``time_summaries``)."""

    durations: dict[str, list[float]] = field(default_factory=dict)
    summaries: tuple[ScreenTimes, dict[str, ScreenTimes]] | None = None


def time_summaries(campaign: Campaign) -> tuple[ScreenTimes, dict[str, ScreenTimes]]:
    """Time per screen over all judgments and per judge; the judges' times are kept between calls and extended by
    the judgments stored since (``kept_tallies``), and summed up again only when some were added."""

    def add(times: _Times, after: int, up_to: int) -> None:
        rows = Judgment.objects.filter(
            assignment__campaign=campaign, duration__isnull=False, id__gt=after, id__lte=up_to
        ).values_list("assignment__judge__username", "duration")
        for judge, duration in rows:
            times.durations.setdefault(judge, []).append(duration.total_seconds())
        times.summaries = (
            screen_times([s for values in times.durations.values() for s in values]),
            {judge: screen_times(values) for judge, values in times.durations.items()},
        )

    return kept_tally(campaign, "screen-times", None, _Times, add).summaries


def judge_progress(
    campaign: Campaign, times: dict[str, ScreenTimes], repeats: dict[str, dict[str, int]]
) -> list[JudgeProgress]:
    """A row per judge (members of the campaign and anyone who submitted a screen of it), by username, with their
    ``times`` (``time_summaries``) and ``repeats`` (``repeats_by_judge``)."""
    submitted = _submitted_by_judge(campaign)
    flags = dict(
        Flag.objects.filter(judgment__assignment__campaign=campaign)
        .values("judgment__assignment__judge__username").annotate(n=Count("id"))
        .values_list("judgment__assignment__judge__username", "n")
    )
    rates = {rate.judge: rate for rate in attention_check_rates(campaign)}
    names = set(campaign.judges.values_list("username", flat=True)) | set(submitted) | set(rates)
    rows = []
    for name in sorted(names):
        rate = rates.get(name)
        rows.append(JudgeProgress(
            judge=name,
            submitted=submitted.get(name, 0),
            repeats_submitted=repeats[name]["submitted"] if name in repeats else 0,
            repeats_due=repeats[name]["due"] if name in repeats else 0,
            flags=flags.get(name, 0),
            checks=rate.checks if rate else 0,
            ranked_last=rate.ranked_last if rate else 0,
            attention_rate=rate.rate if rate else None,
            times=times.get(name) or screen_times([]),
        ))
    return rows


def recent_flags(campaign: Campaign, limit: int = FLAG_LIMIT) -> list[FlagRow]:
    """The campaign's newest ``limit`` flags."""
    rows = (
        Flag.objects.filter(judgment__assignment__campaign=campaign)
        .order_by("-judgment_id")
        .values_list(
            "judgment_id", "judgment__assignment__screen__number", "judgment__assignment__screen__segment__line",
            "judgment__assignment__judge__username", "reason", "judgment__assignment__submitted_at",
            "judgment__created_at", "judgment__assignment__screen__excluded",
        )[:limit]
    )
    flags = []
    for judgment, screen, line, judge, text, submitted_at, created_at, excluded in rows:
        reason, details = split_flag_reason(text)
        at = submitted_at or created_at
        flags.append(FlagRow(judgment, screen, line, judge, reason, details, at.isoformat() if at else None, excluded))
    return flags


def dashboard_data(campaign: Campaign) -> dict:
    """The dashboard's judging part as JSON-ready data: ``plan``, ``times`` (overall), ``judges`` and ``flags``."""
    version = _versions(campaign)
    overall, per_judge = time_summaries(campaign)
    repeats = repeats_by_judge(campaign)
    plan = campaign_plan(campaign, repeats)
    return {
        "snapshot": {"judgments": version[1], "last_judgment_id": version[0]},
        "plan": asdict(plan),
        "times": asdict(overall),
        "judges": [asdict(row) for row in judge_progress(campaign, per_judge, repeats)],
        "flags": {"total": plan.flags, "shown": [asdict(row) for row in recent_flags(campaign)]},
        "rater_qc": rater_qc_summary(campaign),
    }


def rater_qc_summary(campaign: Campaign) -> dict:
    """Each rater's QC numbers, verdict and why (``rater_qc.RaterVerdict.as_json``), the rule, and how many raters
    the analyses leave out."""
    verdicts = campaign_verdicts(campaign)
    return {
        "rule": QcRule.of(campaign).as_json(),
        "raters": [verdict.as_json() for verdict in verdicts],
        "excluded": sum(verdict.excluded for verdict in verdicts),
    }
