"""The organizer's campaign list (the page and ``GET /api/campaigns/``) on PostgreSQL: each campaign's sizes are
right, the list is the same queries whatever the number of campaigns, and its query handles each campaign's rows
of each table once (no join of one table's rows with another's)."""
from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Campaign, Screen, Segment
from annotation.services.importing import import_outputs
from annotation.services.screens import create_screens
from annotation.services.textfiles import NamedFile
from tests.sql import sql_value

from .factories import login, small_campaign

pytestmark = pytest.mark.django_db



def wide_campaign(name: str, systems: int, sentences: int) -> Campaign:
    """``systems`` systems, each its own output of each of ``sentences`` sentences."""
    source = NamedFile("source", "".join(f"line {i} here .\n" for i in range(sentences)).encode())
    outputs = [NamedFile(f"s{k}", "".join(f"line {i} here {k} .\n" for i in range(sentences)).encode())
               for k in range(systems)]
    return import_outputs(name, source, outputs)


def listed(client) -> tuple[dict, list[dict], int, int]:
    """The page's campaigns ({name: (systems, sentences)}), the API's list, and the queries each took."""
    with CaptureQueriesContext(connection) as page_queries:
        page = client.get(reverse("campaign-list"))
    with CaptureQueriesContext(connection) as api_queries:
        api = client.get("/api/campaigns/")
    assert page.status_code == api.status_code == 200
    rows = {campaign.name: (campaign.n_systems, campaign.n_segments) for campaign in page.context["campaigns"]}
    return rows, api.json(), len(page_queries), len(api_queries)


def test_the_list_counts_each_campaign_and_takes_the_same_queries_for_one_campaign_or_many(organizer):
    client = login(organizer)
    first = small_campaign("first")
    first.organizers.add(organizer)
    create_screens(first, 4)
    _, _, page_one, api_one = listed(client)
    for name in ("second", "third", "fourth"):
        campaign = wide_campaign(name, 3, 7)
        campaign.organizers.add(organizer)
        create_screens(campaign, 5)
    wide_campaign("not theirs", 2, 2)
    rows, api, page_many, api_many = listed(client)
    assert (page_many, api_many) == (page_one, api_one)
    assert rows == {"first": (4, 6), "second": (3, 7), "third": (3, 7), "fourth": (3, 7)}
    counted = {c.name: {"segments": c.segments.count(), "documents": c.documents.count(),
                        "screens": Screen.objects.filter(campaign=c).count()}
               for c in Campaign.objects.filter(organizers=organizer)}
    assert {c["name"]: {key: c[key] for key in ("segments", "documents", "screens")} for c in api} == counted
    assert counted["first"] == {"segments": 6, "documents": 2, "screens": 4}
    assert {c["name"]: len(c["systems"]) for c in api} == {"first": 4, "second": 3, "third": 3, "fourth": 3}


def most_rows(sql: str) -> int:
    """The most rows any node of ``sql``'s plan handled, over all its loops (EXPLAIN ANALYZE)."""
    plan = sql_value(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
    plan = json.loads(plan) if isinstance(plan, str) else plan

    def most(node: dict) -> int:
        return max([node["Actual Rows"] * node["Actual Loops"], *(most(child) for child in node.get("Plans", []))])

    return most(plan[0]["Plan"])


def test_the_list_reads_a_campaigns_systems_and_sentences_side_by_side_not_joined(organizer):
    """20 systems of 300 sentences: no step of the list's query handles more rows than the campaign's sentences
    (a join of its systems with its sentences is 6,000 rows)."""
    campaign = wide_campaign("wide", 20, 300)
    campaign.organizers.add(organizer)
    with CaptureQueriesContext(connection) as captured:
        response = login(organizer).get(reverse("campaign-list"))
    assert [(c.n_systems, c.n_segments) for c in response.context["campaigns"]] == [(20, 300)]
    listing = [query["sql"] for query in captured if '"n_segments"' in query["sql"]]
    assert len(listing) == 1
    assert most_rows(listing[0]) <= Segment.objects.filter(campaign=campaign).count()
