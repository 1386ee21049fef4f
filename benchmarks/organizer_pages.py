"""Benchmark: the organizer's live pages on a large campaign, the dashboard's JSON (``campaign-dashboard``, polled
every 5 s while judges work) and the campaign page (``campaign-detail``), against the way they were computed before.

Builds a synthetic campaign (``--rankings`` rankings of ``--systems`` systems' outputs of ``--sentences``
sentences; ``dashboard.py``'s ``synthetic_campaign``) in a throw-away PostgreSQL database (``test_<name>`` of
DATABASE_URL, default ``gecappraise_organizer_pages``), then what a live campaign has besides: more sampled screens
(two slots each, repeats on), attention checks on some of them, judges working through the queue (flags among
their screens), screens served and not submitted, excluded screens. Requests both pages through Django's test
client as a logged-in organizer (the whole request: middleware, permission, queries, JSON or template), in one
process with Django's default in-process cache, as one web worker serves them. Per page, the median and p95 of:

- *new judgment*: a judge has submitted a screen since the last request (the live case);
- *unchanged*: nothing new since the last request;
- *cold*: the cache is empty (a new worker; a single request);

against the baseline in the same run, interleaved with them: the same requests with the slow parts computed as
before (kept in this script: the judgment totals counted by every tally and the snapshot, three to five times a
request; the plan's slots in two scans; every judgment's duration loaded for the judges' medians; each system's
unchanged outputs counted over every output; the control screens found through the systems' table). Both give the
same JSON and the same page numbers (checked). Also the queries per request. Targets at 200,000 rankings: a
dashboard poll under 200 ms, the campaign page well under 500 ms.

Run: .venv/bin/python benchmarks/organizer_pages.py [--rankings 200000] [--systems 31] [--sentences 20000]
     [--repeat 15]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from unittest import mock

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_organizer_pages")

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count, F, Max, Q, Sum  # noqa: E402
from django.shortcuts import render  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.urls import reverse  # noqa: E402
from django.utils import timezone  # noqa: E402

from annotation.models import (  # noqa: E402
    Assignment,
    Campaign,
    Flag,
    Judgment,
    RaterStatus,
    Screen,
    ScreenCandidate,
    System,
)
from annotation.services import attention, queue, rater_qc  # noqa: E402
from annotation.services.attention import AttentionRate, add_attention_checks  # noqa: E402
from annotation.services.dashboard import (  # noqa: E402
    JudgeProgress,
    Plan,
    closing_state,
    recent_flags,
    screen_job_row,
    screen_times,
)
from annotation.services.exclusion import set_excluded  # noqa: E402
from annotation.services.judging_overview import AttentionCoverage, JudgeActivity  # noqa: E402
from annotation.services.screen_jobs import active_jobs  # noqa: E402
from annotation.services.screens import create_screens, screen_count  # noqa: E402
from benchmarks.dashboard import (  # noqa: E402
    analyze_tables,
    new_judgment,
    percentiles,
    synthetic_campaign,
    timed,
)
from benchmarks.throwaway_database import throwaway_database  # noqa: E402

# The baseline: the pages' slow parts as they were computed before.


@dataclass
class _Kept:
    basis: object
    last_id: int
    count: int
    id_sum: int
    tally: object


def baseline_kept_tally(campaign: Campaign, name: str, basis: object, start, add):
    """A kept tally as it was checked before: one aggregate over every judgment of the campaign per tally."""
    key = f"baseline-kept-tally:{name}:{campaign.pk}"
    kept: _Kept | None = cache.get(key)
    held = kept.last_id if kept is not None else 0
    totals = Judgment.objects.filter(assignment__campaign=campaign).aggregate(
        last=Max("id"), count=Count("id"), id_sum=Sum("id"),
        held_count=Count("id", filter=Q(id__lte=held)), held_sum=Sum("id", filter=Q(id__lte=held)),
    )
    fresh = kept is None or kept.basis != basis or (kept.count, kept.id_sum) != (totals["held_count"],
                                                                                totals["held_sum"] or 0)
    if fresh:
        kept = _Kept(basis, 0, 0, 0, start())
    last = totals["last"] or 0
    if fresh or last != kept.last_id:
        add(kept.tally, kept.last_id, last)
        kept.last_id, kept.count, kept.id_sum = last, totals["count"], totals["id_sum"] or 0
        cache.set(key, kept, 3600)
    return kept.tally


def baseline_attention_rates(campaign: Campaign) -> list[AttentionRate]:
    def add(tally, after: int, up_to: int) -> None:
        attention._count_checks(campaign, after, up_to, *tally)

    checks, last = baseline_kept_tally(campaign, "attention-checks", None, lambda: (Counter(), Counter()), add)
    return [AttentionRate(judge, checks[judge], last[judge]) for judge in sorted(checks)]


def baseline_verdicts(campaign: Campaign) -> list[rater_qc.RaterVerdict]:
    statuses = {status.judge_id: status for status in RaterStatus.objects.filter(campaign=campaign)}
    standings = tuple(sorted((s.judge_id, s.decision, s.attempt, s.attempt_after) for s in statuses.values()))
    rule = rater_qc.QcRule.of(campaign)

    def add(tallies, after: int, up_to: int) -> None:
        for judge in rater_qc._tally(campaign, tallies, statuses, after=after, up_to=up_to):
            tallies.verdicts[judge] = rater_qc._verdict(tallies.names[judge], judge, statuses.get(judge),
                                                        tallies.work[judge], rule)

    tallies = baseline_kept_tally(campaign, "rater-qc", (standings, rule), rater_qc._Tallies, add)
    verdicts = dict(tallies.verdicts)
    for judge in set(statuses) - set(verdicts):
        verdicts[judge] = rater_qc._verdict(tallies.names.get(judge) or statuses[judge].judge.username, judge,
                                            statuses[judge], tallies.work.get(judge, rater_qc._Work()), rule)
    return sorted(verdicts.values(), key=lambda verdict: verdict.judge)


@dataclass
class _Times:
    durations: dict = field(default_factory=dict)
    summaries: tuple | None = None


def baseline_time_summaries(campaign: Campaign) -> tuple:
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

    return baseline_kept_tally(campaign, "screen-times", None, _Times, add).summaries


def baseline_submitted_by_judge(campaign: Campaign) -> dict[str, int]:
    return dict(
        Assignment.objects.filter(campaign=campaign, status=Assignment.Status.SUBMITTED)
        .values("judge__username").annotate(n=Count("id")).values_list("judge__username", "n")
    )


def baseline_dashboard_data(campaign: Campaign) -> dict:
    """``dashboard.dashboard_data`` as it was."""
    latest = Judgment.objects.filter(assignment__campaign=campaign).aggregate(last=Max("id"), n=Count("id"))
    overall, per_judge = baseline_time_summaries(campaign)
    submitted = baseline_submitted_by_judge(campaign)
    repeats: dict = defaultdict(lambda: {"submitted": 0, "due": 0, "later": 0})
    for judge, status, due_after in Assignment.objects.filter(campaign=campaign, repeat_of__isnull=False) \
            .values_list("judge__username", "status", "due_after"):
        repeats[judge]["submitted" if status == "submitted" else "due" if submitted.get(judge, 0) >= due_after
                       else "later"] += 1
    originals = Assignment.objects.filter(campaign=campaign, repeat_of__isnull=True).aggregate(
        slots=Count("id"), submitted=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)),
        claimed=Count("id", filter=Q(judge__isnull=False)),
    )
    per_screen = (
        Assignment.objects.filter(campaign=campaign, repeat_of__isnull=True).values("screen")
        .annotate(slots=Count("id"), done=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)))
        .aggregate(complete=Count("screen", filter=Q(done=F("slots"))), started=Count("screen", filter=Q(done__gt=0)))
    )
    plan = Plan(
        screens=Screen.objects.filter(campaign=campaign).count(), redundancy=campaign.redundancy,
        slots=originals["slots"], submitted=originals["submitted"], claimed=originals["claimed"],
        screens_complete=per_screen["complete"], screens_started=per_screen["started"],
        judgments=Judgment.objects.filter(assignment__campaign=campaign).count(),
        flags=Flag.objects.filter(judgment__assignment__campaign=campaign).count(),
        excluded_screens=Screen.objects.filter(campaign=campaign, excluded=True).count(),
        repeats_submitted=sum(r["submitted"] for r in repeats.values()),
        repeats_due=sum(r["due"] for r in repeats.values()), repeats_later=sum(r["later"] for r in repeats.values()),
    )
    submitted = baseline_submitted_by_judge(campaign)
    flags = dict(
        Flag.objects.filter(judgment__assignment__campaign=campaign)
        .values("judgment__assignment__judge__username").annotate(n=Count("id"))
        .values_list("judgment__assignment__judge__username", "n")
    )
    rates = {rate.judge: rate for rate in baseline_attention_rates(campaign)}
    names = set(campaign.judges.values_list("username", flat=True)) | set(submitted) | set(rates)
    judges = [
        JudgeProgress(
            judge=name, submitted=submitted.get(name, 0),
            repeats_submitted=repeats[name]["submitted"] if name in repeats else 0,
            repeats_due=repeats[name]["due"] if name in repeats else 0, flags=flags.get(name, 0),
            checks=rates[name].checks if name in rates else 0,
            ranked_last=rates[name].ranked_last if name in rates else 0,
            attention_rate=rates[name].rate if name in rates else None,
            times=per_judge.get(name) or screen_times([]),
        )
        for name in sorted(names)
    ]
    verdicts = baseline_verdicts(campaign)
    return {
        "snapshot": {"judgments": latest["n"], "last_judgment_id": latest["last"]},
        "plan": asdict(plan),
        "times": asdict(overall),
        "judges": [asdict(row) for row in judges],
        "flags": {"total": plan.flags, "shown": [asdict(row) for row in recent_flags(campaign)]},
        "rater_qc": {"rule": rater_qc.QcRule.of(campaign).as_json(), "raters": [v.as_json() for v in verdicts],
                     "excluded": sum(v.excluded for v in verdicts)},
        "screen_jobs": [screen_job_row(job) for job in active_jobs(campaign)],
        **closing_state(campaign.closed_at),
    }


def baseline_progress(campaign: Campaign) -> dict[str, int]:
    """The campaign page's progress as it was (the judgments counted over every slot with a judge)."""
    taken = Assignment.objects.filter(campaign=campaign, judge__isnull=False)
    return {
        "screens": screen_count(campaign),
        "total": Assignment.objects.filter(campaign=campaign).count(),
        "judgments": Judgment.objects.filter(assignment__in=taken).count(),
        **taken.aggregate(claimed=Count("id"), submitted=Count("id", filter=Q(status=Assignment.Status.SUBMITTED))),
    }


