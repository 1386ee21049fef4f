"""The organizer's live pages on PostgreSQL: the dashboard's JSON (``campaign-dashboard``) and the campaign page
(``campaign-detail``) show what every row of the campaign gives, computed here as they were computed before their
totals were read once per request and kept between requests (every judgment's duration loaded, the judgments
counted three to five times, each system's unchanged outputs counted over every output), on a campaign with flags,
excluded screens, several judges, repeats, attention checks, an undo and unjudged screens; and neither makes more
queries when the campaign has more judgments, judges and systems."""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import timedelta

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, F, Max, Q
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Campaign, Flag, Judgment, Screen
from annotation.services import queue
from annotation.services.attention import add_attention_checks, attention_check_rates, control_screens
from annotation.services.dashboard import (
    JudgeProgress,
    Plan,
    rater_qc_summary,
    recent_flags,
    screen_times,
)
from annotation.services.exclusion import set_excluded
from annotation.services.importing import import_outputs
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens
from annotation.services.judging_overview import AttentionCoverage, JudgeActivity
from annotation.services.kept_tallies import submitted_slots
from annotation.services.screens import create_screens
from annotation.services.textfiles import NamedFile

from .factories import judge, login, small_campaign

pytestmark = pytest.mark.django_db
User = get_user_model()


def judge_screens(campaign: Campaign, user, screens: int, rng: np.random.Generator, flag_every: int = 0) -> int:
    """Serve and submit up to ``screens`` screens to ``user`` through the queue, 3 to 60 s each, every
    ``flag_every``-th flagged instead; return how many."""
    clock = timezone.now() + timedelta(seconds=float(rng.integers(0, 1000)))
    done = 0
    while done < screens and (assignment := queue.next_assignment(campaign, user, now=clock)) is not None:
        clock += timedelta(seconds=float(rng.integers(3, 61)), microseconds=int(rng.integers(0, 10**6)))
        keys = queue.candidate_keys(assignment)
        done += 1
        if flag_every and done % flag_every == 0:
            queue.flag_screen(assignment.token, user, f"Garbled source sentence: screen {done}", now=clock)
        else:
            ranks = [int(r) for r in rng.integers(1, len(keys) + 1, len(keys))]
            queue.submit_ranking(assignment.token, user, ranks, keys, now=clock)
    return done


def awkward_campaign(organizer) -> Campaign:
    """Sampled screens (two slots each, repeats on) with attention checks on half of them, judged by three judges
    (flags among them), a fourth judge who has judged nothing, one screen served and not submitted, an undo,
    two screens excluded, imported judgments without a duration, and screens nobody was served."""
    campaign = small_campaign("awkward", redundancy=2, sampling="uniform", repeat_rate=0.5)
    campaign.organizers.add(organizer)
    create_screens(campaign, 30)
    rng = np.random.default_rng(4)
    add_attention_checks(campaign, 0.5, rng)
    ann, bob, cyd = (judge(name, campaign) for name in ("ann", "bob", "cyd"))
    judge("dan", campaign)
    judge_screens(campaign, ann, 14, rng, flag_every=5)
    judge_screens(campaign, bob, 9, rng, flag_every=4)
    judge_screens(campaign, cyd, 4, rng)
    queue.undo_last(campaign, bob, queue.last_submitted(campaign, bob).token)
    queue.next_assignment(campaign, cyd)
    for screen in Screen.objects.filter(campaign=campaign, assignments__status="submitted").distinct()[:2]:
        set_excluded(screen, True)
    segment = campaign.segments.get(line=1)
    shown = list(segment.candidates.values_list("id", flat=True))
    write_judged_screens(campaign, [
        JudgedScreen(line=1, judge="imported", candidates=[JudgedCandidate(pk, i + 1) for i, pk in enumerate(shown)]),
        JudgedScreen(line=1, judge="imported", candidates=[], flag_reason="Other: copied from Appraise"),
    ])
    return campaign


# The computations the pages made before (every row read, each total counted where it was needed).


def before_times(campaign: Campaign) -> dict[str, list[float]]:
    seconds: dict[str, list[float]] = defaultdict(list)
    for username, duration in Judgment.objects.filter(assignment__campaign=campaign, duration__isnull=False) \
            .values_list("assignment__judge__username", "duration"):
        seconds[username].append(duration.total_seconds())
    return seconds


def before_submitted(campaign: Campaign) -> dict[str, int]:
    return dict(
        Assignment.objects.filter(campaign=campaign, status=Assignment.Status.SUBMITTED)
        .values("judge__username").annotate(n=Count("id")).values_list("judge__username", "n")
    )


