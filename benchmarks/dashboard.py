"""Benchmark: the organizer dashboard's leaderboard request (Expected Wins, 1,000 bootstrap samples, rank ranges,
clusters, unresolved pairs) on the 2,319 CoNLL-14 rankings and on a synthetic 100,000 rankings of 20 systems.

Builds both campaigns in a throw-away PostgreSQL database (``test_<name>`` of DATABASE_URL, default
``gecappraise_dashboard``) through the product's import services, and requests ``leaderboard.json`` through
Django's test client as a logged-in organizer (the whole request: middleware, permission, queries, JSON), in one
process with Django's default in-process cache, as one web worker serves it. Per campaign, the median and p95 of:

- *new judgment*: a judge has submitted a screen since the last request (the live case: the dashboard polls while
  judging goes on): the new judgment is loaded and its counts added, then the bootstrap runs (uncached result);
- *unchanged*: nothing new since the last request (the result comes from the cache);
- *cold*: the cache is empty (a new worker, or a deletion or exclusion changed the past): every judgment loaded;
- *computation*: the bootstrap, ranges, clusters and unresolved pairs from the counts alone, without a request;

against a baseline measured in the same run: what the request costs without the kept counts, as the analysis
computes Expected Wins (load all rankings, expand the pairs, ``bootstrap_expected_wins``, ``bootstrap_ranking``).
Also the history request (one checkpoint per 100 rankings): the first one (within its time budget) and the total
time until every checkpoint is computed. Target: new-judgment p95 under 200 ms at 100,000 rankings.

Run: .venv/bin/python benchmarks/dashboard.py [--rankings 100000] [--systems 20] [--repeat 20] [--skip-conll14]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_dashboard")

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402

from annotation.models import Campaign, Candidate  # noqa: E402
from annotation.services.appraise_import import import_appraise_xml  # noqa: E402
from annotation.services.importing import import_outputs  # noqa: E402
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens  # noqa: E402
from annotation.services.textfiles import NamedFile  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402
from ranking import leaderboard as live  # noqa: E402
from ranking.core.bootstrap import bootstrap_expected_wins, bootstrap_ranking  # noqa: E402
from ranking.core.expected_wins import expected_wins  # noqa: E402
from ranking.core.pairs import expanded_pairs, win_matrix  # noqa: E402
from ranking.loading import load_rankings  # noqa: E402

CONLL14 = Path(os.environ.get("GECAPPRAISE_SHARED_DATA", REPO.parent / "shared" / "data")) / "conll14"


def conll14_campaign() -> Campaign:
    """The 13 CoNLL-14 outputs and the 2,319 rankings of judgments.xml (G15)."""
    outputs = CONLL14 / "outputs"
    files = [NamedFile(p.name, p.read_bytes()) for p in sorted(outputs.iterdir())]
    campaign = import_outputs("conll14", NamedFile("INPUT", (outputs / "INPUT").read_bytes()), files)
    with transaction.atomic():
        import_appraise_xml(campaign, (CONLL14 / "judgments.xml").read_bytes())
    return campaign


def synthetic_campaign(
    n_rankings: int, n_systems: int, rng: np.random.Generator, name: str = "synthetic", judges: str = "judge",
    n_sentences: int | None = None,
) -> Campaign:
    """``n_systems`` systems editing each of ``n_sentences`` sentences (default ``n_rankings // 20``, at least 50)
    with probability 0.7, and ``n_rankings`` rankings of up to 5 of a sentence's candidates by 20 judges (``judges``
    numbered 00 to 19), better-numbered systems ranked better with noise, ties where the noisy qualities round
    alike."""
    n_sentences = n_sentences or max(n_rankings // 20, 50)
    source = [f"sentence {i} has a few words in it ." for i in range(n_sentences)]
    names = [f"sys{k:02d}" for k in range(n_systems)]
    lines = lambda texts: ("\n".join(texts) + "\n").encode()
    outputs = [[s.replace("few", f"e{k}") if rng.random() < 0.7 else s for s in source] for k in range(n_systems)]
    campaign = import_outputs(name, NamedFile("source", lines(source)),
                              [NamedFile(n, lines(o)) for n, o in zip(names, outputs)])
    quality: dict[int, int] = {}
    by_line: dict[int, list[int]] = defaultdict(list)
    for pk, line, system in Candidate.objects.filter(segment__campaign=campaign).values_list(
        "id", "segment__line", "outputs__system__name"
    ):
        if pk not in quality:
            by_line[line].append(pk)
        quality[pk] = max(quality.get(pk, 0), int(system[3:]))
    screens = []
    for i in range(n_rankings):
        line = int(rng.integers(n_sentences))
        shown = rng.permutation(by_line[line])[:5]
        if len(shown) < 2:
            shown = rng.permutation(by_line[(line + 1) % n_sentences])[:5]
        noisy = np.array([quality[pk] for pk in shown]) + rng.normal(0, 6, len(shown))
        ranks = np.clip(1 + np.argsort(np.argsort(-np.round(noisy / 4))), 1, 5)
        screens.append(JudgedScreen(line=int(line), judge=f"{judges}{i % 20:02d}", duration=timedelta(seconds=30),
                                    candidates=[JudgedCandidate(int(pk), int(r)) for pk, r in zip(shown, ranks)]))
    for start in range(0, len(screens), 10_000):
        with transaction.atomic():
            write_judged_screens(campaign, screens[start:start + 10_000])
    return campaign


@contextmanager
def campaign_benchmark(description: str, *, systems: int, repeat: int
                       ) -> Iterator[tuple[argparse.Namespace, Campaign]]:
    """A benchmark on one synthetic campaign: its command line (``--rankings``, ``--systems`` default ``systems``,
    ``--sentences``, ``--repeat`` default ``repeat``) parsed, and for the block the ``synthetic_campaign`` it asks
    for, written in a throw-away database with its tables analysed (saying how long that took)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rankings", type=int, default=100_000)
    parser.add_argument("--systems", type=int, default=systems)
    parser.add_argument("--sentences", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=repeat)
    args = parser.parse_args()
    with throwaway_database():
        start = time.perf_counter()
        campaign = synthetic_campaign(args.rankings, args.systems, np.random.default_rng(2015),
                                      n_sentences=args.sentences)
        analyze_tables()
        print(f"(campaign written in {time.perf_counter() - start:.0f} s: {args.rankings:,} rankings of "
              f"{args.systems} systems x {args.sentences:,} sentences)")
        yield args, campaign


