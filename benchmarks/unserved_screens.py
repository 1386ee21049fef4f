"""Benchmark: the organizer's list of the screens not served yet (``/campaigns/{id}/screens/?show=unserved``), its
first page and the page after, at growing numbers of served screens, against the list read through the served
screens, as it was before ``ServedPrefix``.

Builds a campaign of ``--screens`` screens (300,000) of three slots each, written by SQL as
``screens.write_screens`` lays them out (slots in screen order; ``tests/annotation/large_campaigns.py``), in a
throw-away PostgreSQL database (``test_<name>`` of DATABASE_URL, default ``gecappraise_unserved_screens``). Then,
for each of ``--served`` (screens given to a judge, the first ones, as the queue hands them out: a slot of each gets
a judge; the slots' table then analyzed, as autovacuum would), ``--repeat`` times interleaved: ``--step`` more
screens are served (judges keep working between two views of the list), then the first page of the list and the page
after it (``?from=`` the first page's next link) through Django's test client as the campaign's organizer
(middleware, permission, queries, template); and the same two requests with ``screen_list.served_below`` patched to
0, which reads as the list read before (every screen from 0 checked for a judge).

Prints each page's median time, new and baseline, their ratio, and the new pages' time at the most served screens
against the fewest: the list reads from the first unserved screen, so it costs the same whatever the number served.
Before, both pages walked the served screens (the page after through its link back to the first page).

Run: .venv/bin/python benchmarks/unserved_screens.py [--screens 300000] [--served 1000 50000 200000] [--step 20]
     [--repeat 7]
"""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.command_line import whole_numbers  # noqa: E402
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_unserved_screens")

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402

from annotation.models import Campaign  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402
from tests.annotation.large_campaigns import large_campaign, serve_first  # noqa: E402

LINES = 1_000
REDUNDANCY = 3
NEXT = re.compile(r'<a href="[^"]*from=(\d+)" rel="next">')
ROW = re.compile(r'<tr id="screen-(\d+)">')


def pages(client: Client, campaign: Campaign) -> tuple[float, float, list[int]]:
    """Seconds of the list's first page of unserved screens and of the page after it, and the numbers both show."""
    url = reverse("campaign-screens", args=[campaign.pk]) + "?show=unserved"
    start = time.perf_counter()
    first = client.get(url)
    first_seconds = time.perf_counter() - start
    following = NEXT.search(first.content.decode())
    start = time.perf_counter()
    second = client.get(f"{url}&from={following.group(1)}")
    second_seconds = time.perf_counter() - start
    numbers = [int(n) for response in (first, second) for n in ROW.findall(response.content.decode())]
    return first_seconds, second_seconds, numbers


def main() -> None:
    args = whole_numbers(__doc__, screens=300_000, served=[1_000, 50_000, 200_000], step=20, repeat=7)
    with throwaway_database():
        users = get_user_model().objects
        organizer, judge = users.create_user("organizer"), users.create_user("judge")
        start = time.perf_counter()
        campaign = large_campaign("unserved", organizer, lines=LINES, screens=args.screens, redundancy=REDUNDANCY)
        print(f"(campaign of {args.screens:,} screens, {REDUNDANCY} slots each, written in "
              f"{time.perf_counter() - start:.0f} s)")
        client = Client()
        client.force_login(organizer)
        medians = {}
        for served in args.served:
            serve_first(campaign, served, judge, REDUNDANCY)
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE annotation_assignment")
            pages(client, campaign)
            times: dict[str, list[float]] = {"new": [], "baseline": []}
            upto = served
            for _ in range(args.repeat):
                upto += args.step
                serve_first(campaign, upto, judge, REDUNDANCY)
                new = pages(client, campaign)
                with mock.patch("annotation.services.screen_list.served_below", return_value=0):
                    old = pages(client, campaign)
                if new[2] != old[2] or new[2][0] != upto:
                    raise SystemExit(f"the pages differ: {new[2][:3]} against {old[2][:3]} at {upto:,} served")
                times["new"].append(new[:2])
                times["baseline"].append(old[:2])
            median = {key: np.median(np.array(values), axis=0) * 1000 for key, values in times.items()}
            medians[served] = median["new"]
            for index, page in enumerate(("first page", "page after")):
                print(f"{served:,} served: {page} {median['new'][index]:.1f} ms, baseline "
                      f"{median['baseline'][index]:.1f} ms ({median['baseline'][index] / median['new'][index]:.1f}x "
                      "faster)")
        fewest, most = min(args.served), max(args.served)
        for index, page in enumerate(("first page", "page after")):
            print(f"{page} at {most:,} served against {fewest:,}: {medians[most][index] / medians[fewest][index]:.2f}x")


if __name__ == "__main__":
    main()
