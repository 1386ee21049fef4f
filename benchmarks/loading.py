"""Benchmark: loading a large campaign's rankings for an analysis (``ranking.loading.load_rankings``: three queries
read into arrays and joined with NumPy, built by ``Rankings.from_codes``), against the loader it replaced, measured
in the same run (``tests/ranking/loading_reference.py``: each judgment a Python item, then ``Rankings.from_items``
as it was).

Builds a synthetic campaign (``dashboard.py``'s ``synthetic_campaign``: ``--rankings`` rankings of up to 5 of
``--systems`` systems' outputs of ``rankings / 20`` sentences) in a throw-away PostgreSQL database (``test_<name>``
of DATABASE_URL, default ``gecappraise_loading``), checks that both loaders give the same Rankings, then measures
each loader
- cold: a new process that imports Django and loads the campaign, as ``manage.py analyze`` does (the product's
  settings, the numeric stack imported by the loader): the process's wall and CPU time, the load's, and the
  process's peak resident memory (which also sees the database driver's buffers) against its peak before the
  load; medians of ``--repeat``, the two loaders alternating;
- warm: the load in this process, wall and CPU (medians of ``--repeat``), and the peak of Python's traced memory
  (tracemalloc, in a pass of its own);
- ``Rankings.from_items`` (for the Appraise XML and CoNLL-14 paths) on the campaign's rankings as items, against
  ``from_items`` as it was (``tests/ranking/core/rankings_reference.py``), CPU time;
and, with ``--analyze``, ``manage.py analyze`` end to end on the campaign as a new process (numba's cache filled
first by an analysis with 3 bootstrap samples), split by the times the run records into reading the judgments,
computing, and the rest (start-up, the snapshot, writing the JSON).

Run: .venv/bin/python benchmarks/loading.py [--rankings 200000] [--systems 31] [--repeat 3] [--analyze]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import fields
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_loading")

from django.db import connection  # noqa: E402

from benchmarks.dashboard import analyze_tables, synthetic_campaign  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402
from ranking.core.rankings import RankingItem, Rankings  # noqa: E402
from ranking.loading import load_rankings  # noqa: E402
from ranking.models import AnalysisRun  # noqa: E402
from tests.ranking.core.rankings_reference import reference_from_items  # noqa: E402
from tests.ranking.loading_reference import reference_load_rankings as baseline  # noqa: E402

LOADERS = {"vectorized": ("ranking.loading", "load_rankings"),
           "baseline": ("tests.ranking.loading_reference", "reference_load_rankings")}

COLD_LOAD = """
import os, sys, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gecappraise.settings")
import django
django.setup()
from annotation.models import Campaign
from {module} import {function} as load

def peak_kb():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

campaign = Campaign.objects.get(name={campaign!r})
before = peak_kb()
wall, cpu = time.perf_counter(), time.process_time()
load(campaign)
print(time.perf_counter() - wall, time.process_time() - cpu, before, peak_kb())
"""
"""A new process loading the campaign (format ``module``, ``function``, ``campaign``); prints the load's wall and
CPU seconds and the process's peak resident kB (VmHWM: ru_maxrss would carry the parent's over the exec) before
and after it."""

MANAGE = """
import gc, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gecappraise.settings")
from django.core.management import execute_from_command_line
execute_from_command_line(["manage.py", *{arguments}])
gc.freeze()
"""
"""``manage.py`` with the command line ``arguments`` (format them), as ``manage.py`` runs it."""


def same(got: Rankings, expected: Rankings) -> bool:
    return all(
        np.array_equal(a, b) and a.dtype == b.dtype if isinstance(b, np.ndarray) else a == b
        for a, b in ((getattr(got, f.name), getattr(expected, f.name)) for f in fields(Rankings))
    )


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def new_process(env: dict[str, str], code: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, standard output) of ``python -c code`` in the repository; exits if it fails."""
    cpu, wall = children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"a new process failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
    return time.perf_counter() - wall, children_cpu() - cpu, done.stdout