@contextmanager
def nothing_kept() -> Iterator[None]:
    """An empty cache of its own (what the pages keep stays in theirs)."""
    with override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                               "LOCATION": "nothing kept"}}):
        cache.clear()
        yield


def before_dashboard(campaign: Campaign) -> dict:
    """The dashboard's JSON as ``dashboard.dashboard_data`` computed it before, from every row."""
    with nothing_kept():
        return _before_dashboard(campaign)


def _before_dashboard(campaign: Campaign) -> dict:
    judgments = Judgment.objects.filter(assignment__campaign=campaign)
    submitted = before_submitted(campaign)
    repeats: dict[str, dict[str, int]] = defaultdict(lambda: {"submitted": 0, "due": 0, "later": 0})
    for name, status, due_after in Assignment.objects.filter(campaign=campaign, repeat_of__isnull=False) \
            .values_list("judge__username", "status", "due_after"):
        state = "submitted" if status == "submitted" else "due" if submitted.get(name, 0) >= due_after else "later"
        repeats[name][state] += 1
    originals = Assignment.objects.filter(campaign=campaign, repeat_of__isnull=True)
    totals = originals.aggregate(slots=Count("id"), submitted=Count("id", filter=Q(status="submitted")),
                                 claimed=Count("id", filter=Q(judge__isnull=False)))
    per_screen = (
        originals.values("screen").annotate(slots=Count("id"), done=Count("id", filter=Q(status="submitted")))
        .aggregate(complete=Count("screen", filter=Q(done=F("slots"))), started=Count("screen", filter=Q(done__gt=0)))
    )
    flags = Flag.objects.filter(judgment__assignment__campaign=campaign)
    plan = Plan(
        screens=Screen.objects.filter(campaign=campaign).count(), redundancy=campaign.redundancy,
        slots=totals["slots"], submitted=totals["submitted"], claimed=totals["claimed"],
        screens_complete=per_screen["complete"], screens_started=per_screen["started"], judgments=judgments.count(),
        flags=flags.count(), excluded_screens=Screen.objects.filter(campaign=campaign, excluded=True).count(),
        repeats_submitted=sum(r["submitted"] for r in repeats.values()),
        repeats_due=sum(r["due"] for r in repeats.values()), repeats_later=sum(r["later"] for r in repeats.values()),
    )
    seconds = before_times(campaign)
    flagged = dict(flags.values("judgment__assignment__judge__username").annotate(n=Count("id"))
                   .values_list("judgment__assignment__judge__username", "n"))
    rates = {rate.judge: rate for rate in attention_check_rates(campaign)}
    names = set(campaign.judges.values_list("username", flat=True)) | set(submitted) | set(rates)
    judges = [
        JudgeProgress(
            judge=name, submitted=submitted.get(name, 0), repeats_submitted=repeats[name]["submitted"],
            repeats_due=repeats[name]["due"], flags=flagged.get(name, 0),
            checks=rates[name].checks if name in rates else 0,
            ranked_last=rates[name].ranked_last if name in rates else 0,
            attention_rate=rates[name].rate if name in rates else None, times=screen_times(seconds.get(name, [])),
        )
        for name in sorted(names)
    ]
    last = judgments.aggregate(last=Max("id"))["last"]
    return {
        "snapshot": {"judgments": judgments.count(), "last_judgment_id": last},
        "plan": asdict(plan),
        "times": asdict(screen_times([s for values in seconds.values() for s in values])),
        "judges": [asdict(row) for row in judges],
        "flags": {"total": plan.flags, "shown": [asdict(row) for row in recent_flags(campaign)]},
        "rater_qc": rater_qc_summary(campaign, submitted_slots(campaign)),
    }


def before_page(campaign: Campaign) -> dict:
    """What the campaign page's context held before, from every row; the systems by name (the page listed them
    in the order PostgreSQL grouped them, as Django leaves a model's ordering out of an aggregate query)."""
    with nothing_kept():
        return _before_page(campaign)


