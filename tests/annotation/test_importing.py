"""Importing test sets: the happy path, messy files, and every bad input rejected with nothing written."""
from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from annotation.models import Campaign, Candidate, Document, Output, Segment, System
from annotation.services.importing import import_outputs, split_archive
from annotation.services.textfiles import InputFileError, NamedFile

pytestmark = pytest.mark.django_db

SOURCE = b"He go to school .\nShe like apples .\n\nThey is here .\n"
SYSTEMS = {
    "alpha": b"He goes to school .\nShe likes apples .\n\nThey are here .\n",
    "beta": b"He goes to school .\nShe like apples .\n\nThey is here .\n",
    "gamma": b"He go to the school .\nShe likes apples .\n\nThey are here .\n",
}


def named(name: str, data: bytes) -> NamedFile:
    return NamedFile(name, data)


def systems(**overrides: bytes) -> list[NamedFile]:
    return [named(name, overrides.get(name, data)) for name, data in SYSTEMS.items()]


def nothing_written() -> bool:
    return not any(model.objects.exists() for model in (Campaign, System, Document, Segment, Candidate, Output))


def test_import_collapses_identical_outputs_and_keeps_empty_lines():
    campaign = import_outputs("demo", named("source", SOURCE), systems(), source_is_system=True)
    assert campaign.systems.count() == 4
    assert campaign.systems.get(name="source").kind == System.Kind.INPUT
    assert campaign.segments.count() == 4
    empty = campaign.segments.get(line=2)
    assert empty.source == ""
    assert empty.candidates.count() == 1  # all four outputs are the empty line
    first = campaign.segments.get(line=0)
    groups = sorted(sorted(c.systems.values_list("name", flat=True)) for c in first.candidates.all())
    assert groups == [["alpha", "beta"], ["gamma"], ["source"]]
    assert campaign.distinct_histogram == {"1": 1, "2": 2, "3": 1}


def test_crlf_trailing_whitespace_and_bom_are_normalised():
    crlf = {name: b"\xef\xbb\xbf" + data.replace(b" .\n", b" .  \r\n") for name, data in SYSTEMS.items()}
    campaign = import_outputs("crlf", named("source", SOURCE), [named(n, d) for n, d in crlf.items()])
    texts = set(Candidate.objects.filter(segment__campaign=campaign).values_list("text", flat=True))
    assert "He goes to school ." in texts
    assert not any(t != t.rstrip() or "\ufeff" in t for t in texts)
    assert (
        Output.objects.filter(segment__line=0, system__name__in=["alpha", "beta"])
        .values("candidate").distinct().count() == 1
    )


def test_documents_file_gives_documents_and_positions():
    docs = named("documents", b" essay1\r\n essay1\r\nessay2 \nessay2 \n")
    campaign = import_outputs("docs", named("source", SOURCE), systems(), docs)
    assert list(campaign.documents.values_list("name", "position")) == [("essay1", 0), ("essay2", 1)]
    assert list(campaign.segments.values_list("document__name", "position", "line")) == [
        ("essay1", 0, 0), ("essay1", 1, 1), ("essay2", 0, 2), ("essay2", 1, 3)
    ]


