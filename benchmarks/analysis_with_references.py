"""Benchmark: ``manage.py analyze`` of the CoNLL-14 campaign with its references (the M2 gold edits and the two
corrected references of ../shared/data/conll14/gold), the first analysis and the later ones, against the same
analysis of the campaign without references, in one run.

Each analysis is a new process (as a user runs it) on a temporary SQLite database holding three copies of the
CoNLL-14 campaign: ``plain`` without references, ``first`` and ``later`` with them. numba's cache starts empty in a
folder of its own: a warm-up analysis of ``plain`` compiles the TrueSkill kernels, then ``first`` computes the metrics
with the M2 kernel compiled on the way (once per checkout or deployment); ``later`` computes them with every kernel
cached (the first analysis after an organizer imports references), and its next analyses read the stored scores
(``ranking.metric_store``). Prints wall and CPU seconds (medians of ``--repeat`` runs where repeated) and each
against the analysis without references.

Run: .venv/bin/python benchmarks/analysis_with_references.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile

from analysis import last_run_timings, new_process, sqlite_environment
from conll14_baseline import CONLL14


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    gold = CONLL14 / "gold"
    with tempfile.TemporaryDirectory() as folder:
        env, database = sqlite_environment(folder)
        outputs = CONLL14 / "outputs"
        new_process(env, "manage.py", "migrate", "--verbosity", "0")
        for campaign in ("plain", "first", "later"):
            new_process(env, "manage.py", "import_outputs", "--campaign", campaign, "--source",
                        str(outputs / "INPUT"), *sorted(str(path) for path in outputs.iterdir()))
            users = [f"--map-user=annotator0{k}={campaign}0{k}" for k in range(1, 9)]
            new_process(env, "manage.py", "import_appraise_xml", "--campaign", campaign, *users,
                        str(CONLL14 / "judgments.xml"))
            if campaign != "plain":
                new_process(env, "manage.py", "import_references", "--campaign", campaign, "--m2",
                            str(gold / "conll14st-test.m2"), str(gold / "ref0"), str(gold / "ref1"))

        def analyze(campaign: str) -> tuple[float, float, float]:
            seconds, cpu = new_process(env, "manage.py", "analyze", "--campaign", campaign,
                                       "--out", f"{folder}/{campaign}.json")
            return seconds, cpu, last_run_timings(database)["analysis_seconds"]

        def median(runs: list[tuple[float, float, float]]) -> tuple[float, float, float]:
            return tuple(statistics.median(run[i] for run in runs) for i in range(3))

        compiling_trueskill = analyze("plain")
        compiling_m2 = analyze("first")
        first = analyze("later")
        plain, later = [], []
        for _ in range(args.repeat):  # interleaved, so that the load of the machine weighs on both alike
            plain.append(analyze("plain"))
            later.append(analyze("later"))
        rows = {
            "without references (baseline)": median(plain),
            "with references, first analysis (metrics computed)": first,
            "with references, later analyses (metrics stored)": median(later),
            "with references, first analysis compiling the M2 kernel": compiling_m2,
            "without references, compiling the TrueSkill kernels": compiling_trueskill,
        }
    base = rows["without references (baseline)"][0]
    print(f"manage.py analyze of CoNLL-14 as a new process, load average {os.getloadavg()[0]:.1f}:")
    for label, (seconds, cpu, computing) in rows.items():
        print(f"  {label}: {seconds:.2f} s ({seconds / base:.2f}x the baseline), CPU {cpu:.2f} s, "
              f"computing {computing:.2f} s")


if __name__ == "__main__":
    main()
