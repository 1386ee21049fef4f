"""Benchmark: the full G15 analysis of the CoNLL-14 judgments, where its time goes, the Table 4 cross-validation, and
the cold start.

Times, in one run:
- the product's full analysis (pairs, kappa, EW and TrueSkill each with 1,000 bootstrap samples, head-to-head,
  per-judge rankings), as ``ranking.core.analysis.analyze`` runs it in a warm process, and its parts: the EW
  bootstrap, the TrueSkill bootstrap (all numba threads, one thread, and one chain at a time on one thread, the
  kernel without lock-step lanes: the baseline of the lanes; the same with every update computed directly: the
  baseline of the update's series near the start), and the rest;
- the cold start, each a new process on a copy of the CoNLL-14 campaign in a temporary SQLite database, with the
  sources' bytecode stored (as after an installation): ``python -c pass``, ``manage.py check``, importing the
  numeric stack, and ``manage.py analyze`` end to end with numba's cache empty (it compiles) and with the compiled
  code cached (as every run after the first), each beside the warm in-process analysis; for ``analyze``, how its
  time splits into start-up (imports, Django, the run's row), reading the judgments and computing (the run's
  recorded timings) and the rest (writing the JSON); ``check`` and ``analyze`` also without ``manage.py``'s
  ``gc.freeze()`` at exit (the baseline: the interpreter's shutdown collecting every object);
- the Table 4 cross-validation (100 folds x 100 bootstrap samples x EW and TrueSkill);
- a straightforward baseline, one Python loop per bootstrap sample as the reference scripts do: EW from pairs
  resampled and counted in Python, TrueSkill as G15's ``TS.py`` steps through it, with the ``trueskill`` package;
  measured on a few samples and scaled to 1,000;
and prints each time with the speed-up. Wall times are medians of ``--repeat`` runs (3) but for the compiling run;
CPU seconds (all threads) are printed beside them: on a shared machine they vary less. Needs ../shared/data/conll14
(or $GECAPPRAISE_SHARED_DATA/conll14).

Run: .venv/bin/python benchmarks/analysis.py [--repeat 3] [--baseline-samples 3] [--skip-accuracy]
     [--skip-cold-start]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np
from conll14_baseline import CONLL14, REPO, conll14_pairs, reference_run, timed

from ranking.core.accuracy import SCORERS, cross_validated_accuracy
from ranking.core.analysis import AnalysisParameters, analyze
from ranking.core.bootstrap import bootstrap_expected_wins
from ranking.core.pairs import ExpandedPairs
from ranking.core.trueskill import (
    MU,
    SIGMA,
    _chain_rows,
    _run_lanes,
    bootstrap_trueskill,
    chain_settings,
    pair_cells,
)

CHAIN_AT_A_TIME_RUNS = 250
"""TrueSkill runs of the one-chain-at-a-time baseline (scaled to 1,000)."""


def baseline_expected_wins(pairs: ExpandedPairs, n_systems: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """EW bootstrap as the reference scripts do it: per sample, draw P pairs and count wins in a Python loop."""
    first, second, relation = pairs.first.tolist(), pairs.second.tolist(), pairs.relation.tolist()
    scores = np.zeros((n_boot, n_systems))
    for b in range(n_boot):
        wins = [[0] * n_systems for _ in range(n_systems)]
        for i in rng.integers(0, len(first), size=len(first)).tolist():
            if relation[i] < 0:
                wins[first[i]][second[i]] += 1
            elif relation[i] > 0:
                wins[second[i]][first[i]] += 1
        for a in range(n_systems):
            total = 0.0
            for c in range(n_systems):
                if c != a and wins[a][c] + wins[c][a]:
                    total += wins[a][c] / (wins[a][c] + wins[c][a])
            scores[b, a] = total / (n_systems - 1)
    return scores


def median_timed(repeat: int, function, *args) -> tuple[float, float, object]:
    """Median wall and CPU seconds (this process, all threads) of ``repeat`` calls, and the last call's value."""
    walls, cpus = [], []
    for _ in range(repeat):
        cpu = time.process_time()
        wall, value = timed(function, *args)
        walls.append(wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), value


