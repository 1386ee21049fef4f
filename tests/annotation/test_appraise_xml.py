"""Appraise XML: parsing, import into a campaign (all or nothing), and byte-exact export."""
from __future__ import annotations

import html
import io
import re
import threading
import tracemalloc
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, BackgroundJob, Campaign, CandidateJudgment, Flag, Judgment, Screen
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services.appraise_import import AppraiseImportSummary, export_appraise_xml, import_appraise_xml
from annotation.services.appraise_xml import (
    AppraiseXMLError,
    _LimitedReader,
    format_duration,
    parse_appraise_xml,
    parse_duration,
)
from annotation.services.importing import import_outputs
from annotation.services.invites import create_invite
from annotation.services.screens import create_screens
from annotation.services.textfiles import NamedFile

from .factories import add_screen, small_campaign
from .test_importing import SOURCE, SYSTEMS, named, systems

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


def refusal(campaign: Campaign, data: str) -> str:
    """Why the import refuses ``data`` (its AppraiseXMLError's message), having judged nothing."""
    with pytest.raises(AppraiseXMLError) as error:
        import_appraise_xml(campaign, data.encode())
    assert nothing_judged()
    return str(error.value)


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
        (9, "alpha beta",
         "ranking-item id='0' (line 6, user judge1, src-id 9): the campaign has no segment with line 9"),
        (0, "alpha",
         "no output of line 0 is produced by exactly 'alpha' (its outputs come from: alpha beta; gamma; source)"),
        (0, "alpha beta zeta", "produced by exactly 'alpha beta zeta'"),
        (0, "gamma", "the output of 'gamma' is ranked twice"),
    ],
)
def test_mismatches_reject_the_whole_file(campaign, src, group, message):
    with pytest.raises(AppraiseXMLError) as error:
        import_appraise_xml(campaign, ITEM.format(src=src, group=group).encode())
    assert message in str(error.value)
    assert nothing_judged()


def test_an_item_ranking_more_outputs_than_m_is_refused():
    campaign = import_outputs("m2", named("source", SOURCE), systems(), source_is_system=True, max_candidates=2)
    three = ITEM.format(src=0, group="alpha beta").replace(
        '<translation rank="2" system="gamma"/>',
        '<translation rank="2" system="gamma"/>\n    <translation rank="2" system="source"/>',
    )
    assert refusal(campaign, three) == (
        "ranking-item id='0' (line 6, user judge1, src-id 0): 3 translations, but a screen of the campaign shows "
        "at most M = 2 outputs"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<appraise-results><oops", "not well-formed XML"),
        (b"<results/>", "root element is <results>, expected <appraise-results>"),
        (b'<!DOCTYPE x [<!ENTITY a "aaaa">]><appraise-results>&a;</appraise-results>', "refused unsafe XML"),
        (ITEM.format(src=0, group="alpha beta").replace('rank="2"', 'rank="two"').encode(),
         "rank 'two' is not a positive integer"),
        (ITEM.format(src=0, group="alpha beta").replace('rank="2"', 'rank="7"').encode(),
         "rank 7 is above the campaign's M = 5"),
        (ITEM.format(src=0, group="alpha beta").replace('duration="00:01:07.524000"', 'duration="soon"').encode(),
         "duration 'soon' is not HH:MM:SS"),
        (ITEM.format(src=0, group="alpha beta").replace(' user="judge1"', "").encode(), "missing attribute 'user'"),
    ],
)
def test_malformed_files_are_refused(campaign, data, message):
    with pytest.raises(AppraiseXMLError, match=message.replace("(", r"\(").replace(")", r"\)")):
        import_appraise_xml(campaign, data)
    assert nothing_judged()


SECOND_RESULT = """<error-correction-ranking-result source-language="de" id="hit-2" target-language="de">
  <ranking-item doc-id="hit-2-0" id="5" skipped="true" src-id="2" user="judge1"/>
</error-correction-ranking-result>

</appraise-results>
"""


def test_results_in_two_language_pairs_are_refused(campaign):
    """The campaign keeps one language pair: the second result's 'de' was dropped, and exported as 'err'."""
    data = ITEM.format(src=0, group="alpha beta").replace("</appraise-results>\n", SECOND_RESULT)
    with pytest.raises(AppraiseXMLError) as refused:
        import_appraise_xml(campaign, data.encode())
    assert str(refused.value) == (
        "line 14: <error-correction-ranking-result>: source-language 'de' differs from 'err' of line 4; a campaign "
        "has one language pair (import the results of each pair into a campaign of its own)"
    )
    assert nothing_judged()


def test_one_user_written_in_two_letter_cases_is_refused(campaign):
    """'judge1' and 'Judge1' were two judges, two accounts, one judge's rankings split between them."""
    data = GOOD.replace('user="judge2"', 'user="Judge1"')
    assert refusal(campaign, data) == (
        "ranking-item id='1' (line 11, user Judge1, src-id 1): user 'Judge1' is 'judge1' of line 6 written otherwise "
        "(in letter case, or in how its accents are encoded); write a user's name the same way in every item, or map "
        "one of them to another account (the user map, --map-user on the command line)"
    )
    assert import_appraise_xml(campaign, data.encode(), {"Judge1": "judge2"}).judges == 2


