"""Benchmark: what a judge waits for on a very large campaign, and the support admin's lists at that size, against
the same requests on a small campaign measured in the same run.

Builds, in a throw-away PostgreSQL database (``test_<name>`` of DATABASE_URL, default ``gecappraise_judge_pages``),
a small campaign (2,000 rankings by 20 judges, ``dashboard.py``'s ``synthetic_campaign``) and, after measuring the
admin on it alone, a large one (``--rankings`` rankings of ``--systems`` systems by 20 judges: 200,000 rankings of 31
systems x 10,000 sentences, 10,000 judged screens per judge). Each gets ``--screens`` unserved screens (500 for the
small one) of three pool slots each through ``screen_jobs.request_screens``, as the organizer's screens page asks
for them (the large campaign's through a screen job). The tables are then vacuumed and analyzed, as autovacuum
keeps them on a live server.

Judge pages, through Django's test client as a logged-in judge (the whole request: middleware, permission,
queries, template), in rounds that take the four judges in turn (whatever else the machine does weighs on all
alike): a judge of the small campaign with 100 judged screens (the baseline), a new judge of the large campaign,
and a judge of it with 10,000 judged screens; a round is the judge's home page, the campaign page claiming the
next screen from the pool (the judge's screen is first put back in the pool, untimed, so that there is a claim to
make), the screen page, a submit of ranks (which claims the next screen), the next screen's page, undo, and a flag.
Then both campaigns become crowd campaigns and new crowd workers open the study link (its start page, then its
Start button's POST), their campaign page, screen and submit. Printed per page: median and p95 in ms, the queries of
one request, and the median's ratio to the small campaign's.

The admin: each changelist of the large tables (Assignment, Judgment, CandidateJudgment, Screen, ScreenCandidate,
Segment, Output, Candidate, Flag), unfiltered, filtered by the campaign, and searched for a judge's name and for a
screen number (12345), as a superuser; measured with the small campaign alone (the baseline) and again with the
large one beside it. Printed: the medians, their ratio, and the queries.

Run: .venv/bin/python benchmarks/judge_pages.py [--rankings 200000] [--systems 31] [--screens 50000] [--repeat 20]
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_judge_pages")

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.urls import reverse  # noqa: E402

from annotation.models import Assignment, Campaign  # noqa: E402
from annotation.services.screen_jobs import request_screens  # noqa: E402
from benchmarks.dashboard import synthetic_campaign  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402

KEY = re.compile(r'name="candidate_(\d+)" value="([0-9a-f]+)"')
SCREEN = re.compile(r"^/judge/screens/([0-9a-f-]{36})/")
UNDO = re.compile(r"[?&]undo=([0-9a-f-]{36})")
SMALL_RANKINGS = 2_000
SMALL_SCREENS = 500
REDUNDANCY = 3
JUDGE_PAGES = ("judge home", "campaign page (claims a screen)", "screen page", "submit (ranks)", "next screen page",
               "undo", "flag")
CROWD_PAGES = ("crowd: start page", "crowd: study link (new worker)", "crowd: campaign page", "crowd: screen page",
               "crowd: submit")
ADMIN_MODELS = ("assignment", "judgment", "candidatejudgment", "screen", "screencandidate", "segment", "output",
                "candidate", "flag")
#: Each admin list's campaign filter, as its list_filter names it.
CAMPAIGN_FILTER = {
    "assignment": "campaign__id__exact", "judgment": "assignment__campaign__id__exact",
    "candidatejudgment": "judgment__assignment__campaign__id__exact", "screen": "campaign__id__exact",
    "screencandidate": "screen__campaign__id__exact", "segment": "campaign__id__exact",
    "output": "system__campaign__id__exact", "candidate": "segment__campaign__id__exact",
    "flag": "judgment__assignment__campaign__id__exact",
}


@dataclass
class Timings:
    """Seconds of each timed request by page, and the queries of the last one."""

    seconds: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    queries: dict[str, int] = field(default_factory=dict)

    def request(self, page: str, call: Callable[[], HttpResponse], expect: tuple[int, ...] = (302,)) -> HttpResponse:
        """``call()`` timed as ``page``; its status must be one of ``expect``."""
        with CaptureQueriesContext(connection) as captured:
            start = time.perf_counter()
            response = call()
            self.seconds[page].append(time.perf_counter() - start)
        if response.status_code not in expect:
            raise SystemExit(f"{page}: {response.status_code}, not {expect}: {response.content[:300]!r}")
        self.queries[page] = len(captured)
        return response

    def median(self, page: str) -> float:
        return float(np.median(self.seconds[page])) * 1000

    def p95(self, page: str) -> float:
        return float(np.percentile(self.seconds[page], 95)) * 1000


def vacuum_analyze() -> None:
    """What autovacuum does after a bulk load: statistics for the planner, and the visibility map that lets an
    index answer without the table."""
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def with_screens(campaign: Campaign, screens: int) -> Campaign:
    """``campaign`` with ``REDUNDANCY`` judges per screen and ``screens`` more screens, asked for as the organizer's
    screens page does (above ``MAX_SCREENS_PER_REQUEST`` a screen job writes them, here in this process)."""
    campaign.redundancy = REDUNDANCY
    campaign.save(update_fields=["redundancy"])
    request_screens(campaign, screens)
    return campaign


@dataclass
class JudgeCase:
    """A logged-in judge of ``campaign``, and the timings of their pages."""

    label: str
    campaign: Campaign
    judge: object
    client: Client = field(default_factory=Client)
    timings: Timings = field(default_factory=Timings)
    undo_refused: int = 0

    def __post_init__(self) -> None:
        self.client.force_login(self.judge)

    def back_to_the_pool(self) -> None:
        """Untimed: the judge's open screens return to the pool unclaimed, so that the campaign page claims one."""
        for assignment in Assignment.objects.filter(
            campaign=self.campaign, judge=self.judge, repeat_of__isnull=True
        ).exclude(status=Assignment.Status.SUBMITTED):
            Assignment.objects.filter(pk=assignment.pk).update(
                judge=None, status=Assignment.Status.PENDING, served_at=None, lease_expires_at=None, token=uuid.uuid4()
            )

    def round(self) -> None:
        """One round of the judge's pages (module docstring)."""
        timed, client = self.timings.request, self.client
        timed("judge home", lambda: client.get(reverse("judge-home")), (200,))
        self.back_to_the_pool()
        screen = timed("campaign page (claims a screen)",
                       lambda: client.get(reverse("judge-campaign", args=[self.campaign.pk])))["Location"]
        assert SCREEN.match(screen), screen
        page = timed("screen page", lambda: client.get(screen), (200,))
        following = timed("submit (ranks)", lambda: client.post(screen, ranks(page)))["Location"]
        assert SCREEN.match(following), following
        timed("next screen page", lambda: client.get(following), (200,))
        undo = timed("undo", lambda: client.post(reverse("judge-undo", args=[self.campaign.pk]),
                                                 {"token": UNDO.search(following).group(1)}), (302, 409))
        if undo.status_code == 302:
            assert client.get(undo["Location"]).status_code == 200
            flagged = undo["Location"]
        else:  # refused: before the fix of queue.last_submitted, for every judge with imported judgments
            self.undo_refused += 1
            flagged = following
        flag = reverse("judge-flag", args=[SCREEN.match(flagged).group(1)])
        timed("flag", lambda: client.post(flag, {"reason": "other", "details": "benchmark"}))

    def crowd_round(self, worker: int) -> None:
        """A new crowd worker opens the study link from their own address (its start page, then Start), then judges one
        screen."""
        client = Client(REMOTE_ADDR=f"10.{worker // 65536 % 256}.{worker // 256 % 256}.{worker % 256}")
        timed = self.timings.request
        link = reverse("crowd-study-link", args=[self.campaign.crowd_key])
        query = {"PROLIFIC_PID": f"worker{worker}", "STUDY_ID": "study", "SESSION_ID": f"session{worker}"}
        link += "?" + urlencode(query)
        timed("crowd: start page", lambda: client.get(link), (200,))
        timed("crowd: study link (new worker)", lambda: client.post(link))
        screen = timed("crowd: campaign page", lambda: client.get(reverse("judge-campaign", args=[self.campaign.pk])))
        page = timed("crowd: screen page", lambda: client.get(screen["Location"]), (200,))
        timed("crowd: submit", lambda: client.post(screen["Location"], ranks(page)))