def trueskill_chain_at_a_time(
    pairs: ExpandedPairs, n_systems: int, n_runs: int, seed: int, direct: bool = False
) -> np.ndarray:
    """``bootstrap_trueskill``'s runs with ``default_rng(seed)`` (same seeds, same scores) one chain at a time on this
    thread: the kernel without lock-step lanes or threads; with ``direct``, also without the update's series near
    the start (every update by the direct formula: the same scores to rounding)."""
    rng = np.random.default_rng(seed)
    cells = np.broadcast_to(pair_cells(pairs.first, pairs.second, pairs.relation, n_systems),
                            (n_runs, n_systems, n_systems, 3))
    chains = chain_settings(np.full(n_runs, len(pairs) + 1))
    states = rng.integers(0, 2**64, size=(n_runs, 4), dtype=np.uint64)
    states[~states.any(axis=1), 0] = 1
    if direct:
        chains.tables[:] = np.nan  # the kernel's sign for "compute every update directly"
    out = np.empty((n_runs, n_systems))
    for k in range(n_runs):
        _run_lanes(cells[k:k + 1], _chain_rows(chains, k, k + 1), MU, SIGMA, states[k:k + 1], out[k:k + 1])
    return out


def where_time_goes(pairs: ExpandedPairs, n_systems: int, repeat: int, full: float, full_cpu: float) -> None:
    """Print the warm analysis's parts: EW and TrueSkill bootstraps (1,000 each) and the rest; TrueSkill on all
    threads, on one, and one chain at a time (the baseline of the lock-step lanes), checked to give the same scores."""
    def trueskill(n_runs: int = 1000) -> np.ndarray:
        return bootstrap_trueskill(pairs.first, pairs.second, pairs.relation, n_systems, n_runs,
                                   np.random.default_rng(1))

    ew, ew_cpu, _ = median_timed(repeat, lambda: bootstrap_expected_wins(pairs, n_systems, 1000,
                                                                         np.random.default_rng(1)))
    ts, ts_cpu, _ = median_timed(repeat, trueskill)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        single, single_cpu, _ = median_timed(repeat, trueskill)
        lanes = trueskill(CHAIN_AT_A_TIME_RUNS)
    finally:
        numba.set_num_threads(threads)
    chain, chain_cpu, alone = median_timed(repeat, trueskill_chain_at_a_time, pairs, n_systems, CHAIN_AT_A_TIME_RUNS,
                                           1)
    chain, chain_cpu = chain * 1000 / CHAIN_AT_A_TIME_RUNS, chain_cpu * 1000 / CHAIN_AT_A_TIME_RUNS
    _, direct_cpu, direct_scores = median_timed(repeat, trueskill_chain_at_a_time, pairs, n_systems,
                                                CHAIN_AT_A_TIME_RUNS, 1, True)
    direct_cpu *= 1000 / CHAIN_AT_A_TIME_RUNS
    steps = 1000 * (len(pairs) + 1)
    rest, rest_cpu = full - ew - ts, full_cpu - ew_cpu - ts_cpu
    print(f"where the warm analysis's time goes (medians of {repeat}; CPU seconds of all threads):")
    print(f"  EW bootstrap x 1,000: {ew:.3f} s (CPU {ew_cpu:.3f} s), {100 * ew / full:.0f}% of the analysis")
    print(f"  TrueSkill bootstrap x 1,000, {threads} threads: {ts:.2f} s (CPU {ts_cpu:.2f} s), {100 * ts / full:.0f}% "
          f"of the analysis")
    print(f"  TrueSkill x 1,000 on 1 thread: {single:.2f} s, CPU {single_cpu:.2f} s ({single_cpu / steps * 1e9:.0f} ns "
          f"per step); one chain at a time ({CHAIN_AT_A_TIME_RUNS} runs scaled, no lanes): {chain:.2f} s, CPU "
          f"{chain_cpu:.2f} s ({chain_cpu / steps * 1e9:.0f} ns per step); same scores: "
          f"{'yes' if np.array_equal(alone, lanes) else 'NO'}")
    print(f"  the same chains with every update computed directly (no series near the start): CPU {direct_cpu:.2f} s "
          f"({direct_cpu / steps * 1e9:.0f} ns per step); the series save {direct_cpu / chain_cpu:.2f}x; largest "
          f"score difference {np.abs(direct_scores - alone).max():.1e}")
    print(f"  speed-ups: lanes {chain_cpu / single_cpu:.2f}x one chain at a time (CPU), {threads} threads "
          f"{single / ts:.2f}x one thread (wall), together {chain / ts:.2f}x (wall)")
    print(f"  the rest (pairs, kappa, full-data scores, rank ranges, head-to-head, per-judge): {rest:.2f} s "
          f"(CPU {rest_cpu:.2f} s)")


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def new_process(env: dict[str, str], *args: str) -> tuple[float, float]:
    """Wall and CPU seconds (all threads) of ``python ARGS`` as a new process in the repository; exits if it fails."""
    cpu = children_cpu()
    seconds, done = timed(subprocess.run, [sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"python {' '.join(args)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds, children_cpu() - cpu


def last_run_timings(database: str) -> dict[str, float]:
    """The recorded timings (``load_seconds``, ``analysis_seconds``) of the newest analysis run in ``database``."""
    with sqlite3.connect(database) as connection:
        (timings,) = connection.execute("SELECT timings FROM ranking_analysisrun ORDER BY id DESC LIMIT 1").fetchone()
    return json.loads(timings)


UNFROZEN = (
    "import os, sys; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'gecappraise.settings'); "
    "from django.core.management import execute_from_command_line; execute_from_command_line(['manage.py', *{args}])"
)
"""``manage.py`` without its ``gc.freeze()`` at exit, as ``python -c`` code (format ``args``: the command's)."""


def sqlite_environment(folder: str) -> tuple[dict[str, str], str]:
    """The environment of new processes on a new SQLite database in ``folder``, numba's cache there too (empty), and
    the database's path."""
    # Without PYTHONDONTWRITEBYTECODE the first process stores the sources' bytecode, as an installation (and the
    # Dockerfile's compileall) does; with it every process would compile the project's modules again.
    env = {key: value for key, value in os.environ.items() if key not in {
        "DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "PYTHONDONTWRITEBYTECODE"}}
    database = f"{folder}/conll14.sqlite3"
    env.update(DATABASE_URL=f"sqlite:///{database}", NUMBA_CACHE_DIR=f"{folder}/numba")
    return env, database


def cold_start(warm: float, warm_cpu: float, repeat: int) -> dict[str, float]:
    """Time ``check``, the numeric imports and ``analyze`` as new processes on a temporary SQLite copy of the CoNLL-14
    campaign, and print them beside the in-process analysis (``warm`` and ``warm_cpu`` seconds). Returns the wall
    times (medians of ``repeat`` but for the compiling run)."""
    with tempfile.TemporaryDirectory() as folder:
        env, database = sqlite_environment(folder)
        outputs = CONLL14 / "outputs"
        new_process(env, "manage.py", "migrate", "--verbosity", "0")
        new_process(env, "manage.py", "import_outputs", "--campaign", "conll14", "--source", str(outputs / "INPUT"),
                    *sorted(str(path) for path in outputs.iterdir()))
        new_process(env, "manage.py", "import_appraise_xml", "--campaign", "conll14", str(CONLL14 / "judgments.xml"))
        analyze = ("manage.py", "analyze", "--campaign", "conll14", "--out", f"{folder}/analysis.json")
        new_process(env, "manage.py", "check")  # stores the bytecode
        runs = {
            "python": [new_process(env, "-c", "pass") for _ in range(repeat)],
            "check": [new_process(env, "manage.py", "check") for _ in range(repeat)],
            "check_collected": [new_process(env, "-c", UNFROZEN.format(args=["check"])) for _ in range(repeat)],
            "imports": [new_process(env, "-c", "import ranking.core.analysis")
                        for _ in range(repeat)],
            "compiling": [new_process(env, *analyze)],
        }
        runs["cached"], recorded = [], []
        for _ in range(repeat):
            runs["cached"].append(new_process(env, *analyze))
            recorded.append(last_run_timings(database))
        runs["cached_collected"] = [new_process(env, "-c", UNFROZEN.format(args=list(analyze[1:])))
                                    for _ in range(repeat)]
    times = {key: statistics.median(wall for wall, _ in values) for key, values in runs.items()}
    cpu = {key: statistics.median(seconds for _, seconds in values) for key, values in runs.items()}
    load = statistics.median(timings["load_seconds"] for timings in recorded)
    computing = statistics.median(timings["analysis_seconds"] for timings in recorded)
    print(f"cold start, each a new process (CoNLL-14 in SQLite; EW and TrueSkill x 1,000 bootstrap; medians of "
          f"{repeat}):")
    print(f"  python -c pass: {times['python']:.2f} s; importing the numeric stack (ranking.core.analysis): "
          f"{times['imports']:.2f} s, CPU {cpu['imports']:.2f} s")
    print(f"  manage.py check: {times['check']:.2f} s, CPU {cpu['check']:.2f} s; target < 1 s: "
          f"{'met' if times['check'] < 1 else 'MISSED'}; without manage.py's gc.freeze() at exit (the shutdown "
          f"collecting every object): {times['check_collected']:.2f} s, "
          f"{times['check_collected'] / times['check']:.2f}x")
    for key, label in (("compiling", "numba's cache empty, compiles (one run)"), ("cached", "compiled code cached")):
        print(f"  manage.py analyze, {label}: {times[key]:.2f} s = {times[key] / warm:.2f}x the warm in-process "
              f"analysis ({times[key] - warm:+.2f} s); CPU {cpu[key]:.2f} s = {cpu[key] / warm_cpu:.2f}x its "
              f"{warm_cpu:.2f} s")
    print(f"  the cached analyze without manage.py's gc.freeze() at exit: {times['cached_collected']:.2f} s, "
          f"{times['cached_collected'] / times['cached']:.2f}x")
    print(f"  of the cached analyze's {times['cached']:.2f} s: reading the judgments {load:.2f} s, computing "
          f"{computing:.2f} s (as the run recorded them), start-up and writing the result "
          f"{times['cached'] - load - computing:.2f} s")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (medians are printed)")
    parser.add_argument("--baseline-samples", type=int, default=3, help="baseline samples measured per method")
    parser.add_argument("--skip-accuracy", action="store_true", help="skip the Table 4 cross-validation")
    parser.add_argument("--skip-cold-start", action="store_true", help="skip timing new processes")
    args = parser.parse_args()
    rankings, pairs = conll14_pairs()
    n_systems = rankings.n_systems
    print(f"CoNLL-14: {rankings.n_rankings} rankings, {len(pairs)} expanded pairs, {n_systems} systems; "
          f"{numba.get_num_threads()} numba threads; load average {os.getloadavg()[0]:.2f}")

    warm, _ = timed(analyze, rankings, AnalysisParameters(bootstrap=40, seed=0))
    print(f"warm-up (numba compile or cache load): {warm:.2f} s")
    full, full_cpu, _ = median_timed(args.repeat, analyze, rankings, AnalysisParameters(bootstrap=1000, seed=1))
    print(f"full analysis (EW and TrueSkill x 1,000 bootstrap, kappa, head-to-head, per-judge): {full:.2f} s "
          f"(CPU {full_cpu:.2f} s; median of {args.repeat})")
    where_time_goes(pairs, n_systems, args.repeat, full, full_cpu)
    cold = None if args.skip_cold_start else cold_start(full, full_cpu, args.repeat)

    rng = np.random.default_rng(1)
    k = args.baseline_samples
    ew, _ = timed(baseline_expected_wins, pairs, n_systems, k, rng)
    rnd = random.Random(1)
    ts, _ = timed(lambda: [reference_run(pairs, rankings.system_names, rnd) for _ in range(k)])
    ew_1000, ts_1000 = ew / k * 1000, ts / k * 1000
    print(f"baseline, one Python loop per sample ({k} samples each, scaled to 1,000): "
          f"EW {ew_1000:.0f} s, TrueSkill {ts_1000:.0f} s ({ts_1000 / 3600:.1f} h)")
    print(f"speed-up of the full analysis over the baseline's two bootstraps: {(ew_1000 + ts_1000) / full:,.0f}x")

    if not args.skip_accuracy:
        total = 0.0
        for method in ("expected_wins", "trueskill"):
            seconds, accuracy = timed(cross_validated_accuracy, pairs, n_systems, SCORERS[method],
                                      np.random.default_rng(2015), n_folds=100, n_boot=100)
            total += seconds
            print(f"Table 4 {method}: total order {100 * accuracy.total_order:.2f}, clusters "
                  f"{100 * accuracy.clusters:.2f} in {seconds:.1f} s")
        baseline_cv = (ew / k + ts / k) * 100 * 100 * 0.99
        print(f"Table 4 cross-validation (100 folds x 100 samples x 2 methods): {total:.1f} s; "
              f"baseline {baseline_cv / 3600:.1f} h, {baseline_cv / total:,.0f}x")
    print(f"targets: full analysis < 10 s: {'met' if full < 10 else 'MISSED'}"
          + ("" if args.skip_accuracy else f"; cross-validation < 60 s: {'met' if total < 60 else 'MISSED'}")
          + ("" if cold is None else f"; manage.py check < 1 s: {'met' if cold['check'] < 1 else 'MISSED'}"
             f"; analyze end to end (cached) < 5 s: {'met' if cold['cached'] < 5 else 'MISSED'}"))


if __name__ == "__main__":
    main()
