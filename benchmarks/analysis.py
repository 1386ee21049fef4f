"""Benchmark: the full G15 analysis of the CoNLL-14 judgments, and the Table 4 cross-validation.

Times, in one run:
- the product's full analysis (pairs, kappa, EW and TrueSkill each with 1,000 bootstrap samples, head-to-head,
  per-judge rankings), as ``ranking.core.analysis.analyze`` runs it;
- the Table 4 cross-validation (100 folds x 100 bootstrap samples x EW and TrueSkill);
- a straightforward baseline, one Python loop per bootstrap sample as the reference scripts do: EW from pairs
  resampled and counted in Python, TrueSkill with the ``trueskill`` package stepping through the reference procedure;
  measured on a few samples and scaled to 1,000;
and prints each time with the speed-up. Needs ../shared/data/conll14 (or $GECAPPRAISE_SHARED_DATA/conll14).

Run: .venv/bin/python benchmarks/analysis.py [--baseline-samples 3] [--skip-accuracy]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from annotation.services.appraise_xml import parse_appraise_xml  # noqa: E402
from ranking.core.accuracy import SCORERS, cross_validated_accuracy  # noqa: E402
from ranking.core.analysis import AnalysisParameters, analyze  # noqa: E402
from ranking.core.pairs import ExpandedPairs, expanded_pairs  # noqa: E402
from ranking.core.rankings import Rankings  # noqa: E402
from ranking.core.trueskill import DRAW_PROBABILITY, MU, SIGMA, beta_for  # noqa: E402

CONLL14 = Path(os.environ.get("GECAPPRAISE_SHARED_DATA", REPO.parent / "shared" / "data")) / "conll14"


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


def baseline_trueskill_run(pairs: ExpandedPairs, n_systems: int, rng: np.random.Generator) -> np.ndarray:
    """One TrueSkill run of the reference procedure (METHODS 6) with the ``trueskill`` package, in Python."""
    import trueskill

    n_iterations = len(pairs) + 1
    env = trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=float(beta_for(n_iterations)), tau=0.0,
                              draw_probability=DRAW_PROBABILITY)
    ratings = [env.create_rating() for _ in range(n_systems)]
    by_pair: dict[tuple[int, int], list[int]] = {}
    for a, b, r in zip(pairs.first.tolist(), pairs.second.tolist(), pairs.relation.tolist()):
        by_pair.setdefault((a, b), []).append(r)
    for _ in range(n_iterations):
        a = max(range(n_systems), key=lambda s: ratings[s].sigma)
        others = [s for s in range(n_systems) if s != a]
        weights = np.exp([-abs(ratings[a].mu - ratings[s].mu) for s in others])
        b = others[rng.choice(len(others), p=weights / weights.sum())]
        key = (min(a, b), max(a, b))
        if key not in by_pair:
            continue
        relation = by_pair[key][rng.integers(len(by_pair[key]))]
        low, high = ratings[key[0]], ratings[key[1]]
        if relation == 0:
            low, high = env.rate_1vs1(low, high, drawn=True)
        elif relation < 0:
            low, high = env.rate_1vs1(low, high)
        else:
            high, low = env.rate_1vs1(high, low)
        ratings[key[0]], ratings[key[1]] = low, high
    return np.array([r.mu for r in ratings])


def timed(function, *args, **kwargs) -> tuple[float, object]:
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-samples", type=int, default=3, help="baseline samples measured per method")
    parser.add_argument("--skip-accuracy", action="store_true", help="skip the Table 4 cross-validation")
    args = parser.parse_args()
    if not (CONLL14 / "judgments.xml").is_file():
        sys.exit(f"CoNLL-14 data not found at {CONLL14}")
    items = parse_appraise_xml((CONLL14 / "judgments.xml").read_bytes()).items
    rankings = Rankings.from_items((item.user, item.src_id, item.translations) for item in items)
    pairs, n_systems = expanded_pairs(rankings), rankings.n_systems
    print(f"CoNLL-14: {rankings.n_rankings} rankings, {len(pairs)} expanded pairs, {n_systems} systems")

    warm, _ = timed(analyze, rankings, AnalysisParameters(bootstrap=40, seed=0))
    print(f"warm-up (numba compile or cache load): {warm:.2f} s")
    full, _ = timed(analyze, rankings, AnalysisParameters(bootstrap=1000, seed=1))
    print(f"full analysis (EW and TrueSkill x 1,000 bootstrap, kappa, head-to-head, per-judge): {full:.2f} s")

    rng = np.random.default_rng(1)
    k = args.baseline_samples
    ew, _ = timed(baseline_expected_wins, pairs, n_systems, k, rng)
    ts, _ = timed(lambda: [baseline_trueskill_run(pairs, n_systems, rng) for _ in range(k)])
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