def baseline_judge_activity(campaign: Campaign, _progress=None) -> list[JudgeActivity]:
    """The judges' table as it was: every judgment's duration loaded for the medians."""
    submitted = baseline_submitted_by_judge(campaign)
    seconds: dict[str, list[float]] = defaultdict(list)
    for username, duration in Judgment.objects.filter(assignment__campaign=campaign, duration__isnull=False) \
            .values_list("assignment__judge__username", "duration"):
        seconds[username].append(duration.total_seconds())
    rates = {rate.judge: rate for rate in baseline_attention_rates(campaign)}
    names = set(campaign.judges.values_list("username", flat=True)) | set(submitted) | set(rates)
    return [
        JudgeActivity(name, submitted.get(name, 0), rates[name].checks if name in rates else 0,
                      rates[name].ranked_last if name in rates else 0,
                      float(np.median(seconds[name])) if seconds.get(name) else None)
        for name in sorted(names)
    ]


def baseline_coverage(campaign: Campaign) -> AttentionCoverage:
    """The attention checks' coverage as it was: the control screens through the systems' table, NOT IN."""
    checked = (
        ScreenCandidate.objects.filter(candidate__outputs__system__campaign=campaign,
                                       candidate__outputs__system__kind=System.Kind.CONTROL)
        .order_by().values("screen_id").distinct()
    )
    taken = Assignment.objects.filter(campaign=campaign).taken().order_by().values("screen_id")
    total = Screen.objects.filter(campaign=campaign).count()
    served = taken.distinct().count()
    return AttentionCoverage(total, checked.count(), total - served - checked.exclude(screen_id__in=taken).count())