def analyze_tables() -> None:
    """Refresh PostgreSQL's statistics after the bulk load, as autovacuum soon does on a live server."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def percentiles(timings: list[tuple[float, float]]) -> tuple[float, float, float]:
    """Median and p95 of the wall-clock times and median of this process's CPU times, in milliseconds."""
    wall = np.array([w for w, _ in timings]) * 1000
    cpu = np.array([c for _, c in timings]) * 1000
    return float(np.percentile(wall, 50)), float(np.percentile(wall, 95)), float(np.median(cpu))


def timed(function, *args) -> tuple[float, float]:
    """(wall-clock seconds, this process's CPU seconds) of one call: the CPU time leaves out PostgreSQL's and
    other processes' share of a busy machine."""
    wall, cpu = time.perf_counter(), time.process_time()
    function(*args)
    return time.perf_counter() - wall, time.process_time() - cpu


def request(client: Client, url: str) -> None:
    response = client.get(url)
    if response.status_code != 200:
        raise SystemExit(f"{url}: {response.status_code} {response.content[:200]!r}")


def baseline(campaign: Campaign) -> None:
    """The leaderboard as the analysis computes Expected Wins: load everything, expand, bootstrap, rank."""
    rankings = load_rankings(campaign)
    pairs = expanded_pairs(rankings)
    samples = bootstrap_expected_wins(pairs, rankings.n_systems, live.LEADERBOARD_BOOTSTRAP, np.random.default_rng(1))
    bootstrap_ranking(samples, expected_wins(win_matrix(pairs, rankings.n_systems)), rankings.system_names,
                      live.CONFIDENCE)


