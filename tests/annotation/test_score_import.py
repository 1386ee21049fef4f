"""Importing PRWS scores from CSV (annotation.services.score_import, ``manage.py import_scores``): both layouts,
collapsed candidates, and bad files rejected whole with a message naming the row."""
from __future__ import annotations

import csv
import math
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation.models import Assignment, Campaign, CandidateJudgment, Judgment, Screen
from annotation.services.importing import import_outputs
from annotation.services.judgment_exports import judgments_csv
from annotation.services.score_import import ScoreImportError, import_scores
from annotation.services.textfiles import NamedFile, NumberError, plain_number

from .factories import candidate_of, small_campaign

pytestmark = pytest.mark.django_db

# small_campaign: 6 lines; systems ZEPHYRSYS, QUOKKAGEC, MARMOTFIX and INPUT (the source). On line 0 MARMOTFIX left
# the source unchanged (one candidate with INPUT); on line 3 ZEPHYRSYS and QUOKKAGEC did.
LONG = """rater,segment,system,score,meaning_changed
ann,1,ZEPHYRSYS,80,0
ann,1,QUOKKAGEC,65.5,yes
ann,1,INPUT,20,
bob,1,MARMOTFIX,10,true
ann,3,ZEPHYRSYS,90,no
ann,3,QUOKKAGEC,90,0
ann,3,MARMOTFIX,40,1
"""


@pytest.fixture
def campaign():
    return small_campaign("scored", mode=Campaign.Mode.PRWS)


def state() -> tuple[int, int, int, int, int]:
    """Row counts that an import must leave alone when it fails."""
    return (
        Screen.objects.count(), Assignment.objects.count(), Judgment.objects.count(),
        CandidateJudgment.objects.count(), get_user_model().objects.count(),
    )


