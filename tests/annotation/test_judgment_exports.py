"""Judgments as CSV and JSON, and pairwise judgments as TSV, downloaded by organizers."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation.services.appraise_import import import_appraise_xml
from annotation.services.importing import import_outputs
from annotation.services.judgment_exports import judgments_csv, judgments_json

from .test_appraise_xml import ITEM
from .test_importing import SOURCE, named, systems

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    campaign = import_outputs("toy", named("source", SOURCE), systems(), source_is_system=True)
    import_appraise_xml(campaign, ITEM.format(src=0, group="alpha beta").encode())
    return campaign


def test_csv_has_one_row_per_judged_candidate_and_one_per_flagged_screen(campaign):
    rows = list(csv.DictReader(io.StringIO(judgments_csv(campaign))))
    assert [(r["judge"], r["line"], r["systems"], r["rank"], r["flagged"]) for r in rows] == [
        ("judge1", "0", "alpha beta", "1", "False"),
        ("judge1", "0", "gamma", "2", "False"),
        ("judge2", "1", "", "", "True"),
    ]
    assert rows[0]["duration_seconds"] == "67.524" and rows[0]["text"] == "He goes to school ."
    assert rows[2]["flag_reason"] == "skipped in Appraise" and rows[0]["item"] == "0"


def test_json_nests_candidates_in_judgments(campaign):
    data = json.loads(judgments_json(campaign))
    assert data["campaign"] == "toy"
    first, flagged = data["judgments"]
    assert [c["systems"] for c in first["candidates"]] == ["alpha beta", "gamma"]
    assert flagged["flagged"] and flagged["candidates"] == []


def test_downloads_for_organizers_only(campaign):
    organizer, judge = User.objects.create_user("org"), User.objects.get(username="judge1")
    campaign.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    response = client.get(reverse("campaign-judgments-export", args=[campaign.pk, "csv"]))
    assert response["Content-Disposition"] == 'attachment; filename="toy-judgments.csv"'
    assert response.content.decode() == judgments_csv(campaign)
    unexpanded = client.get(reverse("campaign-pairs", args=[campaign.pk, "unexpanded"])).content.decode()
    assert unexpanded.splitlines() == ["judge\tsegment\tfirst\tsecond\trelation", "judge1\t0\talpha beta\tgamma\t<"]
    expanded = client.get(reverse("campaign-pairs", args=[campaign.pk, "expanded"])).content.decode()
    assert expanded.splitlines()[1:] == ["judge1\talpha\tbeta\t=", "judge1\talpha\tgamma\t<", "judge1\tbeta\tgamma\t<"]
    client.force_login(judge)
    for url in (reverse("campaign-judgments-export", args=[campaign.pk, "json"]),
                reverse("campaign-pairs", args=[campaign.pk, "expanded"])):
        assert client.get(url).status_code == 404


def test_conll14_pairs_as_tsv_match_table_1(conll14_dir):
    from ranking.loading import load_rankings
    from ranking.reports.pairs_tsv import expanded_tsv, unexpanded_tsv
    from tests.ranking.factories import conll14_campaign

    rankings = load_rankings(conll14_campaign(conll14_dir))
    unexpanded = unexpanded_tsv(rankings).splitlines()[1:]
    expanded = expanded_tsv(rankings).splitlines()[1:]
    assert (len(unexpanded), sum(line.endswith("\t=") for line in unexpanded)) == (20516, 5694)
    assert (len(expanded), sum(line.endswith("\t=") for line in expanded)) == (109098, 59117)
