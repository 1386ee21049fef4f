"""Rater quality control: one mechanism for ranking and PRWS campaigns (METHODS 11; N19 section 4.2; Appraise).

Each rater's current attempt (their judgments of the campaign after ``RaterStatus.attempt_after``) is checked
three ways, against the campaign's thresholds:

(a) Controls (N19 section 4.2): on the screens showing both *Source* (an output of a system of kind ``input``) and
    *Source+error* (an output of a ``control`` system, the corrupter's), the share where Source+error got a worse
    rank (a higher number) or a lower score than Source. Fails below ``qc_control_threshold`` (default 70%).
(b) Appraise's test: the rater's values are z-scored, ``z = (x - mean) / sd`` over all their values (scores; in
    ranking mode ``-rank``, so that higher is better in both modes), and a one-sided Mann-Whitney U test asks
    whether their values of the other candidates are greater than those of the Source+error candidates
    (``scipy.stats.mannwhitneyu(others, controls, alternative="greater")``). Passes at ``p <= qc_p_value``
    (default 0.01); when every value is equal the test is undefined (``null``) and fails: nothing told them apart.
    z-scoring (a positive affine map) changes no rank, so the test is computed on the values themselves: the
    standard deviation of subnormal scores (1e-320 is a plain number from 0 to 100) underflows to 0.
(c) Time: the total and the median time per screen (the client's active time where recorded, else the time from
    serving to submit) against ``qc_min_total_seconds`` and ``qc_min_median_seconds`` (0 = no limit).

A check without data (no control screen, no time recorded) neither passes nor fails the rater; nor does (b) while
it has too few values to pass even had the rater judged every Source+error below the rest (``_best_p_value``): a new
rater was excluded at once by their first control screens, and the live leaderboard with them. The verdict
fails when any check fails. The organizer may override it (``RaterStatus.decision``: include or exclude by hand)
or offer a failing rater a fresh attempt: the attempt counter goes up and the judgments made so far are kept but
left out of every analysis (``analysis_exclusions``).
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import timedelta

import numpy as np
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, Max, OuterRef
from django.utils import timezone

from gecappraise.p_values import shown_p_value
from gecappraise.plurals import counted

from ..models import Campaign, CandidateJudgment, Judgment, Output, RaterStatus, System
from .kept_tallies import SubmittedSlots, kept_tally
from .queue import lock_membership

#: The reason given when every value of a rater is equal and (b) is undefined.
CONSTANT_VALUES = "all of the rater's values are equal"


@dataclass(frozen=True)
class QcRule:
    """The campaign's thresholds: (a) ``control_threshold``, (b) ``p_value``, (c) ``min_total_seconds`` and
    ``min_median_seconds`` (0 = no limit); and its ``mode``, which words the failures as the judges worked (a
    ranking judge ranks, a PRWS judge scores)."""

    control_threshold: float
    p_value: float
    min_total_seconds: float
    min_median_seconds: float
    mode: str

    @classmethod
    def of(cls, campaign: Campaign) -> QcRule:
        return cls(campaign.qc_control_threshold, campaign.qc_p_value, campaign.qc_min_total_seconds,
                   campaign.qc_min_median_seconds, campaign.mode)

    @property
    def judged(self) -> str:
        """What the judges did to the corrections: ``scored`` them (PRWS) or ``ranked`` them."""
        return "scored" if self.mode == Campaign.Mode.PRWS else "ranked"

    def as_json(self) -> dict:
        return {
            "control_threshold": self.control_threshold, "p_value": self.p_value,
            "min_total_seconds": self.min_total_seconds, "min_median_seconds": self.min_median_seconds,
            "test": "one-sided Mann-Whitney U of z-scored values, others greater than Source+error",
        }


@dataclass(frozen=True)
class RaterVerdict:
    """One rater's numbers in the current attempt, the checks that failed (``failures``, in words), and the
    organizer's ``decision``; ``excluded`` is what the analyses do with the rater."""

    judge: str
    judge_id: int
    attempt: int
    screens: int
    control_screens: int
    control_passed: int
    control_rate: float | None
    controls: int
    p_value: float | None
    p_value_reason: str | None
    total_seconds: float | None
    median_seconds: float | None
    failures: tuple[str, ...]
    decision: str = RaterStatus.Decision.AUTO
    #: Why no check had data (no control screen, no time limit), or None when one had.
    unchecked: str | None = None
    #: A check that has data but too little to pass or fail yet (b), in words; None when there is none.
    pending: str | None = None

    @property
    def p_value_text(self) -> str | None:
        """The p-value as the Rater QC page writes it (``shown_p_value``), None when undefined."""
        return None if self.p_value is None else shown_p_value(self.p_value)

    @property
    def passed(self) -> bool:
        """Whether every check with data passed."""
        return not self.failures

    @property
    def excluded(self) -> bool:
        """Excluded by hand, or failing and not included by hand."""
        if self.decision == RaterStatus.Decision.EXCLUDE:
            return True
        return self.decision == RaterStatus.Decision.AUTO and not self.passed

    @property
    def why(self) -> str:
        """The verdict in words: the failed checks, and the organizer's override."""
        if self.failures:
            checks = "; ".join(self.failures)
        else:
            checks = f"nothing to check yet: {self.unchecked}" if self.unchecked else "every check with data passed"
        if self.pending:
            checks = f"{checks}; {self.pending}"
        if self.decision == RaterStatus.Decision.INCLUDE:
            return f"included by hand ({checks})"
        if self.decision == RaterStatus.Decision.EXCLUDE:
            return f"excluded by hand ({checks})"
        return checks

    def as_json(self) -> dict:
        """The rater's numbers for an analysis JSON (``rater_qc.excluded`` and ``rater_qc.raters``)."""
        return {
            "rater": self.judge, "attempt": self.attempt, "screens": self.screens,
            "control_screens": self.control_screens, "control_passed": self.control_passed,
            "control_rate": self.control_rate, "controls": self.controls, "p_value": self.p_value,
            "total_seconds": self.total_seconds, "median_seconds": self.median_seconds,
            "passed": self.passed, "decision": str(self.decision), "excluded": self.excluded, "why": self.why,
            **({"reason": "; ".join(self.undefined())} if self.undefined() else {}),
        }

    def undefined(self) -> list[str]:
        """Why each undefined number is undefined (``field: reason``)."""
        reasons = []
        if self.control_rate is None:
            reasons.append("control_rate: no screen showed both Source and Source+error")
        if self.p_value is None:
            reasons.append(f"p_value: {self.p_value_reason}")
        if self.total_seconds is None:
            reasons += ["total_seconds: no time recorded", "median_seconds: no time recorded"]
        return reasons