def _before_page(campaign: Campaign) -> dict:
    taken = Assignment.objects.filter(campaign=campaign, judge__isnull=False)
    seconds = before_times(campaign)
    submitted = before_submitted(campaign)
    rates = {rate.judge: rate for rate in attention_check_rates(campaign)}
    names = set(campaign.judges.values_list("username", flat=True)) | set(submitted) | set(rates)
    checked = control_screens(campaign)
    screens = Screen.objects.filter(campaign=campaign).count()
    served = taken.order_by().values("screen_id").distinct().count()
    open_screens = screens - served - checked.exclude(screen_id__in=taken.order_by().values("screen_id")).count()
    return {
        "progress": {
            "screens": Screen.objects.filter(campaign=campaign).aggregate(n=Max("number"))["n"] + 1,
            "total": Assignment.objects.filter(campaign=campaign).count(),
            "judgments": Judgment.objects.filter(assignment__in=taken).count(),
            "claimed": taken.count(), "submitted": taken.filter(status="submitted").count(),
        },
        "activity": [
            JudgeActivity(name, submitted.get(name, 0), rates[name].checks if name in rates else 0,
                          rates[name].ranked_last if name in rates else 0,
                          float(np.median(seconds[name])) if seconds.get(name) else None)
            for name in sorted(names)
        ],
        "coverage": AttentionCoverage(screens, checked.count(), open_screens),
        "systems": list(campaign.systems.annotate(
            counted=Count("outputs", filter=Q(outputs__candidate__text=F("outputs__segment__source")))
        ).order_by("name").values_list("name", "kind", "counted")),
    }


def dashboard(client, campaign: Campaign, kept: bool = False) -> dict:
    """The dashboard's JSON (the flags' URLs checked and left out, as are the screen jobs, none here, and the close
    time, none: the campaign is open); with ``kept``, read without a query that reads every judgment (what the poll
    keeps was extended, not taken again)."""
    with CaptureQueriesContext(connection) as captured:
        data = client.get(reverse("campaign-dashboard", args=[campaign.pk])).json()
    assert not (kept and [query for query in captured if whole_reads(query["sql"])])
    assert data.pop("screen_jobs") == []
    assert (data.pop("closed_at"), data.pop("closed_at_text")) == (None, None), "the campaign is open"
    for flag in data["flags"]["shown"]:
        assert flag.pop("url") == reverse("campaign-screen", args=[campaign.pk, flag["screen"]])
    return data


def page(client, campaign: Campaign) -> dict:
    context = client.get(reverse("campaign-detail", args=[campaign.pk])).context
    progress = context["progress"]
    return {
        "progress": {key: getattr(progress, key) for key in ("screens", "total", "judgments", "claimed",
                                                             "submitted")},
        "activity": context["activity"],
        "coverage": context["coverage"],
        "systems": [(system.name, system.kind, system.unchanged) for system in context["systems"]],
    }


def json_ready(data: dict) -> dict:
    """``data`` as JSON gives it back (tuples as lists)."""
    return json.loads(json.dumps(data))


def test_the_dashboard_shows_what_every_row_gives_as_judging_goes_on():
    organizer = User.objects.create_user("orga")
    campaign = awkward_campaign(organizer)
    client = login(organizer)
    ann, dan = User.objects.get(username="ann"), User.objects.get(username="dan")
    cache.clear()
    first = dashboard(client, campaign)
    assert first == json_ready(before_dashboard(campaign)), "from all judgments (nothing kept)"
    plan = first["plan"]
    assert plan["repeats_due"] + plan["repeats_later"] > 0 and plan["flags"] >= 3
    assert 0 < plan["screens_complete"] < plan["screens_started"] < plan["screens"]
    assert dashboard(client, campaign, kept=True) == first, "kept"
    rng = np.random.default_rng(9)
    judge_screens(campaign, dan, 5, rng, flag_every=3)
    assert dashboard(client, campaign, kept=True) == json_ready(before_dashboard(campaign)), "kept and extended"
    create_screens(campaign, 6)
    judge_screens(campaign, ann, 3, rng)
    assert dashboard(client, campaign, kept=True) == json_ready(before_dashboard(campaign)), \
        "new screens, judged at once"
    queue.undo_last(campaign, ann, queue.last_submitted(campaign, ann).token)
    judge_screens(campaign, ann, 1, rng)
    assert dashboard(client, campaign) == json_ready(before_dashboard(campaign)), "taken again after the undo"
    eve = judge("eve", campaign)
    judge_screens(campaign, eve, 2, rng)
    assert dashboard(client, campaign, kept=True) == json_ready(before_dashboard(campaign)), "eve's screens"
    eve.delete()
    kept = dashboard(client, campaign)
    assert kept == json_ready(before_dashboard(campaign)), "a judge's slots gone with their account: read again"
    assert kept["snapshot"]["judgments"] > first["snapshot"]["judgments"]