@pytest.mark.parametrize(
    ("files", "documents", "message"),
    [
        (systems(beta=b"one line\n"), None, "beta: 1 line, but the source file (source) has 4 lines"),
        (systems(gamma=b"ok\n\xff\xfe bad\nx\ny\n"), None,
         "gamma: not UTF-8 text: byte 0xff at byte offset 3 (line 2)"),
        (systems(alpha=b""), None, "alpha: the file is empty"),
        (systems() + [named("alpha", SYSTEMS["alpha"])], None, "duplicate system names: alpha"),
        (systems() + [named("Alpha", SYSTEMS["alpha"])], None,
         "system names 'alpha' and 'Alpha' are the same name in other letter case (systems are named by file name)"),
        ([named("Z\u00fcrich", SYSTEMS["alpha"]), named("zu\u0308rich", SYSTEMS["beta"])], None,
         "system names 'Z\u00fcrich' and 'zu\u0308rich' are the same name in other letter case and with its accents "
         "encoded differently"),
        (systems(), named("docs", b"a\nb\na\na\n"), "docs: document 'a' appears again at line 3"),
        (systems(), named("docs", b"a\na\n"), "docs: 2 lines, but the source file (source) has 4 lines"),
        # Ids that differ only in spaces or in how their accents are encoded, which the import took as one document
        # (stripped: ' essay1 ' and 'essay1') or as two documents that look the same ('a b' and 'a  b').
        (systems(), named("docs", b"essay1\n essay1 \nessay2\nessay2\n"),
         "docs: line 2: the document id ' essay1 ' is 'essay1' of line 1 written otherwise (in spaces, or in how its "
         "accents are encoded); write a document's id the same way on each of its lines"),
        (systems(), named("docs", b"essay1\nessay1\t\nessay2\nessay2\n"),
         "docs: line 2: the document id 'essay1\\t' is 'essay1' of line 1 written otherwise"),
        (systems(), named("docs", b"a b\na b\na  b\na  b\n"),
         "docs: line 3: the document id 'a  b' is 'a b' of line 1 written otherwise"),
        (systems(), named("docs", "Z\u00fcrich\nZ\u00fcrich\nZu\u0308rich\nZu\u0308rich\n".encode()),
         "docs: line 3: the document id 'Zu\u0308rich' is 'Z\u00fcrich' of line 1 written otherwise"),
        ([], None, "no system output files were given"),
        # Over-long names and document ids, and control characters: refused by the import, before the database.
        (systems() + [named("s" * 101, SYSTEMS["alpha"])], None,
         "system name '" + "s" * 101 + "': 101 characters, over the limit of 100"),
        (systems(), named("docs", b"a\na\n" + b"d" * 201 + b"\n" + b"d" * 201 + b"\n"),
         "docs: line 3: the document id has 201 characters, over the limit of 200"),
        (systems(), named("docs", b"a\na\nb\tc\nb\tc\n"),
         "docs: line 3: the document id holds the non-printable character U+0009"),
        (systems(beta=b"ok\nbad\x00line\n\nx\n"), None, "beta: line 2: the control character U+0000 at column 4"),
        (systems(gamma=b"a\nb\nc\x01\nd\n"), None, "gamma: line 3: the control character U+0001 at column 2"),
        (systems(alpha=b"a\nb\rc\nd\ne\n"), None, "alpha: line 2: the control character U+000D at column 2"),
        (systems(alpha="a\nb\nc\nd\x85e\n".encode()), None, "alpha: line 4: the control character U+0085"),
        (systems(alpha=b"a\nb\nc\nd\x7f\n"), None, "alpha: line 4: the control character U+007F"),
        # At the end of a line too: str.rstrip would strip these as whitespace, and the file import without them.
        (systems(alpha=b"a\nb\x0c\nc\nd\n"), None, "alpha: line 2: the control character U+000C at column 2"),
        (systems(beta="a\nb\nc\x85\nd\n".encode()), None, "beta: line 3: the control character U+0085 at column 2"),
        (systems(gamma=b"a\r\nb\x1f\r\nc\r\nd\r\n"), None, "gamma: line 2: the control character U+001F at column 2"),
        (systems(), named("docs", b"a\na\nb\x1c\nb\n"), "docs: line 3: the control character U+001C at column 2"),
        (systems(alpha=b"a\nb\nc\r\r\nd\n"), None, "alpha: line 3: the control character U+000D at column 2"),
    ],
)
def test_bad_input_is_rejected_whole(files, documents, message):
    with pytest.raises(InputFileError) as error:
        import_outputs("bad", named("source", SOURCE), files, documents)
    assert message in str(error.value)
    assert nothing_written()


