"""The live leaderboard on the CoNLL-14 judgments (G15): the order, scores and clusters of Table 3b, and a history
that ends at the full data."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.urls import reverse

from .core.test_conll14_reproduction import TABLE_3B, TABLE_3B_ENDS_ON_A_TAIL
from .factories import conll14_campaign
from .published_ranges import assert_ranges_match_published

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_the_leaderboard_reproduces_table_3b(conll14_dir):
    with transaction.atomic():
        campaign = conll14_campaign(conll14_dir)
    organizer = get_user_model().objects.create_user("orga")
    campaign.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    board = client.get(reverse("campaign-leaderboard", args=[campaign.pk])).json()
    assert board["snapshot"]["rankings"] == 2319
    assert [row["system"] for row in board["systems"]] == [system for system, *_ in TABLE_3B]
    for row, (system, score, _, cluster) in zip(board["systems"], TABLE_3B):
        assert round(row["full_data_score"], 3) == score, system
        assert row["score"] == pytest.approx(score, abs=0.002), system
        assert row["cluster"] == cluster, system
    rows = board["systems"]
    assert_ranges_match_published([row["system"] for row in rows], [row["range"] for row in rows],
                                  [r for *_, r, _ in TABLE_3B], TABLE_3B_ENDS_ON_A_TAIL)
    assert ["AMU", "RAC"] not in board["system_pairs"]["unresolved"] and ["RAC", "CAMB"] in board["system_pairs"][
        "unresolved"]

    url = reverse("campaign-history", args=[campaign.pk])
    history = client.get(url).json()
    for _ in range(23):
        if not history["pending"]:
            break
        history = client.get(url).json()
    assert [p["rankings"] for p in history["points"]] == list(range(100, 2301, 100)) and history["pending"] == 0
    last = dict(zip(history["systems"], history["points"][-1]["scores"]))
    assert last["AMU"] > last["IPN"]
    assert all(0 <= p["separated_pairs"] <= 78 for p in history["points"])
    assert history["points"][-1]["separated_pairs"] > history["points"][0]["separated_pairs"]