def child_env() -> dict[str, str]:
    """The environment of a command on the throw-away database, with the product's settings."""
    db = connection.settings_dict
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env.setdefault("SECRET_KEY", "benchmark-only-secret-key")
    return env


def cold(name: str, repeat: int) -> dict[str, dict[str, float]]:
    """Each loader in ``repeat`` new processes, alternating: medians of the process's wall and CPU, the load's wall
    and CPU, and the peak resident MB before the load and after it."""
    env, runs = child_env(), {label: [] for label in LOADERS}
    for _ in range(repeat):
        for label, (module, function) in LOADERS.items():
            wall, cpu, out = new_process(env, COLD_LOAD.format(module=module, function=function, campaign=name))
            load, load_cpu, before, after = (float(value) for value in out.split())
            runs[label].append({"process": wall, "process_cpu": cpu, "load": load, "load_cpu": load_cpu,
                                "rss_before": before / 1e3, "rss_after": after / 1e3})
    return {label: {key: statistics.median(run[key] for run in values) for key in values[0]}
            for label, values in runs.items()}


def warm(campaign, repeat: int) -> dict[str, dict[str, float]]:
    """Each loader in this process: medians of ``repeat`` wall and CPU times, alternating, and the traced peak MB."""
    functions = {"vectorized": load_rankings, "baseline": baseline}
    times: dict[str, list[tuple[float, float]]] = {label: [] for label in functions}
    for _ in range(repeat):
        for label, function in functions.items():
            wall, cpu = time.perf_counter(), time.process_time()
            function(campaign)
            times[label].append((time.perf_counter() - wall, time.process_time() - cpu))
    result = {}
    for label, function in functions.items():
        tracemalloc.start()
        function(campaign)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        result[label] = {"wall": statistics.median(w for w, _ in times[label]),
                         "cpu": statistics.median(c for _, c in times[label]), "traced_peak": peak}
    return result


def as_items(rankings: Rankings) -> list[RankingItem]:
    """The rankings as ``from_items`` takes them."""
    systems: list[list[str]] = [[] for _ in range(rankings.candidate_rank.size)]
    for candidate, system in zip(rankings.member_candidate.tolist(), rankings.member_system.tolist()):
        systems[candidate].append(rankings.system_names[system])
    items = [(rankings.judge_names[judge], segment, [])
             for judge, segment in zip(rankings.ranking_judge.tolist(), rankings.ranking_segment.tolist())]
    for ranking, rank, names in zip(rankings.candidate_ranking.tolist(), rankings.candidate_rank.tolist(), systems):
        items[ranking][2].append((tuple(names), rank))
    return items


def from_items_cpu(rankings: Rankings, repeat: int) -> dict[str, float]:
    """CPU seconds of ``from_items`` and of the old one on ``rankings`` as items, medians of ``repeat``."""
    items, names = as_items(rankings), rankings.system_names
    times: dict[str, list[float]] = {"from_items": [], "baseline": []}
    for _ in range(repeat):
        for label, function in (("from_items", Rankings.from_items), ("baseline", reference_from_items)):
            cpu = time.process_time()
            function(items, names)
            times[label].append(time.process_time() - cpu)
    return {label: statistics.median(values) for label, values in times.items()}


