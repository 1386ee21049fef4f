"""Benchmark: adding screens to a campaign, ``POST /api/campaigns/{id}/screens/`` as the organizer waits for it, on
test sets of the same sentences with few and with many systems, against one COUNT over each campaign's candidates.

Builds two campaigns of ``--sentences`` sentences (``benchmarks.dashboard.synthetic_campaign`` without rankings:
each system edits a sentence with probability 0.7, so a sentence has about 1 + 0.7 N candidates), one of
``--few-systems`` and one of ``--systems`` systems (50 x 20,000: 720,000 candidates of 1,000,000 outputs), in a
throw-away PostgreSQL database (``test_<name>`` of DATABASE_URL, default ``gecappraise_add_screens``). Then, per
campaign and per ``--counts`` (screens asked for, at most one request's 10,000), ``--repeat`` times interleaved: the
whole request through Django's test client as the campaign's organizer (middleware, permission, planning, writing
the screens and their slots, JSON), each rolled back so that every repetition plans the same batch; and the
baseline, ``SELECT count(*)`` over the campaign's candidates (what one pass over them costs the database).

Prints each request's median and p95 wall-clock time and its ratio to the campaign's COUNT, and the ratio of the
many-systems campaign's time to the few-systems one's: planning reads the segments' kept multiplicities and the
candidates of the sentences it plans only, so a request costs about the same whatever the number of candidates.
Before, planning read every candidate with its outputs counted, and the request grew with the candidates.

Run: .venv/bin/python benchmarks/add_screens.py [--sentences 20000] [--systems 50] [--few-systems 10]
     [--counts 1 10000] [--repeat 5]
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gecappraise_add_screens")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402

from annotation.models import Campaign, Candidate  # noqa: E402
from benchmarks.command_line import whole_numbers  # noqa: E402
from benchmarks.dashboard import analyze_tables, synthetic_campaign  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402


def add_screens(client: Client, campaign: Campaign, count: int) -> float:
    """Seconds of one request for ``count`` screens, rolled back afterwards."""
    with transaction.atomic():
        start = time.perf_counter()
        response = client.post(f"/api/campaigns/{campaign.pk}/screens/", {"count": str(count)})
        seconds = time.perf_counter() - start
        if response.status_code != 201 or response.json()["created"] != count:
            raise SystemExit(f"adding {count} screens: {response.status_code} {response.content[:200]!r}")
        transaction.set_rollback(True)
    return seconds


def count_candidates(campaign: Campaign) -> float:
    """Seconds of one COUNT over the campaign's candidates (the baseline)."""
    start = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM annotation_candidate c JOIN annotation_segment s ON s.id = c.segment_id"
            " WHERE s.campaign_id = %s", [campaign.pk]
        )
        cursor.fetchone()
    return time.perf_counter() - start


def main() -> None:
    args = whole_numbers(__doc__, sentences=20_000, systems=50, few_systems=10, counts=[1, 10_000], repeat=5)
    with throwaway_database():
        organizer = get_user_model().objects.create_user("organizer")
        campaigns = {}
        for systems in (args.few_systems, args.systems):
            start = time.perf_counter()
            campaign = synthetic_campaign(0, systems, np.random.default_rng(2015), name=f"{systems} systems",
                                          n_sentences=args.sentences)
            campaign.organizers.add(organizer)
            campaigns[systems] = campaign
            print(f"(campaign of {systems} systems x {args.sentences:,} sentences written in "
                  f"{time.perf_counter() - start:.0f} s: "
                  f"{Candidate.objects.filter(segment__campaign=campaign).count():,} candidates)")
        analyze_tables()
        client = Client()
        client.force_login(organizer)
        times: dict[tuple[int, int | None], list[float]] = {}
        for campaign in campaigns.values():
            add_screens(client, campaign, 1)
        for _ in range(args.repeat):
            for systems, campaign in campaigns.items():
                times.setdefault((systems, None), []).append(count_candidates(campaign))
                for count in args.counts:
                    times.setdefault((systems, count), []).append(add_screens(client, campaign, count))
        median = {key: float(np.median(values)) * 1000 for key, values in times.items()}
        for systems in campaigns:
            print(f"{systems} systems: COUNT over the candidates {median[systems, None]:.0f} ms")
            for count in args.counts:
                values = np.array(times[systems, count]) * 1000
                print(f"  add {count:,} screens: {median[systems, count]:.0f} ms median, p95 "
                      f"{np.percentile(values, 95):.0f} ms ({median[systems, count] / median[systems, None]:.1f}x "
                      "the COUNT)")
        for count in args.counts:
            print(f"add {count:,} screens, {args.systems} systems against {args.few_systems}: "
                  f"{median[args.systems, count] / median[args.few_systems, count]:.2f}x (the COUNT: "
                  f"{median[args.systems, None] / median[args.few_systems, None]:.2f}x)")


if __name__ == "__main__":
    main()