@dataclass
class _Work:
    """What one rater did in the current attempt: the tallies the checks need, added judgment by judgment."""

    screens: int = 0
    seconds: list[float] = field(default_factory=list)
    values: Counter = field(default_factory=Counter)
    """How many judged candidates had each (value, is Source+error): the checks need the values' multiset only."""
    control_screens: int = 0
    control_passed: int = 0


@dataclass
class _Tallies:
    """Every rater's tallies of the campaign's judgments (``kept_tallies``) and the verdicts computed from them."""

    work: dict[int, _Work] = field(default_factory=lambda: defaultdict(_Work))
    names: dict[int, str] = field(default_factory=dict)
    verdicts: dict[int, RaterVerdict] = field(default_factory=dict)


def verdict_for(campaign: Campaign, user) -> RaterVerdict:
    """The QC verdict of ``user`` in ``campaign`` (a user without judgments passes with zero screens)."""
    status = RaterStatus.objects.filter(campaign=campaign, judge=user).first()
    tallies = _Tallies()
    _tally(campaign, tallies, {user.pk: status} if status else {}, judge_ids=[user.pk])
    return _verdict(user.username, user.pk, status, tallies.work[user.pk], QcRule.of(campaign))


def campaign_verdicts(campaign: Campaign, slots: SubmittedSlots | None = None) -> list[RaterVerdict]:
    """The QC verdicts of every rater who judged in ``campaign`` or has a standing in it, by username.

    Kept up to date as judgments arrive (the live dashboard, the leaderboard and active selection ask on every new
    judgment): the raters' tallies are kept (``kept_tallies``: extended by the judgments stored since, taken again
    from all judgments after an undo, a decision or new thresholds), and only the raters with new judgments get a
    new verdict. The verdicts are those a computation from all judgments gives: the tallies are the same multisets,
    added judgment by judgment. ``slots`` are the campaign's ``submitted_slots`` (read here when not given)."""
    statuses = {status.judge_id: status for status in RaterStatus.objects.filter(campaign=campaign)}
    standings = tuple(sorted((s.judge_id, s.decision, s.attempt, s.attempt_after) for s in statuses.values()))
    rule = QcRule.of(campaign)

    def add(tallies: _Tallies, after: int, up_to: int) -> None:
        for judge in _tally(campaign, tallies, statuses, after=after, up_to=up_to):
            tallies.verdicts[judge] = _verdict(tallies.names[judge], judge, statuses.get(judge), tallies.work[judge],
                                               rule)

    tallies = kept_tally(campaign, "rater-qc", (standings, rule), _Tallies, add, slots).tally
    verdicts = dict(tallies.verdicts)
    for judge in set(statuses) - set(verdicts):  # a standing without judgments in the current attempt
        verdicts[judge] = _verdict(tallies.names.get(judge) or statuses[judge].judge.username, judge,
                                   statuses[judge], tallies.work.get(judge, _Work()), rule)
    return sorted(verdicts.values(), key=lambda verdict: verdict.judge)


