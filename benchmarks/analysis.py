"""Benchmark: the full G15 analysis of the CoNLL-14 judgments, and the Table 4 cross-validation.

Times, in one run:
- the product's full analysis (pairs, kappa, EW and TrueSkill each with 1,000 bootstrap samples, head-to-head,
  per-judge rankings), as ``ranking.core.analysis.analyze`` runs it;
- the Table 4 cross-validation (100 folds x 100 bootstrap samples x EW and TrueSkill);
- a straightforward baseline, one Python loop per bootstrap sample as the reference scripts do: EW from pairs
  resampled and counted in Python, TrueSkill as G15's ``TS.py`` steps through it, with the ``trueskill`` package;
  measured on a few samples and scaled to 1,000;
and prints each time with the speed-up. Needs ../shared/data/conll14 (or $GECAPPRAISE_SHARED_DATA/conll14).

Run: .venv/bin/python benchmarks/analysis.py [--baseline-samples 3] [--skip-accuracy]
"""
from __future__ import annotations

import argparse
import random

import numpy as np

from conll14_baseline import conll14_pairs, reference_run, timed

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-samples", type=int, default=3, help="baseline samples measured per method")
    parser.add_argument("--skip-accuracy", action="store_true", help="skip the Table 4 cross-validation")
    args = parser.parse_args()
    rankings, pairs = conll14_pairs()
    n_systems = rankings.n_systems
    print(f"CoNLL-14: {rankings.n_rankings} rankings, {len(pairs)} expanded pairs, {n_systems} systems")

    warm, _ = timed(analyze, rankings, AnalysisParameters(bootstrap=40, seed=0))
    print(f"warm-up (numba compile or cache load): {warm:.2f} s")
    full, _ = timed(analyze, rankings, AnalysisParameters(bootstrap=1000, seed=1))
    print(f"full analysis (EW and TrueSkill x 1,000 bootstrap, kappa, head-to-head, per-judge): {full:.2f} s")

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
          + ("" if args.skip_accuracy else f"; cross-validation < 60 s: {'met' if total < 60 else 'MISSED'}"))


if __name__ == "__main__":
    main()
