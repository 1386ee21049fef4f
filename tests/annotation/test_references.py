"""Importing references: M2 gold edits and corrected texts, each malformed file refused naming its line, nothing
written."""
from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import GoldEdit, ReferenceSet, ReferenceText
from annotation.services.importing import import_outputs
from annotation.services.references import import_references
from annotation.services.textfiles import InputFileError, NamedFile

pytestmark = pytest.mark.django_db

SOURCE = b"He go to school .\nShe like apples .\nThey is here .\n"
GOOD_M2 = (
    "S He go to school .\n"
    "A 1 2|||Vform|||goes|||REQUIRED|||-NONE-|||0\n"
    "A 1 2|||Vform|||goes||went|||REQUIRED|||-NONE-|||1\n"
    "\n"
    "S She like apples .\n"
    "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    "A 1 2|||SVA|||likes|||REQUIRED|||-NONE-|||1\n"
    "\n"
    "S They is here .\n"
    "A 1 2|||SVA|||are|||REQUIRED|||-NONE-|||0\n"
    "A 3 4|||Punct|||-NONE-|||REQUIRED|||-NONE-|||1\n"
)


@pytest.fixture
def campaign():
    return import_outputs("refs", NamedFile("source", SOURCE), [NamedFile("sys", SOURCE)])


def nothing_written() -> bool:
    return not (ReferenceSet.objects.exists() or GoldEdit.objects.exists() or ReferenceText.objects.exists())


def test_m2_and_texts_are_stored_in_file_order(campaign):
    ref = NamedFile("ref0", b"He goes to school .\nShe likes apples .\nThey are here .\n")
    created = import_references(campaign, NamedFile("gold.m2", GOOD_M2.encode()), [ref])
    assert [(r.name, r.kind) for r in created] == [("gold.m2", "m2"), ("ref0", "text")]
    assert created[0].annotators == [0, 1]
    rows = list(GoldEdit.objects.order_by("segment__line", "position").values_list(
        "segment__line", "annotator", "start", "end", "error_type", "corrections"))
    assert rows == [
        (0, 0, 1, 2, "Vform", ["goes"]), (0, 1, 1, 2, "Vform", ["goes", "went"]),
        (1, 0, -1, -1, "noop", []), (1, 1, 1, 2, "SVA", ["likes"]),
        (2, 0, 1, 2, "SVA", ["are"]), (2, 1, 3, 4, "Punct", [""]),
    ]
    assert list(ReferenceText.objects.order_by("segment__line").values_list("text", flat=True))[2] == "They are here ."


