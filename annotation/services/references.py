"""Importing a campaign's references for automatic metrics: M2 gold edits and corrected reference texts.

An M2 file (Dahlmeier and Ng 2012) has one block per sentence, blocks separated by empty lines: an ``S`` line
with the tokenized source, then ``A start end|||type|||correction|||REQUIRED|||-NONE-|||annotator`` lines, the
corrections of one edit separated by ``||``, ``-NONE-`` for an empty correction, ``A -1 -1|||noop|||...`` for an
annotator who found nothing to correct. A reference text has the corrected sentence of line i on line i.

``read_references`` checks everything against the campaign's source lines before anything is written and raises
``InputFileError`` naming the file and line; ``import_references`` writes in one transaction.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.template.defaultfilters import pluralize

from gecappraise.plurals import counted

from ..models import Campaign, GoldEdit, ReferenceSet, ReferenceText
from .field_rules import check_system_name, same_name_key
from .textfiles import InputFileError, NamedFile, blank_lines_at_the_end, check_size, decode_lines, shown

ERROR_TYPE_MAX = GoldEdit._meta.get_field("error_type").max_length
#: Longest correction of one gold edit, in characters.
CORRECTION_MAX = 1000
#: Most corrections one gold edit may list, and most edits one sentence may have.
CORRECTIONS_PER_EDIT_MAX = 50
EDITS_PER_SENTENCE_MAX = 1000
#: Annotator ids are small non-negative integers (M2 files number annotators 0, 1, ...).
ANNOTATOR_MAX = 99
_ASCII_INT = re.compile(r"-?[0-9]{1,6}")
#: An annotator id as a number is written: its digits, no leading zero, no sign ("01" and "-0" are not).
_CANONICAL_ID = re.compile(r"0|[1-9][0-9]*")


@dataclass(frozen=True)
class ParsedEdit:
    """One checked ``A`` line; ``start == end == -1`` for a noop."""

    annotator: int
    start: int
    end: int
    error_type: str
    corrections: tuple[str, ...]


@dataclass
class References:
    """Checked references, ready to be written: the M2 gold (edits per segment line, or None) and texts by name."""

    m2_name: str | None = None
    gold: list[list[ParsedEdit]] | None = None
    annotators: list[int] = field(default_factory=list)
    texts: dict[str, list[str]] = field(default_factory=dict)


def _blocks(name: str, lines: list[str]) -> list[list[tuple[int, str]]]:
    """Blocks of (line number, line), separated by one or more empty lines."""
    blocks: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    for number, line in enumerate(lines, 1):
        if line.strip() == "":
            if current:
                blocks.append(current)
                current = []
            continue
        current.append((number, line))
    if current:
        blocks.append(current)
    if not blocks:
        raise InputFileError(f"{name}: no sentence (an M2 file starts each sentence with an 'S' line)")
    return blocks


def _integer(name: str, number: int, text: str, what: str) -> int:
    if not _ASCII_INT.fullmatch(text):
        raise InputFileError(f"{name}: line {number}: the {what} {shown(text)} is not a whole number")
    return int(text)


def _annotator(name: str, number: int, text: str) -> int:
    """The annotator id of an edit line, a whole number written as numbers are: an annotator is known by its id,
    and '01' (or '-0') would be the annotator '1' (or '0') of other lines without a word."""
    annotator = _integer(name, number, text, "annotator id")
    if annotator >= 0 and not _CANONICAL_ID.fullmatch(text):
        raise InputFileError(
            f"{name}: line {number}: the annotator id {shown(text)} is not written as a number is (0, 1, 2, ..., no "
            f"leading zeros, no sign): {shown(text)} and '{annotator}' would be one annotator"
        )
    return annotator


def _parse_edit(name: str, number: int, line: str, tokens: int) -> ParsedEdit:
    """One ``A`` line of a sentence of ``tokens`` tokens."""
    if not line.startswith("A "):
        raise InputFileError(
            f"{name}: line {number}: an edit line starts with 'A ' and the span ('A start end|||type|||...'), found "
            f"{shown(line.split('|||', 1)[0], 20)}"
        )
    fields = line[2:].split("|||")
    if len(fields) != 6:
        raise InputFileError(
            f"{name}: line {number}: an edit line is 'A start end|||type|||correction|||REQUIRED|||-NONE-|||"
            f"annotator' (6 fields separated by |||), found {len(fields)} field(s)"
        )
    span, error_type, correction_field, _, _, annotator_field = fields
    offsets = span.split()
    if len(offsets) != 2:
        raise InputFileError(f"{name}: line {number}: the span {shown(span)} is not two token offsets 'start end'")
    start = _integer(name, number, offsets[0], "start offset")
    end = _integer(name, number, offsets[1], "end offset")
    error_type = error_type.strip()
    if not error_type or len(error_type) > ERROR_TYPE_MAX or not error_type.isprintable():
        raise InputFileError(
            f"{name}: line {number}: the error type {shown(error_type)} must be 1 to {ERROR_TYPE_MAX} printable "
            "characters"
        )
    annotator = _annotator(name, number, annotator_field.strip())
    if not 0 <= annotator <= ANNOTATOR_MAX:
        raise InputFileError(
            f"{name}: line {number}: the annotator id {annotator} is not between 0 and {ANNOTATOR_MAX}"
        )
    if error_type == "noop":
        if (start, end) != (-1, -1):
            raise InputFileError(f"{name}: line {number}: a noop edit has the span '-1 -1', found '{start} {end}'")
        return ParsedEdit(annotator, -1, -1, error_type, ())
    if not 0 <= start <= end <= tokens:
        raise InputFileError(
            f"{name}: line {number}: the span {start} {end} is outside the sentence (0 <= start <= end <= "
            f"{counted(tokens, 'token')})"
        )
    corrections = correction_field.split("||")
    if len(corrections) > CORRECTIONS_PER_EDIT_MAX:
        raise InputFileError(
            f"{name}: line {number}: {len(corrections)} corrections, over the limit of {CORRECTIONS_PER_EDIT_MAX}"
        )
    checked = []
    for correction in corrections:
        correction = "" if correction == "-NONE-" else correction.strip()
        if len(correction) > CORRECTION_MAX:
            raise InputFileError(
                f"{name}: line {number}: a correction of {len(correction)} characters, over the limit of "
                f"{CORRECTION_MAX}"
            )
        if not correction.replace(" ", "").isprintable():
            raise InputFileError(
                f"{name}: line {number}: the correction {shown(correction)} holds a non-printable character"
            )
        checked.append(correction)
    return ParsedEdit(annotator, start, end, error_type, tuple(checked))


def _check_annotators(name: str, numbered: list[tuple[int, ParsedEdit]]) -> None:
    """Within a sentence, an annotator's lines are contiguous and a noop is that annotator's only line."""
    finished: set[int] = set()
    previous = None
    counts: dict[int, int] = {}
    noops: dict[int, int] = {}
    for number, edit in numbered:
        if edit.annotator != previous:
            if edit.annotator in finished:
                raise InputFileError(
                    f"{name}: line {number}: annotator {edit.annotator}'s edits of this sentence are not together "
                    "(each annotator's lines follow one another)"
                )
            if previous is not None:
                finished.add(previous)
            previous = edit.annotator
        counts[edit.annotator] = counts.get(edit.annotator, 0) + 1
        if edit.error_type == "noop":
            noops[edit.annotator] = number
    for annotator, number in noops.items():
        if counts[annotator] > 1:
            raise InputFileError(
                f"{name}: line {number}: annotator {annotator} has a noop edit and other edits in the same sentence"
            )


def parse_m2(file: NamedFile, source_lines: Sequence[str]) -> tuple[list[list[ParsedEdit]], list[int]]:
    """The gold edits of each source line and the annotator ids (ascending) of an M2 file.

    The file must have one block per source line, each starting with one ``S`` line whose tokens equal that
    source line's (the first that differs is named); offsets must lie inside the sentence. Raises
    ``InputFileError`` naming the file and line.
    """
    name = file.name
    blocks = _blocks(name, decode_lines(file))
    gold: list[list[ParsedEdit]] = []
    annotators: set[int] = set()
    for index, block in enumerate(blocks):
        number, first = block[0]
        if not (first == "S" or first.startswith("S ")):
            raise InputFileError(f"{name}: line {number}: a sentence starts with an 'S' line, found {first[:40]!r}")
        if index >= len(source_lines):
            raise InputFileError(
                f"{name}: line {number}: sentence {index + 1}, but the campaign's source has "
                f"{counted(len(source_lines), 'line')}"
            )
        tokens = first[2:].split()
        if tokens != source_lines[index].split():
            raise InputFileError(
                f"{name}: line {number}: sentence {index + 1} differs from the campaign's source line {index + 1} "
                f"({' '.join(tokens)[:80]!r} against {source_lines[index][:80]!r})"
            )
        if len(block) - 1 > EDITS_PER_SENTENCE_MAX:
            raise InputFileError(
                f"{name}: line {number}: {len(block) - 1} edits, "
                f"over the limit of {EDITS_PER_SENTENCE_MAX} per sentence"
            )
        numbered = []
        for edit_number, line in block[1:]:
            if line == "S" or line.startswith("S "):
                raise InputFileError(
                    f"{name}: line {edit_number}: a second 'S' line in one sentence (separate sentences by an empty "
                    "line)"
                )
            numbered.append((edit_number, _parse_edit(name, edit_number, line, len(tokens))))
        _check_annotators(name, numbered)
        annotators.update(edit.annotator for _, edit in numbered)
        gold.append([edit for _, edit in numbered])
    if len(blocks) != len(source_lines):
        raise InputFileError(
            f"{name}: {counted(len(blocks), 'sentence')}, but the campaign's source has "
            f"{counted(len(source_lines), 'line')}"
        )
    return gold, sorted(annotators)


def parse_reference_text(file: NamedFile, source_lines: Sequence[str]) -> list[str]:
    """The corrected sentences of a reference text file, one per source line."""
    lines = decode_lines(file)
    if len(lines) != len(source_lines):
        note = blank_lines_at_the_end(file.name, lines, "the campaign's source", source_lines)
        raise InputFileError(
            f"{file.name}: {counted(len(lines), 'line')}, but the campaign's source has {len(source_lines)}{note}"
        )
    return lines


def read_references(
    campaign: Campaign, m2: NamedFile | None = None, texts: Sequence[NamedFile] = ()
) -> References:
    """Check an M2 file and reference texts against ``campaign``'s source; nothing is written.

    Reference sets are named after their files (the rule of system names, names equal but for letter case or the
    encoding of accents being one name); a name the campaign holds already, two files of one name, or a second M2
    file are refused.
    """
    if m2 is None and not texts:
        raise InputFileError("no reference given (an M2 file, reference text files, or both)")
    limit = settings.MAX_UPLOAD_BYTES
    files = [*([m2] if m2 else []), *texts]
    for file in files:
        check_size(file.name, len(file.data), limit)
        check_system_name(file.name)
    names = [file.name for file in files]
    keys = Counter(same_name_key(name) for name in names)
    repeated = sorted({name for name in names if keys[same_name_key(name)] > 1})
    if repeated:
        raise InputFileError(f"several reference files are named {', '.join(repeated)} (names equal but for letter "
                             "case or the encoding of accents are one name)")
    existing = {same_name_key(name): name for name in campaign.reference_sets.values_list("name", flat=True)}
    taken = sorted(name for name in names if same_name_key(name) in existing)
    if taken:
        held = existing[same_name_key(taken[0])]
        raise InputFileError(f"{taken[0]}: the campaign holds a reference set of this name already"
                             + ("" if held == taken[0] else f" ({held!r})"))
    if m2 is not None and campaign.reference_sets.filter(kind=ReferenceSet.Kind.M2).exists():
        raise InputFileError(f"{m2.name}: the campaign holds M2 gold edits already (one M2 file per campaign)")
    source_lines = list(campaign.segments.order_by("line").values_list("source", flat=True))
    references = References()
    if m2 is not None:
        references.m2_name = m2.name
        references.gold, references.annotators = parse_m2(m2, source_lines)
    for file in texts:
        references.texts[file.name] = parse_reference_text(file, source_lines)
    return references


def write_references(campaign: Campaign, references: References) -> list[ReferenceSet]:
    """Write checked references in one transaction; returns the new reference sets."""
    segment_ids = list(campaign.segments.order_by("line").values_list("id", flat=True))
    created = []
    with transaction.atomic():
        if references.gold is not None:
            reference_set = ReferenceSet.objects.create(
                campaign=campaign, name=references.m2_name, kind=ReferenceSet.Kind.M2,
                annotators=references.annotators,
            )
            GoldEdit.objects.bulk_create(
                GoldEdit(
                    reference_set=reference_set, segment_id=segment_id, position=position, annotator=edit.annotator,
                    start=edit.start, end=edit.end, error_type=edit.error_type, corrections=list(edit.corrections),
                )
                for segment_id, edits in zip(segment_ids, references.gold)
                for position, edit in enumerate(edits)
            )
            created.append(reference_set)
        for name, lines in references.texts.items():
            reference_set = ReferenceSet.objects.create(campaign=campaign, name=name, kind=ReferenceSet.Kind.TEXT)
            ReferenceText.objects.bulk_create(
                ReferenceText(reference_set=reference_set, segment_id=segment_id, text=text)
                for segment_id, text in zip(segment_ids, lines)
            )
            created.append(reference_set)
    return created


def import_references(
    campaign: Campaign, m2: NamedFile | None = None, texts: Sequence[NamedFile] = ()
) -> list[ReferenceSet]:
    """Check and write references (``manage.py import_references``, the API): all of them or nothing.

    The campaign row is locked meanwhile, so two imports cannot both pass the checks of names.
    """
    with transaction.atomic():
        Campaign.objects.select_for_update().get(pk=campaign.pk)
        return write_references(campaign, read_references(campaign, m2, texts))


def reference_summary(reference_set: ReferenceSet) -> str:
    """What an import added, as ``import_references`` and the campaign page say it: the gold edits and their
    annotators of an M2 set, the sentences of a text set."""
    if reference_set.kind == ReferenceSet.Kind.M2:
        edits, annotators = reference_set.gold_edits.exclude(start=-1).count(), reference_set.annotators
        return (
            f"{counted(edits, 'gold edit')} of annotator{pluralize(len(annotators))} "
            f"{', '.join(map(str, annotators))}"
        )
    sentences = reference_set.texts.count()
    return counted(sentences, "corrected sentence")
