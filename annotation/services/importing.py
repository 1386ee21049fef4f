"""Importing a campaign's test set: the source, N aligned system outputs and an optional document index.

``read_test_set`` checks everything (names, encodings, line counts, sizes) and builds the collapsed test set in
memory; ``create_campaign`` writes it in one transaction, so an import either succeeds whole or writes nothing.
The archive and form front ends only decide which uploaded file plays which part.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from gecappraise.plurals import counted

from ..models import Campaign, Candidate, Document, Output, Segment, System
from .bulk_rows import insert_rows, insert_rows_with_ids
from .collapsing import collapse_outputs
from .field_rules import (
    check_campaign_name,
    check_distinct_system_names,
    check_system_name,
    composed,
    document_id_problem,
)
from .textfiles import InputFileError, NamedFile, blank_lines_at_the_end, check_size, decode_lines, read_archive

#: Names an archive's source file and document index may have (the first present wins).
SOURCE_NAMES = ("source", "source.txt", "src", "src.txt", "INPUT")
DOCUMENT_NAMES = ("documents", "documents.txt", "doc_ids", "doc_ids.txt", "docs", "docs.txt")


#: What a system file named like the source file must be, as the refusals say.
SOURCE_AS_SYSTEM_RULE = (
    "only the source file itself (the same content) is judged as the system of kind 'input'; rename the system "
    "file to judge it as a system of its own"
)


def is_the_source(source: NamedFile, file: NamedFile) -> bool:
    """Whether ``file`` is the source file itself: the same bytes (a copy of it is the same file)."""
    return file.data == source.data


@dataclass
class TestSet:
    """A checked, collapsed test set, ready to be written.

    ``groups[i]`` lists, for line i, the candidates as groups of system indices (METHODS 1).
    """

    source: list[str]
    documents: list[str]
    system_names: list[str]
    system_kinds: list[str]
    outputs: list[list[str]]
    groups: list[list[list[int]]] = field(default_factory=list)

    def distinct_histogram(self) -> dict[str, int]:
        """Number of sentences by number of distinct outputs (G15 Figure 1)."""
        counts = Counter(len(groups) for groups in self.groups)
        return {str(k): counts[k] for k in sorted(counts)}

    def unchanged(self) -> list[int]:
        """Per system, how many of its outputs are the source sentence itself: those whose candidate (the text of
        its group's first output, as written) equals the source."""
        counts = [0] * len(self.system_names)
        for line, groups in enumerate(self.groups):
            for group in groups:
                if self.outputs[group[0]][line] == self.source[line]:
                    for index in group:
                        counts[index] += 1
        return counts


def check_system_names(source_name: str, names: Sequence[str], source_is_system: bool) -> None:
    """Refuse (InputFileError) system names outside ``field_rules.SYSTEM_NAME_RULE`` or given twice: the system
    files' names, and the source file's when the source is judged as a system of its own."""
    judged_source = [source_name] if source_is_system and source_name not in names else []
    for name in [*names, *judged_source]:
        check_system_name(name)
    check_distinct_system_names([*names, *judged_source])


def read_test_set(
    source: NamedFile,
    systems: Sequence[NamedFile],
    documents: NamedFile | None = None,
    *,
    source_is_system: bool = False,
) -> TestSet:
    """Check and collapse a test set; raise InputFileError naming the file at fault.

    Systems are named by their file names. ``source_is_system`` judges the source too, as a system of kind
    ``input`` named after the source file (it is implied when one of ``systems`` is the source file itself). A
    system file with the source file's name must be the source file itself (the same bytes): another file of that
    name is refused, never judged as the source.
    """
    limit = settings.MAX_UPLOAD_BYTES
    for file in (source, *systems, *([documents] if documents else [])):
        check_size(file.name, len(file.data), limit)
    if not systems and not source_is_system:
        raise InputFileError("no system output files were given")
    names = [file.name for file in systems]
    check_system_names(source.name, names, source_is_system)
    source_lines = decode_lines(source)
    n = len(source_lines)
    outputs, kinds = [], []
    for file in systems:
        if file.name == source.name and not is_the_source(source, file):
            raise InputFileError(
                f"{file.name}: this system file has the name of the source file ({source.name}) but not its "
                f"content; {SOURCE_AS_SYSTEM_RULE}"
            )
        lines = decode_lines(file)
        if len(lines) != n:
            raise _line_count_mismatch(file.name, lines, source.name, source_lines)
        outputs.append(lines)
        kinds.append(System.Kind.INPUT if file.name == source.name else System.Kind.SYSTEM)
    if source_is_system and source.name not in names:
        names.append(source.name)
        outputs.append(source_lines)
        kinds.append(System.Kind.INPUT)
    doc_ids = _document_ids(documents, source_lines, source.name)
    groups = [collapse_outputs([column[i] for column in outputs]) for i in range(n)]
    return TestSet(source_lines, doc_ids, names, kinds, outputs, groups)


def _line_count_mismatch(name: str, lines: list[str], source_name: str, source: list[str]) -> InputFileError:
    """The error for the file ``name`` whose ``lines`` are not as many as the ``source``'s lines, saying which file's
    last lines are empty where that is the difference (``blank_lines_at_the_end``)."""
    return InputFileError(
        f"{name}: {counted(len(lines), 'line')}, but the source file ({source_name}) has "
        f"{counted(len(source), 'line')}{blank_lines_at_the_end(name, lines, source_name, source)}"
    )


def _document_ids(documents: NamedFile | None, source_lines: list[str], source_name: str) -> list[str]:
    """One document id per line, without the whitespace around it; the whole file is one document without an
    index. Documents must be contiguous, and a document's id written the same way on each of its lines: two ids
    equal but for the whitespace around them or inside them, or for how their accents are encoded (Unicode
    composed or decomposed), are refused, naming both lines, rather than taken as one document (stripped) or as
    two that look the same."""
    n = len(source_lines)
    if documents is None:
        return ["document"] * n
    written = decode_lines(documents, keep_trailing_whitespace=True)
    ids = [line.strip() for line in written]
    if len(ids) != n:
        raise _line_count_mismatch(documents.name, ids, source_name, source_lines)
    first_written: dict[str, tuple[str, int]] = {}
    for line, doc_id in enumerate(ids):
        if not doc_id:
            raise InputFileError(f"{documents.name}: line {line + 1} has no document id")
        known = _looks_the_same(doc_id) in first_written
        first, first_line = first_written.setdefault(_looks_the_same(doc_id), (written[line], line))
        if first != written[line]:
            raise InputFileError(
                f"{documents.name}: line {line + 1}: the document id {written[line]!r} is {first!r} of line "
                f"{first_line + 1} written otherwise (in spaces, or in how its accents are encoded); write a "
                "document's id the same way on each of its lines"
            )
        if not known and (problem := document_id_problem(doc_id)):
            raise InputFileError(f"{documents.name}: line {line + 1}: {problem}")
        if known and ids[line - 1] != doc_id:
            raise InputFileError(
                f"{documents.name}: document {doc_id!r} appears again at line {line + 1} after other documents "
                "(the lines of a document must be contiguous)"
            )
    return ids


def _looks_the_same(doc_id: str) -> str:
    """What two document ids share when a reader sees one id: its words, one space apart, accents composed."""
    return composed(" ".join(doc_id.split()))


def split_archive(
    archive: NamedFile, source_name: str | None = None, *, source_is_system: bool = True
) -> tuple[NamedFile, list[NamedFile], NamedFile | None]:
    """Decide the parts of an archive: (source, systems, documents).

    The source is the member named ``source_name`` or, by default, the one of SOURCE_NAMES present; the
    document index is the one of DOCUMENT_NAMES present; every other file is a system. Two members of
    SOURCE_NAMES (unless ``source_name`` is given) or of DOCUMENT_NAMES are refused: which is which would be a
    guess, and the other would be judged as a system. With ``source_is_system`` the source is judged too (as G15
    judged INPUT).
    """
    members = read_archive(archive, settings.MAX_UPLOAD_BYTES)
    by_name = {member.name: member for member in members}
    wanted = [source_name] if source_name else list(SOURCE_NAMES)
    sources = [name for name in wanted if name in by_name]
    if not sources:
        raise InputFileError(
            f"{archive.name}: no source file (looked for {', '.join(wanted)}; the archive holds "
            f"{', '.join(sorted(by_name))})"
        )
    if len(sources) > 1:
        raise InputFileError(
            f"{archive.name}: {sources[0]!r} and {sources[1]!r} are both names of a source file; name the archive's "
            "source file (the form's 'Source name', source_name in the API)"
        )
    found = sources[0]
    indexes = [name for name in DOCUMENT_NAMES if name in by_name]
    if len(indexes) > 1:
        raise InputFileError(
            f"{archive.name}: {indexes[0]!r} and {indexes[1]!r} are both names of a document index; an archive "
            "holds one (rename the other if it is a system)"
        )
    doc_name = indexes[0] if indexes else None
    source = by_name[found]
    systems = [m for m in members if m.name != doc_name and (source_is_system or m.name != found)]
    return source, systems, by_name.get(doc_name) if doc_name else None


#: A share of control screens without the source among the systems: no screen could ever be added
#: (``controls.require_source``), and the settings are not changed after the campaign is made.
CONTROLS_NEED_THE_SOURCE = (
    "control screens show the source beside Source+error: judge the source too (“Judge the source too”, "
    "source_is_system in the API) or set the share of control screens to 0"
)


def create_campaign(name: str, test_set: TestSet, **options: Any) -> Campaign:
    """Write a new campaign with its test set in one transaction; ``options`` are Campaign fields. Raises
    InputFileError, writing nothing, for a name in use or a share of control screens without the source judged."""
    name = name.strip()
    if not name:
        raise InputFileError("the campaign needs a name")
    check_campaign_name(name)
    exists = InputFileError(f"a campaign named {name!r} exists already")
    with transaction.atomic():
        if Campaign.objects.filter(name=name).exists():
            raise exists
        campaign = Campaign(name=name, distinct_histogram=test_set.distinct_histogram(), **options)
        campaign.full_clean(exclude=["owner"])
        if campaign.control_share > 0 and System.Kind.INPUT not in test_set.system_kinds:
            raise InputFileError(CONTROLS_NEED_THE_SOURCE)
        try:
            with transaction.atomic():
                campaign.save()
        except IntegrityError:
            # Another request made a campaign of this name since the check above (it waited for that one's commit).
            if Campaign.objects.filter(name=name).exists():
                raise exists from None
            raise
        _write_test_set(campaign, test_set)
    return campaign


def _write_test_set(campaign: Campaign, test_set: TestSet) -> None:
    systems = System.objects.bulk_create(
        System(campaign=campaign, name=name, kind=kind, unchanged=unchanged)
        for name, kind, unchanged in zip(test_set.system_names, test_set.system_kinds, test_set.unchanged())
    )
    doc_order = list(dict.fromkeys(test_set.documents))
    documents = {
        doc.name: doc
        for doc in Document.objects.bulk_create(
            Document(campaign=campaign, name=doc_id, position=i) for i, doc_id in enumerate(doc_order)
        )
    }
    positions: Counter[str] = Counter()
    segment_rows = []
    for line, (text, doc_id, groups) in enumerate(zip(test_set.source, test_set.documents, test_set.groups)):
        multiplicities = [len(group) for group in groups]
        segment_rows.append((campaign.pk, documents[doc_id].pk, positions[doc_id], line, text, multiplicities))
        positions[doc_id] += 1
    segment_ids = insert_rows_with_ids(
        Segment, ("campaign", "document", "position", "line", "source", "multiplicities"), segment_rows
    )
    candidate_rows, members = [], []
    for segment_id, line, groups in zip(segment_ids, range(len(segment_ids)), test_set.groups):
        for group in groups:
            candidate_rows.append((segment_id, test_set.outputs[group[0]][line]))
            members.append((segment_id, group))
    candidate_ids = insert_rows_with_ids(Candidate, ("segment", "text"), candidate_rows)
    system_ids = [system.pk for system in systems]
    insert_rows(
        Output,
        ("segment", "system", "candidate"),
        (
            (segment_id, system_ids[index], candidate_id)
            for candidate_id, (segment_id, group) in zip(candidate_ids, members)
            for index in group
        ),
    )


def import_test_set(
    name: str,
    files: Sequence[tuple[str, NamedFile]],
    *,
    source_name: str | None = None,
    source_is_system: bool = True,
    **options: Any,
) -> Campaign:
    """A new campaign from the files of the campaign form or the API, each with the field it came in: one
    ``archive`` (its parts decided by :func:`split_archive`), or a ``source``, the ``systems`` and an optional
    ``documents`` index. ``options`` are Campaign fields. Raises InputFileError (nothing written)."""
    by_field: dict[str, list[NamedFile]] = {"archive": [], "source": [], "systems": [], "documents": []}
    for field_name, named in files:
        by_field[field_name].append(named)
    if by_field["archive"]:
        source, systems, documents = split_archive(
            by_field["archive"][0], source_name or None, source_is_system=source_is_system
        )
        return create_campaign(name, read_test_set(source, systems, documents), **options)
    if not by_field["source"]:
        raise InputFileError("the source file is missing")
    documents = by_field["documents"][0] if by_field["documents"] else None
    return import_outputs(
        name, by_field["source"][0], by_field["systems"], documents, source_is_system=source_is_system, **options
    )


def import_outputs(
    name: str,
    source: NamedFile,
    systems: Sequence[NamedFile],
    documents: NamedFile | None = None,
    *,
    source_is_system: bool = False,
    **options: Any,
) -> Campaign:
    """Check, collapse and write a test set as a new campaign (``manage.py import_outputs``, forms, API)."""
    test_set = read_test_set(source, systems, documents, source_is_system=source_is_system)
    return create_campaign(name, test_set, **options)