def test_a_user_written_otherwise_than_a_judge_of_the_campaign_is_refused(campaign):
    """A second file naming 'Judge1' where the first named 'judge1' made a second account of one judge."""
    import_appraise_xml(campaign, GOOD.encode())
    later = GOOD.replace('user="judge1"', 'user="Judge1"').replace(' id="0"', ' id="7"').replace(' id="1"', ' id="8"')
    with pytest.raises(AppraiseXMLError) as error:
        import_appraise_xml(campaign, later.encode())
    assert str(error.value).startswith(
        "ranking-item id='7' (line 6, user Judge1, src-id 0): user 'Judge1' is the judge 'judge1' of this campaign "
        "written otherwise (in letter case, or in how its accents are encoded). Imported judges are accounts of this "
        "campaign only: map the name to an account explicitly"
    )
    assert Judgment.objects.count() == 2


def test_a_language_given_by_a_later_result_only_is_the_campaigns(campaign):
    """The first result leaves its languages out, the second is 'de'-'de': the campaign took the first result's
    (none: it kept 'err'-'cor'), so the second's languages were dropped and it was exported as 'err'-'cor'."""
    data = ITEM.format(src=0, group="alpha beta").replace(
        ' source-language="err"', "").replace(' target-language="cor"', "").replace(
        "</appraise-results>\n", SECOND_RESULT)
    import_appraise_xml(campaign, data.encode())
    campaign.refresh_from_db()
    assert (campaign.source_language, campaign.target_language) == ("de", "de")
    exported = export_appraise_xml(campaign)
    assert exported.count('source-language="de" id="hit-') == 2 and '"err"' not in exported


def test_a_file_in_other_languages_than_the_judgments_held_is_refused(campaign):
    import_appraise_xml(campaign, ITEM.format(src=0, group="alpha beta").encode())
    other = ITEM.format(src=0, group="alpha beta").replace('id="hit-1"', 'id="hit-2"').replace(
        ' id="0"', ' id="7"').replace('source-language="err"', 'source-language="en"')
    with pytest.raises(AppraiseXMLError) as refused:
        import_appraise_xml(campaign, other.encode())
    assert str(refused.value) == (
        "the file's results are in 'en-cor', but 'toy' holds judgments in 'err-cor'; a campaign has one language "
        "pair (import the file into a campaign of its own)"
    )
    assert Judgment.objects.count() == 2
    assert 'source-language="err"' in export_appraise_xml(campaign)


def test_the_first_file_gives_an_unjudged_campaign_its_languages(campaign):
    data = ITEM.format(src=0, group="alpha beta").replace('source-language="err"', 'source-language="en"')
    import_appraise_xml(campaign, data.encode())
    campaign.refresh_from_db()
    assert (campaign.source_language, campaign.target_language) == ("en", "cor")
    assert export_appraise_xml(campaign) == data


def test_a_dtd_is_refused_even_without_entities(campaign):
    """An ATTLIST default gives every item a user (or a rank, or skipped) that the file does not show: imported, the
    rankings of an item without ``user`` went to the account the DTD named."""
    data = ITEM.format(src=0, group="alpha beta").replace(' user="judge1"', "").replace(
        "<appraise-results>", '<!DOCTYPE appraise-results [<!ATTLIST ranking-item user CDATA "intruder">]>\n'
        "<appraise-results>",
    )
    assert refusal(campaign, data) == (
        "refused unsafe XML: a document type declaration (<!DOCTYPE ...>, line 2); Appraise XML has none, and a DTD "
        "can add attributes or text the file does not show"
    )
    assert not get_user_model().objects.filter(username="intruder").exists()


def test_commands_report_errors_and_export(campaign, tmp_path):
    good = tmp_path / "good.xml"
    good.write_text(ITEM.format(src=0, group="alpha beta"))
    bad = tmp_path / "bad.xml"
    bad.write_text(ITEM.format(src=0, group="alpha"))
    with pytest.raises(CommandError, match=r"bad.xml: ranking-item id='0' \(line 6, user judge1, src-id 0\)"):
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
    with pytest.raises(AppraiseXMLError, match="user 'annotator01' judges another campaign"):
        import_appraise_xml(again, exported.encode())
    judges = {item.user: item.user for item in parse_appraise_xml(original).items}
    import_appraise_xml(again, exported.encode(), users=judges)
    ranks = lambda c: sorted(CandidateJudgment.objects.filter(judgment__assignment__screen__campaign=c)
                             .values_list("judgment__external_id", "candidate__segment__line", "candidate__text",
                                          "rank"))
    assert ranks(again) == ranks(campaign)
    assert parse_appraise_xml(export_appraise_xml(again).encode()).items == parse_appraise_xml(original).items


# Issue 7, items 2, 3, 5, 7 and 12: every attribute checked before the database; users are accounts of the campaign
# unless mapped; uploads limited and streamed; re-imports idempotent; the campaign lock taken.

GOOD = ITEM.format(src=0, group="alpha beta")
FIRST = "ranking-item #1 (id='0', line 6)"


def good_with(old: str, new: str) -> bytes:
    assert old in GOOD
    return GOOD.replace(old, new, 1).encode()


