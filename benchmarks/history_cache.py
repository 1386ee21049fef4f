"""Benchmark: the dashboard history's cache entry (``ranking.leaderboard.History``) on a large campaign, as it is kept
now (each checkpoint's step, a byte per outcome cell) against the way it was kept before (the int64 outcome counts
of every checkpoint whose bootstrap was still missing).

Builds a synthetic campaign (``--rankings`` rankings of ``--systems`` systems' outputs of ``--sentences`` sentences;
``dashboard.py``'s ``synthetic_campaign``) in a throw-away PostgreSQL database (``test_<name>`` of DATABASE_URL,
default ``gecappraise_history_cache``), then asks for the history once with no time for bootstraps (one checkpoint
computed, as the first poll of a large campaign leaves it: the others pending). The baseline is the same history
with each pending checkpoint's counts as the old layout held them (``History.counts``), in the same cache. Per
layout: the pickled size of the entry and the median time of its round trip through Django's cache (a ``get`` and a
``set``: what each history request and each leaderboard request that completes a checkpoint do); then the median
time of a whole history request now (``leaderboard.history``, no time for bootstraps), and of the part of it the
new layout adds (summing a pending checkpoint's steps). Both layouts give the same counts (checked).

Run: .venv/bin/python benchmarks/history_cache.py [--rankings 100000] [--systems 50] [--sentences 10000]
     [--repeat 7]
"""
from __future__ import annotations

import pickle
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_history_cache")

from django.core.cache import cache  # noqa: E402

from benchmarks.dashboard import campaign_benchmark  # noqa: E402
from ranking import leaderboard as live  # noqa: E402


@dataclass
class OldCheckpoint:
    """A checkpoint as it was kept before: its full int64 counts until its bootstrap was computed."""

    rankings: int
    digest: str
    scores: list[float] | None
    counts: np.ndarray | None
    ranking: live.CheckpointRanking | None = None


@dataclass
class OldHistory:
    token: str
    checkpoints: list[OldCheckpoint]


def old_layout(history: live.History) -> OldHistory:
    """``history`` as the old layout held it."""
    return OldHistory(history.token, [
        OldCheckpoint(point.rankings, point.digest, point.scores,
                      history.counts(index) if point.ranking is None and point.scores is not None else None,
                      point.ranking)
        for index, point in enumerate(history.checkpoints)
    ])


def median_ms(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def round_trip(key: str) -> None:
    cache.set(key, cache.get(key), 3600)


def main() -> None:
    with campaign_benchmark(__doc__.splitlines()[0], systems=50, repeat=7) as (args, campaign):
        live.history(campaign, budget=0.0)
        key = live._cache_key(campaign, "history")
        history: live.History = cache.get(key)
        old = old_layout(history)
        pending = [i for i, point in enumerate(old.checkpoints) if point.counts is not None]
        for index in pending[:: max(len(pending) // 20, 1)]:
            np.testing.assert_array_equal(old.checkpoints[index].counts, history.counts(index))
        cache.set("old-history", old, 3600)
        sizes = {"now": len(pickle.dumps(history)), "before": len(pickle.dumps(old))}
        trips = {"now": median_ms(lambda: round_trip(key), args.repeat),
                 "before": median_ms(lambda: round_trip("old-history"), args.repeat)}
        print(f"{len(history.checkpoints):,} checkpoints, {len(pending):,} without their bootstrap yet")
        print(f"cache entry: {sizes['now'] / 1e6:.1f} MB (before: {sizes['before'] / 1e6:.1f} MB; "
              f"before/now = {sizes['before'] / sizes['now']:.1f})")
        print(f"cache round trip (get + set): {trips['now']:.0f} ms median (before: {trips['before']:.0f} ms; "
              f"before/now = {trips['before'] / trips['now']:.1f})")
        request = median_ms(lambda: live.history(campaign, budget=0.0), args.repeat)
        summing = median_ms(lambda: history.counts(len(history.checkpoints) - 1), args.repeat)
        print(f"a history request now: {request:.0f} ms median, of which summing the newest checkpoint's steps "
              f"{summing:.1f} ms")


if __name__ == "__main__":
    main()
