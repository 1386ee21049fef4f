"""Property-based fuzzing of the judgment file parsers (issue 7): Appraise XML and PRWS score CSV, alone and
imported into PostgreSQL.

Whatever the input, the only exception is the parser's own refusal (``AppraiseXMLError``, ``ScoreImportError``).
An accepted input gives values that fit their columns: Appraise items keep their ids within the column sizes,
valid usernames, ASCII line numbers and ranks, and are written back as they were read; score ratings are numbers
from 0 to 100 of known systems on lines of the campaign. An accepted import is idempotent (Appraise) and every
example is rolled back, so each starts from the same campaign.
"""
from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from xml.sax.saxutils import escape, quoteattr

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.models import Campaign
from annotation.services.appraise_import import import_appraise_xml
from annotation.services.appraise_xml import (
    FIELD_LIMITS,
    ITEM_TAG,
    RESULT_TAG,
    ROOT_TAG,
    TRANSLATION_TAG,
    AppraiseXMLError,
    parse_appraise_xml,
    write_appraise_xml,
)
from annotation.services.score_import import ScoreImportError, import_scores, parse_long, parse_wide

from .factories import small_campaign
from .test_appraise_xml import GOOD
from .test_importing import SOURCE, named, systems

FAST = settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck), database=None)
SLOW = settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck), database=None)

#: Characters that test every check: control characters (those XML allows: the others are tried by the byte
#: mutations), spaces of all kinds, markup, non-ASCII digits (``"²".isdigit()`` is true, ``int("²")`` fails),
#: letters and symbols.
TRICKY = "\t\n\r\x7f\x85\xa0\u2028\u200b\ufeff\ufffd /\\.._-+=,;:&<>\"'éß語😀²٣0123456789"
tricky = st.text(alphabet=TRICKY, max_size=12)
long_values = st.sampled_from(["9" * 12, "9" * 5000, "x" * 101, "x" * 151, "x" * 201, "u" * 150, "i" * 100])

#: Values that pass for each attribute (for the toy campaign of test_appraise_xml: lines 0-3, systems alpha, beta,
#: gamma and source), so that fuzzed files are often accepted and reach the database.
VALID = {
    "id": ["0", "1", "2", "hit 7", "x" * 100], "doc-id": ["", "hit-1-0", "d" * 200], "src-id": ["0", "1", "2", "3"],
    "user": ["judge1", "judge2", "root", "ann.b@x"], "skipped": ["true", "false"],
    "duration": ["00:00:00", "00:01:07.524000", "999999:59:59.999999", ""],
    "rank": ["1", "2", "3", "5", "10"], "system": ["alpha beta", "gamma", "source", "alpha", "beta  source"],
    "source-language": ["err", "l" * 32], "target-language": ["cor", ""],
}
ATTRIBUTES = {
    ROOT_TAG: [],
    RESULT_TAG: ["id", "source-language", "target-language"],
    ITEM_TAG: ["doc-id", "duration", "id", "skipped", "src-id", "user"],
    TRANSLATION_TAG: ["rank", "system"],
}


def value_of(name: str) -> st.SearchStrategy[str]:
    valid = st.sampled_from(VALID.get(name, ["x"]))
    return st.one_of(valid, tricky, long_values)


def attributes(tag: str) -> st.SearchStrategy[dict[str, str]]:
    names = ATTRIBUTES.get(tag, [])
    required = st.fixed_dictionaries({name: value_of(name) for name in names})
    extra = st.dictionaries(st.sampled_from(["x", *names]), st.builds(str, st.sampled_from(["", "1"])), max_size=2)
    return st.one_of(required, extra)


def element(tag: str, children: st.SearchStrategy) -> st.SearchStrategy[tuple]:
    names = st.sampled_from([tag] * 6 + ["x", ITEM_TAG, TRANSLATION_TAG])
    return st.tuples(names, attributes(tag), children)


translation = element(TRANSLATION_TAG, st.just([]))
item = element(ITEM_TAG, st.lists(translation, max_size=3))
result = element(RESULT_TAG, st.lists(item, max_size=2))
root = element(ROOT_TAG, st.lists(result, max_size=2))


def serialized(node: tuple) -> str:
    tag, attrs, children = node
    head = tag + "".join(f" {name}={quoteattr(value)}" for name, value in attrs.items())
    if not children:
        return f"<{head}/>"
    return f"<{head}>\n" + "\n".join(serialized(child) for child in children) + f"\n</{tag}>"


