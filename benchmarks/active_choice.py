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
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ranking.core.active import (  # noqa: E402
    DEFAULT_SAMPLE,
    RunningTrueSkill,
    ScreenOptions,
    choose_candidates,
    pair_weights,
    select_screen,
)
from tests.ranking.served_screens import collapsed_test_set, observe_random_ranking  # noqa: E402


def serve(belief: RunningTrueSkill, options: ScreenOptions, available: np.ndarray, rng: np.random.Generator,
          sample_size: int) -> float:
    """Seconds to choose one screen and its candidates; then a simulated ranking of them updates ``belief``."""
    start = time.perf_counter()
    weights = pair_weights(belief)
    screen = select_screen(weights, options, available, rng, sample_size=sample_size)
    shown = choose_candidates(weights, options, screen, 5, rng)
    seconds = time.perf_counter() - start
    observe_random_ranking(belief, options, screen, shown, rng)
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
    options = collapsed_test_set(args.sentences, args.systems, np.random.default_rng(0))
    every = run(options, args.systems, args.screens, sample_size=args.sentences)
    sampled = run(options, args.systems, args.screens, sample_size=DEFAULT_SAMPLE)
    print(f"{args.systems} systems x {args.sentences:,} sentences, {args.screens} served screens each")
    for name, seconds in (("every available screen scored (baseline)", every),
                          (f"a sample of {DEFAULT_SAMPLE} scored (the product)", sampled)):
        print(f"  {name}: median {1e3 * np.median(seconds):.1f} ms, p95 {1e3 * np.percentile(seconds, 95):.1f} ms")
    print(f"  median ratio baseline / product: {np.median(every) / np.median(sampled):.1f}x")


if __name__ == "__main__":
    main()
