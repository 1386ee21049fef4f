"""Campaigns of hundreds of thousands of screens, written by SQL for the scale test (``test_scale``) and the
benchmarks of pages at scale (``benchmarks/unserved_screens.py``).

The screens are laid out as ``screens.write_screens`` lays them out: screen ``n`` shows sentence ``n`` modulo the
test set's size with both its candidates, and has ``redundancy`` pool slots at positions ``n * redundancy`` to
``n * redundancy + redundancy - 1`` (slots in screen order); the campaign's kept slot counts (``CampaignSlots``) are
written with them. All of it goes in one transaction with the foreign-key triggers off (``SET LOCAL
session_replication_role = replica``, as a restore of a dump does: the rows refer to rows of the same statements,
and Django's deferred foreign-key checks of millions of rows took more than half the time of the load); the tables
are then vacuumed and analyzed as autovacuum would.
"""
from __future__ import annotations

from django.contrib.auth.models import User
from django.db import connection, transaction

from annotation.models import Campaign
from annotation.services.importing import import_outputs
from annotation.services.textfiles import NamedFile


def two_outputs_campaign(name: str, lines: int, owner: User) -> Campaign:
    """A campaign of ``lines`` sentences, each with two distinct outputs (systems alpha and beta), organized by
    ``owner``, without screens."""
    source = NamedFile("source", "".join(f"sentence {i} is here .\n" for i in range(lines)).encode())
    systems = [NamedFile(system, "".join(f"sentence {i} is {system} .\n" for i in range(lines)).encode())
               for system in ("alpha", "beta")]
    campaign = import_outputs(name, source, systems, owner=owner)
    campaign.organizers.add(owner)
    return campaign


#: The statements that write a campaign's screens, their candidates, their pool slots and its kept slot counts.
SCREENS_BY_SQL = (
    """
    INSERT INTO annotation_screen (campaign_id, segment_id, number, created_at, excluded)
    SELECT %(campaign)s, segments.ids[1 + n %% cardinality(segments.ids)], n, now(), false
    FROM generate_series(0, %(screens)s - 1) AS n,
         (SELECT array_agg(id ORDER BY line) AS ids FROM annotation_segment
          WHERE campaign_id = %(campaign)s) AS segments
    """,
    """
    INSERT INTO annotation_screencandidate (screen_id, candidate_id, position)
    SELECT s.id, c.id, row_number() OVER (PARTITION BY s.id ORDER BY c.id) - 1
    FROM annotation_screen s JOIN annotation_candidate c ON c.segment_id = s.segment_id
    WHERE s.campaign_id = %(campaign)s
    """,
    """
    INSERT INTO annotation_assignment (screen_id, campaign_id, position, due_after, status, token)
    SELECT s.id, s.campaign_id, s.number * %(redundancy)s + copy, 0, 'pending', gen_random_uuid()
    FROM annotation_screen s, generate_series(0, %(redundancy)s - 1) AS copy
    WHERE s.campaign_id = %(campaign)s
    """,
    """
    INSERT INTO annotation_campaignslots (campaign_id, originals, original_ids)
    SELECT campaign_id, count(*), sum(id) FROM annotation_assignment WHERE campaign_id = %(campaign)s
    GROUP BY campaign_id
    """,
)


def large_campaign(name: str, owner: User, *, lines: int, screens: int, redundancy: int = 1) -> Campaign:
    """A campaign of ``lines`` sentences (``two_outputs_campaign``) and ``screens`` screens of ``redundancy`` pool
    slots each, written by SQL as the module says."""
    campaign = two_outputs_campaign(name, lines, owner)
    values = {"campaign": campaign.pk, "screens": screens, "redundancy": redundancy}
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        for statement in SCREENS_BY_SQL:
            cursor.execute(statement, values)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return campaign


def serve_first(campaign: Campaign, screens: int, judge: User, redundancy: int = 1) -> None:
    """Give ``judge`` the first slot of each of the campaign's first ``screens`` screens still in the pool,
    submitted, as the queue hands them out (in position order)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE annotation_assignment SET judge_id = %(judge)s, status = 'submitted', submitted_at = now()"
            " WHERE campaign_id = %(campaign)s AND judge_id IS NULL AND position %% %(redundancy)s = 0"
            " AND position < %(screens)s * %(redundancy)s",
            {"judge": judge.pk, "campaign": campaign.pk, "redundancy": redundancy, "screens": screens},
        )