def baseline_systems(campaign: Campaign) -> list[System]:
    """Each system with its unchanged outputs counted over every output, as the page counted them."""
    systems = list(campaign.systems.annotate(
        counted=Count("outputs", filter=Q(outputs__candidate__text=F("outputs__segment__source")))
    ))
    for system in systems:
        system.unchanged = system.counted
    return systems


def baseline_render(request, template_name, context=None, *args, **kwargs):
    """The campaign page rendered with the systems as it counted them."""
    if template_name == "organizer/campaign_detail.html":
        context = {**context, "systems": baseline_systems(context["campaign"])}
    return render(request, template_name, context, *args, **kwargs)


@contextmanager
def baseline() -> Iterator[None]:
    """The views with the slow parts computed as before."""
    with (
        mock.patch("annotation.views.dashboard.dashboard_data", baseline_dashboard_data),
        mock.patch("annotation.views.organizer.campaign_progress", baseline_progress),
        mock.patch("annotation.views.organizer.render", baseline_render),
        mock.patch("annotation.views.organizer_judging.judge_activity", baseline_judge_activity),
        mock.patch("annotation.views.organizer_judging.attention_coverage", baseline_coverage),
    ):
        yield


# The campaign, the requests and the timings.


def live_campaign(campaign: Campaign, rng: np.random.Generator) -> list:
    """What a live campaign has besides the imported rankings; returns the judges working in it."""
    Campaign.objects.filter(pk=campaign.pk).update(redundancy=2, repeat_rate=0.3)
    campaign.refresh_from_db()
    create_screens(campaign, 5_000)
    add_attention_checks(campaign, 0.3, rng)
    User = get_user_model()
    judges = [User.objects.create_user(f"live{k}") for k in range(5)]
    campaign.judges.add(*judges)
    clock = timezone.now()
    for k in range(300):
        judge = judges[k % len(judges)]
        assignment = queue.next_assignment(campaign, judge, now=clock)
        clock += timedelta(seconds=float(rng.integers(5, 90)))
        keys = queue.candidate_keys(assignment)
        if k % 10 == 0:
            queue.flag_screen(assignment.token, judge, "Garbled source sentence: cut off", now=clock)
        else:
            queue.submit_ranking(assignment.token, judge, [int(r) for r in rng.integers(1, len(keys) + 1, len(keys))],
                                 keys, now=clock)
    for judge in judges[:3]:
        queue.next_assignment(campaign, judge, now=clock)
    for screen in Screen.objects.filter(campaign=campaign).order_by("number")[:400:20]:
        set_excluded(screen, True)
    return judges


