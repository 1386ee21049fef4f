"""Benchmark: a large campaign's downloads (the judgments as CSV, JSON and Appraise XML, the pairwise judgments as
unexpanded and expanded TSV), streamed against the whole file built in memory first, as they were written before
(one list of every record, every item or every ranking, then one text).

Builds a synthetic campaign (``--rankings`` rankings of up to 5 of ``--systems`` systems' outputs; ``dashboard.py``'s)
in a throw-away PostgreSQL database (``test_<name>`` of DATABASE_URL, default ``gecappraise_exports``) and, for each
format, measures the whole download through Django's test client as an organizer (the streamed response read to
its end), the time to its first chunk, this process's CPU time, and the peak of Python's traced memory
(tracemalloc, in a second pass, as it slows allocation), against the baseline: the same text built whole
(``json.dumps`` of ``judgment_records``, ``write_appraise_xml`` of ``campaign_rankings``, the CSV rows joined, the
TSVs of ``load_rankings``), in the same run. Every text is checked equal.

Run: .venv/bin/python benchmarks/exports.py [--rankings 50000] [--systems 20]
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_exports")

from django.contrib.auth import get_user_model  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402

from annotation.services.appraise_import import campaign_rankings  # noqa: E402
from annotation.services.appraise_xml import write_appraise_xml  # noqa: E402
from annotation.services.judgment_exports import CANDIDATE_FIELDS, JUDGMENT_FIELDS, judgment_records  # noqa: E402
from benchmarks.dashboard import analyze_tables, synthetic_campaign  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402
from gecappraise.safe_csv import SafeDictWriter  # noqa: E402
from ranking.loading import load_rankings  # noqa: E402
from ranking.reports.pairs_tsv import expanded_tsv, unexpanded_tsv  # noqa: E402


def whole_json(campaign) -> str:
    return json.dumps({"campaign": campaign.name, "judgments": judgment_records(campaign)}, indent=2,
                      ensure_ascii=False) + "\n"


def whole_csv(campaign) -> str:
    """Every record held at once, then its rows as one text, as before (the writer is the export's own)."""
    out = io.StringIO()
    writer = SafeDictWriter(out, JUDGMENT_FIELDS + CANDIDATE_FIELDS)
    writer.writeheader()
    for record in judgment_records(campaign):
        judgment = {field: record[field] for field in JUDGMENT_FIELDS}
        for candidate in record["candidates"] or [{}]:
            writer.writerow({**judgment, **candidate})
    return out.getvalue()


def streamed(client: Client, url: str) -> Callable[[], tuple[str, float]]:
    """The download read chunk by chunk, as a server sends it (nothing kept but a digest): (SHA-256, seconds to
    the first chunk)."""
    def download() -> tuple[str, float]:
        start = time.perf_counter()
        digest, first = hashlib.sha256(), None
        for chunk in client.get(url).streaming_content:
            first = first if first is not None else time.perf_counter() - start
            digest.update(chunk)
        return digest.hexdigest(), first
    return download


def measured(function: Callable[[], object]) -> tuple[object, float, float, float]:
    """(result, seconds, this process's CPU seconds, peak traced MB): timed in one call, the memory in a second one
    under tracemalloc. The CPU time leaves out PostgreSQL's and other processes' share of a busy machine."""
    start, cpu = time.perf_counter(), time.process_time()
    result = function()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return result, seconds, cpu, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rankings", type=int, default=50_000)
    parser.add_argument("--systems", type=int, default=20)
    args = parser.parse_args()
    with throwaway_database():
        campaign = synthetic_campaign(args.rankings, args.systems, np.random.default_rng(2015))
        analyze_tables()
        organizer = get_user_model().objects.create_user("organizer")
        campaign.organizers.add(organizer)
        client = Client()
        client.force_login(organizer)
        print(f"{args.rankings:,} rankings of {args.systems} systems (load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores)")
        cases = (
            ("CSV", reverse("campaign-judgments-export", args=[campaign.pk, "csv"]), lambda: whole_csv(campaign)),
            ("JSON", reverse("campaign-judgments-export", args=[campaign.pk, "json"]), lambda: whole_json(campaign)),
            ("Appraise XML", reverse("campaign-appraise-export", args=[campaign.pk]),
             lambda: write_appraise_xml(campaign_rankings(campaign))),
            ("unexpanded TSV", reverse("campaign-pairs", args=[campaign.pk, "unexpanded"]),
             lambda: unexpanded_tsv(load_rankings(campaign))),
            ("expanded TSV", reverse("campaign-pairs", args=[campaign.pk, "expanded"]),
             lambda: expanded_tsv(load_rankings(campaign))),
        )
        for label, url, baseline in cases:
            text, base_seconds, base_cpu, base_peak = measured(baseline)
            (ours, first), seconds, cpu, peak = measured(streamed(client, url))
            assert ours == hashlib.sha256(text.encode()).hexdigest(), f"{label}: the download differs from the text"
            print(f"  {label:<14} {len(text) / 1e6:6.1f} MB: whole {base_seconds:5.1f} s (cpu {base_cpu:5.1f} s), "
                  f"peak {base_peak:4.0f} MB; streamed {seconds:5.1f} s (cpu {cpu:5.1f} s, first chunk {first:.2f} s), "
                  f"peak {peak:3.0f} MB: {base_peak / peak:.1f}x less memory, {base_seconds / seconds:.2f}x the speed "
                  f"({base_cpu / cpu:.2f}x in cpu)")


if __name__ == "__main__":
    main()
