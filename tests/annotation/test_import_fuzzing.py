"""Property-based fuzzing of the test-set parsers (issue 7): the text-file reader, the test-set checks, the archive
listing and extraction, the whole import down to PostgreSQL, and the system-name rule against Appraise XML.

Whatever the input, the only exception is the import's own refusal (``InputFileError``); an accepted input gives
sane results: lines without line ends, trailing whitespace or control characters, system names within the rule,
every system aligned with the source, archive members as they were packed and within the limit.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import unicodedata
import warnings
import zipfile
from pathlib import PurePosixPath

import pytest
from django.db import transaction
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from annotation.models import Candidate, Document, Output, Segment, System
from annotation.services.appraise_xml import AppraiseResults, RankingItem, parse_appraise_xml, write_appraise_xml
from annotation.services.field_rules import check_system_name
from annotation.services.importing import import_outputs, read_test_set, split_archive
from annotation.services.textfiles import InputFileError, NamedFile, decode_lines, read_archive


def fuzz(examples: int):
    """Hypothesis settings of these tests: ``examples`` inputs, no deadline (the machine is shared)."""
    return settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)

#: Characters that test every rule: control characters, line ends, spaces of all kinds, a BOM, path separators,
#: dots, non-ASCII letters and symbols.
TRICKY = "\x00\x01\t\n\r\x0b\x0c\x1b\x1f\x7f\x85\xa0\u2028\u200b\ufeff\ufffd /\\.._-+&<>\"'éß語😀²"
tricky_text = st.text(alphabet=st.one_of(st.sampled_from(TRICKY), st.characters(codec="utf-8")), max_size=60)
file_bytes = st.one_of(
    tricky_text.map(lambda text: text.encode("utf-8")),
    st.binary(max_size=80),
    st.lists(tricky_text.filter(lambda t: "\n" not in t), min_size=1, max_size=5).map(
        lambda lines: ("\n".join(lines) + "\n").encode("utf-8")
    ),
)
system_names = st.one_of(
    st.sampled_from(["alpha", "beta", "lstm-r", "source+error", "A B", "../x", "a/b", ".hidden", "", "x" * 101]),
    st.text(alphabet=st.sampled_from(TRICKY + "abcXYZ019"), max_size=12),
)


def assert_sane_lines(lines: list[str]) -> None:
    for line in lines:
        assert "\n" not in line and line == line.rstrip()
        assert not any(unicodedata.category(char) == "Cc" and char != "\t" for char in line)


@fuzz(400)
@given(data=file_bytes)
def test_decode_lines_refuses_or_gives_clean_lines(data):
    try:
        lines = decode_lines(NamedFile("f", data))
    except InputFileError as error:
        assert str(error).startswith("f: ")
        return
    assert lines and not lines[0].startswith("\ufeff")
    assert_sane_lines(lines)


@fuzz(400)
@given(
    source=file_bytes,
    systems=st.lists(st.tuples(system_names, file_bytes), max_size=4),
    documents=st.none() | file_bytes,
    source_is_system=st.booleans(),
)
def test_read_test_set_refuses_or_gives_an_aligned_collapsed_test_set(source, systems, documents, source_is_system):
    files = [NamedFile(name, data) for name, data in systems]
    docs = None if documents is None else NamedFile("documents", documents)
    try:
        test_set = read_test_set(NamedFile("source", source), files, docs, source_is_system=source_is_system)
    except InputFileError:
        return
    n = len(test_set.source)
    assert_sane_lines(test_set.source)
    assert len(test_set.documents) == n and all(0 < len(doc) <= 200 for doc in test_set.documents)
    assert len(set(test_set.system_names)) == len(test_set.system_names) == len(test_set.outputs)
    for name, lines in zip(test_set.system_names, test_set.outputs):
        check_system_name(name)
        assert len(lines) == n
        assert_sane_lines(lines)
    for line, groups in enumerate(test_set.groups):
        assert sorted(i for group in groups for i in group) == list(range(len(test_set.outputs)))
        assert len({test_set.outputs[group[0]][line] for group in groups}) == len(groups)


member_names = st.one_of(
    st.sampled_from(["source", "INPUT", "documents", "alpha", "beta", "run/source", "run/alpha", "../x", "/abs/x",
                     "a/../b", ".hidden", "__MACOSX/._alpha", "A B", "dir/", "x\\y", "./source"]),
    st.text(alphabet=st.sampled_from(TRICKY + "abc"), min_size=1, max_size=12),
)
ARCHIVE_KINDS = ["zip", "zip-stored", "tar", "tar-pax", "tar.gz", "tar.bz2", "tar.xz"]


def pack(kind: str, members: list[tuple[str, bytes]]) -> bytes:
    """An archive of ``kind`` holding ``members`` in order."""
    buffer = io.BytesIO()
    if kind.startswith("zip"):
        method = zipfile.ZIP_STORED if kind == "zip-stored" else zipfile.ZIP_DEFLATED
        with zipfile.ZipFile(buffer, "w", compression=method) as archive:
            for name, data in members:
                archive.writestr(name, data)
        return buffer.getvalue()
    form = tarfile.PAX_FORMAT if kind == "tar-pax" else tarfile.GNU_FORMAT
    with tarfile.open(fileobj=buffer, mode="w", format=form) as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    compress = {"tar.gz": gzip.compress, "tar.bz2": bz2.compress, "tar.xz": lzma.compress}.get(kind)
    return compress(buffer.getvalue()) if compress else buffer.getvalue()


def assert_sane_members(members: list[NamedFile], limit: int) -> None:
    names = [member.name for member in members]
    assert members and len(set(names)) == len(names)
    for name in names:
        name.encode("utf-8")
        assert name and "/" not in name and not name.startswith(".")
    assert sum(len(member.data) for member in members) <= limit


archives = st.tuples(
    st.sampled_from(ARCHIVE_KINDS),
    st.lists(st.tuples(member_names, file_bytes), min_size=0, max_size=6),
)


def build(kind: str, members: list[tuple[str, bytes]]) -> bytes:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns of duplicate names, which the import refuses
            return pack(kind, members)
    except (ValueError, IndexError, UnicodeEncodeError):  # a name the packer itself cannot write
        assume(False)
        raise


def base_name(path: str) -> str:
    """A member's name as the import gives it: its last path part ("." parts dropped), "\\" a separator too."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    return parts[-1] if parts else ""