def write(tmp_path, text: str | bytes, name: str = "scores.csv"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_long_file_through_the_command(campaign, tmp_path):
    out = StringIO()
    call_command("import_scores", "--campaign", "scored", str(write(tmp_path, LONG)), stdout=out)
    assert out.getvalue().strip() == "Imported 6 ratings on 3 screens by 2 raters into 'scored'."
    screens = list(Screen.objects.filter(campaign=campaign).order_by("number"))
    owners = [(s.segment.line, s.assignments.get().judge.username) for s in screens]
    assert owners == [(1, "ann"), (1, "bob"), (3, "ann")]
    assert all(s.assignments.get().status == "submitted" for s in screens)
    first = screens[0].assignments.get().judgment
    rows = list(first.items.order_by("position").values_list("candidate_id", "score", "meaning_changed", "rank"))
    assert rows == [
        (candidate_of(campaign, 1, "ZEPHYRSYS").pk, 80.0, False, None),
        (candidate_of(campaign, 1, "QUOKKAGEC").pk, 65.5, True, None),
        (candidate_of(campaign, 1, "INPUT").pk, 20.0, False, None),
    ]
    assert list(screens[0].slots.order_by("position").values_list("candidate_id", flat=True)) == [r[0] for r in rows]
    collapsed = screens[2].assignments.get().judgment.items.order_by("position")
    assert [(i.candidate_id, i.score) for i in collapsed] == [
        (candidate_of(campaign, 3, "ZEPHYRSYS").pk, 90.0), (candidate_of(campaign, 3, "MARMOTFIX").pk, 40.0)
    ], "ZEPHYRSYS and QUOKKAGEC produced one sentence on line 3: one rating"
    assert set(campaign.judges.values_list("username", flat=True)) == {"ann", "bob"}
    assert not get_user_model().objects.get(username="bob").has_usable_password()


def test_long_file_without_header_or_meaning_column(campaign):
    summary = import_scores(campaign, b"ann,0,MARMOTFIX,55\r\n\r\nann,0,ZEPHYRSYS,70\r\n")
    assert (summary.ratings, summary.screens, summary.raters) == (2, 1, 1)
    assert list(CandidateJudgment.objects.values_list("score", "meaning_changed")) == [(55.0, False), (70.0, False)]


WIDE = "ZEPHYRSYS,MARMOTFIX,INPUT\n" + "\n".join(
    ["50,60,60", "1,2,3", ",,", "90,,90", "", "10,20.5,30"]
) + "\n"


def test_wide_file_one_rater_empty_cells_not_rated(campaign, tmp_path):
    out = StringIO()
    call_command("import_scores", "--campaign", "scored", "--wide", str(write(tmp_path, WIDE)), stdout=out)
    assert "Imported 9 ratings on 4 screens by 1 rater into 'scored'." in out.getvalue()
    judgments = Judgment.objects.filter(assignment__judge__username="gmeg-mean").order_by("assignment__screen__number")
    lines = [j.assignment.screen.segment.line for j in judgments]
    assert lines == [0, 1, 3, 5], "rows 3 and 5 (lines 2 and 4) are empty"
    line0 = [(i.candidate_id, i.score) for i in judgments[0].items.order_by("position")]
    assert line0 == [(candidate_of(campaign, 0, "ZEPHYRSYS").pk, 50.0), (candidate_of(campaign, 0, "INPUT").pk, 60.0)]
    assert [i.score for i in judgments[2].items.all()] == [90.0], "ZEPHYRSYS left line 3 unchanged: one rating"
    assert [i.score for i in judgments[3].items.order_by("position")] == [10.0, 20.5, 30.0]


def test_wide_file_under_a_named_rater(campaign):
    import_scores(campaign, WIDE.encode(), wide=True, rater="means")
    assert set(Judgment.objects.values_list("assignment__judge__username", flat=True)) == {"means"}


GOOD = "zed,2,INPUT,10\nzed,2,ZEPHYRSYS,70\n"
"""Two good rows put before a bad one: they must not be stored either."""


@pytest.mark.parametrize(
    "text, message",
    [
        (GOOD + "ann,1,NOSUCH,50\n", "scores.csv: row 3: unknown system 'NOSUCH'"),
        (GOOD + "ann,6,INPUT,50\n", "row 3: line 6 is out of range (the campaign has lines 0 to 5)"),
        (GOOD + "ann,-1,INPUT,50\n", "row 3: line -1 is out of range"),
        (GOOD + "ann,one,INPUT,50\n", "row 3: segment 'one' is not a line number"),
        (GOOD + "ann,0,INPUT,100.5\n", "row 3: score '100.5' is outside 0-100"),
        (GOOD + "ann,0,INPUT,-1\n", "row 3: score '-1' is outside 0-100"),
        (GOOD + "ann,0,INPUT,nan\n", "row 3: score 'nan' is outside 0-100"),
        (GOOD + "ann,0,INPUT,fifty\n", "row 3: score 'fifty' is not a number"),
        (GOOD + "ann,0,INPUT,50,1,x\n", "row 3: 6 columns; expected rater,segment,system,score[,meaning_changed]"),
        (GOOD + "ann,0,INPUT\n", "row 3: 3 columns"),
        (GOOD + "ann,0,INPUT,50,maybe\n", "row 3: meaning_changed 'maybe' is not 1/0, true/false or yes/no"),
        ("ann,0,INPUT,50\nann,0,ZEPHYRSYS,50\nann,0,INPUT,50\n",
         "row 3: ann rated system 'INPUT' on line 0 already in row 1"),
        ("ann,0,INPUT,50\nann,0,MARMOTFIX,60\n",
         "row 2: systems 'INPUT' and 'MARMOTFIX' produced the same sentence on line 0, but ann gave it 50 (row 1) "
         "and 60"),
        ("ann,0,INPUT,50,1\nann,0,MARMOTFIX,50,0\n", "row 2: systems 'INPUT' and 'MARMOTFIX' produced the same"),
        (GOOD + "a b,0,INPUT,50\n", "row 3: rater 'a b' is not a valid user name"),
        (GOOD + ",0,INPUT,50\n", "row 3: rater '' must have 1 to 150 characters"),
        ("rater,segment,system,score\n", "scores.csv: the file holds no scores"),
        (GOOD.encode() + b"b\xe9a,0,INPUT,50\n", "scores.csv: row 3: not UTF-8 text (byte 0xe9 at byte offset"),
        ("", "scores.csv: the file is empty"),
        (GOOD + 'ann,0,INPUT,"50\nann,1,INPUT,50\n', "scores.csv: row 3 opens a quote (\") that is never closed"),
        (GOOD + 'ann,0,INPUT,"50"x\n', "scores.csv: row 3: not CSV (',' expected after '\"')"),
        # Every field is checked before the database, as the Appraise import checks it (ASCII numbers, lengths).
        (GOOD + "ann,²,INPUT,50\n", "row 3: segment '²' is not a line number"),
        (GOOD + "ann,٣,INPUT,50\n", "row 3: segment '٣' is not a line number"),
        (GOOD + "ann,1_0,INPUT,50\n", "row 3: segment '1_0' is not a line number"),
        (GOOD + "ann," + "9" * 5000 + ",INPUT,50\n", "row 3: segment '999999"),
        (GOOD + "ann,0,INPUT,inf\n", "row 3: score 'inf' is outside 0-100"),
        (GOOD + "ann,0,INPUT,1e400\n", "row 3: score '1e400' is too large"),
        (GOOD + "ann,0,INPUT,5" + "0" * 100_000 + "\n",
         "row 3: score '5" + "0" * 59 + "'... (100001 characters) is too large"),
        (GOOD + "u" * 151 + ",0,INPUT,50\n", "row 3: rater 'uuuu"),
        (GOOD + "ann,0," + "S" * 5000 + ",50\n", "row 3: unknown system 'SSSS"),
    ],
)
def test_bad_long_files_are_refused_whole(campaign, text, message):
    before = state()
    with pytest.raises(ScoreImportError) as error:
        import_scores(campaign, text if isinstance(text, bytes) else text.encode())
    assert message in str(error.value) and len(str(error.value)) < 400
    assert state() == before


@pytest.mark.parametrize(
    "text, message",
    [
        ("ZEPHYRSYS,NOSUCH\n" + "1,2\n" * 6, "row 1, column 2: unknown system 'NOSUCH'"),
        ("INPUT,INPUT\n" + "1,2\n" * 6, "row 1: system 'INPUT' has two columns"),
        ("INPUT,ZEPHYRSYS\n" + "1,2\n" * 5,
         "5 rows of scores, but the campaign has 6 sentences (one row per sentence of the source, in line order)"),
        ("INPUT,ZEPHYRSYS\n" + "1,2\n" * 7, "7 rows of scores"),
        ("INPUT,ZEPHYRSYS\n" + "1,2\n" * 3 + "1,2,3\n" + "1,2\n" * 2, "row 5: 3 columns; the header has 2"),
        ("INPUT,ZEPHYRSYS\n" + "1,2\n" * 3 + "1,x\n" + "1,2\n" * 2,
         "row 5, column 'ZEPHYRSYS': score 'x' is not a number"),
        ("INPUT,ZEPHYRSYS\n" + "1,2\n" * 5 + "1,101\n", "row 7, column 'ZEPHYRSYS': score '101' is outside 0-100"),
        ("INPUT,ZEPHYRSYS\n" + "1,2\n" * 5 + "1,1e-400\n",
         "row 7, column 'ZEPHYRSYS': score '1e-400' is too close to 0"),
        ("INPUT,MARMOTFIX\n" + "1,2\n" * 6, "row 2: systems 'INPUT' and 'MARMOTFIX' produced the same sentence"),
        ('INPUT,ZEPHYRSYS\n"52.5\n' + "1,2\n" * 5,
         'row 2 opens a quote (") that is never closed, so the rest of the file would be one cell'),
    ],
)
def test_bad_wide_files_are_refused_whole(campaign, text, message):
    before = state()
    with pytest.raises(ScoreImportError, match="^scores.csv: ") as error:
        import_scores(campaign, text.encode(), wide=True)
    assert message in str(error.value)
    assert state() == before


def test_the_wide_layout_speaks_of_sentences_as_every_page_does():
    # The wide file's refusal and import_scores --help said "segments" where the pages say "sentences"; the long
    # layout's column keeps its name, segment, which the file format (PRODUCT.md) gives it.
    from annotation.management.commands.import_scores import Command

    usage = " ".join(Command().create_parser("manage.py", "import_scores").format_help().split())
    assert "--wide one row per sentence of the source (line order), one column per system" in usage
    assert "rows rater,segment,system,score[,meaning_changed] with segment the 0-based line number" in usage
    assert "per segment" not in usage


def test_a_ranking_campaign_takes_no_scores(tmp_path):
    small_campaign("ranked")
    with pytest.raises(CommandError, match="'ranked' is a relative ranking campaign; scores go into PRWS campaigns"):
        call_command("import_scores", "--campaign", "ranked", str(write(tmp_path, LONG)))
    assert state()[2] == 0


def test_importing_the_same_ratings_twice_is_refused(campaign):
    import_scores(campaign, LONG.encode())
    before = state()
    with pytest.raises(ScoreImportError, match="ann already has scores for line 1 in 'scored'"):
        import_scores(campaign, b"zed,0,INPUT,5\nann,1,MARMOTFIX,5\n")
    assert state() == before
    import_scores(campaign, b"ann,2,INPUT,5\n")
    assert state()[2] == before[2] + 1


def test_command_errors(campaign, tmp_path):
    with pytest.raises(CommandError, match="no campaign named 'nope'"):
        call_command("import_scores", "--campaign", "nope", str(write(tmp_path, LONG)))
    with pytest.raises(CommandError, match="missing.csv: cannot read"):
        call_command("import_scores", "--campaign", "scored", str(tmp_path / "missing.csv"))
    with pytest.raises(CommandError, match="^bad.csv: row 1: unknown system"):
        call_command("import_scores", "--campaign", "scored", str(write(tmp_path, "ann,0,X,1\n", "bad.csv")))


def test_plain_numbers_are_accepted(campaign):
    import_scores(campaign, b"ann,0,INPUT,+.5\nann,1,INPUT,1e1\nann,2,INPUT,100.\n")
    assert sorted(CandidateJudgment.objects.values_list("score", flat=True)) == [0.5, 10.0, 100.0]


def test_minus_zero_is_stored_and_exported_as_zero(campaign):
    import_scores(campaign, b"ann,0,INPUT,-0\nann,1,INPUT,-0.0e1\n")
    assert [math.copysign(1, score) for score in CandidateJudgment.objects.values_list("score", flat=True)] == [1, 1]
    rows = list(csv.DictReader(StringIO(judgments_csv(campaign))))
    assert [row["score"] for row in rows] == ["0.0", "0.0"]


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda: get_user_model().objects.create_superuser("ann", password="admin-pw-1"), "is an admin account"),
        (lambda: small_campaign("theirs", mode=Campaign.Mode.PRWS).judges.add(get_user_model().objects.create_user(
            "ann")), "judges another campaign"),
        (lambda: get_user_model().objects.create_user("ann", password="own-password-1"),
         "is an existing account that does not judge this campaign"),
    ],
)
def test_raters_do_not_take_over_existing_accounts(campaign, make, reason):
    make()
    before = state()
    with pytest.raises(ScoreImportError) as error:
        import_scores(campaign, LONG.encode())
    assert (f"scores.csv: row 2: rater 'ann' {reason}. Imported raters are accounts of this campaign only: map the "
            "name to an account explicitly (ann=ACCOUNT in the user map, --map-user ann=ACCOUNT on the command line), "
            "or rename it in the file") in str(error.value)
    assert state() == before and not campaign.judges.exists()


