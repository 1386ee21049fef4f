"""Benchmark: what serving one screen of an active campaign costs at 100 systems x 100,000 sentences, the choice
scored on a sample of ``DEFAULT_SAMPLE`` available screens (``core.active.select_screen``, as the product does)
against the same choice scored on every available screen, measured in the same run.

One served screen is the pair weights from the running TrueSkill belief (``pair_weights``), the choice of a
sentence (``select_screen``), of its shown candidates (``choose_candidates``) and the belief's update by the
simulated ranking. The test set has a realistic spread of collapse: 2 to 40 distinct outputs per sentence, most
systems sharing a few frequent ones. Printed: the median and p95 ms per served screen of each, and their ratio.

Usage: python benchmarks/active_choice.py [--sentences 100000] [--systems 100] [--screens 40]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from ranking.core.active import (
    DEFAULT_SAMPLE,
    RunningTrueSkill,
    ScreenOptions,
    choose_candidates,
    pair_weights,
    select_screen,
)


def test_set(sentences: int, systems: int, rng: np.random.Generator) -> ScreenOptions:
    """Each sentence's candidates: 2 to 40 distinct outputs, the systems' labels drawn geometrically."""
    distinct = rng.integers(2, 41, size=sentences)
    labels = np.minimum(rng.geometric(0.25, size=(sentences, systems)) - 1, distinct[:, None] - 1)
    return ScreenOptions.from_labels(labels)


def serve(belief: RunningTrueSkill, options: ScreenOptions, available: np.ndarray, rng: np.random.Generator,
          sample_size: int) -> float:
    """Seconds to choose one screen and its candidates; then a simulated ranking of them updates ``belief``."""
    start = time.perf_counter()
    weights = pair_weights(belief)
    screen = select_screen(weights, options, available, rng, sample_size=sample_size)
    shown = choose_candidates(weights, options, screen, 5, rng)
    seconds = time.perf_counter() - start
    members = slice(options.offsets[screen], options.offsets[screen + 1])
    rank_of = np.zeros(options.n_candidates[screen], dtype=np.int64)
    rank_of[shown] = rng.permutation(shown.size) + 1
    rank = rank_of[options.member_candidate[members]]
    systems = options.member_system[members][rank > 0]
    rank = rank[rank > 0]
    a, b = np.triu_indices(systems.size, 1)
    belief.observe(systems[a], systems[b], np.sign(rank[a] - rank[b]))
    available[screen] = False
    return seconds


def run(options: ScreenOptions, systems: int, screens: int, sample_size: int) -> np.ndarray:
    """Seconds per served screen over ``screens`` screens (after one, not counted, that compiles the kernels)."""
    rng = np.random.default_rng(0)
    belief = RunningTrueSkill.start(systems)
    available = np.ones(options.n_candidates.size, dtype=bool)
    serve(belief, options, available, rng, sample_size)
    return np.array([serve(belief, options, available, rng, sample_size) for _ in range(screens)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--systems", type=int, default=100)
    parser.add_argument("--screens", type=int, default=40, help="served screens timed per variant")
    args = parser.parse_args()
    options = test_set(args.sentences, args.systems, np.random.default_rng(0))
    every = run(options, args.systems, args.screens, sample_size=args.sentences)
    sampled = run(options, args.systems, args.screens, sample_size=DEFAULT_SAMPLE)
    print(f"{args.systems} systems x {args.sentences:,} sentences, {args.screens} served screens each")
    for name, seconds in (("every available screen scored (baseline)", every),
                          (f"a sample of {DEFAULT_SAMPLE} scored (the product)", sampled)):
        print(f"  {name}: median {1e3 * np.median(seconds):.1f} ms, p95 {1e3 * np.percentile(seconds, 95):.1f} ms")
    print(f"  median ratio baseline / product: {np.median(every) / np.median(sampled):.1f}x")


if __name__ == "__main__":
    main()