BLANK_LINE_AT_THE_END = "(a blank line at the end of a file is an empty sentence: remove it, or end every file so)"
COUNTS = "5 lines, but the source file (source) has 4 lines"


@pytest.mark.parametrize(
    ("source", "files", "documents", "message"),
    [
        (SOURCE, systems(beta=SYSTEMS["beta"] + b"\r\n"), None,
         f"beta: {COUNTS}; the last line of beta is empty {BLANK_LINE_AT_THE_END}"),
        (SOURCE + b"\n \n", systems(), None,
         f"alpha: 4 lines, but the source file (source) has 6 lines; the last 2 lines of source are empty "
         f"{BLANK_LINE_AT_THE_END}"),
        (SOURCE, systems(), named("docs", b"a\na\nb\nb\n\n"),
         f"docs: {COUNTS}; the last line of docs is empty {BLANK_LINE_AT_THE_END}"),
        (SOURCE, systems(alpha=b"a\nb\n\n\nextra\n"), None, f"alpha: {COUNTS}"),
    ],
)
def test_a_line_count_off_by_blank_lines_at_the_end_of_a_file_says_so(source, files, documents, message):
    """A blank line an editor left at the end of one file gave only the counts ('5 lines, but ... 4 lines'); the
    message now says which file's last lines are the odd ones. A file whose extra line holds text says nothing more."""
    with pytest.raises(InputFileError) as error:
        import_outputs("bad", named("source", source), files, documents)
    assert str(error.value) == message
    assert nothing_written()


def test_the_source_judged_as_a_system_may_not_share_a_name_with_a_system_either():
    with pytest.raises(InputFileError, match="system names 'Source' and 'source' are the same name in other letter"):
        import_outputs("bad", named("source", SOURCE), [named("Source", SYSTEMS["alpha"])], source_is_system=True)
    assert nothing_written()


@override_settings(MAX_UPLOAD_BYTES=40)
def test_file_over_the_size_limit_is_rejected():
    with pytest.raises(InputFileError, match=r"alpha: 41 bytes is over the upload limit of 40 bytes"):
        import_outputs("big", named("source", b"x\n"), [named("alpha", b"x" * 41)])
    assert nothing_written()


def test_existing_campaign_name_is_refused_and_nothing_added():
    import_outputs("same", named("source", SOURCE), systems())
    before = Candidate.objects.count()
    with pytest.raises(InputFileError, match="a campaign named 'same' exists already"):
        import_outputs("same", named("source", SOURCE), systems())
    assert Candidate.objects.count() == before