def test_raters_are_mapped_explicitly_and_the_wide_rater_is_named(campaign, tmp_path):
    admin = get_user_model().objects.create_superuser("ann", password="admin-pw-1")
    out = StringIO()
    call_command("import_scores", "--campaign", "scored", "--map-user", "ann=ann.r", "--map-user", "bob=ann",
                 str(write(tmp_path, LONG)), stdout=out)
    assert "by 2 raters" in out.getvalue()
    assert set(Judgment.objects.values_list("assignment__judge__username", flat=True)) == {"ann.r", "ann"}
    assert campaign.judges.filter(pk=admin.pk).exists()
    with pytest.raises(CommandError, match="the user map names 'zed', but the file has no judge of that name"):
        call_command("import_scores", "--campaign", "scored", "--map-user", "zed=z", str(write(tmp_path, LONG)))
    with pytest.raises(CommandError, match="a wide file has one rater, named with --rater"):
        call_command("import_scores", "--campaign", "scored", "--wide", "--map-user", "x=y",
                     str(write(tmp_path, WIDE)))
    other = small_campaign("other-domain", mode=Campaign.Mode.PRWS)
    import_scores(campaign, WIDE.encode(), wide=True)
    import_scores(other, WIDE.encode(), wide=True)
    assert other.judges.get().username == "gmeg-mean" and campaign.judges.filter(username="gmeg-mean").exists()


