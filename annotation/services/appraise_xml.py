"""Appraise XML: the format in which Appraise exports relative-ranking judgments (``judgments.xml`` of G15).

Schema (as in ``../shared/data/conll14/judgments.xml``)::

    <appraise-results>
      <error-correction-ranking-result id=".." source-language="err" target-language="cor">
        <ranking-item doc-id=".." duration="HH:MM:SS.ffffff" id=".." src-id="N" user=".." [skipped="true"]>
          <translation rank="R" system="A B C"/>   (one per shown candidate; several systems = one collapsed output)
        </ranking-item>
      </error-correction-ranking-result>
    </appraise-results>

``src-id`` is the 0-based line number of the judged sentence; ``rank`` is 1 (best) .. M (worst), ties allowed; an item
with ``skipped="true"`` has no translations (the judge flagged it). This module parses and writes that text; it knows
nothing of the database (see ``appraise_import`` for that).

Parsing streams the file through defusedxml's SAX parser (no document type declaration, no entities, no external
references; memory holds the items, never a tree of the document) and checks every attribute it keeps before
anything reaches the database: numbers are ASCII digits within range, names and ids are within the lengths of the
columns that store them (``FIELD_LIMITS``) and hold no control characters, ``user`` is a valid username, a
result's languages, when given, are not empty. A bad attribute raises ``AppraiseXMLError`` naming the item and its line.
"""
from __future__ import annotations

import codecs
import io
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import BinaryIO
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler
from xml.sax.saxutils import quoteattr
from xml.sax.xmlreader import AttributesImpl, InputSource

from defusedxml import DefusedXmlException, DTDForbidden
from defusedxml.expatreader import DefusedExpatParser
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError

from .textfiles import human_size, shown

ROOT_TAG = "appraise-results"
RESULT_TAG = "error-correction-ranking-result"
ITEM_TAG = "ranking-item"
TRANSLATION_TAG = "translation"

#: The most characters each stored attribute may have: the sizes of the columns that keep them (checked against
#: the models in the tests): item id, doc-id and result id in Judgment, languages in Campaign, user names, systems.
FIELD_LIMITS = {
    "id": 100, "doc-id": 200, "group": 200, "source-language": 32, "target-language": 32, "user": 150, "system": 100,
}
#: src-id: a line number of at most 9 digits; rank: at most 2 digits (M is at most 10); duration: hours of at most
#: 6 digits. ASCII digits only: ``"²".isdigit()`` is true, but ``int("²")`` fails.
_SRC_ID = re.compile(r"[0-9]{1,9}")
_RANK = re.compile(r"[0-9]{1,2}")
_DURATION = re.compile(r"([0-9]{1,6}):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]{1,6}))?")
_username = UnicodeUsernameValidator()


class AppraiseXMLError(ValueError):
    """The file is not valid Appraise ranking XML; the message says where and why."""


@dataclass(frozen=True)
class RankingItem:
    """One ``ranking-item``: a judge's ranking of the candidates of one screen.

    ``line`` is where the item starts in the file it was parsed from (None for items made otherwise); it is not
    part of an item's identity (two equal items may sit on different lines).
    """

    id: str
    doc_id: str
    src_id: int
    user: str
    duration: timedelta | None
    skipped: bool
    translations: list[tuple[tuple[str, ...], int]]
    group: str = ""
    line: int | None = field(default=None, compare=False)

    def where(self) -> str:
        """The item as messages name it: its id, its line in the file (when known), its user and src-id."""
        at = f"line {self.line}, " if self.line is not None else ""
        return f"ranking-item id={shown(self.id)} ({at}user {self.user}, src-id {self.src_id})"


@dataclass
class AppraiseResults:
    """A parsed file: its items in document order, each result group's attributes by its id, and the file's
    ``languages``: its ``source-language`` and ``target-language`` as the results that give them give them (every
    result that gives one gives the same; a result may leave them out)."""

    items: list[RankingItem] = field(default_factory=list)
    groups: dict[str, dict[str, str]] = field(default_factory=dict)
    languages: dict[str, str] = field(default_factory=dict)


def parse_duration(text: str) -> timedelta:
    """Parse Appraise's ``HH:MM:SS.ffffff`` (fraction optional, at most 999999 hours) into a timedelta."""
    match = _DURATION.fullmatch(text.strip())
    if not match:
        raise ValueError(f"duration {shown(text)} is not HH:MM:SS.ffffff (at most 999999 hours)")
    hours, minutes, seconds, fraction = match.groups()
    micros = int((fraction or "0").ljust(6, "0"))
    return timedelta(hours=int(hours), minutes=int(minutes), seconds=int(seconds), microseconds=micros)