def _tally(
    campaign: Campaign,
    tallies: _Tallies,
    statuses: dict[int, RaterStatus],
    after: int = 0,
    up_to: int | None = None,
    judge_ids: list[int] | None = None,
) -> set[int]:
    """Add the campaign's judgments of ids in ``(after, up_to]`` (of ``judge_ids`` only, if given) to ``tallies``,
    each rater's current attempt only; returns the raters whose tallies changed."""
    judgments = Judgment.objects.filter(assignment__campaign=campaign, id__gt=after)
    items = CandidateJudgment.objects.of_campaign(campaign).filter(judgment_id__gt=after)
    if up_to is not None:
        judgments, items = judgments.filter(id__lte=up_to), items.filter(judgment_id__lte=up_to)
    if judge_ids is not None:
        judgments = judgments.filter(assignment__judge_id__in=judge_ids)
        items = items.filter(judgment__assignment__judge_id__in=judge_ids)
    attempt_after = {judge: status.attempt_after for judge, status in statuses.items()
                     if status.attempt_after is not None}
    current: dict[int, int] = {}
    for pk, judge, username, duration, active in judgments.order_by("id").values_list(
        "id", "assignment__judge_id", "assignment__judge__username", "duration", "active_time"
    ):
        tallies.names[judge] = username
        if pk <= attempt_after.get(judge, 0):
            continue
        current[pk] = judge
        tallies.work[judge].screens += 1
        seconds = _seconds(active) if active is not None else _seconds(duration)
        if seconds is not None:
            tallies.work[judge].seconds.append(seconds)
    checks: dict[int, dict[str, float]] = defaultdict(dict)
    for judgment, rank, score, control, source in items.annotate(
        control=_produced_by(System.Kind.CONTROL), source=_produced_by(System.Kind.INPUT)
    ).in_order().values_list("judgment_id", "rank", "score", "control", "source"):
        if judgment not in current:
            continue
        value = float(score) if score is not None else -float(rank)
        tallies.work[current[judgment]].values[(value, bool(control and not source))] += 1
        if control != source:
            checks[judgment]["control" if control else "source"] = value
    for judgment, pair in checks.items():
        if len(pair) == 2:
            rater = tallies.work[current[judgment]]
            rater.control_screens += 1
            rater.control_passed += pair["control"] < pair["source"]
    return set(current.values())


def _produced_by(kind: str) -> Exists:
    """Whether the judged candidate is an output of a system of ``kind``."""
    return Exists(Output.objects.filter(candidate=OuterRef("candidate"), system__kind=kind))


