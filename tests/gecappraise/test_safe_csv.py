"""Formula injection: every CSV and TSV the product writes neutralises cells a spreadsheet would evaluate."""
from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation.models import Candidate, Document, Flag, System
from annotation.services.appraise_import import import_appraise_xml
from annotation.services.importing import import_outputs
from annotation.services.judgment_exports import judgments_csv
from gecappraise.safe_csv import FORMULA_TRIGGERS, SafeWriter, neutralise
from ranking.contract import analysis_json
from ranking.core.analysis import AnalysisParameters, analyze
from ranking.core.rankings import Rankings
from ranking.reports.csv import render_csv
from ranking.reports.pairs_tsv import expanded_tsv, unexpanded_tsv
from tests.annotation.test_appraise_xml import ITEM
from tests.annotation.test_importing import SOURCE, named, systems

#: Names as an attacker would choose them, one per trigger character.
HOSTILE = {"alpha": "=1+2", "beta": "@SUM(A1)", "gamma": "-2+3+cmd|' /C calc'!A0"}
HOSTILE_JUDGES = {"judge1": "+judge", "judge2": "\tjudge"}


def cells(text: str, delimiter: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text), delimiter=delimiter) for cell in row]


def assert_no_formula(text: str, delimiter: str = ",") -> None:
    """No cell starts with a trigger unless it is a plain number."""
    dangerous = [c for c in cells(text, delimiter) if c.startswith(FORMULA_TRIGGERS) and neutralise(c) != c]
    assert dangerous == []


@pytest.mark.parametrize("value", ["=1+2", "+x", "-x", "@x", "\tx", "\rx", "-inf", "-1,5", "=A", "--"])
def test_cells_starting_with_a_trigger_get_a_quote(value):
    assert neutralise(value) == "'" + value


@pytest.mark.parametrize(
    "value", [-0.25, -3, "-0.25", "+3", "-1e-05", 1.5e-07, "plain", "a=b", "", None, True, "=", "-"]
)
def test_numbers_and_harmless_text_stay_as_they_are(value):
    assert neutralise(value) == value


def test_writer_quotes_and_neutralises_and_reads_back():
    out = io.StringIO()
    SafeWriter(out, delimiter="\t").writerow(["=cmd", "a\tb", -0.5, None, 'say "hi"', "x\ry"])
    assert out.getvalue() == "'=cmd\t\"a\tb\"\t-0.5\t\t\"say \"\"hi\"\"\"\t\"x\ry\"\n"
    assert cells(out.getvalue(), "\t") == ["'=cmd", "a\tb", "-0.5", "", 'say "hi"', "x\ry"]


@pytest.fixture
def hostile_campaign():
    """A judged campaign whose systems, judges, document, texts and flag reason are formulas."""
    campaign = import_outputs("toy", named("source", SOURCE), systems(), source_is_system=True)
    import_appraise_xml(campaign, ITEM.format(src=0, group="alpha beta").encode())
    for old, new in HOSTILE.items():
        System.objects.filter(campaign=campaign, name=old).update(name=new)
    for old, new in HOSTILE_JUDGES.items():
        User.objects.filter(username=old).update(username=new)
    Document.objects.filter(campaign=campaign).update(name="-doc")
    Candidate.objects.filter(segment__campaign=campaign, text="He goes to school .").update(text="=HYPERLINK(1)")
    Flag.objects.update(reason="\rreason")
    return campaign


@pytest.mark.django_db
def test_judgments_csv_neutralises_every_hostile_cell(hostile_campaign):
    text = judgments_csv(hostile_campaign)
    assert_no_formula(text)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [row["judge"] for row in rows] == ["'+judge", "'+judge", "'\tjudge"]
    assert rows[0]["systems"] == "'=1+2 @SUM(A1)" and rows[0]["text"] == "'=HYPERLINK(1)"
    assert rows[0]["document"] == "'-doc" and rows[2]["flag_reason"] == "'\rreason"
    assert rows[1]["systems"] == "'-2+3+cmd|' /C calc'!A0"


@pytest.mark.django_db
def test_downloads_of_judgments_and_pairs_are_neutralised(hostile_campaign):
    organizer = User.objects.create_user("org")
    hostile_campaign.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    judgments = client.get(reverse("campaign-judgments-export", args=[hostile_campaign.pk, "csv"]))
    assert judgments.status_code == 200
    assert_no_formula(judgments.getvalue().decode())
    for kind in ("unexpanded", "expanded"):
        tsv = client.get(reverse("campaign-pairs", args=[hostile_campaign.pk, kind])).getvalue().decode()
        assert_no_formula(tsv, "\t")
        assert "'+judge" in cells(tsv, "\t")
    unexpanded = client.get(reverse("campaign-pairs", args=[hostile_campaign.pk, "unexpanded"])).getvalue().decode()
    assert unexpanded.splitlines()[1] == "'+judge\t0\t'-2+3+cmd|' /C calc'!A0\t'=1+2 @SUM(A1)\t>"


def hostile_rankings() -> Rankings:
    rng = np.random.default_rng(5)
    names = ["=1+2", "@SUM(A1)", "-cmd", "+x", "\rcr", "plain"]
    judges = ["=j", "@j", "-j"]
    items = []
    for i in range(90):
        shown = [(name,) for name in rng.permutation(names)[:4]]
        items.append((judges[i % 3], i % 30, [(s, int(r)) for s, r in zip(shown, rng.integers(1, 5, 4))]))
    return Rankings.from_items(items)


def test_pairs_tsv_of_hostile_names_is_neutralised_and_keeps_one_cell_per_column():
    rankings = hostile_rankings()
    for render in (unexpanded_tsv, expanded_tsv):
        text = render(rankings)
        assert_no_formula(text, "\t")
        widths = {len(row) for row in csv.reader(io.StringIO(text), delimiter="\t")}
        assert len(widths) == 1


def test_analysis_csv_report_of_hostile_names_is_neutralised():
    analysis = analysis_json(
        analyze(hostile_rankings(), AnalysisParameters(bootstrap=20, seed=2)), campaign="=campaign",
        snapshot={"judgments": 90, "last_judgment_at": "2025-01-01T00:00:00+00:00", "last_judgment_id": 90},
    )
    text = render_csv(analysis)
    assert_no_formula(text)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {row["system"] for row in rows if row["section"] == "ranking"} == {
        "'=1+2", "'@SUM(A1)", "'-cmd", "'+x", "'\rcr", "plain"}
    assert any(row["value"] == "'=campaign" for row in rows if row["section"] == "provenance")
    assert any(row["score"].startswith("-") for row in rows if row["section"] == "ranking"), "numbers stay numbers"