def new_judgment(campaign: Campaign, rng: np.random.Generator, judge: str | None = None) -> None:
    """One more ranking of a random sentence's first candidates by ``judge`` (default ``newcomer-<campaign id>``), as
    a judge's submit stores it."""
    segment = campaign.segments.order_by("?").first()
    shown = list(segment.candidates.values_list("id", flat=True)[:5])
    with transaction.atomic():
        write_judged_screens(campaign, [JudgedScreen(
            line=segment.line, judge=judge or f"newcomer-{campaign.pk}", duration=timedelta(seconds=25),
            candidates=[JudgedCandidate(pk, int(rng.integers(1, 6))) for pk in shown],
        )])


def measure(campaign: Campaign, label: str, repeat: int, rng: np.random.Generator) -> float:
    """Print the request's timings for ``campaign``; return the new-judgment p95 in ms."""
    analyze_tables()
    organizer = get_user_model().objects.create_user(f"organizer-{campaign.pk}")
    campaign.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    url = reverse("campaign-leaderboard", args=[campaign.pk])
    request(client, url)
    rankings = client.get(url).json()["snapshot"]["rankings"]

    base = [timed(baseline, campaign) for _ in range(max(3, repeat // 4))]
    cold = []
    for _ in range(max(3, repeat // 4)):
        cache.clear()
        cold.append(timed(request, client, url))
    fresh = []
    for _ in range(repeat):
        new_judgment(campaign, rng)
        fresh.append(timed(request, client, url))
    unchanged = [timed(request, client, url) for _ in range(repeat)]
    version = live.data_version(campaign)
    state = live.live_counts(campaign, version)
    compute = [timed(live.compute_leaderboard, campaign, state, version) for _ in range(repeat)]

    history_url = reverse("campaign-history", args=[campaign.pk])
    cache.clear()
    first_history = timed(request, client, history_url)[0]
    start = time.perf_counter()
    requests = 1
    while (history := client.get(history_url).json())["pending"]:
        requests += 1
    fill = first_history + time.perf_counter() - start

    b50, b95, bcpu = percentiles(base)
    print(f"{label}: {rankings:,} rankings, {len(state.names)} systems; leaderboard request in ms: wall-clock "
          f"median / p95, this process's CPU median (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"  {'baseline (load all, expand, bootstrap, rank)':<46} {b50:8.1f} / {b95:8.1f}   cpu {bcpu:8.1f}")
    for name, values in (("new judgment since the last request", fresh), ("unchanged (cached)", unchanged),
                         ("cold cache (loads every judgment)", cold), ("computation from the counts", compute)):
        p50, p95, cpu = percentiles(values)
        print(f"  {name:<46} {p50:8.1f} / {p95:8.1f}   cpu {cpu:8.1f}   baseline/this (median) {b50 / p50:7.1f}x")
    print(f"  history: first request {first_history * 1000:.0f} ms; all {len(history['points'])} checkpoints "
          f"after {requests} requests, {fill:.2f} s in all")
    return percentiles(fresh)[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rankings", type=int, default=100_000, help="rankings of the synthetic campaign")
    parser.add_argument("--systems", type=int, default=20, help="systems of the synthetic campaign")
    parser.add_argument("--repeat", type=int, default=20, help="requests timed per case")
    parser.add_argument("--skip-conll14", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(2015)
    with throwaway_database():
        if not args.skip_conll14:
            if (CONLL14 / "judgments.xml").is_file():
                measure(conll14_campaign(), "CoNLL-14", args.repeat, rng)
            else:
                print(f"CoNLL-14 data not found at {CONLL14}; skipped")
        start = time.perf_counter()
        campaign = synthetic_campaign(args.rankings, args.systems, rng)
        print(f"(synthetic campaign written in {time.perf_counter() - start:.0f} s)")
        p95 = measure(campaign, "synthetic", args.repeat, rng)
        print(f"target: new-judgment p95 < 200 ms at {args.rankings:,} rankings: {'met' if p95 < 200 else 'MISSED'} "
              f"({p95:.0f} ms)")


if __name__ == "__main__":
    main()
