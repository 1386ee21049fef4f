"""Benchmark: chrF++ of the 13 CoNLL-14 systems x 1,312 sentences against the two references (issue 12).

Measured in the same run, each on the same inputs:

* *product*: ``ranking.automatic_metrics.score_chrf``: sacrebleu's sentence statistics computed once per distinct
  (sentence, output) pair over all systems, corpus and sentence scores from them;
* *baseline*: sacrebleu's public calls per system as a user would make them (and as the product did before):
  ``corpus_score``, the per-sentence statistics and ``sentence_score`` for every sentence.

Every system's corpus score and every sentence score are checked equal between the two. The last line is
``chrF++ 13 systems: product S s, baseline B s, baseline/product = R`` (CPU seconds of this process).

Run: .venv/bin/python benchmarks/chrf.py
"""
from __future__ import annotations

import sys
from pathlib import Path

from metrics import CONLL14, SYSTEMS, timed  # the M2 benchmark beside this file: Django set up, the data's place
from sacrebleu.metrics import CHRF

from ranking.automatic_metrics import score_chrf
from ranking.metric_loading import MetricInputs


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def baseline(outputs: dict[str, list[str]], references: list[list[str]]) -> tuple[dict, dict]:
    chrf = CHRF(word_order=2)
    system, segments = {}, {}
    for name, hypotheses in outputs.items():
        system[name] = chrf.corpus_score(hypotheses, references).score / 100
        chrf._extract_corpus_statistics(hypotheses, references)
        segments[name] = [chrf.sentence_score(line, [reference[i] for reference in references]).score / 100
                          for i, line in enumerate(hypotheses)]
    return system, segments


def main() -> None:
    if not CONLL14.is_dir():
        sys.exit(f"CoNLL-14 data not found at {CONLL14} (set GECAPPRAISE_SHARED_DATA to the shared/data folder)")
    sources = lines(CONLL14 / "gold" / "source")
    outputs = {name: lines(CONLL14 / "outputs" / name) for name in SYSTEMS}
    references = {name: lines(CONLL14 / "gold" / name) for name in ("ref0", "ref1")}
    inputs = MetricInputs("conll14", sources, outputs, references=references)
    distinct = len({(i, line) for hypotheses in outputs.values() for i, line in enumerate(hypotheses)})
    print(f"{len(outputs)} systems x {len(sources)} sentences, {distinct} distinct (sentence, output) pairs")
    scored, product_cpu, product_wall = timed(lambda: score_chrf(inputs))
    (system, segments), baseline_cpu, baseline_wall = timed(lambda: baseline(outputs, list(references.values())))
    for name in SYSTEMS:
        assert scored.system[name] == system[name], name
        assert scored.segments[name] == segments[name], name
        print(f"  {name:6s} chrF++ {system[name]:.4f}")
    print(f"product  {product_cpu:6.2f} s CPU {product_wall:6.2f} s wall")
    print(f"baseline {baseline_cpu:6.2f} s CPU {baseline_wall:6.2f} s wall")
    print(f"chrF++ {len(outputs)} systems: product {product_cpu:.2f} s, baseline {baseline_cpu:.2f} s, "
          f"baseline/product = {baseline_cpu / product_cpu:.1f}")


if __name__ == "__main__":
    main()
