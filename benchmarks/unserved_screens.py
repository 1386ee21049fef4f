"""Benchmark: the organizer's list of the screens not served yet (``/campaigns/{id}/screens/?show=unserved``), its
first page and the page after, at growing numbers of served screens, against the list read through the served
screens, as it was before ``ServedPrefix``.

Builds a campaign of ``--screens`` screens (300,000) of three slots each, written by SQL as ``screens.write_screens``
lays them out (slots in screen order), in a throw-away PostgreSQL database (``test_<name>`` of DATABASE_URL, default
``gecappraise_unserved_screens``). Then, for each of ``--served`` (screens given to a judge, the first ones, as the
queue hands them out: a slot of each gets a judge; the slots' table then analyzed, as autovacuum would),
``--repeat`` times interleaved: ``--step`` more screens are served (judges keep working between two views of the
list), then the first page of the list and the page after it (``?from=`` the first page's next link) through
Django's test client as the campaign's organizer (middleware, permission, queries, template); and the same two
requests with ``screen_list.served_below`` patched to 0, which reads as the list read before (every screen from 0
checked for a judge).

Prints each page's median time, new and baseline, their ratio, and the new pages' time at the most served screens
against the fewest: the list reads from the first unserved screen, so it costs the same whatever the number served.
Before, both pages walked the served screens (the page after through its link back to the first page).

Run: .venv/bin/python benchmarks/unserved_screens.py [--screens 300000] [--served 1000 50000 200000] [--step 20]
     [--repeat 7]
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_unserved_screens")

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402

from annotation.models import Campaign  # noqa: E402
from annotation.services.importing import import_outputs  # noqa: E402
from annotation.services.textfiles import NamedFile  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402

LINES = 1_000
REDUNDANCY = 3
NEXT = re.compile(r'<a href="[^"]*from=(\d+)" rel="next">')
ROW = re.compile(r'<tr id="screen-(\d+)">')


def campaign_of(screens: int, owner) -> Campaign:
    """A campaign of ``LINES`` sentences of two outputs and ``screens`` screens of ``REDUNDANCY`` pool slots."""
    source = NamedFile("source", "".join(f"sentence {i} is here .\n" for i in range(LINES)).encode())
    systems = [NamedFile(name, "".join(f"sentence {i} is {name} .\n" for i in range(LINES)).encode())
               for name in ("alpha", "beta")]
    campaign = import_outputs("unserved", source, systems, owner=owner)
    campaign.organizers.add(owner)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(
            """
            INSERT INTO annotation_screen (campaign_id, segment_id, number, created_at, excluded, control)
            SELECT %(campaign)s, segments.ids[1 + n %% cardinality(segments.ids)], n, now(), false, false
            FROM generate_series(0, %(screens)s - 1) AS n,
                 (SELECT array_agg(id ORDER BY line) AS ids FROM annotation_segment
                  WHERE campaign_id = %(campaign)s) AS segments
            """,
            {"campaign": campaign.pk, "screens": screens},
        )
        cursor.execute(
            """
            INSERT INTO annotation_assignment (screen_id, campaign_id, position, due_after, status, token)
            SELECT s.id, s.campaign_id, s.number * %(redundancy)s + copy, 0, 'pending', gen_random_uuid()
            FROM annotation_screen s, generate_series(0, %(redundancy)s - 1) AS copy
            WHERE s.campaign_id = %(campaign)s
            """,
            {"campaign": campaign.pk, "redundancy": REDUNDANCY},
        )
    return campaign


def serve(campaign: Campaign, judge, upto: int) -> None:
    """Give the first slot of every screen numbered below ``upto`` to ``judge`` (submitted), as the queue would."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE annotation_assignment SET judge_id = %(judge)s, status = 'submitted', submitted_at = now()"
            " WHERE campaign_id = %(campaign)s AND judge_id IS NULL AND position %% %(redundancy)s = 0"
            " AND position < %(upto)s * %(redundancy)s",
            {"judge": judge.pk, "campaign": campaign.pk, "redundancy": REDUNDANCY, "upto": upto},
        )


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screens", type=int, default=300_000)
    parser.add_argument("--served", type=int, nargs="+", default=[1_000, 50_000, 200_000])
    parser.add_argument("--step", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with throwaway_database():
        users = get_user_model().objects
        organizer, judge = users.create_user("organizer"), users.create_user("judge")
        start = time.perf_counter()
        campaign = campaign_of(args.screens, organizer)
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        print(f"(campaign of {args.screens:,} screens, {REDUNDANCY} slots each, written in "
              f"{time.perf_counter() - start:.0f} s)")
        client = Client()
        client.force_login(organizer)
        medians = {}
        for served in args.served:
            serve(campaign, judge, served)
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE annotation_assignment")
            pages(client, campaign)
            times: dict[str, list[float]] = {"new": [], "baseline": []}
            upto = served
            for _ in range(args.repeat):
                upto += args.step
                serve(campaign, judge, upto)
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
