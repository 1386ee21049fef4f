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
nothing of the database (see ``appraise_import`` for that). Parsing uses defusedxml: no entities, no DTDs.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Iterable
from xml.etree.ElementTree import Element, ParseError
from xml.sax.saxutils import quoteattr

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

RESULT_TAG = "error-correction-ranking-result"
ITEM_TAG = "ranking-item"
TRANSLATION_TAG = "translation"

_DURATION = re.compile(r"^(\d+):([0-5]\d):([0-5]\d)(?:\.(\d{1,6}))?$")


class AppraiseXMLError(ValueError):
    """The file is not valid Appraise ranking XML; the message says where and why."""


@dataclass(frozen=True)
class RankingItem:
    """One ``ranking-item``: a judge's ranking of the candidates of one screen."""

    id: str
    doc_id: str
    src_id: int
    user: str
    duration: timedelta | None
    skipped: bool
    translations: list[tuple[tuple[str, ...], int]]
    group: str = ""


@dataclass
class AppraiseResults:
    """A parsed file: its items in document order, and each result group's attributes by its id."""

    items: list[RankingItem] = field(default_factory=list)
    groups: dict[str, dict[str, str]] = field(default_factory=dict)


def parse_duration(text: str) -> timedelta:
    """Parse Appraise's ``HH:MM:SS.ffffff`` (fraction optional) into a timedelta."""
    match = _DURATION.match(text.strip())
    if not match:
        raise ValueError(f"duration {text!r} is not HH:MM:SS.ffffff")
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


def _attr(element: Element, name: str, where: str) -> str:
    value = element.get(name)
    if value is None:
        raise AppraiseXMLError(f"{where}: missing attribute {name!r}")
    return value


def _parse_item(element: Element, group: str, index: int) -> RankingItem:
    where = f"ranking-item #{index + 1} (id={element.get('id')!r})"
    src = _attr(element, "src-id", where)
    if not src.isdigit():
        raise AppraiseXMLError(f"{where}: src-id {src!r} is not a non-negative integer")
    duration_text = element.get("duration")
    try:
        duration = parse_duration(duration_text) if duration_text else None
    except ValueError as exc:
        raise AppraiseXMLError(f"{where}: {exc}") from None
    skipped = element.get("skipped", "false").lower() == "true"
    translations: list[tuple[tuple[str, ...], int]] = []
    for child in element:
        if child.tag != TRANSLATION_TAG:
            raise AppraiseXMLError(f"{where}: unexpected element <{child.tag}>")
        rank_text = _attr(child, "rank", where + " translation")
        if not rank_text.isdigit() or int(rank_text) < 1:
            raise AppraiseXMLError(f"{where}: rank {rank_text!r} is not a positive integer")
        systems = tuple(_attr(child, "system", where + " translation").split())
        if not systems:
            raise AppraiseXMLError(f"{where}: a translation names no system")
        translations.append((systems, int(rank_text)))
    if skipped and translations:
        raise AppraiseXMLError(f"{where}: a skipped item must not rank translations")
    if not skipped and not translations:
        raise AppraiseXMLError(f"{where}: an item that is not skipped ranks no translation")
    return RankingItem(
        id=_attr(element, "id", where),
        doc_id=element.get("doc-id", ""),
        src_id=int(src),
        user=_attr(element, "user", where),
        duration=duration,
        skipped=skipped,
        translations=translations,
        group=group,
    )


def parse_appraise_xml(data: bytes) -> AppraiseResults:
    """Parse Appraise ranking XML; raise AppraiseXMLError naming the item and attribute at fault."""
    try:
        root = fromstring(data)
    except ParseError as exc:
        raise AppraiseXMLError(f"not well-formed XML: {exc}") from None
    except DefusedXmlException as exc:
        raise AppraiseXMLError(f"refused unsafe XML ({type(exc).__name__})") from None
    if root.tag != "appraise-results":
        raise AppraiseXMLError(f"root element is <{root.tag}>, expected <appraise-results>")
    results = AppraiseResults()
    for group in root:
        if group.tag != RESULT_TAG:
            raise AppraiseXMLError(f"unexpected element <{group.tag}> under <appraise-results>")
        group_id = group.get("id", "")
        results.groups.setdefault(group_id, {k: v for k, v in group.attrib.items() if k != "id"})
        for element in group:
            if element.tag != ITEM_TAG:
                raise AppraiseXMLError(f"unexpected element <{element.tag}> in result {group_id!r}")
            results.items.append(_parse_item(element, group_id, len(results.items)))
    return results


def write_appraise_xml(results: AppraiseResults) -> str:
    """Write items in the exact layout of judgments.xml (attribute order, indentation, blank lines)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<appraise-results>", ""]
    for group_id, items in _by_group(results.items):
        attrs = results.groups.get(group_id, {})
        out.append(
            f"<{RESULT_TAG} source-language={quoteattr(attrs.get('source-language', 'err'))} "
            f"id={quoteattr(group_id)} target-language={quoteattr(attrs.get('target-language', 'cor'))}>"
        )
        for item in items:
            out.append("")
            head = (
                f"  <{ITEM_TAG} doc-id={quoteattr(item.doc_id)}"
                + (f" duration={quoteattr(format_duration(item.duration))}" if item.duration is not None else "")
                + f" id={quoteattr(item.id)}"
                + (' skipped="true"' if item.skipped else "")
                + f" src-id={quoteattr(str(item.src_id))} user={quoteattr(item.user)}"
            )
            if item.skipped:
                out.append(head + "/>")
            else:
                out.append(head + ">")
                out.extend(
                    f"    <{TRANSLATION_TAG} rank={quoteattr(str(rank))} system={quoteattr(' '.join(systems))}/>"
                    for systems, rank in item.translations
                )
                out.append(f"  </{ITEM_TAG}>")
        out.append(f"</{RESULT_TAG}>")
        out.append("")
    out.append("</appraise-results>")
    return "\n".join(out) + "\n"


def _by_group(items: Iterable[RankingItem]) -> list[tuple[str, list[RankingItem]]]:
    groups: dict[str, list[RankingItem]] = {}
    for item in items:
        groups.setdefault(item.group, []).append(item)
    return list(groups.items())
