"""Benchmark: diversity weights p_i (METHODS 2, G15 section 4.1) against baselines measured in the same run.

Baselines: brute force (enumerate every subset of at most M candidates of each sentence, as the definition of
c_i(j) reads) and the direct dynamic program (``coverage_counts`` per sentence, then the formula), both without
reusing results between sentences. Data: the CoNLL-14 outputs (13 systems x 1,312 sentences) when
``../shared/data`` exists, else a synthetic set of that shape; and a synthetic set of 100 systems x 100,000
sentences, where brute force runs on a subset only and its full time is extrapolated (marked as an estimate).

Usage: ``.venv/bin/python benchmarks/sampling.py``
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np

from annotation.services.collapsing import collapse_outputs
from annotation.services.sampling import coverage_counts, sampling_weights

REPO = Path(__file__).resolve().parent.parent
M = 5
CONLL14 = Path(os.environ.get("GECAPPRAISE_SHARED_DATA", REPO.parent / "shared" / "data")) / "conll14"


def brute_force_weights(sets: Sequence[Sequence[int]], max_chosen: int) -> np.ndarray:
    """p_i with c_i(j) counted by enumerating subsets (itertools.combinations), sentence by sentence."""
    pseudo = np.zeros(len(sets))
    for i, multiplicities in enumerate(sets):
        counts = [0] * (sum(multiplicities) + 1)
        for size in range(min(max_chosen, len(multiplicities)) + 1):
            for subset in combinations(multiplicities, size):
                counts[sum(subset)] += 1
        pseudo[i] = _pseudo_probability(counts, len(multiplicities), max_chosen)
    return pseudo / pseudo.sum()


def direct_dp_weights(sets: Sequence[Sequence[int]], max_chosen: int) -> np.ndarray:
    """p_i with the full c_i(j) of ``coverage_counts`` for every sentence, no reuse between sentences."""
    pseudo = np.array(
        [_pseudo_probability(coverage_counts(s, max_chosen).tolist(), len(s), max_chosen) for s in sets]
    )
    return pseudo / pseudo.sum()


def _pseudo_probability(counts: list[int], n_candidates: int, max_chosen: int) -> float:
    reaching = sum(counts[max_chosen:])
    if reaching:
        coverage = sum(j * c for j, c in enumerate(counts) if j >= max_chosen) / reaching
    else:
        coverage = float(len(counts) - 1)
    if n_candidates < 2 or coverage < 2:
        return 0.0
    return comb(max_chosen, 2) / (coverage * (coverage - 1) / 2)


def conll14_sets() -> list[list[int]]:
    files = sorted((CONLL14 / "outputs").iterdir())
    columns = [path.read_text(encoding="utf-8").split("\n")[:-1] for path in files]
    return [[len(group) for group in collapse_outputs(outputs)] for outputs in zip(*columns)]


def synthetic_sets(n_systems: int, n_sentences: int, rng: np.random.Generator) -> list[list[int]]:
    """Outputs of each sentence drawn from a Dirichlet(0.3)-weighted choice among 30 possible corrections, so most
    sentences have a few large groups and some are diverse (as in G15 Figure 1)."""
    probabilities = rng.dirichlet(np.full(30, 0.3), size=n_sentences)
    counts = rng.multinomial(n_systems, probabilities)
    return [row[row > 0].tolist() for row in counts]


def best_time(function: Callable[[], np.ndarray], repeats: int) -> tuple[float, np.ndarray]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def describe(name: str, sets: list[list[int]]) -> None:
    distinct = np.array([len(s) for s in sets])
    print(
        f"\n{name}: {len(sets):,} sentences, {sum(sets[0])} systems, distinct outputs per sentence "
        f"mean {distinct.mean():.1f}, max {distinct.max()}, "
        f"{len({tuple(sorted(s)) for s in sets}):,} distinct multisets"
    )


def compare(label: str, fast: float, baseline: float) -> None:
    print(f"  {label:<48} {baseline * 1e3:10.1f} ms   ratio {baseline / fast:10.0f}x")


def main() -> None:
    rng = np.random.default_rng(2015)
    if (CONLL14 / "outputs").is_dir():
        small_name, small = "CoNLL-14 outputs", conll14_sets()
    else:
        small_name, small = "synthetic CoNLL-14 shape (no ../shared/data)", synthetic_sets(13, 1312, rng)
    describe(small_name, small)
    fast, weights = best_time(lambda: sampling_weights(small, M), 5)
    print(f"  sampling_weights                                 {fast * 1e3:10.1f} ms")
    brute, brute_weights = best_time(lambda: brute_force_weights(small, M), 1)
    direct, direct_weights = best_time(lambda: direct_dp_weights(small, M), 1)
    assert np.allclose(weights, brute_weights, rtol=1e-12) and np.allclose(weights, direct_weights, rtol=1e-12)
    compare("brute-force subset enumeration, all sentences", fast, brute)
    compare("direct DP per sentence, all sentences", fast, direct)

    large = synthetic_sets(100, 100_000, rng)
    describe("synthetic", large)
    fast, weights = best_time(lambda: sampling_weights(large, M), 3)
    print(f"  sampling_weights                                 {fast * 1e3:10.1f} ms")
    subset = large[:20]
    fast_subset, _ = best_time(lambda: sampling_weights(subset, M), 5)
    brute_subset, brute_weights = best_time(lambda: brute_force_weights(subset, M), 1)
    assert np.allclose(sampling_weights(subset, M), brute_weights, rtol=1e-12)
    print(f"  on the first {len(subset)} sentences: sampling_weights {fast_subset * 1e3:.2f} ms")
    compare(f"brute force, first {len(subset)} sentences", fast_subset, brute_subset)
    compare(
        f"brute force, all (estimate: x{len(large) // len(subset):,})", fast, brute_subset * len(large) / len(subset)
    )
    sample = large[:5000]
    direct_sample, direct_weights = best_time(lambda: direct_dp_weights(sample, M), 1)
    fast_sample, weights_sample = best_time(lambda: sampling_weights(sample, M), 3)
    assert np.allclose(weights_sample, direct_weights, rtol=1e-12)
    compare(f"direct DP per sentence, first {len(sample):,} sentences", fast_sample, direct_sample)


if __name__ == "__main__":
    main()
