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
- The jobs adding screens (``screen_job_row``), and since when the campaign is closed (``closing_state``).
- Flags, newest first (at most ``FLAG_LIMIT``, with the total): judge, screen, reason and details (a flag's text is
  its reason's label, then ": " and the judge's details, as ``forms.FlagForm`` stores it), and whether the screen is
  excluded from analysis.

Everything is aggregated in the database except the judgments per judge and their durations, the attention checks
and rater QC, whose tallies are kept in Django's cache and extended by the judgments stored since
(``kept_tallies``); a request counts the campaign's slots once (``kept_slots.slot_totals``, without reading them)
and checks every tally against the submitted ones.
"""
from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime

import numpy as np
from django.core.cache import cache
from django.db.models import Count, Sum

from ..models import Assignment, Campaign, Flag, Judgment, Screen, ScreenJob
from .attention import attention_check_rates
from .campaign_closing import closed_at_text
from .kept_slots import SlotTotals, slot_totals
from .kept_tallies import KEPT_SECONDS, SubmittedSlots, kept_tally, one_snapshot
from .rater_qc import QcRule, campaign_verdicts
from .screen_jobs import fail_abandoned, recent_jobs
from .screens import screen_count

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


@dataclass
class _ScreenSlots:
    """Each screen's original slots by screen number (screens are numbered without gaps), and the number and id
    sum of all of them."""

    slots: np.ndarray
    count: int
    id_sum: int


def _original_slots(campaign: Campaign, counts: SlotTotals, screens: int) -> np.ndarray:
    """How many original slots each screen has, by number, for at least the first ``screens`` screens.

    A screen's original slots are written with it and only leave with it (or with their judge's account), so they
    are kept in Django's cache and extended by the screens written since; when the kept ones and the new screens'
    are not the campaign's original slots (``counts``: how many and their id sum), a slot left, and every screen's
    are read again."""
    key = f"screen-slots:{campaign.pk}:{campaign.created_at.timestamp()}"
    kept: _ScreenSlots | None = cache.get(key)
    if kept is not None and (kept.count, kept.id_sum) == (counts.originals, counts.original_ids) \
            and len(kept.slots) >= screens:
        return kept.slots

    def per_screen(first: int) -> tuple[np.ndarray, int, int]:
        """The original slots of the screens numbered from ``first``: per screen, how many, their id sum (the
        screens found by their campaign and number, from the index of both)."""
        rows = list(
            Assignment.objects.filter(screen__campaign=campaign, screen__number__gte=first, repeat_of__isnull=True)
            .values("screen__number").annotate(n=Count("id"), ids=Sum("id")).order_by()
            .values_list("screen__number", "n", "ids")
        )
        numbers = np.array([row[0] for row in rows], dtype=np.int64)
        slots = np.zeros(int(numbers.max()) + 1 - first if rows else 0, dtype=np.int32)
        slots[numbers - first] = [row[1] for row in rows]
        return slots, int(slots.sum(dtype=np.int64)), sum(row[2] for row in rows)

    if kept is not None:
        new, count, id_sum = per_screen(len(kept.slots))
        if (kept.count + count, kept.id_sum + id_sum) == (counts.originals, counts.original_ids):
            kept = _ScreenSlots(np.concatenate([kept.slots, new]), kept.count + count, kept.id_sum + id_sum)
            cache.set(key, kept, KEPT_SECONDS)
            return kept.slots
    slots, count, id_sum = per_screen(0)
    cache.set(key, _ScreenSlots(slots, count, id_sum), KEPT_SECONDS)
    return slots


@dataclass
class _Judged:
    """How many original slots of each screen are judged, by screen number."""

    judged: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))


def screens_done(campaign: Campaign, counts: SlotTotals) -> tuple[int, int]:
    """How many screens are complete (every original slot submitted) and started (one submitted): each screen's
    judged original slots are kept (``kept_tallies``, checked against the submitted slots of ``counts``) and so
    are its original slots (``_original_slots``)."""

    def add(tally: _Judged, after: int, up_to: int) -> None:
        numbers = np.fromiter(
            Judgment.objects.filter(assignment__campaign=campaign, assignment__repeat_of__isnull=True, id__gt=after,
                                    id__lte=up_to).order_by().values_list("assignment__screen__number", flat=True),
            dtype=np.int64,
        )
        judged = np.bincount(numbers, minlength=len(tally.judged)).astype(np.int32)
        judged[:len(tally.judged)] += tally.judged
        tally.judged = judged

    judged = kept_tally(campaign, "screens-judged", None, _Judged, add, counts.submitted_slots).tally.judged
    slots = _original_slots(campaign, counts, len(judged))[:len(judged)]
    return int(np.count_nonzero((judged == slots) & (judged > 0))), int(np.count_nonzero(judged))


def campaign_plan(
    campaign: Campaign, counts: SlotTotals, repeats: dict[str, dict[str, int]], judgments: int
) -> Plan:
    """The campaign's progress against its plan (a few aggregate queries, whatever its size), from its slot
    ``counts`` (``kept_slots.slot_totals``), the repeats of ``repeats_by_judge`` and the number of ``judgments``
    (``judged_work``); the screens from their numbering (``screens.screen_count``)."""
    complete, started = screens_done(campaign, counts)
    return Plan(
        screens=screen_count(campaign),
        redundancy=campaign.redundancy,
        slots=counts.originals,
        submitted=counts.submitted_originals,
        claimed=counts.claimed_originals,
        screens_complete=complete,
        screens_started=started,
        judgments=judgments,
        flags=Flag.objects.filter(judgment__assignment__campaign=campaign).count(),
        excluded_screens=Screen.objects.filter(campaign=campaign, excluded=True).count(),
        repeats_submitted=sum(r["submitted"] for r in repeats.values()),
        repeats_due=sum(r["due"] for r in repeats.values()),
        repeats_later=sum(r["later"] for r in repeats.values()),
    )


def repeats_by_judge(campaign: Campaign, submitted: dict[str, int]) -> dict[str, dict[str, int]]:
    """Per judge: repeats submitted, due now and scheduled for later (``queue``: due once the judge has submitted
    ``due_after`` screens of the campaign; ``submitted`` is each judge's count, ``JudgedWork.submitted``)."""
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


def screen_times(seconds: Sequence[float]) -> ScreenTimes:
    """The median and the 5-95% trimmed mean of ``seconds``."""
    if len(seconds) == 0:
        return ScreenTimes(0, None, None, NO_TIMES)
    from scipy.stats import trim_mean

    values = np.asarray(seconds, dtype=np.float64)
    return ScreenTimes(len(seconds), float(np.median(values)), float(trim_mean(values, TRIM)))


@dataclass(frozen=True)
class JudgedWork:
    """The campaign's ``judgments`` (the last one's id ``last_judgment_id``, None without any); per judge (by
    username) the screens ``submitted`` (a submitted slot has one judgment) and the time per screen, ``times``
    over all of them."""

    judgments: int
    last_judgment_id: int | None
    submitted: dict[str, int]
    times: ScreenTimes
    judge_times: dict[str, ScreenTimes]


@dataclass
class _Work:
    """Each judge's judgments and seconds per screen (machine doubles: kept in the cache, they are copied as bytes),
    and their summaries (``judged_work``)."""

    judgments: Counter = field(default_factory=Counter)
    durations: dict[str, array] = field(default_factory=dict)
    times: ScreenTimes = field(default_factory=lambda: screen_times([]))
    judge_times: dict[str, ScreenTimes] = field(default_factory=dict)


def judged_work(campaign: Campaign, slots: SubmittedSlots | None = None) -> JudgedWork:
    """The judgments per judge and the time per screen over all judgments and per judge. Kept between calls and
    extended by the judgments stored since (``kept_tallies``, checked against the ``submitted_slots``, read here
    when not given); the times are summed up again only when some were added, each judge's only with their own."""

    def add(work: _Work, after: int, up_to: int) -> None:
        rows = Judgment.objects.filter(assignment__campaign=campaign, id__gt=after, id__lte=up_to).values_list(
            "assignment__judge__username", "duration"
        )
        timed = set()
        for judge, duration in rows:
            work.judgments[judge] += 1
            if duration is not None:
                work.durations.setdefault(judge, array("d")).append(duration.total_seconds())
                timed.add(judge)
        if timed:
            # All seconds judge by judge, in the order the trimmed mean has always summed them.
            work.times = screen_times(np.concatenate([np.frombuffer(values) for values in work.durations.values()]))
            work.judge_times.update({judge: screen_times(np.frombuffer(work.durations[judge])) for judge in timed})

    kept = kept_tally(campaign, "judged-work", None, _Work, add, slots)
    work = kept.tally
    return JudgedWork(kept.count, kept.last_id or None, dict(work.judgments), work.times, dict(work.judge_times))


def judge_progress(
    campaign: Campaign, work: JudgedWork, repeats: dict[str, dict[str, int]], slots: SubmittedSlots
) -> list[JudgeProgress]:
    """A row per judge (members of the campaign and anyone who submitted a screen of it), by username, with their
    screens submitted and times (``work``, ``judged_work``), ``repeats`` (``repeats_by_judge``) and attention checks
    (kept, checked against ``slots``)."""
    submitted = work.submitted
    flags = dict(
        Flag.objects.filter(judgment__assignment__campaign=campaign)
        .values("judgment__assignment__judge__username").annotate(n=Count("id"))
        .values_list("judgment__assignment__judge__username", "n")
    )
    rates = {rate.judge: rate for rate in attention_check_rates(campaign, slots)}
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
            times=work.judge_times.get(name) or screen_times([]),
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
    """The dashboard's judging part as JSON-ready data: ``plan``, ``times`` (overall), ``judges``, ``flags``,
    ``rater_qc``, the jobs adding screens (``screen_jobs``, ``screen_job_row`` each) and when the campaign was
    closed (``closed_at`` and ``closed_at_text``, ``closing_state``), read in one snapshot
    (``kept_tallies.one_snapshot``), so that its numbers agree with each other: a job is never "Done" beside the
    screen count from before its last screens.
    Running jobs whose process stopped are failed first (``screen_jobs.fail_abandoned``, which writes)."""
    fail_abandoned(campaign)
    with one_snapshot():
        return _dashboard_data(campaign)


def _dashboard_data(campaign: Campaign) -> dict:
    counts = slot_totals(campaign)
    slots = counts.submitted_slots
    work = judged_work(campaign, slots)
    repeats = repeats_by_judge(campaign, work.submitted)
    plan = campaign_plan(campaign, counts, repeats, work.judgments)
    return {
        "snapshot": {"judgments": work.judgments, "last_judgment_id": work.last_judgment_id},
        "plan": asdict(plan),
        "times": asdict(work.times),
        "judges": [asdict(row) for row in judge_progress(campaign, work, repeats, slots)],
        "flags": {"total": plan.flags, "shown": [asdict(row) for row in recent_flags(campaign)]},
        "rater_qc": rater_qc_summary(campaign, slots),
        "screen_jobs": [screen_job_row(job) for job in recent_jobs(campaign)],
        **closing_state(Campaign.objects.values_list("closed_at", flat=True).get(pk=campaign.pk)),
    }


def closing_state(closed_at: datetime | None) -> dict:
    """When the campaign was closed, as the dashboard gives it: ``closed_at`` (ISO 8601) and ``closed_at_text`` (as
    the page writes it, ``campaign_closing.closed_at_text``); both None while it is open."""
    if closed_at is None:
        return {"closed_at": None, "closed_at_text": None}
    return {"closed_at": closed_at.isoformat(), "closed_at_text": closed_at_text(closed_at)}


def screen_job_row(job: ScreenJob) -> dict:
    """A job adding screens as the dashboard lists it: its id, screens ``requested`` and ``created``, ``status``
    (its value and ``status_text``, as the page writes it) and ``error`` ("" unless it failed)."""
    return {"id": job.pk, "requested": job.requested, "created": job.created, "status": job.status,
            "status_text": job.get_status_display(), "error": job.error}


def rater_qc_summary(campaign: Campaign, slots: SubmittedSlots) -> dict:
    """Each rater's QC numbers, verdict and why (``rater_qc.RaterVerdict.as_json``), the rule, and how many raters
    the analyses leave out (``slots``: the campaign's ``submitted_slots``)."""
    verdicts = campaign_verdicts(campaign, slots)
    return {
        "rule": QcRule.of(campaign).as_json(),
        "raters": [verdict.as_json() for verdict in verdicts],
        "excluded": sum(verdict.excluded for verdict in verdicts),
    }
