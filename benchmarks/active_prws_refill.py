"""Benchmark: one refill of a PRWS campaign's active queue (``active_screens.write_active_prws_screens``, EASL; the
background task runs it whenever fewer than 5 screens are open, holding the campaign's lock), against the refill
as it read the campaign before: every candidate with its outputs counted (``segment_candidates``, kept in
``tests/annotation/candidates_reference.py``), to number them all.

Builds a PRWS campaign of ``--systems`` systems x ``--sentences`` sentences (each system edits a sentence with
probability 0.7, so a sentence has about 1 + 0.7 N candidates: 440,000 at 30 x 20,000) in a throw-away PostgreSQL
database (``test_<name>`` of DATABASE_URL, default ``gecappraise_active_prws_refill``). Then, per state, ``--repeat``
times interleaved, the refill of ``--count`` screens and the baseline's (the former code, kept here), each rolled
back so that every repetition chooses from the same state; both must write the same screens (checked). States:
no score yet (EASL's first pass), and ``--rated`` judged screens of 5 candidates with a score each (the rater's
scores imported as judged screens, ``judged_screens.write_judged_screens``).

Prints each refill's median time, the baseline's, and their ratio. The refill numbers the candidates from the
segments' kept multiplicities and reads the rated, the waiting and the chosen sentences' candidates only.

Run: .venv/bin/python benchmarks/active_prws_refill.py [--sentences 20000] [--systems 30] [--rated 20000]
     [--count 10] [--repeat 5]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.command_line import whole_numbers  # noqa: E402
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_active_prws_refill")

from django.db import connection, transaction  # noqa: E402

from annotation.models import Campaign, Candidate, CandidateJudgment, ScreenCandidate  # noqa: E402
from annotation.random_streams import campaign_rng  # noqa: E402
from annotation.services.importing import import_outputs  # noqa: E402
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens  # noqa: E402
from annotation.services.screens import lock_campaign, next_screen_number, write_screens  # noqa: E402
from annotation.services.textfiles import NamedFile  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402
from ranking.active_screens import beliefs_and_free, easl_plans, waiting_rows, write_active_prws_screens  # noqa: E402
from ranking.core.active import CandidateBeliefs  # noqa: E402
from tests.annotation.candidates_reference import segment_candidates  # noqa: E402


def former_beliefs(campaign: Campaign, candidates: list[list[int]]) -> tuple[CandidateBeliefs, np.ndarray]:
    """``_prws_beliefs`` as it was: every candidate of the campaign numbered from ``candidates``."""
    index = {pk: i for i, pk in enumerate(pk for sentence in candidates for pk in sentence)}
    scored = CandidateJudgment.objects.of_campaign(campaign).scored().values_list("candidate_id", "score")
    waiting = waiting_rows(campaign).values_list("candidate_id", flat=True).distinct()
    return beliefs_and_free(len(index), [(index[pk], score) for pk, score in scored if pk in index],
                            [index[pk] for pk in waiting if pk in index])


def former_refill(campaign: Campaign, count: int) -> range:
    """``write_active_prws_screens`` as it was (the baseline)."""
    with transaction.atomic():
        lock_campaign(campaign)
        rng = campaign_rng(campaign, "active", next_screen_number(campaign))
        segment_ids, candidates, _ = segment_candidates(campaign)
        sizes = np.array([len(sentence) for sentence in candidates], dtype=np.int64)
        beliefs, available = former_beliefs(campaign, candidates)
        plans = easl_plans(beliefs, available, sizes, campaign.max_candidates, rng, count)
        return write_screens(campaign, segment_ids, candidates, plans)


def refill(write, campaign: Campaign, count: int) -> tuple[float, list[list[int]]]:
    """Seconds of one refill by ``write`` and the candidates of the screens it wrote, rolled back afterwards."""
    with transaction.atomic():
        start = time.perf_counter()
        numbers = write(campaign, count)
        seconds = time.perf_counter() - start
        shown = [list(ScreenCandidate.objects.filter(screen__campaign=campaign, screen__number=number)
                      .order_by("position").values_list("candidate_id", flat=True)) for number in numbers]
        transaction.set_rollback(True)
    return seconds, shown


def rate(campaign: Campaign, screens: int, rng: np.random.Generator) -> None:
    """Import ``screens`` judged screens of one rater, 5 candidates of a random sentence each, scored at random."""
    by_line: dict[int, list[int]] = {}
    for line, pk in Candidate.objects.filter(segment__campaign=campaign).order_by("id").values_list(
            "segment__line", "id"):
        by_line.setdefault(line, []).append(pk)
    lines = [line for line, pks in by_line.items() if len(pks) >= 5]
    judged = []
    for line in rng.choice(lines, screens).tolist():
        shown = rng.choice(by_line[line], 5, replace=False).tolist()
        judged.append(JudgedScreen(line, "rater", [JudgedCandidate(pk, score=float(rng.uniform(0, 100)))
                                                   for pk in shown]))
    with transaction.atomic():
        write_judged_screens(campaign, judged)


def main() -> None:
    args = whole_numbers(__doc__, sentences=20_000, systems=30, rated=20_000, count=10, repeat=5)
    rng = np.random.default_rng(2015)
    with throwaway_database():
        source = [f"sentence {i} has some words in it ." for i in range(args.sentences)]
        text = lambda lines: ("\n".join(lines) + "\n").encode()
        systems = [NamedFile(f"sys{k:02d}", text([s.replace("some", f"edit{k}") if rng.random() < 0.7 else s
                                                   for s in source])) for k in range(args.systems)]
        start = time.perf_counter()
        campaign = import_outputs("prws", NamedFile("source", text(source)), systems, mode=Campaign.Mode.PRWS)
        print(f"(PRWS campaign of {args.systems} systems x {args.sentences:,} sentences written in "
              f"{time.perf_counter() - start:.0f} s: "
              f"{Candidate.objects.filter(segment__campaign=campaign).count():,} candidates)")
        for state in ("no score yet", f"{args.rated:,} screens scored"):
            if state != "no score yet":
                rate(campaign, args.rated, rng)
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
            refill(write_active_prws_screens, campaign, args.count)
            times: dict[str, list[float]] = {"new": [], "baseline": []}
            for _ in range(args.repeat):
                seconds, new = refill(write_active_prws_screens, campaign, args.count)
                times["new"].append(seconds)
                seconds, old = refill(former_refill, campaign, args.count)
                times["baseline"].append(seconds)
                if new != old:
                    raise SystemExit(f"{state}: the refills chose different screens: {new[:2]} against {old[:2]}")
            new_ms, old_ms = (float(np.median(times[key])) * 1000 for key in ("new", "baseline"))
            ratio = f"{old_ms / new_ms:.1f}x faster" if old_ms >= new_ms else f"{new_ms / old_ms:.1f}x slower"
            print(f"{state}: refill of {args.count} screens {new_ms:.0f} ms, baseline {old_ms:.0f} ms ({ratio})")


if __name__ == "__main__":
    main()