def _verdict(username: str, judge_id: int, status: RaterStatus | None, work: _Work, rule: QcRule) -> RaterVerdict:
    failures: list[str] = []
    checked, passed = work.control_screens, work.control_passed
    rate = passed / checked if checked else None
    if rate is not None and rate < rule.control_threshold:
        failures.append(f"(a) Source+error judged worse than Source on {passed} of "
                        f"{counted(checked, 'control screen')} ({rate:.0%} < {rule.control_threshold:.0%})")
    tallied = sorted(work.values.items())
    counts = [n for _, n in tallied]
    values = np.repeat(np.array([value for (value, _), _ in tallied], dtype=np.float64), counts)
    is_control = np.repeat(np.array([control for (_, control), _ in tallied], dtype=bool), counts)
    p_value, p_reason = _mann_whitney(values, is_control)
    best = None if p_value is None or p_value <= rule.p_value else _best_p_value(values, is_control)
    pending = None
    if best is not None and best > rule.p_value:
        pending = (f"(b) too few values to tell yet: even with Source+error {rule.judged} lowest, p would be "
                   f"{shown_p_value(best)} (pass at p <= {rule.p_value:g})")
    elif p_reason == CONSTANT_VALUES or (p_value is not None and p_value > rule.p_value):
        shown = "undefined, " + CONSTANT_VALUES if p_value is None else f"p = {shown_p_value(p_value)}"
        failures.append(f"(b) Source+error not {rule.judged} below the rest ({shown}; pass at p <= {rule.p_value:g})")
    total = float(sum(work.seconds)) if work.seconds else None
    median = float(np.median(work.seconds)) if work.seconds else None
    if total is not None and rule.min_total_seconds > 0 and total < rule.min_total_seconds:
        failures.append(f"(c) {total:.0f} s in total < {rule.min_total_seconds:g} s")
    if median is not None and rule.min_median_seconds > 0 and median < rule.min_median_seconds:
        failures.append(f"(c) median {median:.1f} s per screen < {rule.min_median_seconds:g} s")
    timed = rule.min_total_seconds > 0 or rule.min_median_seconds > 0
    unchecked = None
    if rate is None and p_value is None and p_reason != CONSTANT_VALUES and (total is None or not timed):
        unchecked = "no control screen judged, " + ("no time recorded" if timed else "no time limit set")
    return RaterVerdict(
        judge=username, judge_id=judge_id, attempt=status.attempt if status else 1, screens=work.screens,
        control_screens=checked, control_passed=passed, control_rate=rate,
        controls=int(np.count_nonzero(is_control)), p_value=p_value, p_value_reason=p_reason,
        total_seconds=total, median_seconds=median, failures=tuple(failures),
        decision=status.decision if status else RaterStatus.Decision.AUTO, unchecked=unchecked, pending=pending,
    )


def _best_p_value(values: np.ndarray, is_control: np.ndarray) -> float:
    """The p-value of test (b) had the rater given the Source+error candidates their lowest values and the others
    the rest (the same values, ties and test): above ``qc_p_value``, no way of judging this many candidates could
    pass yet (with 2 Source+error values among 5, the exact test's best is 0.1), so the test does not fail."""
    from scipy.stats import mannwhitneyu

    ordered = np.sort(values)
    lowest = int(np.count_nonzero(is_control))
    return float(mannwhitneyu(ordered[lowest:], ordered[:lowest], alternative="greater").pvalue)


def _mann_whitney(values: np.ndarray, is_control: np.ndarray) -> tuple[float | None, str | None]:
    """One-sided Mann-Whitney U p-value that the z-scored values of the other candidates exceed those of the
    Source+error candidates (Appraise's rater check; the z-scores rank as the values do, so the values are
    tested); None with a reason when undefined."""
    if not is_control.any() or is_control.all():
        return None, "no Source+error candidate judged" if not is_control.any() else "only Source+error judged"
    if values.min() == values.max():
        return None, CONSTANT_VALUES
    from scipy.stats import mannwhitneyu  # here, not with the URLs: scipy.stats costs every process ~1 s to import

    p_value = float(mannwhitneyu(values[~is_control], values[is_control], alternative="greater").pvalue)
    return (None, CONSTANT_VALUES) if math.isnan(p_value) else (p_value, None)


def _seconds(value: timedelta | None) -> float | None:
    return None if value is None else value.total_seconds()


def _standing(campaign: Campaign, judge) -> RaterStatus:
    status, _ = RaterStatus.objects.select_for_update().get_or_create(campaign=campaign, judge=judge)
    return status


def set_decision(campaign: Campaign, judge, decision: str, decided_by=None) -> RaterStatus:
    """Record the organizer's decision on ``judge``: ``include`` or ``exclude`` by hand, or ``auto`` (the checks
    decide). Raises ValueError for another value or a user who is not a judge of the campaign."""
    if decision not in RaterStatus.Decision.values:
        raise ValueError(f"unknown decision {decision!r}; choose one of {', '.join(RaterStatus.Decision.values)}")
    _check_judge(campaign, judge)
    with transaction.atomic():
        status = _standing(campaign, judge)
        status.decision, status.decided_by, status.decided_at = decision, decided_by, timezone.now()
        status.save(update_fields=["decision", "decided_by", "decided_at"])
    return status