def judged_state(campaign) -> tuple:
    campaign.refresh_from_db()
    return (nothing_judged(), set(campaign.judges.values_list("username", flat=True)),
            campaign.source_language, campaign.target_language)


def test_field_limits_are_the_columns_sizes():
    from django.contrib.auth import get_user_model

    from annotation.models import Campaign, System
    from annotation.services.appraise_xml import FIELD_LIMITS

    columns = {
        "id": Judgment._meta.get_field("external_id"), "doc-id": Judgment._meta.get_field("external_doc_id"),
        "group": Judgment._meta.get_field("external_group"),
        "source-language": Campaign._meta.get_field("source_language"),
        "target-language": Campaign._meta.get_field("target_language"),
        "user": get_user_model()._meta.get_field("username"), "system": System._meta.get_field("name"),
    }
    assert FIELD_LIMITS == {name: column.max_length for name, column in columns.items()}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (good_with('rank="2"', 'rank="²"'), f"{FIRST} translation: rank '²' is not a positive integer"),
        (good_with('rank="2"', 'rank="٢"'), "rank '٢' is not a positive integer"),
        (good_with('rank="2"', 'rank="0"'), "rank '0' is not a positive integer"),
        (good_with('rank="2"', 'rank="100"'), "rank '100' is not a positive integer"),
        (good_with('src-id="0"', 'src-id="²"'), f"{FIRST}: src-id '²' is not a line number"),
        (good_with('src-id="0"', 'src-id="-1"'), "src-id '-1' is not a line number"),
        (good_with('src-id="0"', 'src-id="1' + "0" * 9 + '"'), "src-id '1000000000' is not a line number"),
        (good_with('src-id="0"', 'src-id="' + "9" * 5000 + '"'), "src-id '99999"),
        (good_with('user="judge1"', 'user=""'), f"{FIRST}: user '' must have 1 to 150 characters"),
        (good_with('user="judge1"', 'user="evil user"'), "user 'evil user' is not a valid username"),
        (good_with('user="judge1"', 'user="a;b"'), "user 'a;b' is not a valid username"),
        (good_with('user="judge1"', f'user="{"u" * 151}"'), "must have 1 to 150 characters"),
        (good_with('id="0"', f'id="{"i" * 101}"'), "id 'iiii"),
        (good_with('id="0"', 'id=""'), "ranking-item #1 (id='', line 6): id is empty"),
        (good_with('id="0"', 'id="a&#x85;b"'), "id 'a\\x85b' holds the control character U+0085"),
        (good_with('doc-id="hit-1-0"', f'doc-id="{"d" * 201}"'), "doc-id 'dddd"),
        (good_with('id="hit-1"', f'id="{"g" * 201}"'), "line 4: <error-correction-ranking-result>: group 'gggg"),
        (good_with('source-language="err"', f'source-language="{"l" * 33}"'),
         "source-language 'lllllllllllllllllllllllllllllllll' is longer than 32 characters"),
        (good_with('target-language="cor"', 'target-language="c&#x9;r"'), "holds the control character U+0009"),
        (good_with('source-language="err"', 'source-language=""'),
         "line 4: <error-correction-ranking-result>: source-language '' is empty; name the language"),
        (good_with('target-language="cor"', 'target-language="  "'), "target-language '  ' is empty"),
        (good_with('00:01:07.524000', '99999999999999:00:00'),
         f"{FIRST}: duration '99999999999999:00:00' is not HH:MM:SS.ffffff (at most 999999 hours)"),
        (good_with('00:01:07.524000', '²:00:00'), "duration '²:00:00' is not HH:MM:SS"),
        (good_with('00:01:07.524000', '00:61:00'), "duration '00:61:00' is not HH:MM:SS"),
        (good_with('skipped="true"', 'skipped="maybe"'), "skipped 'maybe' is neither true nor false"),
        (good_with('system="gamma"', f'system="{"s" * 101}"'), "system 'ssss"),
        (good_with('<translation rank="2" system="gamma"/>', '<translation rank="2" system="gamma"><x/></translation>'),
         f"{FIRST}: unexpected element <x>"),
        (good_with('<translation rank="2" system="gamma"/>', '<translation rank="2" system="gamma" rank="3"/>'),
         "not well-formed XML: duplicate attribute (line 8, column"),
    ],
)
def test_each_bad_attribute_is_refused_with_its_item_and_line(campaign, data, message):
    before = judged_state(campaign)
    with pytest.raises(AppraiseXMLError) as error:
        import_appraise_xml(campaign, data)
    assert message in str(error.value)
    assert len(str(error.value)) < 400, "a long attribute is cut in the message"
    assert judged_state(campaign) == before and nothing_judged()


@pytest.mark.parametrize("encoding", ["U-TF-8", "rot13", "Shift_JIS", "utf-32"])
def test_files_are_read_as_utf8_whatever_they_declare(campaign, encoding):
    declared = GOOD.replace('encoding="UTF-8"', f'encoding="{encoding}"')
    assert import_appraise_xml(campaign, declared.encode()).rankings == 2
    Judgment.objects.all().delete()
    latin = declared.replace('user="judge1"', 'user="judgé"').encode("latin-1")
    byte = latin.split(b"\n")[5].index(b"\xe9") + 1
    message = rf"not UTF-8 \(line 6, byte {byte} of the line\): .* save the file as UTF-8"
    with pytest.raises(AppraiseXMLError, match=message):
        import_appraise_xml(campaign, latin)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 64])