def replace_line(number: int, text: str | None) -> bytes:
    lines = GOOD_M2.split("\n")
    if text is None:
        del lines[number - 1]
    else:
        lines[number - 1] = text
    return "\n".join(lines).encode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (replace_line(5, "S She likes apples ."),
         "gold.m2: line 5: sentence 2 differs from the campaign's source line 2"),
        (replace_line(2, "A 1 9|||Vform|||goes|||REQUIRED|||-NONE-|||0"), "gold.m2: line 2: the span 1 9 is outside"),
        (replace_line(2, "A 2 1|||Vform|||goes|||REQUIRED|||-NONE-|||0"), "gold.m2: line 2: the span 2 1 is outside"),
        (replace_line(2, "A x 2|||Vform|||goes|||REQUIRED|||-NONE-|||0"), "gold.m2: line 2: the start offset 'x'"),
        (replace_line(2, "A 1 2|||Vform|||goes|||REQUIRED|||-NONE-"), "gold.m2: line 2: an edit line is"),
        (replace_line(2, "A1 2|||Vform|||goes|||REQUIRED|||-NONE-|||0"),
         "gold.m2: line 2: an edit line starts with 'A ' and the span ('A start end|||type|||...'), found 'A1 2'"),
        (replace_line(2, "Ax" + "1" * 100 + "|||Vform|||goes|||REQUIRED|||-NONE-|||0"),
         "found 'Ax111111111111111111'... (102 characters)"),
        (replace_line(2, "A 1 2|||Vform|||goes|||REQUIRED|||-NONE-|||a"), "gold.m2: line 2: the annotator id 'a'"),
        (replace_line(2, "A 1 2|||Vform|||goes|||REQUIRED|||-NONE-|||100"), "gold.m2: line 2: the annotator id 100"),
        # '01' was read as annotator 1, so that its edit and the next line's (annotator '1') were one annotator's.
        (replace_line(2, "A 1 2|||Vform|||goes|||REQUIRED|||-NONE-|||01"),
         "gold.m2: line 2: the annotator id '01' is not written as a number is (0, 1, 2, ..., no leading zeros, no "
         "sign): '01' and '1' would be one annotator"),
        (replace_line(3, "A 1 2|||Vform|||goes||went|||REQUIRED|||-NONE-|||-0"),
         "gold.m2: line 3: the annotator id '-0' is not written as a number is"),
        (replace_line(2, "A 1 2||||||goes|||REQUIRED|||-NONE-|||0"), "gold.m2: line 2: the error type ''"),
        (replace_line(2, "A 1 2|||" + "V" * 51 + "|||goes|||REQUIRED|||-NONE-|||0"), "gold.m2: line 2: the error type"),
        (replace_line(2, "A 1 2|||V|||" + "g" * 1001 + "|||REQUIRED|||-NONE-|||0"),
         "gold.m2: line 2: a correction of 1001"),
        (replace_line(6, "A 0 0|||noop|||-NONE-|||REQUIRED|||-NONE-|||0"),
         "gold.m2: line 6: a noop edit has the span '-1 -1'"),
        ((GOOD_M2 + "A 0 1|||X|||Them|||REQUIRED|||-NONE-|||0\n").encode(),
         "gold.m2: line 12: annotator 0's edits of this sentence are not together"),
        (replace_line(4, None), "gold.m2: line 4: a second 'S' line"),
        (replace_line(1, "X He go to school ."), "gold.m2: line 1: a sentence starts with an 'S' line"),
        (GOOD_M2.encode() + b"\nS One more .\n", "gold.m2: line 13: sentence 4, but the campaign's source has 3 lines"),
        (GOOD_M2.rsplit("\n\nS They", 1)[0].encode(), "gold.m2: 2 sentences, but the campaign's source has 3 lines"),
        (GOOD_M2.split("\n\n", 1)[0].encode(), "gold.m2: 1 sentence, but the campaign's source has 3 lines"),
        (GOOD_M2.replace("goes", "go\x01es", 1).encode(), "gold.m2: line 2: the control character U+0001"),
        (replace_line(2, "A 1 2|||V|||goes|||REQUIRED|||-NONE-|||0\x1f"),
         "gold.m2: line 2: the control character U+001F at column 41"),
        (b"\xff" + GOOD_M2.encode(), "gold.m2: not UTF-8 text"),
    ],
)
def test_malformed_m2_is_refused_naming_the_line(campaign, data, message):
    with pytest.raises(InputFileError) as refused:
        import_references(campaign, NamedFile("gold.m2", data), [NamedFile("ref0", SOURCE)])
    assert message in str(refused.value)
    assert nothing_written()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("A 1 2|||" + "V" * 100_000 + "|||goes|||REQUIRED|||-NONE-|||0", "the error type 'VVVV"),
        ("A 1 " + "2" * 100_000 + "|||V|||goes|||REQUIRED|||-NONE-|||0", "the end offset '2222"),
        ("A 1 2 " + "3" * 100_000 + "|||V|||goes|||REQUIRED|||-NONE-|||0", "the span '1 2 3333"),
        ("A 1 2|||V|||go\u200b" + "e" * 990 + "|||REQUIRED|||-NONE-|||0", "the correction 'go\\u200beeee"),
    ],
)
def test_a_long_bad_value_is_shown_shortened(campaign, line, message):
    with pytest.raises(InputFileError) as refused:
        import_references(campaign, NamedFile("gold.m2", replace_line(2, line)))
    assert f"gold.m2: line 2: {message}" in str(refused.value) and "characters)" in str(refused.value)
    assert len(str(refused.value)) < 300
    assert nothing_written()