def get(client: Client, url: str):
    response = client.get(url)
    if response.status_code != 200:
        raise SystemExit(f"{url}: {response.status_code} {response.content[:200]!r}")
    return response


def page_numbers(response) -> dict:
    """What the campaign page shows, from its context: progress, judges, coverage, systems' unchanged outputs."""
    context = response.context
    progress = context["progress"]
    fields = ("screens", "total", "judgments", "claimed", "submitted")
    return {
        "progress": {key: progress[key] if isinstance(progress, dict) else getattr(progress, key) for key in fields},
        "activity": context["activity"],
        "coverage": context["coverage"],
        "systems": sorted((system.name, system.unchanged) for system in context["systems"]),
    }


def check_same(client: Client, urls: dict[str, str]) -> None:
    """The baseline and the product give the same JSON and the same page numbers."""
    ours = {"dashboard": get(client, urls["dashboard"]).json(), "page": page_numbers(get(client, urls["page"]))}
    with baseline():
        theirs = {"dashboard": get(client, urls["dashboard"]).json(),
                  "page": page_numbers(get(client, urls["page"]))}
    for name in ours:
        if ours[name] != theirs[name]:
            raise SystemExit(f"{name}: the product and the baseline differ")


def queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        get(client, url)
    return len(captured)


def measure(client: Client, url: str, campaign: Campaign, repeat: int, rng: np.random.Generator) -> dict:
    """Timings of ``url``, the product's and the baseline's interleaved: new judgment, unchanged, cold."""
    times: dict[str, list] = defaultdict(list)
    ways = {"product": nullcontext, "baseline": baseline}
    for _ in range(repeat):
        for label, way in ways.items():
            with way():
                new_judgment(campaign, rng, f"newcomer-{int(rng.integers(3))}")
                get(client, url)
                new_judgment(campaign, rng, f"newcomer-{int(rng.integers(3))}")
                times[label, "new"].append(timed(get, client, url))
                times[label, "unchanged"].append(timed(get, client, url))
                times[label, "queries"].append(queries(client, url))
    for label, way in ways.items():
        with way():
            cache.clear()
            times[label, "cold"].append(timed(get, client, url))
    return times