def test_where_a_file_stops_being_utf8_is_found_whatever_the_pieces_read(size):
    """The reader notes the first byte that is not UTF-8 by line and byte of the line, whether the pieces the parser
    reads cut a character in two (the 'é' of line 2 is two bytes) or not."""
    data = "<a>\n<b x='é'/>\n<c>ok</c>\n<d y='".encode() + b"\xe9'/>\n"
    reader = _LimitedReader(data, None)
    while reader.read(size):
        pass
    assert reader.not_utf8 == (4, 7)
    good = _LimitedReader(data.replace(b"\xe9'", "é'".encode()), None)
    while good.read(size):
        pass
    assert good.not_utf8 is None


def test_long_values_up_to_the_limits_are_stored_and_exported(campaign):
    data = (good_with('id="0"', f'id="{"i" * 100}"').decode()
            .replace('doc-id="hit-1-0"', f'doc-id="{"d" * 200}"').replace('id="hit-1"', f'id="{"g" * 200}"')
            .replace('user="judge1"', f'user="{"u" * 150}"').replace('00:01:07.524000', '999999:59:59.999999')
            .replace('source-language="err"', f'source-language="{"l" * 32}"'))
    import_appraise_xml(campaign, data.encode())
    assert export_appraise_xml(campaign) == data
    assert Judgment.objects.get(external_id="i" * 100).duration == timedelta(hours=999999, minutes=59, seconds=59,
                                                                           microseconds=999999)


User = get_user_model()


@pytest.fixture
def organizer(campaign):
    user = User.objects.create_user("olga", password="olga-password-1")
    campaign.organizers.add(user)
    return user


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda: User.objects.create_superuser("judge1", password="admin-pw-1"), "is an admin account"),
        (lambda: User.objects.create_user("judge1", is_staff=True), "is a staff account"),
        (lambda: User.objects.create_user("judge1").groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0]),
         "is an organizer account"),
        (lambda: small_campaign("theirs").judges.add(User.objects.create_user("judge1")), "judges another campaign"),
        (lambda: User.objects.create_user("judge1", password="own-password-1"),
         "is an existing account that does not judge this campaign"),
    ],
)
def test_existing_accounts_are_not_taken_over_by_an_import(campaign, make, reason):
    make()
    before = set(User.objects.get(username="judge1").judged_campaigns.values_list("pk", flat=True))
    with pytest.raises(AppraiseXMLError) as error:
        import_appraise_xml(campaign, GOOD.encode())
    assert (f"ranking-item id='0' (line 6, user judge1, src-id 0): user 'judge1' {reason}. Imported judges are "
            "accounts of this campaign only: map the name to an account explicitly") in str(error.value)
    assert nothing_judged() and not User.objects.filter(username="judge2").exists()
    assert set(User.objects.get(username="judge1").judged_campaigns.values_list("pk", flat=True)) == before


def test_a_judge_of_this_campaign_only_is_reused_and_new_names_are_created(campaign):
    mine = User.objects.create_user("judge1", password="own-password-1")
    campaign.judges.add(mine)
    import_appraise_xml(campaign, GOOD.encode())
    assert Judgment.objects.get(external_id="0").assignment.judge == mine
    assert not User.objects.get(username="judge2").has_usable_password()


def test_an_explicit_map_gives_rankings_to_chosen_accounts(campaign, tmp_path):
    admin = User.objects.create_superuser("root", password="root-password-1")
    path = tmp_path / "j.xml"
    path.write_text(GOOD)
    out = io.StringIO()
    call_command("import_appraise_xml", "--campaign", "toy", "--map-user", "judge1=root",
                 "--map-user", "judge2=ann.new", str(path), stdout=out)
    assert "Imported 2 rankings (1 skipped) by 2 judges" in out.getvalue()
    assert Judgment.objects.get(external_id="0").assignment.judge == admin
    assert Judgment.objects.get(external_id="1").assignment.judge.username == "ann.new"
    assert not User.objects.filter(username__in=["judge1", "judge2"]).exists()
    assert 'user="ann.new"' in export_appraise_xml(campaign)


@pytest.mark.parametrize(
    ("users", "message"),
    [
        ("judge1=x nobody=y", "the user map names 'nobody', but the file has no judge of that name"),
        ("judge1=judge2", "the user map gives 'judge1' the account 'judge2', which is also a judge of the file"),
        ("judge1=x judge2=x", "user map: two names are mapped to 'x'"),
        ("judge1", "user map: 'judge1' is not NAME=ACCOUNT"),
        ("judge1=a;b", "user map: 'a;b' in 'judge1=a;b' is not a valid username"),
    ],
)
def test_bad_user_maps_are_refused(campaign, tmp_path, users, message):
    path = tmp_path / "j.xml"
    path.write_text(GOOD)
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("import_appraise_xml", "--campaign", "toy", *[f"--map-user={u}" for u in users.split()],
                     str(path), stdout=io.StringIO())
    assert nothing_judged()


