"""Benchmark: how long a download of a large campaign's judgments waits for its first bytes (the judgments CSV and
JSON, Appraise XML, the unexpanded pairwise TSV), now against the way their rows were read before.

Builds a synthetic campaign (``--rankings`` rankings of ``--systems`` systems' outputs of ``--sentences`` sentences;
``dashboard.py``'s ``synthetic_campaign``) in a throw-away PostgreSQL database (``test_<name>`` of DATABASE_URL,
default ``gecappraise_first_bytes``). Each download's first chunk is taken as a request takes it, outside a
transaction, now (``outputs.streamed_by_judgment``: the judgments and their items through server-side cursors in a
transaction) and as before (the same cursors outside a transaction, which Django declares WITH HOLD and PostgreSQL
fills with the whole result before the first row), interleaved ``--repeat`` times; the first chunks are checked
equal. Prints the median seconds to the first chunk of each and the ratio.

Run: .venv/bin/python benchmarks/first_bytes.py [--rankings 100000] [--systems 31] [--sentences 10000] [--repeat 3]
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_first_bytes")

from annotation.services import appraise_import, judgment_exports  # noqa: E402
from annotation.services.outputs import merged_by_judgment  # noqa: E402
from benchmarks.dashboard import campaign_benchmark  # noqa: E402
from ranking import loading  # noqa: E402
from ranking.reports.pairs_tsv import unexpanded_tsv_chunks  # noqa: E402


def old_streamed_by_judgment(judgments, items, chunk_size):
    """The rows as they were read before: the same server-side cursors, outside a transaction (WITH HOLD)."""
    return merged_by_judgment(judgments.iterator(chunk_size=chunk_size), items.iterator(chunk_size=5 * chunk_size))


def downloads(campaign) -> dict:
    return {
        "judgments CSV": lambda: judgment_exports.judgments_csv_chunks(campaign),
        "judgments JSON": lambda: judgment_exports.judgments_json_chunks(campaign),
        "Appraise XML": lambda: appraise_import.export_appraise_xml_chunks(campaign),
        "unexpanded pairs TSV": lambda: unexpanded_tsv_chunks(loading.ranking_batches(campaign)),
    }


def first_chunk(chunks) -> tuple[float, str]:
    start = time.perf_counter()
    iterator = iter(chunks())
    chunk = next(chunk for chunk in iterator if chunk.strip().count("\n") > 2)
    seconds = time.perf_counter() - start
    iterator.close()
    return seconds, chunk


def old_first_chunk(chunks) -> tuple[float, str]:
    with mock.patch.object(judgment_exports, "streamed_by_judgment", old_streamed_by_judgment), \
            mock.patch.object(appraise_import, "streamed_by_judgment", old_streamed_by_judgment), \
            mock.patch.object(loading, "streamed_by_judgment", old_streamed_by_judgment):
        return first_chunk(chunks)


def main() -> None:
    with campaign_benchmark(__doc__.splitlines()[0], systems=31, repeat=3) as (args, campaign):
        for name, chunks in downloads(campaign).items():
            now, before = [], []
            for _ in range(args.repeat):
                seconds, chunk = first_chunk(chunks)
                now.append(seconds)
                seconds, old_chunk = old_first_chunk(chunks)
                before.append(seconds)
                if chunk != old_chunk:
                    raise SystemExit(f"{name}: the first chunks differ")
            now_s, before_s = statistics.median(now), statistics.median(before)
            print(f"{name}: first chunk after {now_s:.2f} s median (before: {before_s:.2f} s; "
                  f"before/now = {before_s / now_s:.1f})")
        print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