def report(name: str, times: dict, target_ms: float) -> None:
    print(f"  {name}: ms, wall-clock median / p95, this process's CPU median; queries per request")
    for case in ("new", "unchanged", "cold"):
        base, ours = percentiles(times["baseline", case]), percentiles(times["product", case])
        label = {"new": "new judgment since the last request", "unchanged": "unchanged since the last request",
                 "cold": "cold cache (one request)"}[case]
        print(f"    {label:<38} before {base[0]:7.1f} / {base[1]:7.1f} cpu {base[2]:7.1f}   now {ours[0]:7.1f} / "
              f"{ours[1]:7.1f} cpu {ours[2]:7.1f}   before/now (median) {base[0] / ours[0]:5.1f}x")
    print(f"    queries: before {int(np.median(times['baseline', 'queries']))}, "
          f"now {int(np.median(times['product', 'queries']))}")
    p95 = max(percentiles(times["product", case])[1] for case in ("new", "unchanged"))
    print(f"    target p95 < {target_ms:.0f} ms: {'met' if p95 < target_ms else 'MISSED'} ({p95:.0f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rankings", type=int, default=200_000)
    parser.add_argument("--systems", type=int, default=31)
    parser.add_argument("--sentences", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=15, help="requests timed per case")
    args = parser.parse_args()
    rng = np.random.default_rng(2015)
    with throwaway_database():
        start = time.perf_counter()
        campaign = synthetic_campaign(args.rankings, args.systems, rng, n_sentences=args.sentences)
        live_campaign(campaign, rng)
        analyze_tables()
        print(f"(campaign written in {time.perf_counter() - start:.0f} s)")
        organizer = get_user_model().objects.create_user("organizer")
        campaign.organizers.add(organizer)
        client = Client()
        client.force_login(organizer)
        urls = {"dashboard": reverse("campaign-dashboard", args=[campaign.pk]),
                "page": reverse("campaign-detail", args=[campaign.pk])}
        check_same(client, urls)
        judgments = Judgment.objects.filter(assignment__campaign=campaign).count()
        print(f"{judgments:,} judgments of {campaign.systems.count()} systems x {campaign.segments.count():,} "
              f"sentences, {screen_count(campaign):,} screens (load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores); the same JSON and page numbers as before")
        report("dashboard JSON", measure(client, urls["dashboard"], campaign, args.repeat, rng), 200)
        report("campaign page", measure(client, urls["page"], campaign, args.repeat, rng), 500)


if __name__ == "__main__":
    main()