def test_organizers_map_only_to_judges_of_their_own_campaigns(campaign, organizer):
    User.objects.create_superuser("root", password="root-password-1")
    small_campaign("theirs").judges.add(User.objects.create_user("their-judge"))
    ours = small_campaign("ours")
    ours.organizers.add(organizer)
    ours.judges.add(User.objects.create_user("our-judge", password="our-password-1"))
    client = logged_in(organizer)
    url = reverse("campaign-appraise-import", args=[campaign.pk])
    for target in ("root", "their-judge", "olga"):
        page = client.post(url, {"file": SimpleUploadedFile("j.xml", GOOD.encode()), "map_users": f"judge1={target}"},
                           follow=True).content.decode()
        assert html.escape(f"user 'judge1' is mapped to the account '{target}', which cannot be used; choose another "
                           "name") in page
        assert nothing_judged()
    api = client.post(f"/api/campaigns/{campaign.pk}/appraise-xml/",
                      {"file": SimpleUploadedFile("j.xml", GOOD.encode()), "map_users": "judge1=root"})
    assert api.status_code == 400 and "which cannot be used; choose another name" in api.json()["file"][0]
    bad_map = client.post(f"/api/campaigns/{campaign.pk}/appraise-xml/",
                          {"file": SimpleUploadedFile("j.xml", GOOD.encode()), "map_users": "judge1"})
    assert bad_map.status_code == 400 and "is not NAME=ACCOUNT" in str(bad_map.json()["map_users"])
    done = client.post(url, {"file": SimpleUploadedFile("j.xml", GOOD.encode()), "map_users": "judge1=our-judge"},
                       follow=True)
    assert "Imported 2 rankings (1 skipped) by 2 judges." in done.content.decode()
    assert Judgment.objects.get(external_id="0").assignment.judge.username == "our-judge"


def test_a_refused_import_shows_its_user_map_again_once(campaign, organizer):
    """A user map refused as written, or with the file, is in the form again to be corrected (the file has to be
    chosen again); it was empty, a map of many pairs to be typed once more."""
    User.objects.create_superuser("root", password="root-password-1")
    client = logged_in(organizer)
    url = reverse("campaign-appraise-import", args=[campaign.pk])
    for typed, refusal in (("judge1=alice judge2", "is not NAME=ACCOUNT. Nothing was imported."),
                           ("judge1=root\njudge2=alice", "which cannot be used; choose another name. Nothing was")):
        response = client.post(url, {"file": SimpleUploadedFile("j.xml", GOOD.encode()), "map_users": typed},
                               follow=True)
        assert refusal in html.unescape(response.content.decode())
        assert "Choose the file again: a browser does not keep it after an error." in response.content.decode()
        assert response.context["appraise_form"]["map_users"].value() == typed
        assert nothing_judged()
        assert client.get(reverse("campaign-detail", args=[campaign.pk])).context["appraise_form"][
            "map_users"].value() is None
    no_file = client.post(url, {"map_users": "judge1=alice"}, follow=True).content.decode()
    assert "Choose an Appraise XML file to upload." in no_file and "Choose the file again" not in no_file


def test_an_organizers_import_says_the_same_for_every_account_it_may_not_use(campaign, organizer):
    """Another organizer's judge, an organizer's, a staff or an admin account, the name of an account another
    organizer invited (not yet used), an account of its own: named in the file (or in the user map, where an
    account in no campaign may be named), one message, which does not say what the account is (nor that it exists).
    An admin is told why."""
    other_organizer = User.objects.create_user("otto", password="otto-password-1")
    other = small_campaign("other")
    other.organizers.add(other_organizer)
    other.judges.add(User.objects.create_user("their-judge"))
    User.objects.create_user("staffer", password="staff-password-1", is_staff=True)
    User.objects.create_superuser("root", password="root-password-1")
    User.objects.create_user("own", password="own-password-1")
    create_invite(other, "pending", other_organizer)
    client = logged_in(organizer)
    url = reverse("campaign-appraise-import", args=[campaign.pk])

    def said(data: dict, name: str) -> str:
        page = client.post(url, data, follow=True).content.decode()
        (message,) = re.findall(r'<li class="error">(.*?)</li>', page)
        text = html.unescape(message)
        return text.replace(f"'{name}'", "NAME").replace(f"user {name},", "user NAME,").replace(f"({name}=", "(NAME=") \
            .replace(f"--map-user {name}=", "--map-user NAME=")

    names = ("their-judge", "otto", "staffer", "root", "pending", "own")
    in_file = {said({"file": SimpleUploadedFile("j.xml", GOOD.replace('user="judge1"', f'user="{name}"').encode())},
                    name) for name in names}
    assert in_file == {
        "j.xml: ranking-item id='0' (line 6, user NAME, src-id 0): user NAME cannot be used; choose another name. "
        "Imported judges are accounts of this campaign only: map the name to an account explicitly (NAME=ACCOUNT in "
        "the user map, --map-user NAME=ACCOUNT on the command line), or rename it in the file. Nothing was imported. "
        "Choose the file again: a browser does not keep it after an error."}, in_file
    mapped = {said({"file": SimpleUploadedFile("j.xml", GOOD.encode()), "map_users": f"judge1={name}"}, name)
              for name in names if name != "own"}  # a judge-only account in no campaign of another: mapped to
    assert mapped == {"j.xml: ranking-item id='0' (line 6, user NAME, src-id 0): user 'judge1' is mapped to the "
                      "account NAME, which cannot be used; choose another name. Nothing was imported. Choose the "
                      "file again: a browser does not keep it after an error."}, mapped
    assert nothing_judged()

    admin = logged_in(User.objects.get(username="root"))
    page = admin.post(url, {"file": SimpleUploadedFile("j.xml", GOOD.replace('user="judge1"', 'user="otto"').encode())},
                      follow=True).content.decode()
    assert html.escape("user 'otto' is an organizer account.") in page and nothing_judged()