def test_failure_while_writing_rolls_back(monkeypatch):
    from annotation.services import importing

    write = importing.insert_rows

    def fail_on_outputs(model, fields, rows):
        if model is Output:
            raise RuntimeError("disk full")
        return write(model, fields, rows)

    monkeypatch.setattr(importing, "insert_rows", fail_on_outputs)
    with pytest.raises(RuntimeError, match="disk full"):
        import_outputs("half", named("source", SOURCE), systems())
    assert nothing_written()


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _tar(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize("pack", [_zip, _tar])
def test_archive_parts_are_found_by_name(pack):
    files = {"run/source": SOURCE, "run/documents": b"a\na\nb\nb\n", "__MACOSX/._alpha": b"junk",
             **{f"run/{n}": d for n, d in SYSTEMS.items()}}
    source, system_files, documents = split_archive(named("outputs.archive", pack(files)))
    assert source.data == SOURCE
    assert documents is not None and documents.name == "documents"
    assert sorted(f.name for f in system_files) == ["alpha", "beta", "gamma", "source"]


def test_archive_without_a_source_or_not_an_archive():
    with pytest.raises(InputFileError, match="no source file"):
        split_archive(named("x.zip", _zip({"alpha": b"x\n"})))
    with pytest.raises(InputFileError, match="not a zip or tar archive"):
        split_archive(named("x.zip", b"plain text"))


def test_a_tar_member_whose_name_is_not_utf8_is_refused_as_such():
    """Read with its bytes replaced, 'Zürich' in Latin-1 was refused as the system name 'Z\ufffdrich' (a character the
    file does not have), for its letters; a folder's name is ignored, whatever its encoding."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT, encoding="latin-1") as archive:
        for name, data in {"résultats/source": SOURCE, "Zürich": SYSTEMS["alpha"], "beta": SYSTEMS["beta"]}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    with pytest.raises(InputFileError) as error:
        split_archive(named("run.tar", buffer.getvalue()))
    assert str(error.value) == (
        "run.tar: the name of the member 'Z\\xfcrich' is not UTF-8; make the archive where file names are UTF-8 (as "
        "they are on macOS and Linux), or name the file in ASCII letters"
    )


@pytest.mark.parametrize(("kind", "link", "what"), [
    (tarfile.SYMTYPE, "/etc/passwd", "a symbolic link"), (tarfile.LNKTYPE, "alpha", "a hard link"),
    (tarfile.FIFOTYPE, "", "a named pipe"),
])
def test_a_tar_member_that_is_no_file_is_refused_not_left_out(kind, link, what):
    """A link was skipped without a word: the campaign was made without the system 'gamma' the archive named."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in {"source": SOURCE, "alpha": SYSTEMS["alpha"], "beta": SYSTEMS["beta"]}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo("run/gamma")
        info.type, info.linkname = kind, link
        archive.addfile(info)
    with pytest.raises(InputFileError) as error:
        split_archive(named("run.tar", buffer.getvalue()))
    assert str(error.value) == (
        f"run.tar: the member 'run/gamma' is {what}, not a file; an archive holds the files themselves (a link, "
        "device or pipe is not read)"
    )


def test_a_zip_member_that_is_a_symbolic_link_is_refused():
    """zip -y stores a link with its target as its content: the system 'gamma' was the one line '/etc/passwd'."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in {"source": SOURCE, "alpha": SYSTEMS["alpha"]}.items():
            archive.writestr(name, data)
        link = zipfile.ZipInfo("gamma")
        link.create_system, link.external_attr = 3, (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    with pytest.raises(InputFileError) as error:
        split_archive(named("run.zip", buffer.getvalue()))
    assert str(error.value) == (
        "run.zip: the member 'gamma' is a symbolic link, not a file; an archive holds the files themselves (a link, "
        "device or pipe is not read)"
    )


def test_an_archive_with_two_document_indexes_is_refused():
    """The first of DOCUMENT_NAMES was the index and the other a system: 'docs.txt' was judged as a system whose
    sentences were the document ids."""
    files = {"source": SOURCE, "documents": b"a\na\nb\nb\n", "docs.txt": b"e1\ne1\ne2\ne2\n", **SYSTEMS}
    with pytest.raises(InputFileError) as error:
        split_archive(named("run.zip", _zip(files)))
    assert str(error.value) == (
        "run.zip: 'documents' and 'docs.txt' are both names of a document index; an archive holds one (rename the "
        "other if it is a system)"
    )


def test_an_archive_with_two_source_files_is_refused_unless_the_source_is_named():
    """The first of SOURCE_NAMES was the source and the other a system: 'INPUT' beside 'source' was judged as a
    system of kind 'system', the source as the input."""
    files = {"source": SOURCE, "INPUT": SOURCE, **SYSTEMS}
    with pytest.raises(InputFileError) as error:
        split_archive(named("run.zip", _zip(files)))
    assert str(error.value) == (
        "run.zip: 'source' and 'INPUT' are both names of a source file; name the archive's source file (the form's "
        "'Source name', source_name in the API)"
    )
    source, system_files, _ = split_archive(named("run.zip", _zip(files)), "INPUT")
    assert source.name == "INPUT" and sorted(f.name for f in system_files) == ["INPUT", "alpha", "beta", "gamma",
                                                                                  "source"]


def zip_with_a_nul_in_a_name() -> bytes:
    """A zip whose member ``ab\\x00c`` holds a NUL in its stored name (Python's writer would cut it, other tools
    store it): the name ``ab#c`` written, then patched in its local and central headers."""
    data = _zip({"source": SOURCE, "ab#c": SYSTEMS["alpha"]})
    assert data.count(b"ab#c") == 2
    return data.replace(b"ab#c", b"ab\x00c")


def zip_with_unflagged_names(names: dict[str, bytes]) -> bytes:
    """A zip of the test set whose systems have the stored names ``names`` (their bytes), without the flag that
    says a name is UTF-8 (macOS's Archive Utility writes UTF-8 names so; Windows' compressed folders write the
    computer's code page so): each name written as a placeholder of its length, then patched in both headers."""
    placeholders = {name: f"{index}".rjust(len(raw), "#").encode() for index, (name, raw) in enumerate(names.items())}
    data = _zip({"source": SOURCE, **{placeholder.decode(): SYSTEMS[name] for name, placeholder in
                                      placeholders.items()}})
    for name, placeholder in placeholders.items():
        assert data.count(placeholder) == 2
        data = data.replace(placeholder, names[name])
    return data


def test_a_zip_member_named_in_utf8_without_the_utf8_flag_keeps_its_name():
    """Read as the zip format's default code page (cp437), the UTF-8 name 'あ' was the system 'πüé'."""
    data = zip_with_unflagged_names({"alpha": "あ".encode(), "beta": "Zu\u0308rich".encode(), "gamma": b"gamma"})
    source, system_files, documents = split_archive(named("run.zip", data), source_is_system=False)
    campaign = import_outputs("unflagged", source, system_files, documents)
    assert sorted(campaign.systems.values_list("name", flat=True)) == ["Zu\u0308rich", "gamma", "あ"]


def test_a_zip_member_named_in_a_code_page_without_the_utf8_flag_is_refused():
    """A name that is not UTF-8 was read as cp437 too: 'Zürich' written in cp1252 (Windows) became 'Zⁿrich'."""
    data = zip_with_unflagged_names({"alpha": "Zürich".encode("cp1252"), "beta": b"beta", "gamma": b"gamma"})
    with pytest.raises(InputFileError) as error:
        split_archive(named("run.zip", data))
    assert str(error.value) == (
        "run.zip: the name of the member 'Z\\xfcrich' is not UTF-8, and the archive does not say in which code page it "
        "is written; make the archive with a tool that writes UTF-8 names (7-Zip, Info-ZIP's zip, macOS), or name "
        "the file in ASCII letters"
    )
    assert nothing_written()
    hidden = zip_with_unflagged_names({"alpha": "__MACOSX/._Zürich".encode("cp1252"), "beta": b"beta"})
    assert [file.name for file in split_archive(named("run.zip", hidden))[1]] == ["source", "beta"]


def test_a_zip_member_whose_name_the_reader_would_cut_at_a_nul_is_refused():
    with pytest.raises(InputFileError) as error:
        split_archive(named("run.zip", zip_with_a_nul_in_a_name()))
    assert str(error.value) == (
        "run.zip: the member 'ab\\x00c' would have become 'ab' (a zip reader cuts a name at a NUL character); a "
        "member is named as stored, with no control characters, as systems are named by their files"
    )


@override_settings(MAX_UPLOAD_BYTES=1000)
def test_zip_bomb_is_refused_from_its_headers():
    with pytest.raises(InputFileError, match=r"bomb.zip \(uncompressed\): 5000 bytes is over the upload limit"):
        split_archive(named("bomb.zip", _zip({"source": b"a" * 5000})))


def test_import_outputs_command(tmp_path):
    for name, data in {"source": SOURCE, **SYSTEMS}.items():
        (tmp_path / name).write_bytes(data)
    out = io.StringIO()
    call_command(
        "import_outputs", "--campaign", "cli", "--mode", "prws", "--source", str(tmp_path / "source"),
        *(str(tmp_path / n) for n in ["source", *SYSTEMS]), stdout=out,
    )
    assert "4 systems, 4 sentences in 1 document," in out.getvalue()
    assert Campaign.objects.get(name="cli").mode == Campaign.Mode.PRWS
    (tmp_path / "beta").write_bytes(b"short\n")
    with pytest.raises(CommandError, match=r"beta: 1 line, but the source file \(source\) has 4 lines"):
        call_command("import_outputs", "--campaign", "cli2", "--source", str(tmp_path / "source"),
                     *(str(tmp_path / n) for n in SYSTEMS))
    assert not Campaign.objects.filter(name="cli2").exists()



def test_a_system_file_named_like_the_source_must_be_the_source_itself(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "copy").mkdir()
    (tmp_path / "a" / "INPUT").write_bytes(SOURCE)
    (tmp_path / "copy" / "INPUT").write_bytes(SOURCE)
    (tmp_path / "b" / "INPUT").write_bytes(SYSTEMS["alpha"])
    (tmp_path / "alpha").write_bytes(SYSTEMS["alpha"])
    with pytest.raises(CommandError) as error:
        call_command("import_outputs", "--campaign", "cli", "--source", str(tmp_path / "a" / "INPUT"),
                     str(tmp_path / "b" / "INPUT"), str(tmp_path / "alpha"))
    assert str(error.value) == (
        f"{tmp_path}/b/INPUT: this system file has the name of the source file {tmp_path}/a/INPUT but other "
        "content; only the source file itself (the same content) is judged as the system of kind 'input'; rename "
        "the system file to judge it as a system of its own"
    )
    assert nothing_written()
    for same in (tmp_path / "a" / "INPUT", tmp_path / "copy" / "INPUT"):
        call_command("import_outputs", "--campaign", same.parent.name, "--source", str(tmp_path / "a" / "INPUT"),
                     str(same), str(tmp_path / "alpha"), stdout=io.StringIO())
        assert Campaign.objects.get(name=same.parent.name).systems.get(name="INPUT").kind == System.Kind.INPUT


@pytest.mark.parametrize("source_is_system", [True, False])
def test_an_uploaded_system_named_like_the_source_with_other_content_is_refused(source_is_system):
    with pytest.raises(InputFileError) as error:
        import_outputs("web", named("source", SOURCE), [named("source", SYSTEMS["alpha"]), *systems()],
                       source_is_system=source_is_system)
    assert str(error.value) == (
        "source: this system file has the name of the source file (source) but not its content; only the source "
        "file itself (the same content) is judged as the system of kind 'input'; rename the system file to judge "
        "it as a system of its own"
    )
    assert nothing_written()

def test_conll14_outputs(conll14_dir):
    outputs = conll14_dir / "outputs"
    files = [NamedFile(p.name, p.read_bytes()) for p in sorted(outputs.iterdir())]
    campaign = import_outputs("conll14", NamedFile("INPUT", (outputs / "INPUT").read_bytes()), files)
    assert campaign.systems.count() == 13
    assert campaign.systems.get(name="INPUT").kind == System.Kind.INPUT
    assert campaign.segments.count() == 1312
    histogram = {int(k): v for k, v in campaign.distinct_histogram.items()}
    assert sum(histogram.values()) == 1312
    mean = sum(k * v for k, v in histogram.items()) / 1312
    assert round(mean, 1) == 5.7 and abs(mean - 5.667) < 0.001
    assert Candidate.objects.filter(segment__campaign=campaign).count() == sum(k * v for k, v in histogram.items())
    assert Output.objects.filter(segment__campaign=campaign).count() == 13 * 1312


def test_a_nul_byte_in_the_source_is_refused():
    with pytest.raises(InputFileError, match=r"source: line 1: the control character U\+0000 at column 3"):
        import_outputs("bad", named("source", b"He\x00 go .\nx\ny\nz\n"), systems())
    assert nothing_written()


def test_tabs_inside_lines_are_text_and_kept():
    tabbed = b"a\tb\nc\nd\ne\n"
    campaign = import_outputs("tabs", named("source", tabbed), [named("alpha", tabbed)])
    assert campaign.segments.get(line=0).source == "a\tb"


@pytest.mark.parametrize(
    "name",
    ["A B", "A\tB", "A\u00a0B", "../x", "a/b", "a\\b", ".hidden", "", "nul\x00", "bell\x07", "zero\u200bwidth",
     "emoji\U0001f600", "\ufffd"],
)
def test_system_names_outside_the_allowed_characters_are_refused(name):
    with pytest.raises(InputFileError) as error:
        import_outputs("bad", named("source", SOURCE), systems() + [named(name, SYSTEMS["alpha"])])
    assert f"system name {name!r}" in str(error.value)
    assert "letters, digits and ASCII punctuation" in str(error.value)
    assert nothing_written()


def test_the_source_judged_as_a_system_needs_an_allowed_name_too():
    with pytest.raises(InputFileError, match="system name 'my source'"):
        import_outputs("bad", named("my source", SOURCE), systems(), source_is_system=True)
    campaign = import_outputs("ok", named("my source", SOURCE), systems())
    assert sorted(campaign.systems.values_list("name", flat=True)) == ["alpha", "beta", "gamma"]


def test_allowed_system_names_are_kept_as_they_are():
    names = ["source+error", "lstm-r", "v1.2_x", "Zürich", "A&B_<x>", "CUUI", "x" * 100]
    campaign = import_outputs("names", named("source", SOURCE), [named(n, SYSTEMS["alpha"]) for n in names])
    assert sorted(campaign.systems.values_list("name", flat=True)) == sorted(names)


@pytest.mark.parametrize(
    ("name", "message"),
    [("bad\x00name", "campaign name: the non-printable character U+0000 at column 4"),
     ("c" * 201, "campaign name: 201 characters, over the limit of 200")],
)
def test_campaign_names_are_checked_before_the_database(name, message):
    with pytest.raises(InputFileError) as error:
        import_outputs(name, named("source", SOURCE), systems())
    assert message in str(error.value)
    assert nothing_written()


@pytest.mark.parametrize("member", ["../alpha", "/abs/alpha", "run/../../alpha"])
def test_archive_member_paths_that_climb_out_are_refused(member):
    with pytest.raises(InputFileError, match=r"x.zip: the member .* leaves the archive's folder"):
        split_archive(named("x.zip", _zip({"source": SOURCE, member: SYSTEMS["alpha"]})))


@override_settings(MAX_UPLOAD_BYTES=100)
def test_import_outputs_command_refuses_bad_names_and_big_files_with_a_message(tmp_path, monkeypatch):
    for name, data in {"source": SOURCE, "alpha": SYSTEMS["alpha"], "A B": SYSTEMS["beta"],
                       "big": b"x\n" * 60}.items():
        (tmp_path / name).write_bytes(data)
    with pytest.raises(CommandError, match="system name 'A B'"):
        call_command("import_outputs", "--campaign", "cli", "--source", str(tmp_path / "source"),
                     str(tmp_path / "alpha"), str(tmp_path / "A B"))
    read = Path.read_bytes

    def read_small(path: Path) -> bytes:
        assert path.name != "big", "a file over the limit was read"
        return read(path)

    monkeypatch.setattr(Path, "read_bytes", read_small)
    with pytest.raises(CommandError, match="big: 120 bytes is over the upload limit of 100 bytes"):
        call_command("import_outputs", "--campaign", "cli", "--source", str(tmp_path / "source"),
                     str(tmp_path / "big"))
    assert nothing_written()
