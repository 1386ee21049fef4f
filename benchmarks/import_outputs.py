"""Benchmark: importing a test set (source + N aligned system outputs) into a campaign.

Measures, on the database of DATABASE_URL (default: the local PostgreSQL, in a throw-away test database):
- the CoNLL-14 test set, 13 systems x 1,312 sentences (from ../shared/data, or a synthetic set of that size);
- a synthetic 20 systems x 100,000 sentences;
against a baseline measured in the same run: the same import written row by row with Model.objects.create
(what a straightforward ORM import does), on the first 200 sentences of the CoNLL-14-sized set.

Run: .venv/bin/python benchmarks/import_outputs.py [--sentences 100000] [--systems 20]
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
from benchmarks.django_setup import set_up  # noqa: E402

set_up()

from django.db import connection, transaction  # noqa: E402

from annotation.models import Campaign, Candidate, Document, Output, Segment, System  # noqa: E402
from annotation.services.importing import create_campaign, import_outputs, read_test_set  # noqa: E402
from annotation.services.textfiles import NamedFile  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402

CONLL14 = Path(os.environ.get("GECAPPRAISE_SHARED_DATA", REPO.parent / "shared" / "data")) / "conll14" / "outputs"
WORDS = "the a of to in is are was were has have make makes school student students teacher people time".split()


def synthetic(n_systems: int, n_sentences: int, rng: np.random.Generator) -> tuple[NamedFile, list[NamedFile]]:
    """A source of random 15-token sentences and systems that each edit a token of some sentences."""
    tokens = rng.integers(0, len(WORDS), size=(n_sentences, 15))
    source_rows = [" ".join(WORDS[t] for t in row) for row in tokens]
    systems = []
    for k in range(n_systems):
        edited = tokens.copy()
        touched = rng.random(n_sentences) < 0.5
        edited[touched, rng.integers(0, 15, size=touched.sum())] = rng.integers(0, 4, size=touched.sum())
        systems.append(
            NamedFile(f"sys{k:02d}", ("\n".join(" ".join(WORDS[t] for t in row) for row in edited) + "\n").encode())
        )
    return NamedFile("source", ("\n".join(source_rows) + "\n").encode()), systems


def conll_sized(rng: np.random.Generator) -> tuple[NamedFile, list[NamedFile], str]:
    if CONLL14.is_dir():
        files = [NamedFile(p.name, p.read_bytes()) for p in sorted(CONLL14.iterdir())]
        return NamedFile("INPUT", (CONLL14 / "INPUT").read_bytes()), files, "CoNLL-14 outputs"
    source, systems = synthetic(13, 1312, rng)
    return source, systems, "synthetic, CoNLL-14-sized (../shared/data not found)"


def head(file: NamedFile, n: int) -> NamedFile:
    return NamedFile(file.name, b"\n".join(file.data.split(b"\n")[:n]) + b"\n")


def row_by_row(name: str, source: NamedFile, systems: list[NamedFile]) -> None:
    """The baseline: the same rows, one INSERT per object."""
    test_set = read_test_set(source, systems)
    with transaction.atomic():
        campaign = Campaign.objects.create(name=name)
        system_rows = [System.objects.create(campaign=campaign, name=n, kind=k)
                       for n, k in zip(test_set.system_names, test_set.system_kinds)]
        document = Document.objects.create(campaign=campaign, name="document", position=0)
        for line, groups in enumerate(test_set.groups):
            segment = Segment.objects.create(campaign=campaign, document=document, position=line, line=line,
                                             source=test_set.source[line])
            for group in groups:
                candidate = Candidate.objects.create(segment=segment, text=test_set.outputs[group[0]][line])
                for index in group:
                    Output.objects.create(segment=segment, system=system_rows[index], candidate=candidate)


def timed(function, *args, **kwargs) -> float:
    start = time.perf_counter()
    function(*args, **kwargs)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--systems", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.default_rng(2015)
    with throwaway_database() as test_db:
        print(f"database: {connection.vendor} ({test_db})")
        source, systems, label = conll_sized(rng)
        n_lines = source.data.count(b"\n")
        sub = 200
        base = timed(row_by_row, "baseline", head(source, sub), [head(f, sub) for f in systems])
        ours_sub = timed(import_outputs, "subset", head(source, sub), [head(f, sub) for f in systems])
        full = timed(import_outputs, "conll", source, systems)
        print(f"{label}: {len(systems)} systems x {n_lines} sentences in {full:.2f} s "
              f"({n_lines / full:,.0f} sentences/s, {len(systems) * n_lines / full:,.0f} outputs/s)")
        print(f"first {sub} sentences: row by row {base:.2f} s, bulk {ours_sub:.3f} s: {base / ours_sub:.1f}x faster")
        source, systems = synthetic(args.systems, args.sentences, rng)
        start = time.perf_counter()
        test_set = read_test_set(source, systems)
        checked = time.perf_counter() - start
        write = timed(create_campaign, "synthetic", test_set)
        total = checked + write
        print(f"synthetic: {args.systems} systems x {args.sentences:,} sentences in {total:.1f} s "
              f"(read and collapse {checked:.1f} s, write {write:.1f} s; {args.sentences / total:,.0f} sentences/s, "
              f"{args.systems * args.sentences / total:,.0f} outputs/s)")


if __name__ == "__main__":
    main()