def test_reimporting_leaves_out_what_the_campaign_holds(campaign, tmp_path, organizer):
    path = tmp_path / "j.xml"
    path.write_text(GOOD)
    call_command("import_appraise_xml", "--campaign", "toy", str(path), stdout=io.StringIO())
    before = Judgment.objects.count(), CandidateJudgment.objects.count(), Flag.objects.count(), Screen.objects.count()
    out = io.StringIO()
    call_command("import_appraise_xml", "--campaign", "toy", str(path), stdout=out)
    assert out.getvalue().strip() == (
        "Imported 0 rankings (0 skipped) by 0 judges into 'toy'. 2 rankings were imported before and left out.")
    more = GOOD.replace("</error-correction-ranking-result>", '''
  <ranking-item doc-id="hit-1-2" duration="00:00:10" id="2" src-id="1" user="judge2">
    <translation rank="1" system="alpha gamma"/>
    <translation rank="2" system="beta source"/>
  </ranking-item>
</error-correction-ranking-result>''')
    page = logged_in(organizer).post(reverse("campaign-appraise-import", args=[campaign.pk]),
                                     {"file": SimpleUploadedFile("j.xml", more.encode())}, follow=True)
    assert ("Imported 1 ranking (0 skipped) by 1 judge. 2 rankings were imported before and left out."
            in page.content.decode())
    api = logged_in(organizer).post(f"/api/campaigns/{campaign.pk}/appraise-xml/",
                                    {"file": SimpleUploadedFile("j.xml", more.encode())})
    assert api.json() == {"rankings": 0, "skipped": 0, "judges": 0, "already_imported": 3}
    assert Judgment.objects.count() == before[0] + 1 and Screen.objects.count() == before[3] + 1
    assert export_appraise_xml(campaign) == more


def test_a_judgment_made_here_is_known_by_its_exported_id(campaign):
    import_appraise_xml(campaign, GOOD.encode())
    screen = add_screen(campaign, 3, judges=[User.objects.get(username="judge1")])
    assignment = screen.assignments.get()
    assignment.status = Assignment.Status.SUBMITTED
    assignment.save()
    judgment = Judgment.objects.create(assignment=assignment)
    for position, slot in enumerate(screen.slots.order_by("position")):
        CandidateJudgment.objects.create(judgment=judgment, candidate=slot.candidate, position=position,
                                         rank=position + 1)
    exported = export_appraise_xml(campaign)
    assert f'id="{judgment.pk}"' in exported
    summary = import_appraise_xml(campaign, exported.encode())
    assert (summary.rankings, summary.already) == (0, 3)


def test_a_changed_item_and_a_repeated_item_are_refused(campaign):
    import_appraise_xml(campaign, GOOD.encode())
    before = Judgment.objects.count()
    with pytest.raises(AppraiseXMLError, match=re.escape(
            "ranking-item id='0' (line 6, user judge1, src-id 0): 'toy' holds another judgment of this user with "
            "this id")):
        import_appraise_xml(campaign, GOOD.replace('rank="2"', 'rank="3"').encode())
    repeated = GOOD.replace('id="1" skipped="true" src-id="1" user="judge2"', 'id="0" skipped="true" src-id="1" '
                            'user="judge1"')
    with pytest.raises(AppraiseXMLError, match=re.escape(
            "ranking-item id='0' (line 11, user judge1, src-id 1): the file has a ranking-item of this user and id "
            "already at line 6")):
        import_appraise_xml(campaign, repeated.encode())
    assert Judgment.objects.count() == before


def test_ranking_xml_does_not_go_into_a_prws_campaign():
    prws = import_outputs("scored", named("source", SOURCE), systems(), source_is_system=True, mode=Campaign.Mode.PRWS)
    with pytest.raises(AppraiseXMLError, match="'scored' is a partial ranking with scalars campaign; Appraise XML "
                                               "holds relative rankings"):
        import_appraise_xml(prws, GOOD.encode())
    assert nothing_judged()