@fuzz(300)
@given(archive=archives, limit=st.sampled_from([300, 50 * 1024 * 1024]))
def test_read_archive_refuses_or_lists_the_packed_members(archive, limit):
    kind, members = archive
    data = build(kind, members)
    try:
        listed = read_archive(NamedFile("a", data), limit)
    except InputFileError as error:
        assert str(error).startswith("a")
        return
    assert_sane_members(listed, limit)
    # zip and ustar/GNU tar names end at a NUL byte, pax names keep it; a member's own name wins over another
    # member's name cut at its NUL byte (pax: "<" and "<\x00\x85" are two members)
    packed = {base_name(name.split("\x00")[0]): content for name, content in members}
    packed.update({base_name(name): content for name, content in members})
    for member in listed:
        assert member.data == packed[member.name]


@fuzz(300)
@given(archive=archives, cuts=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=4),
       truncate=st.none() | st.integers(0, 10**6))
def test_damaged_archives_are_refused_or_listed_sanely(archive, cuts, truncate):
    data = bytearray(build(*archive))
    for position, value in cuts:
        if data:
            data[position % len(data)] = value
    if truncate is not None and data:
        del data[truncate % len(data):]
    try:
        listed = read_archive(NamedFile("a", bytes(data)), 4096)
    except InputFileError:
        return
    assert_sane_members(listed, 4096)


@fuzz(500)
@given(prefix=st.sampled_from([b"", b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b", b"BZh9", b"\xfd7zXZ\x00", b"ustar"]),
       data=st.binary(max_size=600))
def test_random_bytes_are_refused_as_an_archive(prefix, data):
    try:
        listed = read_archive(NamedFile("a", prefix + data), 4096)
    except InputFileError:
        return
    assert_sane_members(listed, 4096)


@fuzz(200)
@given(archive=archives, source_is_system=st.booleans())
def test_split_archive_and_read_test_set_refuse_or_give_a_test_set(archive, source_is_system):
    kind, members = archive
    try:
        source, systems, documents = split_archive(
            NamedFile("a", build(kind, members)), source_is_system=source_is_system
        )
        test_set = read_test_set(source, systems, documents)
    except InputFileError:
        return
    assert len(test_set.outputs) == len(test_set.system_names) >= 1
    assert all(len(lines) == len(test_set.source) for lines in test_set.outputs)


@pytest.mark.django_db
@fuzz(100)
@given(
    source=file_bytes,
    systems=st.lists(st.tuples(system_names, file_bytes), min_size=1, max_size=3),
    documents=st.none() | file_bytes,
    name=st.text(alphabet=st.sampled_from(TRICKY + "abc"), max_size=8),
)
def test_an_import_refuses_or_stores_exactly_what_it_read(source, systems, documents, name):
    files = [NamedFile(system, data) for system, data in systems]
    docs = None if documents is None else NamedFile("documents", documents)
    with transaction.atomic():
        try:
            campaign = import_outputs(name or "fuzz", NamedFile("source", source), files, docs)
        except InputFileError:
            assert not Segment.objects.exists() and not System.objects.exists()
            return
        test_set = read_test_set(NamedFile("source", source), files, docs)
        assert list(campaign.segments.order_by("line").values_list("source", flat=True)) == test_set.source
        assert sorted(campaign.systems.values_list("name", flat=True)) == sorted(test_set.system_names)
        assert set(Document.objects.filter(campaign=campaign).values_list("name", flat=True)) == set(
            test_set.documents)
        for system, lines in zip(test_set.system_names, test_set.outputs):
            stored = Output.objects.filter(system__name=system, system__campaign=campaign).order_by("segment__line")
            assert list(stored.values_list("candidate__text", flat=True)) == lines
        assert Candidate.objects.filter(segment__campaign=campaign).count() == sum(map(len, test_set.groups))
        transaction.set_rollback(True)


def accepted_system_name(name: str) -> bool:
    try:
        check_system_name(name)
    except InputFileError:
        return False
    return True


@fuzz(150)
@given(groups=st.lists(
    st.lists(st.text(alphabet=st.sampled_from(TRICKY + "abcXYZ019"), min_size=1, max_size=8)
             .filter(accepted_system_name), min_size=1, max_size=3, unique=True),
    min_size=1, max_size=4,
))
def test_every_accepted_system_name_survives_the_appraise_xml_round_trip(groups):
    translations = [(tuple(group), rank) for rank, group in enumerate(groups, 1)]
    item = RankingItem(id="1", doc_id="d", src_id=0, user="ann", duration=None, skipped=False,
                       translations=translations, group="g")
    parsed = parse_appraise_xml(write_appraise_xml(AppraiseResults(items=[item])).encode("utf-8"))
    assert [t for item in parsed.items for t in item.translations] == translations