def test_the_command_refuses_a_file_over_the_limit_before_reading_it(campaign, tmp_path, settings):
    settings.MAX_UPLOAD_BYTES = 100
    with pytest.raises(CommandError, match=r"^scores.csv: \d+ bytes is over the upload limit of 100 bytes"):
        call_command("import_scores", "--campaign", "scored", str(write(tmp_path, LONG)))
    assert state()[2] == 0


@pytest.mark.parametrize("wide", [False, True])
def test_a_system_name_whose_accents_are_encoded_otherwise_names_that_system(wide):
    """A CSV may write a system's name with its accents decomposed (macOS, some editors) where the campaign's is
    composed: both look the same and name the same system; the file was refused ('unknown system')."""
    lines = b"".join(f"line {i} .\n".encode() for i in range(3))
    campaign = import_outputs("accents", NamedFile("source", lines),
                              [NamedFile("Zürich", lines.replace(b".", b"!")), NamedFile("Bern", lines)],
                              mode=Campaign.Mode.PRWS)
    decomposed = "Zu\u0308rich"
    text = f"{decomposed},Bern\n70,40\n,\n,\n" if wide else f"ann,0,{decomposed},70\nann,0,Bern,40\n"
    summary = import_scores(campaign, text.encode(), wide=wide)
    assert summary.ratings == 2
    rated = CandidateJudgment.objects.get(score=70.0).candidate
    assert list(rated.outputs.values_list("system__name", flat=True)) == ["Zürich"]
    both = f"Zürich,{decomposed}\n70,40\n,\n,\n".encode()
    with pytest.raises(ScoreImportError, match="system 'Zürich' has two columns"):
        import_scores(campaign, both, wide=True)


