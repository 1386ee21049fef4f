"""Appraise XML: parsing, import into a campaign (all or nothing), and byte-exact export."""
from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import Assignment, CandidateJudgment, Flag, Judgment, Screen
from annotation.services.appraise_import import export_appraise_xml, import_appraise_xml
from annotation.services.appraise_xml import (
    AppraiseXMLError,
    format_duration,
    parse_appraise_xml,
    parse_duration,
)
from annotation.services.importing import import_outputs
from annotation.services.textfiles import NamedFile

from .test_importing import SOURCE, named, systems

pytestmark = pytest.mark.django_db

ITEM = """<?xml version="1.0" encoding="UTF-8"?>
<appraise-results>

<error-correction-ranking-result source-language="err" id="hit-1" target-language="cor">

  <ranking-item doc-id="hit-1-0" duration="00:01:07.524000" id="0" src-id="{src}" user="judge1">
    <translation rank="1" system="{group}"/>
    <translation rank="2" system="gamma"/>
  </ranking-item>

  <ranking-item doc-id="hit-1-1" duration="00:00:00" id="1" skipped="true" src-id="1" user="judge2"/>
</error-correction-ranking-result>

</appraise-results>
"""


@pytest.fixture
def campaign():
    return import_outputs("toy", named("source", SOURCE), systems(), source_is_system=True)


def nothing_judged() -> bool:
    return not any(m.objects.exists() for m in (Screen, Assignment, Judgment, CandidateJudgment, Flag))


def test_durations_round_trip():
    assert parse_duration("00:01:07.524000") == timedelta(minutes=1, seconds=7, microseconds=524000)
    assert parse_duration("00:00:38") == timedelta(seconds=38)
    for text in ["00:01:07.524000", "00:00:00", "12:34:56.000001"]:
        assert format_duration(parse_duration(text)) == text
    with pytest.raises(ValueError, match="is not HH:MM:SS"):
        parse_duration("1 minute")


def test_import_and_export_a_small_file(campaign):
    data = ITEM.format(src=0, group="alpha beta").encode()
    summary = import_appraise_xml(campaign, data)
    assert (summary.rankings, summary.skipped, summary.judges) == (2, 1, 2)
    judgment = Judgment.objects.get(external_id="0")
    assert judgment.duration == timedelta(minutes=1, seconds=7, microseconds=524000)
    assert judgment.assignment.judge.username == "judge1"
    assert [(i.candidate.text, i.rank) for i in judgment.items.order_by("position")] == [
        ("He goes to school .", 1), ("He go to the school .", 2)
    ]
    assert Flag.objects.get().judgment.external_id == "1"
    assert set(campaign.judges.values_list("username", flat=True)) == {"judge1", "judge2"}
    assert export_appraise_xml(campaign) == data.decode()


@pytest.mark.parametrize(
    ("src", "group", "message"),
    [
        (9, "alpha beta", "ranking-item id='0' (user judge1, src-id 9): the campaign has no segment with line 9"),
        (0, "alpha", "no output of line 0 is produced by exactly 'alpha' (its outputs come from: alpha beta; gamma; source)"),
        (0, "alpha beta zeta", "produced by exactly 'alpha beta zeta'"),
        (0, "gamma", "the output of 'gamma' is ranked twice"),
    ],
)
def test_mismatches_reject_the_whole_file(campaign, src, group, message):
    with pytest.raises(AppraiseXMLError) as error:
        import_appraise_xml(campaign, ITEM.format(src=src, group=group).encode())
    assert message in str(error.value)
    assert nothing_judged()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<appraise-results><oops", "not well-formed XML"),
        (b"<results/>", "root element is <results>, expected <appraise-results>"),
        (b'<!DOCTYPE x [<!ENTITY a "aaaa">]><appraise-results>&a;</appraise-results>', "refused unsafe XML"),
        (ITEM.format(src=0, group="alpha beta").replace('rank="2"', 'rank="two"').encode(), "rank 'two' is not a positive integer"),
        (ITEM.format(src=0, group="alpha beta").replace('rank="2"', 'rank="7"').encode(), "rank 7 is above the campaign's M = 5"),
        (ITEM.format(src=0, group="alpha beta").replace('duration="00:01:07.524000"', 'duration="soon"').encode(), "duration 'soon' is not HH:MM:SS"),
        (ITEM.format(src=0, group="alpha beta").replace(' user="judge1"', "").encode(), "missing attribute 'user'"),
    ],
)
def test_malformed_files_are_refused(campaign, data, message):
    with pytest.raises(AppraiseXMLError, match=message.replace("(", r"\(").replace(")", r"\)")):
        import_appraise_xml(campaign, data)
    assert nothing_judged()


def test_commands_report_errors_and_export(campaign, tmp_path):
    good = tmp_path / "good.xml"
    good.write_text(ITEM.format(src=0, group="alpha beta"))
    bad = tmp_path / "bad.xml"
    bad.write_text(ITEM.format(src=0, group="alpha"))
    with pytest.raises(CommandError, match="bad.xml: ranking-item id='0'"):
        call_command("import_appraise_xml", "--campaign", "toy", str(bad))
    with pytest.raises(CommandError, match="no campaign named 'nope' \\(campaigns: toy\\)"):
        call_command("import_appraise_xml", "--campaign", "nope", str(good))
    out = io.StringIO()
    call_command("import_appraise_xml", "--campaign", "toy", str(good), stdout=out)
    assert "Imported 2 rankings (1 skipped) by 2 judges" in out.getvalue()
    call_command("export_appraise_xml", "--campaign", "toy", "--out", str(tmp_path / "out.xml"), stderr=io.StringIO())
    assert (tmp_path / "out.xml").read_text() == good.read_text()


def test_conll14_judgments_round_trip(conll14_dir, tmp_path):
    outputs = conll14_dir / "outputs"
    files = [NamedFile(p.name, p.read_bytes()) for p in sorted(outputs.iterdir())]
    campaign = import_outputs("conll14", NamedFile("INPUT", (outputs / "INPUT").read_bytes()), files)
    original = (conll14_dir / "judgments.xml").read_bytes()
    summary = import_appraise_xml(campaign, original)
    assert (summary.rankings, summary.skipped, summary.judges) == (2319, 13, 8)
    assert Judgment.objects.filter(assignment__screen__campaign=campaign).count() == 2319
    assert campaign.judges.count() == 8
    exported = export_appraise_xml(campaign)
    assert exported.encode() == original
    again = import_outputs("conll14-again", NamedFile("INPUT", (outputs / "INPUT").read_bytes()), files)
    import_appraise_xml(again, exported.encode())
    ranks = lambda c: sorted(CandidateJudgment.objects.filter(judgment__assignment__screen__campaign=c)
                             .values_list("judgment__external_id", "candidate__segment__line", "candidate__text", "rank"))
    assert ranks(again) == ranks(campaign)
    assert parse_appraise_xml(export_appraise_xml(again).encode()).items == parse_appraise_xml(original).items
