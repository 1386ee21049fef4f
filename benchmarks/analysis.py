"""Benchmark: the full G15 analysis of the CoNLL-14 judgments, the Table 4 cross-validation, and the cold start.

Times, in one run:
- the product's full analysis (pairs, kappa, EW and TrueSkill each with 1,000 bootstrap samples, head-to-head,
  per-judge rankings), as ``ranking.core.analysis.analyze`` runs it in a warm process;
- the cold start, each a new process on a copy of the CoNLL-14 campaign in a temporary SQLite database:
  ``manage.py check``, and ``manage.py analyze`` end to end with numba's cache empty (it compiles) and with the
  compiled code cached (as every run after the first), each beside the warm in-process analysis;
- the Table 4 cross-validation (100 folds x 100 bootstrap samples x EW and TrueSkill);
- a straightforward baseline, one Python loop per bootstrap sample as the reference scripts do: EW from pairs
  resampled and counted in Python, TrueSkill as G15's ``TS.py`` steps through it, with the ``trueskill`` package;
  measured on a few samples and scaled to 1,000;
and prints each time with the speed-up. Needs ../shared/data/conll14 (or $GECAPPRAISE_SHARED_DATA/conll14).

Run: .venv/bin/python benchmarks/analysis.py [--baseline-samples 3] [--skip-accuracy] [--skip-cold-start]
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from conll14_baseline import CONLL14, REPO, conll14_pairs, reference_run, timed

from ranking.core.accuracy import SCORERS, cross_validated_accuracy
from ranking.core.analysis import AnalysisParameters, analyze
from ranking.core.pairs import ExpandedPairs


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


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def manage(env: dict[str, str], *args: str) -> tuple[float, float]:
    """Wall and CPU seconds (all threads) of ``python manage.py ARGS`` as a new process; exits if it fails."""
    cpu = children_cpu()
    seconds, done = timed(subprocess.run, [sys.executable, "manage.py", *args], cwd=REPO, env=env,
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"manage.py {' '.join(args)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds, children_cpu() - cpu


def cold_start(warm: float, warm_cpu: float) -> dict[str, float]:
    """Time ``check`` and ``analyze`` as new processes on a temporary SQLite copy of the CoNLL-14 campaign, and
    print them beside the in-process analysis (``warm`` and ``warm_cpu`` seconds). Returns the wall times (medians
    of 3 but for the compiling run). CPU seconds are printed too: on a shared machine they vary less than wall
    times."""
    with tempfile.TemporaryDirectory() as folder:
        env = {key: value for key, value in os.environ.items()
               if key not in {"DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
        env.update(DATABASE_URL=f"sqlite:///{folder}/conll14.sqlite3", NUMBA_CACHE_DIR=f"{folder}/numba")
        outputs = CONLL14 / "outputs"
        manage(env, "migrate", "--verbosity", "0")
        manage(env, "import_outputs", "--campaign", "conll14", "--source", str(outputs / "INPUT"),
               *sorted(str(path) for path in outputs.iterdir()))
        manage(env, "import_appraise_xml", "--campaign", "conll14", str(CONLL14 / "judgments.xml"))
        analyze = ("analyze", "--campaign", "conll14", "--out", f"{folder}/analysis.json")
        runs = {
            "check": [manage(env, "check") for _ in range(3)],
            "compiling": [manage(env, *analyze)],
            "cached": [manage(env, *analyze) for _ in range(3)],
        }
    times = {key: statistics.median(wall for wall, _ in values) for key, values in runs.items()}
    cpu = {key: statistics.median(seconds for _, seconds in values) for key, values in runs.items()}
    print("cold start, each a new process (CoNLL-14 in SQLite; EW and TrueSkill x 1,000 bootstrap):")
    print(f"  manage.py check: {times['check']:.2f} s, CPU {cpu['check']:.2f} s (medians of 3)")
    for key, label in (("compiling", "numba's cache empty, compiles"), ("cached", "compiled code cached, median of 3")):
        print(f"  manage.py analyze, {label}: {times[key]:.2f} s = {times[key] / warm:.2f}x the warm in-process "
              f"analysis ({times[key] - warm:+.2f} s); CPU {cpu[key]:.2f} s = {cpu[key] / warm_cpu:.2f}x its "
              f"{warm_cpu:.2f} s")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-samples", type=int, default=3, help="baseline samples measured per method")
    parser.add_argument("--skip-accuracy", action="store_true", help="skip the Table 4 cross-validation")
    parser.add_argument("--skip-cold-start", action="store_true", help="skip timing new processes")
    args = parser.parse_args()
    rankings, pairs = conll14_pairs()
    n_systems = rankings.n_systems
    print(f"CoNLL-14: {rankings.n_rankings} rankings, {len(pairs)} expanded pairs, {n_systems} systems")

    warm, _ = timed(analyze, rankings, AnalysisParameters(bootstrap=40, seed=0))
    print(f"warm-up (numba compile or cache load): {warm:.2f} s")
    cpu = time.process_time()
    full, _ = timed(analyze, rankings, AnalysisParameters(bootstrap=1000, seed=1))
    full_cpu = time.process_time() - cpu
    print(f"full analysis (EW and TrueSkill x 1,000 bootstrap, kappa, head-to-head, per-judge): {full:.2f} s "
          f"(CPU {full_cpu:.2f} s)")
    cold = None if args.skip_cold_start else cold_start(full, full_cpu)

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