def format_duration(value: timedelta) -> str:
    """Format a timedelta as Appraise does: ``HH:MM:SS.ffffff``, and ``HH:MM:SS`` when there is no fraction."""
    total = int(value.total_seconds() // 1)
    micros = value.microseconds
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    whole = f"{hours:02d}:{minutes:02d}:{seconds:02d}"
    return f"{whole}.{micros:06d}" if micros else whole


def _text(value: str, name: str, where: str, required: bool = False) -> str:
    """An identifier attribute: at most its column's length, no control characters (and not empty if required)."""
    limit = FIELD_LIMITS[name]
    if len(value) > limit:
        raise AppraiseXMLError(f"{where}: {name} {shown(value)} is longer than {limit} characters")
    if required and not value:
        raise AppraiseXMLError(f"{where}: {name} is empty")
    bad = next((char for char in value if unicodedata.category(char) == "Cc"), None)
    if bad is not None:
        raise AppraiseXMLError(f"{where}: {name} {shown(value)} holds the control character U+{ord(bad):04X}")
    return value


def _language(value: str, name: str, where: str) -> str:
    """A result's ``source-language`` or ``target-language``: an identifier attribute (``_text``) that says
    something; an empty one (or only spaces) is refused, as the campaign would take it as its language and export
    every judgment with it."""
    if not value.strip():
        raise AppraiseXMLError(
            f"{where}: {name} {shown(value)} is empty; name the language (e.g. {name}=\"err\") or leave the "
            "attribute out"
        )
    return _text(value, name, where)


def _user(value: str, where: str) -> str:
    if not 1 <= len(value) <= FIELD_LIMITS["user"]:
        raise AppraiseXMLError(f"{where}: user {shown(value)} must have 1 to {FIELD_LIMITS['user']} characters")
    try:
        _username(value)
    except ValidationError:
        raise AppraiseXMLError(
            f"{where}: user {shown(value)} is not a valid username (letters, digits and @ . + - _ only)"
        ) from None
    return value


class _Item:
    """A ranking item being read: its checked attributes and the translations read so far."""

    def __init__(self, attrs: AttributesImpl, group: str, line: int, number: int):
        self.where = f"ranking-item #{number} (id={shown(attrs.get('id', ''))}, line {line})"
        self.line, self.group = line, group
        self.id = _text(self._required(attrs, "id"), "id", self.where, required=True)
        self.user = _user(self._required(attrs, "user"), self.where)
        src = self._required(attrs, "src-id")
        if not _SRC_ID.fullmatch(src):
            raise AppraiseXMLError(f"{self.where}: src-id {shown(src)} is not a line number (0 to 999999999)")
        self.src_id = int(src)
        self.doc_id = _text(attrs.get("doc-id", ""), "doc-id", self.where)
        duration = attrs.get("duration")
        try:
            self.duration = parse_duration(duration) if duration else None
        except ValueError as exc:
            raise AppraiseXMLError(f"{self.where}: {exc}") from None
        skipped = attrs.get("skipped", "false")
        if skipped.lower() not in ("true", "false"):
            raise AppraiseXMLError(f"{self.where}: skipped {shown(skipped)} is neither true nor false")
        self.skipped = skipped.lower() == "true"
        self.translations: list[tuple[tuple[str, ...], int]] = []

    def _required(self, attrs: AttributesImpl, name: str) -> str:
        value = attrs.get(name)
        if value is None:
            raise AppraiseXMLError(f"{self.where}: missing attribute {name!r}")
        return value

    def add_translation(self, attrs: AttributesImpl) -> None:
        where = self.where + " translation"
        rank = self._required(attrs, "rank")
        if not _RANK.fullmatch(rank) or int(rank) < 1:
            raise AppraiseXMLError(f"{where}: rank {shown(rank)} is not a positive integer (1 to 99)")
        systems = tuple(self._required(attrs, "system").split())
        if not systems:
            raise AppraiseXMLError(f"{where}: a translation names no system")
        for system in systems:
            if len(system) > FIELD_LIMITS["system"]:
                raise AppraiseXMLError(
                    f"{where}: system {shown(system)} is longer than {FIELD_LIMITS['system']} characters"
                )
        self.translations.append((systems, int(rank)))

    def finished(self) -> RankingItem:
        if self.skipped and self.translations:
            raise AppraiseXMLError(f"{self.where}: a skipped item must not rank translations")
        if not self.skipped and not self.translations:
            raise AppraiseXMLError(f"{self.where}: an item that is not skipped ranks no translation")
        return RankingItem(
            id=self.id, doc_id=self.doc_id, src_id=self.src_id, user=self.user, duration=self.duration,
            skipped=self.skipped, translations=self.translations, group=self.group, line=self.line,
        )


class _Reader(ContentHandler):
    """SAX handler: checks the nesting root > result > item > translation and collects the items."""

    def __init__(self) -> None:
        super().__init__()
        self.results = AppraiseResults()
        self.depth = 0
        self.group = ""
        self.item: _Item | None = None
        self.language_lines: dict[str, int] = {}

    def _line(self) -> int:
        return self._locator.getLineNumber()

    def startElement(self, name: str, attrs: AttributesImpl) -> None:
        expected = (ROOT_TAG, RESULT_TAG, ITEM_TAG, TRANSLATION_TAG)
        if self.depth >= len(expected) or name != expected[self.depth]:
            if self.depth == 0:
                raise AppraiseXMLError(f"root element is <{name}>, expected <{ROOT_TAG}>")
            inside = self.item.where if self.item else f"line {self._line()}"
            raise AppraiseXMLError(f"{inside}: unexpected element <{name}>")
        if name == RESULT_TAG:
            self._start_group(attrs)
        elif name == ITEM_TAG:
            self.item = _Item(attrs, self.group, self._line(), len(self.results.items) + 1)
        elif name == TRANSLATION_TAG:
            self.item.add_translation(attrs)
        self.depth += 1

    def _start_group(self, attrs: AttributesImpl) -> None:
        where = f"line {self._line()}: <{RESULT_TAG}>"
        self.group = _text(attrs.get("id", ""), "group", where)
        for name in ("source-language", "target-language"):
            if name in attrs:
                self._check_language(name, _language(attrs[name], name, where), where)
        self.results.groups.setdefault(self.group, {name: value for name, value in attrs.items() if name != "id"})

    def _check_language(self, name: str, value: str, where: str) -> None:
        """Every result of a file has one language pair: a campaign keeps one, and exports every result with it."""
        first = self.results.languages.setdefault(name, value)
        line = self.language_lines.setdefault(name, self._line())
        if value != first:
            raise AppraiseXMLError(
                f"{where}: {name} {shown(value)} differs from {shown(first)} of line {line}; a campaign has one "
                "language pair (import the results of each pair into a campaign of its own)"
            )

    def endElement(self, name: str) -> None:
        self.depth -= 1
        if name == ITEM_TAG:
            self.results.items.append(self.item.finished())
            self.item = None


class _LimitedReader:
    """The source (bytes or a binary file) as a file for the SAX parser, refusing to read past ``limit`` bytes, and
    noting where the bytes read first stop being UTF-8 (``not_utf8``: line and byte of the line, from 1), for a
    clearer message than the parser's when that is why it failed."""

    def __init__(self, source: bytes | BinaryIO, limit: int | None):
        size = _known_size(source)
        if limit is not None and size is not None:
            check_upload_size(size, limit)
        self.source = io.BytesIO(source) if isinstance(source, bytes) else source
        self.limit, self.total = limit, 0
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.lines, self.line_start = 1, 0
        self.not_utf8: tuple[int, int] | None = None

    def read(self, size: int) -> bytes:
        piece = self.source.read(size)
        if self.not_utf8 is None:
            self._check_utf8(piece)
        self.total += len(piece)
        if self.limit is not None and self.total > self.limit:
            raise AppraiseXMLError(f"the file is over the upload limit of {human_size(self.limit)}")
        return piece

    def _check_utf8(self, piece: bytes) -> None:
        held = len(self.decoder.getstate()[0])  # the end of a character begun in the last piece
        try:
            self.decoder.decode(piece, final=not piece)
        except UnicodeDecodeError as exc:
            bad = exc.start - held  # in this piece; below 0 in the last one's unfinished character (no line break)
            before = piece[:max(bad, 0)]
            line_start = self.line_start if b"\n" not in before else self.total + before.rindex(b"\n") + 1
            self.not_utf8 = (self.lines + before.count(b"\n"), self.total + bad - line_start + 1)
            return
        if b"\n" in piece:
            self.lines += piece.count(b"\n")
            self.line_start = self.total + piece.rindex(b"\n") + 1

    def close(self) -> None:
        """The caller closes the source it passed."""


def _known_size(source: bytes | BinaryIO) -> int | None:
    """The size of bytes, of an upload (``.size``) or of an open file; None for a stream of unknown size."""
    if isinstance(source, bytes):
        return len(source)
    if getattr(source, "size", None) is not None:
        return source.size
    try:
        return os.fstat(source.fileno()).st_size
    except (AttributeError, OSError, io.UnsupportedOperation):
        return None


def check_upload_size(size: int, limit: int) -> None:
    """AppraiseXMLError for a file of ``size`` bytes over ``limit``, said as the parser says it before reading."""
    if size > limit:
        raise AppraiseXMLError(f"{human_size(size)} is over the upload limit of {human_size(limit)}")


def parse_appraise_xml(source: bytes | BinaryIO, limit: int | None = None) -> AppraiseResults:
    """Parse Appraise ranking XML (UTF-8, whatever the file declares) from bytes or a binary file, streaming; raise
    AppraiseXMLError naming the item, line and attribute at fault, or the size when the source is over ``limit``
    bytes (None: no limit). A DTD is refused, even without entities: its attribute defaults would give an item a
    ``user``, ``rank`` or ``skipped`` the file does not show."""
    reader = _Reader()
    parser = DefusedExpatParser(forbid_dtd=True)
    parser.setContentHandler(reader)
    stream = InputSource()
    limited = _LimitedReader(source, limit)
    stream.setByteStream(limited)
    stream.setEncoding("UTF-8")
    try:
        parser.parse(stream)
    except SAXParseException as exc:
        if limited.not_utf8 is not None:
            line, byte = limited.not_utf8
            raise AppraiseXMLError(
                f"not UTF-8 (line {line}, byte {byte} of the line): Appraise XML is read as UTF-8; save the file "
                "as UTF-8"
            ) from None
        raise AppraiseXMLError(
            f"not well-formed XML: {exc.getMessage()} (line {exc.getLineNumber()}, column {exc.getColumnNumber()})"
        ) from None
    except DTDForbidden:
        raise AppraiseXMLError(
            f"refused unsafe XML: a document type declaration (<!DOCTYPE ...>, line {parser.getLineNumber()}); "
            "Appraise XML has none, and a DTD can add attributes or text the file does not show"
        ) from None
    except DefusedXmlException as exc:
        raise AppraiseXMLError(f"refused unsafe XML ({type(exc).__name__})") from None
    return reader.results


def _group_open(group_id: str, attrs: Mapping[str, str]) -> str:
    return (
        f"<{RESULT_TAG} source-language={quoteattr(attrs.get('source-language', 'err'))} "
        f"id={quoteattr(group_id)} target-language={quoteattr(attrs.get('target-language', 'cor'))}>\n"
    )


def _item_text(item: RankingItem) -> str:
    """One item as judgments.xml lays it out: a blank line, then the item's lines, each ending in a line feed."""
    head = (
        f"  <{ITEM_TAG} doc-id={quoteattr(item.doc_id)}"
        + (f" duration={quoteattr(format_duration(item.duration))}" if item.duration is not None else "")
        + f" id={quoteattr(item.id)}"
        + (' skipped="true"' if item.skipped else "")
        + f" src-id={quoteattr(str(item.src_id))} user={quoteattr(item.user)}"
    )
    if item.skipped:
        return f"\n{head}/>\n"
    translations = "".join(
        f"    <{TRANSLATION_TAG} rank={quoteattr(str(rank))} system={quoteattr(' '.join(systems))}/>\n"
        for systems, rank in item.translations
    )
    return f"\n{head}>\n{translations}  </{ITEM_TAG}>\n"


def appraise_xml_chunks(
    groups: Iterable[tuple[str, Mapping[str, str], Iterable[Sequence[RankingItem]]]],
) -> Iterator[str]:
    """The text of ``write_appraise_xml`` in chunks, from ``groups`` of (result id, its attributes, its items in
    batches): a chunk per batch, so that a writer holds one batch at a time. A group without items is left out."""
    yield '<?xml version="1.0" encoding="UTF-8"?>\n<appraise-results>\n\n'
    for group_id, attrs, batches in groups:
        opened = False
        for batch in batches:
            if not batch:
                continue
            yield ("" if opened else _group_open(group_id, attrs)) + "".join(_item_text(item) for item in batch)
            opened = True
        if opened:
            yield f"</{RESULT_TAG}>\n\n"
    yield "</appraise-results>\n"


def write_appraise_xml(results: AppraiseResults) -> str:
    """Write items in the exact layout of judgments.xml (attribute order, indentation, blank lines)."""
    return "".join(appraise_xml_chunks(
        (group_id, results.groups.get(group_id, {}), [items]) for group_id, items in _by_group(results.items)
    ))


def _by_group(items: Iterable[RankingItem]) -> list[tuple[str, list[RankingItem]]]:
    groups: dict[str, list[RankingItem]] = {}
    for item in items:
        groups.setdefault(item.group, []).append(item)
    return list(groups.items())
