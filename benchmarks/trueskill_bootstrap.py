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
import math
import os
import random
import sys
import time
from pathlib import Path

import numba
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from annotation.services.appraise_xml import parse_appraise_xml  # noqa: E402
from ranking.core.accuracy import SCORERS, cross_validated_accuracy  # noqa: E402
from ranking.core.pairs import ExpandedPairs, expanded_pairs  # noqa: E402
from ranking.core.rankings import Rankings  # noqa: E402
from ranking.core.trueskill import DRAW_PROBABILITY, MU, SIGMA, beta_for, bootstrap_trueskill  # noqa: E402

CONLL14 = Path(os.environ.get("GECAPPRAISE_SHARED_DATA", REPO.parent / "shared" / "data")) / "conll14"


def reference_run(pairs: ExpandedPairs, names: tuple[str, ...], rnd: random.Random) -> dict[str, float]:
    """One run of G15's ``TS.py -n 2 -d 0`` (with ``next_comparison.get``), in Python with the ``trueskill`` package."""
    import trueskill

    comparisons: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for a, b, r in zip(pairs.first.tolist(), pairs.second.tolist(), pairs.relation.tolist()):
        comparisons.setdefault((names[a], names[b]), []).append({-1: (1, 2), 0: (1, 1), 1: (2, 1)}[r])
    n_iterations = len(pairs) + 1
    env = trueskill.TrueSkill(
        mu=MU, sigma=SIGMA, beta=float(beta_for(n_iterations)), tau=0.0, draw_probability=DRAW_PROBABILITY
    )
    rating = {name: env.create_rating() for name in names}
    for _ in range(n_iterations):
        sys_a = max(rating, key=lambda name: (rating[name].sigma ** 2, name))
        candidates = [name for name in rating if name != sys_a]
        weights = [1.0 / math.exp(abs(rating[sys_a].mu - rating[name].mu)) for name in candidates]
        sys_b = rnd.choices(candidates, weights)[0]
        key = tuple(sorted((sys_a, sys_b)))
        ranks = rnd.choice(comparisons[key])
        (x,), (y,) = env.rate([(rating[key[0]],), (rating[key[1]],)], ranks=ranks)
        rating[key[0]], rating[key[1]] = x, y
    return {name: r.mu for name, r in rating.items()}


def timed(function, *args, **kwargs) -> tuple[float, object]:
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-runs", type=int, default=1, help="reference runs measured (scaled to 1,000)")
    parser.add_argument("--accuracy", action="store_true", help="also time the Table 4 TrueSkill cross-validation")
    args = parser.parse_args()
    if not (CONLL14 / "judgments.xml").is_file():
        sys.exit(f"CoNLL-14 data not found at {CONLL14}")
    items = parse_appraise_xml((CONLL14 / "judgments.xml").read_bytes()).items
    rankings = Rankings.from_items((item.user, item.src_id, item.translations) for item in items)
    pairs, n_systems = expanded_pairs(rankings), rankings.n_systems
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
