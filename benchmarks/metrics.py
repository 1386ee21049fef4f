"""Benchmark: M2 of the 13 CoNLL-14 systems x 1,312 sentences (issue 12), against the official scorer's way of working.

Measured in the same run:

* *product*: ``ranking.core.m2.corpus_m2`` as ``score_metrics`` calls it (numba kernel, one cache of (source,
  hypothesis) pairs shared by the systems); a first call on one sentence loads the compiled kernel from numba's
  cache beforehand, and the time of that is printed apart;
* *baseline*: the same scores computed step by step as the official ``m2scorer`` computes them
  (``sentence_counts(..., kernel=False)``: Python dictionaries and lists, every system's every sentence scored
  anew), on the systems given by ``--baseline-systems`` (default: all).

The official Python 2 scorer itself is slower still: it also runs every Bellman-Ford round (the baseline stops
after a round without change) and copies its graphs. Run once on this machine for this issue (Python 2.7.18, 2 cores
shared with other jobs), it took 3,385 s of wall time for the 13 systems (12 minutes for CAMB, CUUI, AMU and POST,
most of the rest on NTHU, three of whose sentences have lattices of 22,000 to 155,000 arcs) and printed the P, R
and F0.5 that ``tests/ranking/test_metrics_conll14.py`` expects for all 13; that run is not repeated here. Both
timings below are CPU seconds of this process and wall seconds.

The last line is ``M2 13 systems: product S s, baseline B s, baseline/product = R`` (CPU seconds); the target is
the product under 10 s on 2 cores. Every system's F0.5 is printed and checked equal between the two.

Run: .venv/bin/python benchmarks/metrics.py [--baseline-systems CAMB AMU ...]
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from benchmarks.django_setup import set_up  # noqa: E402

set_up()

from annotation.services.references import parse_m2  # noqa: E402
from annotation.services.textfiles import NamedFile  # noqa: E402
from ranking.core.m2 import corpus_m2, sentence_counts  # noqa: E402

CONLL14 = Path(os.environ.get("GECAPPRAISE_SHARED_DATA", REPO.parent / "shared" / "data")) / "conll14"
SYSTEMS = ("CAMB", "CUUI", "AMU", "POST", "NTHU", "RAC", "UMC", "PKU", "SJTU", "UFC", "IPN", "IITB", "INPUT")


def load():
    sources = (CONLL14 / "gold" / "source").read_text(encoding="utf-8").splitlines()
    parsed, _ = parse_m2(NamedFile("conll14st-test.m2", (CONLL14 / "gold" / "conll14st-test.m2").read_bytes()), sources)
    gold = []
    for line, edits in zip(sources, parsed):
        tokens = line.split()
        annotations: dict = {}
        for edit in edits:
            kept = annotations.setdefault(edit.annotator, [])
            if edit.start >= 0:
                kept.append((edit.start, edit.end, " ".join(tokens[edit.start : edit.end]), edit.corrections))
        gold.append(annotations or {0: []})
    hypotheses = {
        system: [line.split() for line in (CONLL14 / "outputs" / system).read_text(encoding="utf-8").splitlines()]
        for system in SYSTEMS
    }
    return [line.split() for line in sources], gold, hypotheses


def timed(function):
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def baseline_f(sources, gold, hypotheses):
    """F0.5 by the step-by-step code: the kernel's caller replaced by the reference, no cache."""
    from ranking.core import m2

    original = m2.sentence_counts
    m2.sentence_counts = functools.partial(original, kernel=False)
    try:
        return corpus_m2(sources, hypotheses, gold).f_beta
    finally:
        m2.sentence_counts = original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-systems", nargs="*", default=list(SYSTEMS), metavar="SYSTEM")
    args = parser.parse_args()
    if not (CONLL14 / "gold" / "conll14st-test.m2").is_file():
        sys.exit(f"CoNLL-14 data not found at {CONLL14}")
    sources, gold, hypotheses = load()
    _, warm_cpu, warm_wall = timed(lambda: sentence_counts(["a", "b"], ["a", "c"], [[(1, 2, "b", ("c",))]]))
    print(f"kernel load (numba cache): {warm_cpu:.2f} s CPU, {warm_wall:.2f} s wall")
    cache: dict = {}
    product, product_cpu, product_wall = timed(
        lambda: {system: corpus_m2(sources, hypotheses[system], gold, cache=cache).f_beta for system in SYSTEMS}
    )
    baseline, baseline_cpu, baseline_wall = {}, 0.0, 0.0
    for system in args.baseline_systems:
        baseline[system], cpu, wall = timed(lambda system=system: baseline_f(sources, gold, hypotheses[system]))
        baseline_cpu += cpu
        baseline_wall += wall
        assert baseline[system] == product[system], system
    for system in SYSTEMS:
        print(f"{system:6s} F0.5 {product[system]:.4f}" + (" (baseline equal)" if system in baseline else ""))
    print(f"product: {product_cpu:.2f} s CPU, {product_wall:.2f} s wall for {len(SYSTEMS)} systems")
    print(f"baseline: {baseline_cpu:.2f} s CPU, {baseline_wall:.2f} s wall for {len(baseline)} systems")
    share = product_cpu * len(baseline) / len(SYSTEMS)
    ratio = baseline_cpu / share if share else float("inf")
    print(
        f"M2 {len(SYSTEMS)} systems: product {product_cpu:.2f} s, baseline {baseline_cpu:.2f} s "
        f"({len(baseline)} systems), baseline/product = {ratio:.1f}"
    )


if __name__ == "__main__":
    main()