def test_the_campaign_page_shows_what_every_row_gives():
    organizer = User.objects.create_user("orga")
    campaign = awkward_campaign(organizer)
    client = login(organizer)
    cache.clear()
    shown = page(client, campaign)
    assert shown == before_page(campaign)
    assert {name: n for name, _, n in shown["systems"]} == {"INPUT": 6, "MARMOTFIX": 2, "QUOKKAGEC": 1,
                                                            "Source+error": 0, "ZEPHYRSYS": 1}
    assert shown["coverage"].open > 0 and shown["coverage"].with_check > 0
    assert [row.judge for row in shown["activity"]] == ["ann", "bob", "cyd", "dan", "imported"]
    dashboard(client, campaign)
    judge_screens(campaign, User.objects.get(username="dan"), 4, np.random.default_rng(2))
    assert page(client, campaign) == before_page(campaign), "kept by the dashboard, then extended"


def campaign_of(name: str, systems: int, organizer) -> Campaign:
    """A campaign of 8 sentences and ``systems`` systems, each editing every sentence its own way but one."""
    source = [f"sentence {line} has a few words in it ." for line in range(8)]
    outputs = {f"sys{k:02d}": [s.replace("few", f"e{k}") if line != k % 8 else s for line, s in enumerate(source)]
               for k in range(systems)}
    lines = lambda texts: ("\n".join(texts) + "\n").encode()
    campaign = import_outputs(name, NamedFile("source", lines(source)),
                              [NamedFile(system, lines(texts)) for system, texts in outputs.items()],
                              redundancy=2, sampling="uniform", repeat_rate=0.3, max_candidates=5)
    campaign.organizers.add(organizer)
    create_screens(campaign, 40)
    add_attention_checks(campaign, 0.3, np.random.default_rng(1))
    return campaign


def judged(campaign: Campaign, judges: int, screens: int) -> Campaign:
    rng = np.random.default_rng(judges)
    for k in range(judges):
        judge_screens(campaign, judge(f"{campaign.name}-{k}", campaign), screens, rng, flag_every=4)
    return campaign


def whole_reads(sql: str) -> bool:
    """Whether a query reads every judgment of a campaign (not only those after an id), or every system output
    with its sentence."""
    every_judgment = 'FROM "annotation_judgment"' in sql and '"annotation_judgment"."id" >' not in sql
    return every_judgment or ('"annotation_output"' in sql and '"annotation_segment"' in sql)


def queries(client, url: str) -> tuple[int, list[str]]:
    """How many queries a request of ``url`` makes, and those that read every judgment or output."""
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured), [query["sql"] for query in captured if whole_reads(query["sql"])]


@pytest.mark.parametrize("url_name", ["campaign-dashboard", "campaign-detail"])
def test_the_pages_make_as_many_queries_whatever_the_judgments_judges_and_systems(url_name):
    """The same queries on a campaign with 4 times the judgments, more judges and systems, before and after new
    judgments; once the kept tallies are there, neither page reads every judgment (the totals were counted three to
    five times a request) or every output (each system's unchanged outputs)."""
    organizer = User.objects.create_user("orga")
    client = login(organizer)
    small = judged(campaign_of("small", 3, organizer), judges=2, screens=3)
    large = judged(campaign_of("large", 9, organizer), judges=5, screens=12)
    counts = {}
    for campaign in (small, large):
        url = reverse(url_name, args=[campaign.pk])
        cold, _ = queries(client, url)
        judge_screens(campaign, User.objects.get(username=f"{campaign.name}-0"), 2, np.random.default_rng(3))
        (extended, whole), (unchanged, again) = queries(client, url), queries(client, url)
        assert whole == again == [], f"{campaign.name}: {whole + again}"
        counts[campaign.name] = (cold, extended, unchanged)
    assert Judgment.objects.filter(assignment__campaign=large).count() > 4 * Judgment.objects.filter(
        assignment__campaign=small).count()
    assert counts["large"] == counts["small"], counts


def test_the_campaign_pages_group_thousands():
    """The campaign page said "1200 sentences" and "6 of 1200" (a system's unchanged sentences) where its dashboard
    says "1,200"; the campaign list too."""
    organizer = User.objects.create_user("orga")
    lines = [f"Sentence {i} are here ." for i in range(1200)]
    text = lambda rows: ("\n".join(rows) + "\n").encode()
    campaign = import_outputs("thousands", NamedFile("source", text(lines)), [
        NamedFile("fixer", text([line.replace("are", "is") if i >= 6 else line for i, line in enumerate(lines)])),
    ])
    campaign.organizers.add(organizer)
    client = login(organizer)
    page = " ".join(client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode().split())
    assert "1,200 sentences in 1 document" in page
    assert "<td>6 of 1,200</td>" in page
    listing = client.get(reverse("campaign-list")).content.decode()
    assert "<td>1,200</td>" in listing
