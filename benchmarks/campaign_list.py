"""Benchmark: the organizer's campaign list, the page (``campaign-list``) and ``GET /api/campaigns/``, against the
way each was computed before, with one large campaign among many small ones.

Imports a campaign of ``--systems`` systems' outputs of ``--sentences`` sentences with ``--screens`` screens, and
``--campaigns`` small campaigns (3 systems, 2 sentences, 2 screens), all managed by one organizer, in a throw-away
PostgreSQL database (``test_<name>`` of DATABASE_URL, default ``gecappraise_campaign_list``). Then, interleaved,
``--repeat`` times each:

- the page as requested now (``Campaign.objects.with_sizes``: a subquery per count) and with its list's counts as
  before (``Count("systems", distinct=True)`` beside ``Count("segments", distinct=True)``, which counts the join of
  each campaign's systems with its sentences, systems x sentences rows);
- the API's list as serialized now (the counts read with the list) and as before (three count queries per
  campaign: its sentences, documents and screens).

Prints the median wall-clock time of each and the ratio old/new, and the queries of each API list.

Run: .venv/bin/python benchmarks/campaign_list.py [--systems 50] [--sentences 20000] [--screens 1000]
     [--campaigns 300] [--repeat 9]
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.command_line import whole_numbers  # noqa: E402
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_campaign_list")

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.urls import reverse  # noqa: E402
from rest_framework import serializers  # noqa: E402

from annotation.models import CampaignQuerySet  # noqa: E402
from annotation.permissions import managed_campaigns  # noqa: E402
from annotation.serializers import CampaignSerializer  # noqa: E402
from annotation.services.importing import import_outputs  # noqa: E402
from annotation.services.screens import create_screens, screen_count  # noqa: E402
from annotation.services.textfiles import NamedFile  # noqa: E402
from benchmarks.dashboard import analyze_tables  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402


def old_with_sizes(queryset: CampaignQuerySet) -> CampaignQuerySet:
    """The page's counts as they were annotated before: over the join of each campaign's systems and sentences."""
    return queryset.annotate(n_systems=Count("systems", distinct=True), n_segments=Count("segments", distinct=True))


class OldCampaignSerializer(CampaignSerializer):
    """The API's campaign as it was serialized before: its counts by queries of their own."""

    segments = serializers.IntegerField(source="segments.count", read_only=True)
    documents = serializers.IntegerField(source="documents.count", read_only=True)
    screens = serializers.SerializerMethodField()

    def get_screens(self, campaign) -> int:
        return screen_count(campaign)


def old_api_list(user) -> list[dict]:
    """The API's list as it was serialized before."""
    return OldCampaignSerializer(managed_campaigns(user).prefetch_related("systems"), many=True).data


def new_api_list(user) -> list[dict]:
    """The API's list as the view serializes it now."""
    return CampaignSerializer(managed_campaigns(user).with_sizes().prefetch_related("systems"), many=True).data


def page(client: Client) -> None:
    response = client.get(reverse("campaign-list"))
    if response.status_code != 200:
        raise SystemExit(f"campaign list: {response.status_code}")


def old_page(client: Client) -> None:
    with mock.patch.object(CampaignQuerySet, "with_sizes", old_with_sizes):
        page(client)


def timed(function, *args) -> float:
    start = time.perf_counter()
    function(*args)
    return time.perf_counter() - start


def queries(function, *args) -> int:
    with CaptureQueriesContext(connection) as captured:
        function(*args)
    return len(captured)


def lines(count: int, text: str) -> bytes:
    return "".join(f"{text} {i} .\n" for i in range(count)).encode()


def main() -> None:
    args = whole_numbers(__doc__, systems=50, sentences=20_000, screens=1_000, campaigns=300, repeat=9)
    with throwaway_database():
        start = time.perf_counter()
        organizer = get_user_model().objects.create_user("organizer")
        big = import_outputs("large", NamedFile("source", lines(args.sentences, "a sentence")),
                             [NamedFile(f"sys{k:02d}", lines(args.sentences, f"a sentence {k}"))
                              for k in range(args.systems)])
        big.organizers.add(organizer)
        create_screens(big, args.screens)
        for i in range(args.campaigns):
            small = import_outputs(f"small {i:04d}", NamedFile("source", lines(2, "b")),
                                   [NamedFile(name, lines(2, f"b {name}")) for name in ("x", "y", "z")])
            small.organizers.add(organizer)
            create_screens(small, 2)
        analyze_tables()
        print(f"(campaigns written in {time.perf_counter() - start:.0f} s: one of {args.systems} systems x "
              f"{args.sentences:,} sentences, {args.campaigns} of 3 x 2)")
        client = Client()
        client.force_login(organizer)
        old, new = old_api_list(organizer), new_api_list(organizer)
        if new != old:
            raise SystemExit("the API lists differ")
        print(f"API list queries: {queries(new_api_list, organizer)} now, {queries(old_api_list, organizer)} before")
        times: dict[str, list[float]] = {"page": [], "old page": [], "api": [], "old api": []}
        page(client)
        for _ in range(args.repeat):
            times["page"].append(timed(page, client))
            times["old page"].append(timed(old_page, client))
            times["api"].append(timed(new_api_list, organizer))
            times["old api"].append(timed(old_api_list, organizer))
        median = {name: statistics.median(values) * 1000 for name, values in times.items()}
        for what in ("page", "api"):
            print(f"{'campaign list page' if what == 'page' else 'API campaign list'}: {median[what]:.0f} ms median "
                  f"(before: {median['old ' + what]:.0f} ms; old/new = {median['old ' + what] / median[what]:.1f})")


if __name__ == "__main__":
    main()