def ranks(page: HttpResponse) -> dict[str, str]:
    """The screen form's data: every candidate ranked 1, with the candidates' keys."""
    keys = KEY.findall(page.content.decode())
    return {**{f"rank_{position}": "1" for position, _ in keys}, **{f"candidate_{p}": key for p, key in keys}}


def admin_pages(client: Client, campaign: Campaign, judge_name: str, repeat: int) -> Timings:
    """The admin's changelists (module docstring), each requested ``repeat`` times after one untimed request."""
    timings = Timings()
    for model in ADMIN_MODELS:
        url = reverse(f"admin:annotation_{model}_changelist")
        cases = {"list": {}, "campaign": {CAMPAIGN_FILTER[model]: campaign.pk}, "judge": {"q": judge_name},
                 "number": {"q": "12345"}}
        for case, query in cases.items():
            page = f"{model}: {case}"
            client.get(url, query)
            for _ in range(repeat):
                timings.request(page, lambda url=url, query=query: client.get(url, query), (200,))
    return timings


def print_judge_pages(cases: list[JudgeCase], pages: tuple[str, ...]) -> None:
    base = cases[0].timings
    print(f"  {'':<34}" + "".join(f"{case.label:>38}" for case in cases))
    print(f"  {'ms: median / p95, queries, ratio':<34}" + "".join(f"{'':>38}" for _ in cases))
    for page in pages:
        row = f"  {page:<34}"
        for case in cases:
            t = case.timings
            ratio = t.median(page) / base.median(page)
            row += f"{t.median(page):9.1f} / {t.p95(page):7.1f} {t.queries[page]:4d} q {ratio:6.2f}x    "
        print(row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rankings", type=int, default=200_000, help="rankings of the large campaign")
    parser.add_argument("--systems", type=int, default=31, help="systems of both campaigns")
    parser.add_argument("--screens", type=int, default=50_000, help="unserved screens of the large campaign")
    parser.add_argument("--repeat", type=int, default=20, help="rounds of the judge pages; admin requests per page")
    args = parser.parse_args()
    rng = np.random.default_rng(2015)
    with throwaway_database():
        User = get_user_model()
        small = with_screens(synthetic_campaign(SMALL_RANKINGS, args.systems, rng, "small", "small-judge"),
                             SMALL_SCREENS)
        vacuum_analyze()
        admin = Client()
        admin.force_login(User.objects.create_superuser("root", password="unused"))
        admin_repeat = max(3, args.repeat // 4)
        admin_before = admin_pages(admin, small, "small-judge00", admin_repeat)

        start = time.perf_counter()
        large = synthetic_campaign(args.rankings, args.systems, rng, "large", "judge")
        built = time.perf_counter() - start
        start = time.perf_counter()
        with_screens(large, args.screens)
        print(f"large campaign: {args.rankings:,} rankings written in {built:.0f} s, {args.screens:,} screens of "
              f"{REDUNDANCY} slots in {time.perf_counter() - start:.0f} s (load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores)")
        vacuum_analyze()
        newcomers = {}
        for campaign in (small, large):
            newcomers[campaign.pk] = User.objects.create_user(f"new-judge-{campaign.pk}")
            campaign.judges.add(newcomers[campaign.pk])
        cases = [
            JudgeCase(f"small, judge of {SMALL_RANKINGS // 20:,}", small, User.objects.get(username="small-judge00")),
            JudgeCase("large, new judge", large, newcomers[large.pk]),
            JudgeCase(f"large, judge of {args.rankings // 20:,}", large, User.objects.get(username="judge00")),
        ]
        for case in cases:
            case.round()  # a running server has its templates, URL patterns and statements ready: not timed
            case.timings = Timings()
        for _ in range(args.repeat):
            for case in cases:
                case.round()
        print("Judge pages")
        print_judge_pages(cases, JUDGE_PAGES)
        for case in cases:
            if case.undo_refused:
                print(f"  {case.label}: undo refused {case.undo_refused} times of {args.repeat + 1}")

        crowd = [JudgeCase(label, campaign, newcomers[campaign.pk])
                 for label, campaign in (("small, crowd worker", small), ("large, crowd worker", large))]
        for campaign in (small, large):
            campaign.crowd, campaign.crowd_session_screens = True, 1000
            campaign.save(update_fields=["crowd", "crowd_session_screens"])
        worker = 0
        for rounds in (1, args.repeat):
            for case in crowd:
                case.timings = Timings() if rounds == args.repeat else case.timings
            for _ in range(rounds):
                for case in crowd:
                    worker += 1
                    case.crowd_round(worker)
        print("Crowd workers")
        print_judge_pages(crowd, CROWD_PAGES)

        admin_after = admin_pages(admin, large, "judge00", admin_repeat)
        print("Admin changelists, ms: median (p95) with the small campaign alone, then with the large one, queries")
        for page in admin_before.seconds:
            ratio = admin_after.median(page) / admin_before.median(page)
            print(f"  {page:<30} {admin_before.median(page):8.1f} ({admin_before.p95(page):7.1f})  "
                  f"{admin_after.median(page):8.1f} ({admin_after.p95(page):7.1f}) {admin_after.queries[page]:3d} q "
                  f"{ratio:7.2f}x")


if __name__ == "__main__":
    main()
