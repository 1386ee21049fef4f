"""Migration 0026 (``System.unchanged``): existing systems get the count of their outputs identical to the source
that the campaign page counted on each request; a new import counts the same from its files."""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Count, F, Q

from annotation.models import System

from .factories import small_campaign

BEFORE = [("annotation", "0025_assignment_judge_rows_index")]
AFTER = [("annotation", "0026_system_unchanged")]


def migrate(targets) -> None:
    MigrationExecutor(connection).migrate(targets)


def counted(campaign) -> dict[str, int]:
    """Each system's outputs whose candidate is the source sentence, counted over every output."""
    return dict(
        campaign.systems.annotate(n=Count("outputs", filter=Q(outputs__candidate__text=F("outputs__segment__source"))))
        .values_list("name", "n")
    )


@pytest.mark.django_db(transaction=True)
def test_migrating_counts_each_systems_unchanged_outputs_as_the_import_does(back_at_the_latest):
    campaigns = [small_campaign("one"), small_campaign("two")]
    imported = {campaign.name: dict(campaign.systems.values_list("name", "unchanged")) for campaign in campaigns}
    assert imported == {campaign.name: counted(campaign) for campaign in campaigns}
    assert imported["one"] == {"INPUT": 6, "MARMOTFIX": 2, "QUOKKAGEC": 1, "ZEPHYRSYS": 1}
    migrate(BEFORE)
    migrate(AFTER)
    assert {c.name: dict(System.objects.filter(campaign=c).values_list("name", "unchanged")) for c in campaigns} \
        == imported