def test_numbers_are_taken_as_written_or_refused():
    """A number of a file is the float it names, whole: 1e-400 was read as 0.0 and 1e400 as infinity."""
    taken = {"0": 0.0, "0e-400": 0.0, "-0": 0.0, "+.5": 0.5,
             "2.2250738585072014e-308": 2.2250738585072014e-308, "1.7976931348623157e308": 1.7976931348623157e308}
    assert {text: plain_number(text) for text in taken} == taken
    assert str(plain_number("-0.0")) == "0.0"
    for text, reason in [("1e-400", "is too close to 0"), ("1e-310", "is too close to 0"), ("-1e-320", "too close"),
                         ("1e400", "is too large"), ("-1.8e308", "is too large"), ("inf", "is not a number"),
                         ("1_0", "is not a number"), ("٣", "is not a number"), ("0x10", "is not a number"),
                         ("0.00001e-304", "is too close to 0"), ("", "is not a number")]:
        with pytest.raises(NumberError, match=reason):
            plain_number(text)


def test_one_rater_written_in_two_letter_cases_is_refused(campaign):
    """'Bob' and 'bob' rated as two raters (two accounts), splitting one rater's scores without a word."""
    before = state()
    with pytest.raises(ScoreImportError) as error:
        import_scores(campaign, b"Bob,0,INPUT,50\nann,1,INPUT,40\nbob,1,INPUT,60\n")
    assert str(error.value) == (
        "scores.csv: row 3: rater 'bob' is 'Bob' of row 1 written otherwise (in letter case, or in how its accents "
        "are encoded); write a rater's name the same way on every row, or map one of them to another account "
        "(the user map, --map-user on the command line)"
    )
    assert state() == before
    summary = import_scores(campaign, b"Bob,0,INPUT,50\nann,1,INPUT,40\nbob,1,INPUT,60\n", users={"bob": "bob.2"})
    assert summary.raters == 3


def test_a_rater_written_otherwise_than_a_judge_of_the_campaign_is_refused(campaign):
    """A second file naming 'Ann' where the first named 'ann' made a second account, splitting ann's scores."""
    import_scores(campaign, b"ann,0,INPUT,50\n")
    before = state()
    with pytest.raises(ScoreImportError) as error:
        import_scores(campaign, b"Ann,1,INPUT,40\n")
    assert str(error.value).startswith(
        "scores.csv: row 1: rater 'Ann' is the judge 'ann' of this campaign written otherwise (in letter case, or in "
        "how its accents are encoded). Imported raters are accounts of this campaign only: map the name to an account "
        "explicitly (Ann=ACCOUNT in the user map, --map-user Ann=ACCOUNT on the command line), or rename it in the file"
    )
    assert state() == before
    assert import_scores(campaign, b"Ann,1,INPUT,40\n", users={"Ann": "ann"}).raters == 1


def test_an_organizer_importing_on_the_web_maps_raters_only_to_accounts_they_may_use(campaign):
    """``by``: the organizer importing on the web, who may give ratings only to judge-only accounts of campaigns
    they manage and is told one reason for any other account; the command line (no ``by``) maps to any account."""
    organizer = get_user_model().objects.create_user("olga", password="olga-password-1")
    campaign.organizers.add(organizer)
    get_user_model().objects.create_superuser("root", password="root-password-1")
    before = state()
    with pytest.raises(ScoreImportError) as mapped:
        import_scores(campaign, LONG.encode(), users={"ann": "root"}, by=organizer)
    assert str(mapped.value) == ("scores.csv: row 2: rater 'ann' is mapped to the account 'root', which cannot be "
                                 "used; choose another name")
    with pytest.raises(ScoreImportError) as wide:
        import_scores(campaign, WIDE.encode(), wide=True, rater="root", by=organizer)
    assert str(wide.value) == ("scores.csv: rater 'root' cannot be used; choose another name; name another rater "
                               "for the file's ratings")
    assert state() == before
    import_scores(campaign, LONG.encode(), users={"ann": "root"})
    assert campaign.judges.filter(username="root").exists()
