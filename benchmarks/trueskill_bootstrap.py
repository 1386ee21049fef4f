"""Benchmark: TrueSkill runs (METHODS 6) on the CoNLL-14 judgments, against the reference procedure in Python.

Times, in one run:
- the baseline: G15's ``TS.py`` procedure step by step in Python with the ``trueskill`` package (pairs kept in lists
  per system pair, ``random.choice`` of a judgment), measured on a few runs and scaled to 1,000;
- ``bootstrap_trueskill`` with 1,000 runs (Table 3c), on one thread and on all numba threads;
- optionally (``--accuracy``) the Table 4 TrueSkill cross-validation: 100 folds x 100 runs;
and prints the times, the cost per TrueSkill step and the speed-ups. Needs ../shared/data/conll14.
(Not named ``trueskill.py``: run as a script, that name would shadow the ``trueskill`` package it compares with.)

Run: .venv/bin/python benchmarks/trueskill_bootstrap.py [--baseline-runs 1] [--accuracy]
"""
from __future__ import annotations

import argparse
import random

import numba
import numpy as np
from conll14_baseline import conll14_pairs, reference_run, timed

from ranking.core.accuracy import SCORERS, cross_validated_accuracy
from ranking.core.trueskill import bootstrap_trueskill


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-runs", type=int, default=1, help="reference runs measured (scaled to 1,000)")
    parser.add_argument("--accuracy", action="store_true", help="also time the Table 4 TrueSkill cross-validation")
    args = parser.parse_args()
    rankings, pairs = conll14_pairs()
    n_systems = rankings.n_systems
    steps = 1000 * (len(pairs) + 1)
    print(f"CoNLL-14: {len(pairs)} expanded pairs, {n_systems} systems; 1,000 runs = {steps:.3g} TrueSkill steps")

    def bootstrap(n_runs: int, seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        return bootstrap_trueskill(pairs.first, pairs.second, pairs.relation, n_systems, n_runs, rng)

    warm, _ = timed(bootstrap, 2, 0)
    print(f"warm-up (numba compile or cache load): {warm:.2f} s")

    rnd = random.Random(1)
    baseline, _ = timed(lambda: [reference_run(pairs, rankings.system_names, rnd) for _ in range(args.baseline_runs)])
    baseline_1000 = baseline / args.baseline_runs * 1000
    print(f"baseline (TS.py procedure, trueskill package; {args.baseline_runs} runs scaled to 1,000): "
          f"{baseline_1000:,.0f} s ({baseline_1000 / 3600:.1f} h)")

    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        single, _ = timed(bootstrap, 1000, 1)
    finally:
        numba.set_num_threads(threads)
    parallel, _ = timed(bootstrap, 1000, 1)
    print(f"bootstrap_trueskill, 1,000 runs, 1 thread: {single:.2f} s ({single / steps * 1e9:.0f} ns per step), "
          f"{baseline_1000 / single:,.0f}x the baseline")
    print(f"bootstrap_trueskill, 1,000 runs, {threads} threads: {parallel:.2f} s, {baseline_1000 / parallel:,.0f}x the "
          f"baseline, {single / parallel:.2f}x one thread; target < 10 s: {'met' if parallel < 10 else 'MISSED'}")

    if args.accuracy:
        seconds, accuracy = timed(
            cross_validated_accuracy, pairs, n_systems, SCORERS["trueskill"], np.random.default_rng(2015)
        )
        baseline_cv = baseline / args.baseline_runs * 100 * 100
        print(f"Table 4 TrueSkill (100 folds x 100 runs): total order {100 * accuracy.total_order:.2f}, clusters "
              f"{100 * accuracy.clusters:.2f} in {seconds:.1f} s; baseline {baseline_cv / 3600:.0f} h, "
              f"{baseline_cv / seconds:,.0f}x")


if __name__ == "__main__":
    main()