def start_fresh_attempt(campaign: Campaign, judge, decided_by=None) -> RaterStatus:
    """Give ``judge`` a fresh attempt: the attempt counter goes up, their judgments so far are kept but left out of
    every analysis (``attempt_after`` = their last judgment's id), and the decision returns to ``auto``.
    Raises ValueError when the judge has not judged since their last attempt began.

    The judge's membership row is locked first, as a submit locks it (``queue.lock_membership``): a submit of theirs
    in flight is committed before their last judgment is read, and so set aside with the rest."""
    _check_judge(campaign, judge)
    with transaction.atomic():
        lock_membership(campaign.pk, judge)
        status = _standing(campaign, judge)
        last = Judgment.objects.filter(assignment__campaign=campaign, assignment__judge=judge).aggregate(
            last=Max("id"))["last"]
        if last is None or (status.attempt_after is not None and last <= status.attempt_after):
            raise ValueError(f"{judge.username} has no judgments in attempt {status.attempt} to set aside")
        status.attempt += 1
        status.attempt_after = last
        status.decision, status.decided_by, status.decided_at = RaterStatus.Decision.AUTO, decided_by, timezone.now()
        status.save()
    return status


#: Offer the rater a fresh attempt (their work so far kept but left out of analyses): the decision besides
#: ``RaterStatus.Decision``'s.
FRESH_ATTEMPT = "fresh"

#: What each decision did, in words (``decide``).
DECIDED = {
    RaterStatus.Decision.AUTO: "{judge} now follows the checks' verdict.",
    RaterStatus.Decision.INCLUDE: "{judge} is included by hand: their judgments count in analyses.",
    RaterStatus.Decision.EXCLUDE: "{judge} is excluded by hand: their judgments no longer count in analyses.",
}


def decide(campaign: Campaign, username: str, action: str, decided_by=None) -> str:
    """The organizer's decision ``action`` (a ``RaterStatus.Decision`` or ``FRESH_ATTEMPT``) on the rater
    ``username``; what it did, in words. Raises ValueError (nothing changed) for an unknown action, or for a user
    who is not a judge of the campaign, in the same words whether or not the account exists (an organizer learns
    nothing of the accounts of other campaigns, crowd workers' included)."""
    judge = get_user_model().objects.filter(username=username).first()
    if judge is None:
        raise ValueError(not_a_judge(campaign, username))
    if action == FRESH_ATTEMPT:
        status = start_fresh_attempt(campaign, judge, decided_by=decided_by)
        return (f"{judge.username} starts attempt {status.attempt}; their earlier judgments are kept but left out "
                "of analyses.")
    set_decision(campaign, judge, action, decided_by=decided_by)
    return DECIDED[action].format(judge=judge.username)


def not_a_judge(campaign: Campaign, username: str) -> str:
    """The refusal of a decision on ``username``, who judges nothing of ``campaign`` (or has no account)."""
    return f"{username} is not a judge of campaign {campaign.name}"


def _check_judge(campaign: Campaign, judge) -> None:
    judged = Judgment.objects.filter(assignment__campaign=campaign, assignment__judge=judge).exists()
    if not judged and not campaign.judges.filter(pk=judge.pk).exists():
        raise ValueError(not_a_judge(campaign, judge.username))


@dataclass(frozen=True)
class QcExclusions:
    """What the analyses leave out: ``earlier`` attempts and the ``excluded`` raters' current ones, as judgment
    ranges ``(username, after, up_to)`` (ids in ``(after, up_to]``, None = unbounded), and the JSON naming the rule
    and the excluded raters with their numbers."""

    earlier: tuple[tuple[str, int | None, int | None], ...]
    excluded: tuple[tuple[str, int | None, int | None], ...]
    summary: dict


def analysis_exclusions(campaign: Campaign) -> QcExclusions:
    """The raters the analyses leave out now: every excluded rater's current attempt and every earlier attempt."""
    verdicts = campaign_verdicts(campaign)
    statuses = {s.judge_id: s for s in RaterStatus.objects.filter(campaign=campaign, attempt_after__isnull=False)}
    earlier: list[tuple[str, int | None, int | None]] = []
    excluded: list[tuple[str, int | None, int | None]] = []
    attempts: dict[str, dict] = {}
    for verdict in verdicts:
        status = statuses.get(verdict.judge_id)
        if status is not None:
            earlier.append((verdict.judge, None, status.attempt_after))
            attempts[verdict.judge] = {"attempts": status.attempt - 1, "up_to_judgment": status.attempt_after}
        if verdict.excluded:
            excluded.append((verdict.judge, status.attempt_after if status else None, None))
    summary = {
        "rule": QcRule.of(campaign).as_json(),
        "excluded": [verdict.as_json() for verdict in verdicts if verdict.excluded],
        "included_by_hand": [v.judge for v in verdicts if v.decision == RaterStatus.Decision.INCLUDE],
        "earlier_attempts": attempts,
    }
    return QcExclusions(tuple(earlier), tuple(excluded), summary)