def test_only_a_ranking_campaigns_page_offers_the_appraise_xml_import(campaign, organizer):
    """A PRWS campaign's page offered the Appraise XML import form, whose every use is refused: it offers none now.
    A post made anyway (the form's URL, the API) is still refused, whole."""
    prws = import_outputs("scored", named("source", SOURCE), systems(), source_is_system=True, mode=Campaign.Mode.PRWS)
    prws.organizers.add(organizer)
    client = logged_in(organizer)
    ranking_page = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert f'action="{reverse("campaign-appraise-import", args=[campaign.pk])}"' in ranking_page
    assert "Import judgments" in ranking_page and '<h2 id="appraise-title">Appraise XML</h2>' in ranking_page
    page = client.get(reverse("campaign-detail", args=[prws.pk])).content.decode()
    assert reverse("campaign-appraise-import", args=[prws.pk]) not in page
    assert "Import judgments" not in page and "Appraise XML" not in page
    assert '<h2 id="appraise-title">Judgments</h2>' in page
    assert reverse("campaign-judgments-export", args=[prws.pk, "csv"]) in page, "the downloads stay"
    refusal = "'scored' is a partial ranking with scalars campaign; Appraise XML holds relative rankings"
    posted = client.post(reverse("campaign-appraise-import", args=[prws.pk]),
                         {"file": SimpleUploadedFile("j.xml", GOOD.encode())}, follow=True)
    assert f"j.xml: {refusal}" in html.unescape(posted.content.decode())
    api = client.post(f"/api/campaigns/{prws.pk}/appraise-xml/", {"file": SimpleUploadedFile("j.xml", GOOD.encode())})
    assert api.status_code == 400 and api.json()["file"][0].startswith(f"j.xml: {refusal}")
    assert nothing_judged()


@pytest.mark.parametrize("way", ["page", "api"])
def test_a_file_large_enough_for_a_background_job_is_refused_before_one_is_recorded(organizer, settings, way):
    """Before: a PRWS campaign took the job, which then failed in the background."""
    settings.IMPORT_IN_REQUEST_BYTES = 100
    prws = import_outputs("scored", named("source", SOURCE), systems(), source_is_system=True, mode=Campaign.Mode.PRWS)
    prws.organizers.add(organizer)
    client = logged_in(organizer)
    upload = {"file": SimpleUploadedFile("j.xml", GOOD.encode())}
    if way == "page":
        posted = client.post(reverse("campaign-appraise-import", args=[prws.pk]), upload, follow=True)
        assert "j.xml: 'scored' is a partial ranking with scalars campaign" in html.unescape(posted.content.decode())
    else:
        assert client.post(f"/api/campaigns/{prws.pk}/appraise-xml/", upload).status_code == 400
    assert not BackgroundJob.objects.exists() and nothing_judged()


@pytest.fixture
def small_limit(settings):
    settings.MAX_UPLOAD_BYTES = len(GOOD) - 1
    return settings.MAX_UPLOAD_BYTES


def test_the_upload_limit_holds_for_the_form_the_api_and_the_command(campaign, organizer, small_limit, tmp_path):
    over = f"{len(GOOD)} bytes is over the upload limit of {small_limit} bytes"
    page = logged_in(organizer).post(reverse("campaign-appraise-import", args=[campaign.pk]),
                                     {"file": SimpleUploadedFile("big.xml", GOOD.encode())}, follow=True)
    assert f"big.xml: {over}. Nothing was imported." in page.content.decode()
    api = logged_in(organizer).post(f"/api/campaigns/{campaign.pk}/appraise-xml/",
                                    {"file": SimpleUploadedFile("big.xml", GOOD.encode())})
    assert api.status_code == 400 and api.json() == {"file": [f"big.xml: {over}"]}
    path = tmp_path / "big.xml"
    path.write_text(GOOD)
    with pytest.raises(CommandError, match=f"big.xml: {over}"):
        call_command("import_appraise_xml", "--campaign", "toy", str(path), stdout=io.StringIO())
    assert nothing_judged()


def test_a_file_over_the_upload_limit_is_refused_where_a_background_job_would_import_it(campaign, organizer,
                                                                                      small_limit, settings):
    """A file over MAX_UPLOAD_MB, and so over IMPORT_IN_REQUEST_MB (50 and 8 MB by default), was a server error (500)
    on the page and in the API: the form's background job refused it as it stored it, which neither caught."""
    settings.IMPORT_IN_REQUEST_BYTES = 10
    over = f"{len(GOOD)} bytes is over the upload limit of {small_limit} bytes"
    page = logged_in(organizer).post(reverse("campaign-appraise-import", args=[campaign.pk]),
                                     {"file": SimpleUploadedFile("big.xml", GOOD.encode())}, follow=True)
    assert page.status_code == 200 and f"big.xml: {over}. Nothing was imported." in page.content.decode()
    api = logged_in(organizer).post(f"/api/campaigns/{campaign.pk}/appraise-xml/",
                                    {"file": SimpleUploadedFile("big.xml", GOOD.encode())})
    assert api.status_code == 400 and api.json() == {"file": [f"big.xml: {over}"]}
    assert not BackgroundJob.objects.exists() and nothing_judged()


class Stream(io.RawIOBase):
    """A readable stream of unknown size: ``head``, then ``filler`` bytes of spaces, then ``tail``."""

    def __init__(self, head: bytes, filler: int, tail: bytes):
        self.parts = [head, filler, tail]

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while self.parts:
            part = self.parts[0]
            if isinstance(part, int):
                n = min(part, len(buffer))
                buffer[:n] = b" " * n
                self.parts[0] = part - n
                if self.parts[0] == 0:
                    self.parts.pop(0)
                return n
            n = min(len(part), len(buffer))
            buffer[:n] = part[:n]
            self.parts[0] = part[n:]
            if not self.parts[0]:
                self.parts.pop(0)
            return n
        return 0