appraise_files = st.builds(
    lambda prolog, node: (prolog + serialized(node)).encode("utf-8"),
    st.sampled_from(['<?xml version="1.0" encoding="UTF-8"?>\n'] * 4 + ["", '<!DOCTYPE x [<!ENTITY a "b">]>']),
    root,
)


#: A good file with more items, and where each of its attribute values starts and ends.
TEMPLATE = GOOD.replace("</error-correction-ranking-result>", """
  <ranking-item doc-id="hit-1-2" duration="00:00:10" id="2" src-id="2" user="judge1">
    <translation rank="1" system="alpha gamma"/>
    <translation rank="3" system="beta source"/>
  </ranking-item>
</error-correction-ranking-result>
<error-correction-ranking-result source-language="err" id="hit-2" target-language="cor">
  <ranking-item doc-id="hit-2-0" id="0" src-id="3" user="judge2">
    <translation rank="2" system="alpha"/>
    <translation rank="1" system="beta gamma source"/>
  </ranking-item>
</error-correction-ranking-result>""")
ATTRIBUTE_ESCAPES = {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
SPANS = [(found.group(1), found.span(2), found.span(0)) for found in re.finditer(r'([\w-]+)="([^"]*)"', TEMPLATE)]


def with_values(edits: dict[int, str | None]) -> bytes:
    """The template with the attribute values at the given indexes of SPANS replaced (None: attribute removed)."""
    text = TEMPLATE
    for index in sorted(edits, reverse=True):
        _, (start, end), (attr_start, attr_end) = SPANS[index]
        value = edits[index]
        if value is None:
            text = text[:attr_start] + text[attr_end:]
        else:
            text = text[:start] + escape(value, ATTRIBUTE_ESCAPES) + text[end:]
    return text.encode("utf-8")


attribute_edit = st.integers(0, len(SPANS) - 1).flatmap(
    lambda index: st.tuples(st.just(index), st.one_of(value_of(SPANS[index][0]), st.none()))
)
edited_files = st.lists(attribute_edit, min_size=1, max_size=3).map(lambda edits: with_values(dict(edits)))


markup = st.text(alphabet="<>/=\"' &;#x0123456789-abc", max_size=12)


def mutate(data: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    for at, length, insert in edits:
        at %= len(data) + 1
        data = data[:at] + insert + data[at + length:]
    return data


mutated_files = st.builds(
    mutate,
    st.just(TEMPLATE.encode()),
    st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, 12), st.binary(max_size=12) | markup.map(str.encode)),
        min_size=1, max_size=3,
    ),
)


def assert_sane_items(results) -> None:
    """What an accepted file holds fits the columns and the checks, and is written back as it was read."""
    for parsed in results.items:
        assert 1 <= len(parsed.id) <= FIELD_LIMITS["id"] and len(parsed.doc_id) <= FIELD_LIMITS["doc-id"]
        assert len(parsed.group) <= FIELD_LIMITS["group"]
        get_user_model().username_validator(parsed.user)
        assert 1 <= len(parsed.user) <= FIELD_LIMITS["user"]
        assert 0 <= parsed.src_id < 10**9
        assert parsed.duration is None or timedelta(0) <= parsed.duration < timedelta(hours=10**6)
        assert parsed.skipped != bool(parsed.translations)
        for names, rank in parsed.translations:
            assert 1 <= rank <= 99 and names and all(0 < len(name) <= FIELD_LIMITS["system"] for name in names)
    for attrs in results.groups.values():
        assert all(len(attrs.get(name, "")) <= 32 for name in ("source-language", "target-language"))
    assert parse_appraise_xml(write_appraise_xml(results).encode()).items == results.items


@FAST
@given(data=st.one_of(edited_files, edited_files, mutated_files, appraise_files, st.binary(max_size=200)))
def test_the_appraise_parser_refuses_or_reads_sane_items(data):
    try:
        results = parse_appraise_xml(data, limit=1 << 20)
    except AppraiseXMLError:
        return
    assert_sane_items(results)


class Rollback(Exception):
    """Ends an example's transaction so that the next example starts from the same campaign."""