def analyze_end_to_end(name: str, bootstrap: int = 1000) -> dict[str, float]:
    """``manage.py analyze`` on the campaign: wall and CPU of the process, and the run's recorded reading and
    computing seconds."""
    with tempfile.TemporaryDirectory() as folder:
        wall, cpu, _ = new_process(child_env(), MANAGE.format(arguments=[
            "analyze", "--campaign", name, "--bootstrap", str(bootstrap), "--out", f"{folder}/analysis.json"]))
    timings = AnalysisRun.objects.filter(campaign__name=name).order_by("-id").values_list("timings", flat=True)[0]
    return {"process": wall, "process_cpu": cpu, "load": timings["load_seconds"],
            "analysis": timings["analysis_seconds"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rankings", type=int, default=200_000)
    parser.add_argument("--systems", type=int, default=31)
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (medians are printed)")
    parser.add_argument("--analyze", action="store_true",
                        help="also time manage.py analyze end to end (minutes at 200,000 rankings)")
    args = parser.parse_args()
    with throwaway_database():
        built = time.perf_counter()
        campaign = synthetic_campaign(args.rankings, args.systems, np.random.default_rng(2015))
        analyze_tables()
        rankings = load_rankings(campaign)
        if not same(rankings, baseline(campaign)):
            sys.exit("the two loaders give different rankings")
        print(f"{rankings.n_rankings:,} rankings of {args.systems} systems x {max(args.rankings // 20, 50):,} "
              f"sentences: {rankings.candidate_rank.size:,} shown candidates, {rankings.member_system.size:,} "
              f"memberships, {len(rankings.candidate_names):,} candidate names (built in "
              f"{time.perf_counter() - built:.0f} s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} "
              f"cores); both loaders give the same Rankings")
        times = cold_times = cold(campaign.name, args.repeat)
        new, old = times["vectorized"], times["baseline"]
        print(f"cold, a new process that imports Django and loads (medians of {args.repeat}):")
        for label, key in (("the load", "load"), ("the load's CPU", "load_cpu"), ("the whole process", "process"),
                           ("the whole process's CPU", "process_cpu")):
            print(f"  {label}: {new[key]:.2f} s against {old[key]:.2f} s: {old[key] / new[key]:.1f}x")
        grown = {label: values["rss_after"] - values["rss_before"] for label, values in times.items()}
        print(f"  peak resident memory: {new['rss_after']:.0f} MB (the load adds {grown['vectorized']:.0f} MB) "
              f"against {old['rss_after']:.0f} MB (adds {grown['baseline']:.0f} MB): "
              f"{grown['baseline'] / max(grown['vectorized'], 1):.1f}x less added")
        times = warm(campaign, args.repeat)
        new, old = times["vectorized"], times["baseline"]
        print(f"warm, in this process (medians of {args.repeat}): {new['wall']:.2f} s against {old['wall']:.2f} s: "
              f"{old['wall'] / new['wall']:.1f}x; CPU {new['cpu']:.2f} s against {old['cpu']:.2f} s: "
              f"{old['cpu'] / new['cpu']:.1f}x; traced peak {new['traced_peak']:.0f} MB against "
              f"{old['traced_peak']:.0f} MB: {old['traced_peak'] / new['traced_peak']:.1f}x less")
        times = from_items_cpu(rankings, args.repeat)
        print(f"Rankings.from_items of these rankings as items (medians of {args.repeat}): CPU "
              f"{times['from_items']:.2f} s against {times['baseline']:.2f} s: "
              f"{times['baseline'] / times['from_items']:.1f}x")
        if args.analyze:
            loads = {label: values["load"] for label, values in cold_times.items()}
            analyze_end_to_end(campaign.name, bootstrap=3)  # fills numba's cache, if empty
            times = analyze_end_to_end(campaign.name)
            rest = times["process"] - times["load"] - times["analysis"]
            print(f"manage.py analyze end to end (EW and TrueSkill x 1,000 bootstrap; numba's cache filled): "
                  f"{times['process']:.1f} s (CPU {times['process_cpu']:.1f} s): reading the judgments "
                  f"{times['load']:.1f} s, computing {times['analysis']:.1f} s, the rest (start-up, snapshot, "
                  f"writing) {rest:.1f} s; with the baseline's load (cold, {loads['baseline']:.1f} s against "
                  f"{loads['vectorized']:.1f} s) it would take "
                  f"{times['process'] + loads['baseline'] - loads['vectorized']:.1f} s")


if __name__ == "__main__":
    main()
