"""Benchmark: claiming a judge's next screen (``queue._claim``, one statement) against the two ORM queries it
replaced (an unclaimed slot, then a slot whose lease ran out, each ``SELECT ... FOR UPDATE SKIP LOCKED``), on
PostgreSQL, in one process.

Builds a campaign of ``--screens`` screens (of the CoNLL-14 outputs, or the demo test set, as load.py) in a
throw-away database (``test_`` + DATABASE_URL's name, default ``gecappraise_claim``), then times ``--claims``
claims of each, each in its own transaction, rolled back, alternating the two in rounds so both see the same
cache. Prints the CPU and wall milliseconds per claim of each and their ratios; both must claim the same slot.

Run: .venv/bin/python benchmarks/claim.py [--screens 3000] [--claims 300] [--rounds 3]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.command_line import whole_numbers  # noqa: E402
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_claim")

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import transaction  # noqa: E402
from django.utils import timezone  # noqa: E402
from load import test_set, throwaway_site  # noqa: E402  (the judges' benchmark beside this file)

from annotation.models import Assignment  # noqa: E402
from annotation.services import queue  # noqa: E402
from annotation.services.importing import import_outputs  # noqa: E402
from annotation.services.screens import create_screens  # noqa: E402


def two_queries(campaign, judge, now) -> Assignment | None:
    """The baseline: the claim as two ORM queries, the earlier of their rows taken."""
    had = Assignment.objects.filter(campaign=campaign, judge=judge).values("screen_id")
    pool = Assignment.objects.filter(
        campaign=campaign, judge__isnull=True, status=Assignment.Status.PENDING, repeat_of__isnull=True
    ).exclude(screen_id__in=had)
    expired = (
        Assignment.objects.filter(campaign=campaign, lease_expires_at__lt=now, repeat_of__isnull=True)
        .exclude(status=Assignment.Status.SUBMITTED)
        .exclude(screen_id__in=had)
    )
    found = [
        query.select_for_update(skip_locked=True, of=("self",)).order_by("position", "id").first()
        for query in (pool, expired)
    ]
    found = [slot for slot in found if slot is not None]
    return min(found, key=lambda slot: (slot.position, slot.pk)) if found else None


def timed(claim, campaign, judge, now, claims: int) -> tuple[float, float, int]:
    """CPU and wall seconds per claim, and the slot claimed."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(claims):
        with transaction.atomic():
            slot = claim(campaign, judge, now)
            transaction.set_rollback(True)
    return (time.process_time() - cpu) / claims, (time.perf_counter() - wall) / claims, slot.pk


def main() -> None:
    args = whole_numbers(__doc__, screens=3000, claims=300, rounds=3)
    with throwaway_site():
        source, systems, _ = test_set()
        campaign = import_outputs("claim", source, systems)
        create_screens(campaign, args.screens)
        judge = get_user_model().objects.create(username="judge")
        campaign.judges.add(judge)
        now = timezone.now()
        totals = {"two ORM queries": [0.0, 0.0], "queue._claim": [0.0, 0.0]}
        for _ in range(args.rounds):
            for name, claim in (("two ORM queries", two_queries), ("queue._claim", queue._claim)):
                cpu, wall, slot = timed(claim, campaign, judge, now, args.claims)
                totals[name][0] += cpu / args.rounds
                totals[name][1] += wall / args.rounds
                assert slot == timed(two_queries, campaign, judge, now, 1)[2], "both claim the same slot"
    for name, (cpu, wall) in totals.items():
        print(f"{name}: {1000 * cpu:.2f} ms CPU, {1000 * wall:.2f} ms wall per claim")
    (base_cpu, base_wall), (cpu, wall) = totals.values()
    print(f"queue._claim against the two ORM queries: CPU {base_cpu / cpu:.1f}x less, wall {base_wall / wall:.1f}x less"
          f" ({args.screens} screens, {args.claims} claims x {args.rounds} rounds)")


if __name__ == "__main__":
    main()