def test_parsing_streams_with_bounded_memory_and_stops_at_the_limit():
    head, tail = GOOD.split("</appraise-results>")[0].encode(), b"</appraise-results>\n"
    tracemalloc.start()
    try:
        results = parse_appraise_xml(Stream(head, 40 * 1024 * 1024, tail))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(results.items) == 2 and peak < 4 * 1024 * 1024, f"peak {peak} bytes for a 40 MB file"
    with pytest.raises(AppraiseXMLError, match="the file is over the upload limit of 1.0 MB"):
        parse_appraise_xml(Stream(head, 2 * 1024 * 1024, tail), limit=1024 * 1024)


@pytest.mark.django_db(transaction=True)
def test_an_import_waits_for_the_campaign_lock_that_screen_creation_holds(campaign):
    locked, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def create_screens_slowly():
        try:
            with transaction.atomic():
                create_screens(campaign, 3)
                locked.set()
                release.wait(10)
        except BaseException as error:  # reported by the test below
            errors.append(error)
        finally:
            connection.close()

    def import_file():
        try:
            import_appraise_xml(campaign, GOOD.encode())
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    screens = threading.Thread(target=create_screens_slowly)
    screens.start()
    assert locked.wait(10)
    importer = threading.Thread(target=import_file)
    importer.start()
    importer.join(1)
    assert importer.is_alive(), "the import waits for the lock"
    release.set()
    screens.join(10)
    importer.join(10)
    assert errors == []
    numbers = list(Screen.objects.filter(campaign=campaign).order_by("number").values_list("number", flat=True))
    assert numbers == list(range(5))


def test_the_exports_refuse_a_prws_campaign(tmp_path):
    """A PRWS campaign has scores, not rankings: the command wrote an empty file and said 'Wrote 0 rankings', the page
    and the API answered with an empty file."""
    prws = import_outputs("scored", named("source", SOURCE), systems(), source_is_system=True, mode=Campaign.Mode.PRWS)
    out = tmp_path / "out.xml"
    with pytest.raises(CommandError, match="'scored' is a partial ranking with scalars campaign: Appraise XML holds "
                                           "relative rankings, not scores") as refused:
        call_command("export_appraise_xml", "--campaign", "scored", "--out", str(out), stderr=io.StringIO())
    assert f"/campaigns/{prws.pk}/judgments.csv" in str(refused.value)
    assert f"/campaigns/{prws.pk}/judgments.json" in str(refused.value)
    assert not out.exists()
    organizer = get_user_model().objects.create_user("orla", password="orla-password-1")
    prws.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    page = client.get(reverse("campaign-appraise-export", args=[prws.pk]))
    assert page.status_code == 409 and "Appraise XML holds relative rankings" in html.unescape(page.content.decode())
    assert reverse("campaign-appraise-export", args=[prws.pk]) not in client.get(
        reverse("campaign-detail", args=[prws.pk])).content.decode(), "the campaign page offers no such link"
    api = client.get(f"/api/campaigns/{prws.pk}/appraise-xml/")
    assert api.status_code == 409 and f"/api/campaigns/{prws.pk}/judgments/json/ (or csv/)" in api.json()["detail"]


def test_the_import_summary_says_one_in_the_singular():
    assert AppraiseImportSummary(1, 0, 1, already=1).text(into=" into 'toy'") == (
        "Imported 1 ranking (0 skipped) by 1 judge into 'toy'. 1 ranking was imported before and left out.")
    summary = AppraiseImportSummary(2, 1, 2)
    assert AppraiseImportSummary.from_result(summary.as_result()) == summary
    assert summary.text() == "Imported 2 rankings (1 skipped) by 2 judges."


@pytest.mark.parametrize(("stored", "written"), [("Zürich", "Zu\u0308rich"), ("Zu\u0308rich", "Zürich")])
def test_a_system_name_whose_accents_are_encoded_otherwise_names_that_system(stored, written):
    """A file may write a name with its accents composed or decomposed (macOS saves file names decomposed): both
    look the same and name the same system; the file was refused as naming a system the campaign has not."""
    files = [named(stored if name == "alpha" else name, data) for name, data in SYSTEMS.items()]
    campaign = import_outputs("accents", named("source", SOURCE), files, source_is_system=True)
    summary = import_appraise_xml(campaign, ITEM.format(src=0, group=f"{written} beta").encode())
    assert summary.rankings == 2
    ranked = Judgment.objects.get(external_id="0").items.order_by("position")
    assert [(sorted(i.candidate.outputs.values_list("system__name", flat=True)), i.rank) for i in ranked] == [
        (sorted([stored, "beta"]), 1), (["gamma"], 2)]


def test_the_import_summary_groups_thousands():
    """The organizer read "Imported 2319 rankings" where the dashboard says "2,319"."""
    assert AppraiseImportSummary(2319, 1022, 8, already=1500).text() == (
        "Imported 2,319 rankings (1,022 skipped) by 8 judges. 1,500 rankings were imported before and left out.")