@pytest.fixture
def toy_campaign(db):
    from annotation.services.importing import import_outputs

    get_user_model().objects.create_superuser("root", password="root-password-1")
    return import_outputs("toy", named("source", SOURCE), systems(), source_is_system=True)


@SLOW
@given(data=st.one_of(edited_files, edited_files, mutated_files, appraise_files))
def test_appraise_imports_refuse_or_store_idempotently(toy_campaign, data):
    try:
        with transaction.atomic():
            try:
                first = import_appraise_xml(toy_campaign, data)
            except AppraiseXMLError:
                raise Rollback from None
            again = import_appraise_xml(toy_campaign, data)
            assert (again.rankings, again.already) == (0, first.rankings + first.already)
            assert not get_user_model().objects.get(username="root").judged_campaigns.exists()
            raise Rollback
    except Rollback:
        pass


RATERS = ["ann", "bob", "", "a b", "u" * 151, "root", "x;y"]
LINES = ["0", "1", "5", "6", "-1", "²", "٣", "1_0", " 2", "9" * 20, "9" * 5000, "0x1"]
SCORES = ["0", "50", "100", "65.5", ".5", "+.5", "1e1", "100.5", "-1", "nan", "inf", "1e400", "1_0", "٣", "0x10"]
MEANING = ["", "1", "0", "yes", "no", "true", "maybe"]
SYSTEMS = ["ZEPHYRSYS", "QUOKKAGEC", "MARMOTFIX", "INPUT"]
KNOWN = set(SYSTEMS)


def cell(choices: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(choices), st.sampled_from(choices), st.sampled_from(choices), tricky)


long_row = st.tuples(cell(RATERS), cell(LINES), cell(SYSTEMS), cell(SCORES), cell(MEANING)).map(list)
long_rows = st.lists(
    st.one_of(long_row, long_row, long_row.map(lambda row: row[:4]), st.lists(cell(SYSTEMS + SCORES), max_size=6)),
    max_size=4,
)
wide_rows = st.tuples(
    st.lists(cell(SYSTEMS), min_size=1, max_size=4),
    st.lists(st.lists(cell(SCORES + [""]), max_size=4), min_size=5, max_size=7),
).map(lambda parts: [parts[0], *parts[1]])


def csv_bytes(rows: list[list[str]]) -> bytes:
    text = io.StringIO()
    csv.writer(text).writerows(rows)
    return text.getvalue().encode("utf-8")


score_files = st.one_of(long_rows.map(csv_bytes), st.binary(max_size=120), st.text(max_size=80).map(str.encode))


def assert_sane_ratings(ratings) -> None:
    for rating in ratings:
        assert 0 <= rating.score <= 100 and 0 <= rating.line < 6 and rating.system in KNOWN
        get_user_model().username_validator(rating.rater)
        assert 1 <= len(rating.rater) <= 150


@FAST
@given(data=score_files)
def test_the_long_score_parser_refuses_or_reads_sane_ratings(data):
    try:
        ratings = parse_long("f.csv", data, KNOWN, 6).ratings
    except ScoreImportError as error:
        assert str(error).startswith("f.csv: ")
        return
    assert_sane_ratings(ratings)


@settings(FAST, max_examples=300)
@given(data=st.one_of(wide_rows.map(csv_bytes), st.binary(max_size=120)), rater=cell(RATERS))
def test_the_wide_score_parser_refuses_or_reads_sane_ratings(data, rater):
    try:
        ratings = parse_wide("f.csv", data, KNOWN, 6, rater).ratings
    except ScoreImportError as error:
        assert str(error).startswith("f.csv: ")
        return
    assert_sane_ratings(ratings)


@pytest.fixture
def scored_campaign(db):
    get_user_model().objects.create_superuser("root", password="root-password-1")
    return small_campaign("scored", mode=Campaign.Mode.PRWS)


@SLOW
@given(data=st.one_of(long_rows.map(csv_bytes), wide_rows.map(csv_bytes)), wide=st.booleans())
def test_score_imports_refuse_or_store(scored_campaign, data, wide):
    try:
        with transaction.atomic():
            try:
                summary = import_scores(scored_campaign, data, wide=wide)
            except ScoreImportError:
                raise Rollback from None
            assert summary.ratings >= summary.screens >= 1
            assert not get_user_model().objects.get(username="root").judged_campaigns.exists()
            raise Rollback
    except Rollback:
        pass