def test_a_noop_beside_other_edits_of_one_annotator_is_refused(campaign):
    data = replace_line(7, "A 1 2|||SVA|||likes|||REQUIRED|||-NONE-|||0")
    with pytest.raises(InputFileError, match="line 6: annotator 0 has a noop edit and other edits"):
        import_references(campaign, NamedFile("gold.m2", data))
    assert nothing_written()


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ([NamedFile("ref0", b"one\ntwo\n")], "ref0: 2 lines, but the campaign's source has 3"),
        ([NamedFile("ref0", b"one\n")], "ref0: 1 line, but the campaign's source has 3"),
        ([NamedFile("ref0", SOURCE + b"\n")],
         r"ref0: 4 lines, but the campaign's source has 3; the last line of ref0 is empty \(a blank line at the end"),
        ([NamedFile("ref0", SOURCE), NamedFile("ref0", SOURCE)], "several reference files are named ref0"),
        ([NamedFile("ref0", SOURCE), NamedFile("REF0", SOURCE)], "several reference files are named REF0, ref0"),
        ([NamedFile("ref 0", SOURCE)], "system name 'ref 0'"),
        ([], "no reference given"),
    ],
)
def test_bad_reference_texts_are_refused(campaign, files, message):
    with pytest.raises(InputFileError, match=message):
        import_references(campaign, None, files)
    assert nothing_written()


def test_second_m2_and_taken_names_are_refused(campaign):
    import_references(campaign, NamedFile("gold.m2", GOOD_M2.encode()), [NamedFile("ref0", SOURCE)])
    with pytest.raises(InputFileError, match="ref0: the campaign holds a reference set of this name already"):
        import_references(campaign, None, [NamedFile("ref0", SOURCE)])
    taken = r"Ref0: the campaign holds a reference set of this name already \('ref0'\)"
    with pytest.raises(InputFileError, match=taken):
        import_references(campaign, None, [NamedFile("Ref0", SOURCE)])
    with pytest.raises(InputFileError, match="other.m2: the campaign holds M2 gold edits already"):
        import_references(campaign, NamedFile("other.m2", GOOD_M2.encode()))
    assert ReferenceSet.objects.count() == 2


def test_command_imports_and_reports_errors(campaign, tmp_path):
    gold = tmp_path / "gold.m2"
    gold.write_text(GOOD_M2)
    ref = tmp_path / "ref0"
    ref.write_bytes(SOURCE)
    call_command("import_references", "--campaign", "refs", "--m2", str(gold), str(ref))
    assert set(ReferenceSet.objects.values_list("name", flat=True)) == {"gold.m2", "ref0"}
    with pytest.raises(CommandError, match="no campaign named 'nope'"):
        call_command("import_references", "--campaign", "nope", str(ref))
    with pytest.raises(CommandError, match="ref0: the campaign holds a reference set"):
        call_command("import_references", "--campaign", "refs", str(ref))


def test_api_imports_lists_and_refuses(campaign, client, django_user_model):
    organizer = django_user_model.objects.create_user("org", password="pw")
    campaign.owner = organizer
    campaign.save()
    client.force_login(organizer)
    from django.core.files.uploadedfile import SimpleUploadedFile

    url = f"/api/campaigns/{campaign.pk}/references/"
    bad = replace_line(2, "A 1 9|||Vform|||goes|||REQUIRED|||-NONE-|||0")
    refused = client.post(url, {"m2": SimpleUploadedFile("gold.m2", bad)})
    assert refused.status_code == 400
    assert "gold.m2: line 2: the span 1 9 is outside" in refused.json()["references"][0]
    assert nothing_written()
    created = client.post(url, {"m2": SimpleUploadedFile("gold.m2", GOOD_M2.encode()),
                                "references": [SimpleUploadedFile("ref0", SOURCE), SimpleUploadedFile("ref1", SOURCE)]})
    assert created.status_code == 201
    assert [(r["name"], r["kind"]) for r in created.json()] == [("gold.m2", "m2"), ("ref0", "text"), ("ref1", "text")]
    listed = client.get(url).json()
    assert [r["name"] for r in listed] == ["gold.m2", "ref0", "ref1"]
    assert listed[0]["annotators"] == [0, 1]
