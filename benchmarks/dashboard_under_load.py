"""Benchmark: the organizer's dashboard poll while judges submit, and how often a kept tally is taken again from
all judgments because a submit committed after one of a higher id (a late commit: concurrent submits take their
judgment ids in one order and commit in another) or because a submit committed between reading the submitted slots
and the judgments. The kept tallies read in one snapshot (``kept_tallies.one_snapshot``) and find late commits among
the ids of their recent judgments (``kept_tallies.RECENT``), reading them alone; the baseline, measured in the same
run under the same load, is the way before: each read in its own snapshot, and no recent ids.

Builds a synthetic campaign (``dashboard.py``'s ``synthetic_campaign``: ``--rankings`` rankings) with sampled
screens and ``--judges`` judges in a throw-away PostgreSQL database (``test_<name>`` of DATABASE_URL, default
``gecappraise_dashboard_load``). Then, for ``--seconds`` each, polls the dashboard JSON (``campaign-dashboard``;
``--endpoint leaderboard``: the live leaderboard, ``campaign-leaderboard``, whose counts are kept the same way)
through Django's test client as a logged-in organizer, every ``--interval`` s:

- *quiet* (the baseline, in the same run): one new judgment stored before each poll, nobody else working;
- *under load*, baseline then product: ``--judges`` processes (forked, each with its own database connection)
  claim and submit screens through the queue (``queue.next_assignment``, ``queue.submit_ranking``) without pause.

Printed per case: polls, the median and p95 of a poll in ms, the submits stored, and the polls in which a kept
tally was taken again from all judgments (``judgments_after`` from id 0) with how many such full reads.

Run: .venv/bin/python benchmarks/dashboard_under_load.py [--rankings 100000] [--judges 8] [--seconds 20]
     [--endpoint dashboard|leaderboard]
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from unittest import mock

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_dashboard_load")

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402

from annotation.models import Campaign, Judgment  # noqa: E402
from annotation.services import dashboard, kept_tallies, queue  # noqa: E402
from annotation.services.screens import create_screens  # noqa: E402
from benchmarks.dashboard import analyze_tables, new_judgment, synthetic_campaign  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402
from ranking import leaderboard  # noqa: E402


class FullReads:
    """Counts the calls of ``kept_tallies.judgments_after`` from id 0 (a tally taken from all judgments)."""

    def __init__(self) -> None:
        self.calls = 0
        self.original = kept_tallies.judgments_after

    def __call__(self, campaign, after):
        if after == 0:
            self.calls += 1
        return self.original(campaign, after)


@contextmanager
def baseline():
    """Kept tallies and the leaderboard's counts checked as before: each read in its own snapshot, by their last id
    alone (a late commit is not found, and the counts are taken again from all judgments)."""
    original = kept_tallies.stored_since

    def without_recent(campaign, kept, slots):
        return original(campaign, replace(kept, recent=()), slots)

    with (
        mock.patch.object(kept_tallies, "stored_since", without_recent),
        mock.patch.object(leaderboard, "stored_since", without_recent),
        mock.patch.object(kept_tallies, "one_snapshot", nullcontext),
        mock.patch.object(dashboard, "one_snapshot", nullcontext),
        mock.patch.object(leaderboard, "one_snapshot", nullcontext),
    ):
        yield


def submitter(campaign_id: int, username: str, stop, stored, seed: int) -> None:
    """Claims and submits screens of the campaign as ``username`` until ``stop`` is set (in a forked process)."""
    connection.close()
    rng = np.random.default_rng(seed)
    campaign = Campaign.objects.get(pk=campaign_id)
    judge = get_user_model().objects.get(username=username)
    try:
        while not stop.is_set():
            assignment = queue.next_assignment(campaign, judge)
            if assignment is None:
                return
            keys = queue.candidate_keys(assignment)
            queue.submit_ranking(assignment.token, judge, [int(r) for r in rng.integers(1, 6, len(keys))], keys)
            with stored.get_lock():
                stored.value += 1
    finally:
        connection.close()


def poll(client: Client, url: str, seconds: float, interval: float, before=None) -> tuple[list[float], list[int]]:
    """Poll ``url`` for ``seconds``: each poll's time and the full reads it made."""
    full = FullReads()
    times, reads = [], []
    end = time.perf_counter() + seconds
    with (
        mock.patch.object(kept_tallies, "judgments_after", full),
        mock.patch.object(leaderboard, "judgments_after", full),
    ):
        while time.perf_counter() < end:
            if before:
                before()
            calls = full.calls
            start = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - start)
            assert response.status_code == 200, response.status_code
            reads.append(full.calls - calls)
            time.sleep(interval)
    return times, reads


def report(label: str, times: list[float], reads: list[int], submits: int) -> float:
    ms = np.array(times) * 1000
    retaken = sum(1 for r in reads if r)
    print(f"  {label:<20} {len(times):4d} polls  median {np.median(ms):7.1f} ms  p95 {np.percentile(ms, 95):7.1f} ms"
          f"  {submits:5d} submits  polls with a full read: {retaken} ({sum(reads)} full reads)")
    return float(np.median(ms))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rankings", type=int, default=100_000)
    parser.add_argument("--judges", type=int, default=8, help="processes submitting without pause")
    parser.add_argument("--seconds", type=float, default=20, help="time polled per case")
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between polls")
    parser.add_argument("--endpoint", choices=("dashboard", "leaderboard"), default="dashboard")
    args = parser.parse_args()
    rng = np.random.default_rng(2015)
    with throwaway_database():
        campaign = synthetic_campaign(args.rankings, 20, rng)
        create_screens(campaign, 20_000)
        User = get_user_model()
        judges = [User.objects.create_user(f"busy{k}") for k in range(args.judges)]
        campaign.judges.add(*judges)
        organizer = User.objects.create_user("organizer")
        campaign.organizers.add(organizer)
        analyze_tables()
        client = Client()
        client.force_login(organizer)
        url = reverse(f"campaign-{args.endpoint}", args=[campaign.pk])
        client.get(url)
        judgments = Judgment.objects.filter(assignment__campaign=campaign).count()
        print(f"{judgments:,} judgments; {args.endpoint} polls every {args.interval} s for {args.seconds} s per case "
              f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        before = Judgment.objects.count()
        quiet = poll(client, url, args.seconds, args.interval, lambda: new_judgment(campaign, rng, "quiet"))
        base = report("quiet", *quiet, Judgment.objects.count() - before)
        medians = {}
        for label, way in (("baseline", baseline), ("product", nullcontext)):
            with way():
                medians[label] = report(f"{label} under load", *under_load(campaign, judges, client, url, args))
        print(f"  baseline / product under load (median): {medians['baseline'] / medians['product']:.1f}x; "
              f"product under load / quiet: {medians['product'] / base:.1f}x")


def under_load(campaign: Campaign, judges: list, client: Client, url: str, args) -> tuple[list, list, int]:
    """Poll while ``judges`` submit in processes of their own: the polls' times, their full reads, the submits."""
    fork = multiprocessing.get_context("fork")
    stop, stored = fork.Event(), fork.Value("i", 0)
    connection.close()
    workers = [fork.Process(target=submitter, args=(campaign.pk, judge.username, stop, stored, k))
               for k, judge in enumerate(judges)]
    for worker in workers:
        worker.start()
    try:
        times, reads = poll(client, url, args.seconds, args.interval)
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    return times, reads, stored.value

if __name__ == "__main__":
    main()
