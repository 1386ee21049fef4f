"""A campaign's judgments as CSV (one row per judged candidate) and JSON (one object per judgment).

Each judged candidate carries the systems behind it (sorted, space-separated, as in Appraise XML), its rank or
PRWS score and meaning-changed box, and for PRWS screens judged here the slider's first value after it was moved
and its last (``slider_first``, ``slider_last``; empty for imported scores); a flagged screen is one row without a
candidate. Times are in seconds.
Rows follow the order in which judgments were stored, candidates their order on the screen.

An export holds the judgments of one snapshot (``JudgmentQuerySet.snapshot``, taken when the download starts): those
with an id up to its last, as an analysis of that snapshot reads them, so judgments stored while it streams are not
in it. The JSON names it (``snapshot``); the download names it in its file name and headers
(``annotation.downloads.save_snapshot_as``).

The judgments and their candidates are read as they stream from the database and written as chunks of
``EXPORT_BATCH`` judgments (``judgments_csv_chunks``, ``judgments_json_chunks``), so that a download streams and
holds one chunk in memory whatever the number of judgments. At 200,000 judgments the whole list
of records took 5 GB of memory to write the JSON, 1.9 GB for the CSV.
"""
from __future__ import annotations

import io
import json
import textwrap
from collections.abc import Iterator

from gecappraise.safe_csv import SafeDictWriter

from ..models import Campaign, CandidateJudgment, Judgment, JudgmentSnapshot
from .collapsing import candidate_name
from .outputs import batched, shared_system_tuples, streamed_by_judgment

JUDGMENT_FIELDS = (
    "judgment", "item", "judge", "line", "document", "duration_seconds", "active_seconds", "submitted_at",
    "flagged", "flag_reason",
)
CANDIDATE_FIELDS = ("position", "systems", "text", "rank", "score", "meaning_changed", "slider_first", "slider_last")
#: Judgments written as one chunk by the exports (and rows fetched at a time from each streamed query).
EXPORT_BATCH = 2000


def _seconds(value) -> float | None:
    return None if value is None else round(value.total_seconds(), 6)


def _record(row: tuple, items: list[tuple], names: dict[int, tuple[str, ...]]) -> dict:
    """One judgment's record from its row and its judged candidates' rows."""
    pk, external, judge, line, document, duration, active, submitted, flag, reason = row
    return {
        "judgment": pk, "item": external or str(pk), "judge": judge, "line": line, "document": document,
        "duration_seconds": _seconds(duration), "active_seconds": _seconds(active),
        "submitted_at": submitted.isoformat() if submitted else None,
        "flagged": flag is not None, "flag_reason": reason if flag is not None else None,
        "candidates": [
            {"position": position, "systems": candidate_name(names[candidate]), "text": text, "rank": rank,
             "score": score, "meaning_changed": changed, "slider_first": first, "slider_last": last}
            for _, position, candidate, text, rank, score, changed, first, last in items
        ],
    }


def streamed_records(
    campaign: Campaign, chunk_size: int | None = None, snapshot: JudgmentSnapshot | None = None
) -> Iterator[dict]:
    """Every judgment of the campaign in ``snapshot`` (by default, the judgments now) with its judged candidates
    (``candidates``, in screen order), one record at a time in the order they were stored: the judgments and their
    candidates are two queries read as they stream from the database (``chunk_size``, ``EXPORT_BATCH``, judgments
    fetched at a time), merged by judgment id, so the number of queries and the memory held do not grow with the
    judgments (the systems of the test set's candidates are one map)."""
    size = chunk_size or EXPORT_BATCH
    snapshot = snapshot or Judgment.objects.of_campaign(campaign).snapshot()
    names = shared_system_tuples(campaign)
    judgments = (
        Judgment.objects.of_campaign(campaign).up_to(snapshot).order_by("id")
        .values_list(
            "id", "external_id", "assignment__judge__username", "assignment__screen__segment__line",
            "assignment__screen__segment__document__name", "duration", "active_time",
            "assignment__submitted_at", "flag__id", "flag__reason",
        )
    )
    items = (
        CandidateJudgment.objects.of_campaign(campaign).up_to(snapshot)
        .in_order().values_list("judgment_id", "position", "candidate_id", "candidate__text", "rank", "score",
                                "meaning_changed", "slider_first", "slider_last")
    )
    for row, own in streamed_by_judgment(judgments, items, size):
        yield _record(row, own, names)


def judgment_batches(
    campaign: Campaign, snapshot: JudgmentSnapshot, size: int | None = None
) -> Iterator[list[dict]]:
    """``streamed_records`` of ``snapshot``, ``size`` (``EXPORT_BATCH``) at a time."""
    size = size or EXPORT_BATCH
    return batched(streamed_records(campaign, size, snapshot), size)


def judgment_records(campaign: Campaign) -> list[dict]:
    """Every judgment of the campaign with its judged candidates, as one list (``streamed_records``)."""
    return list(streamed_records(campaign))


def snapshot_json(snapshot: JudgmentSnapshot) -> dict:
    """The JSON export's ``snapshot``: ``judgments``, ``last_judgment_at`` (ISO 8601) and ``last_judgment_id``, as in
    an analysis's ``snapshot`` (the last two null without judgments)."""
    at = snapshot.last_judgment_at
    return {"judgments": snapshot.judgments, "last_judgment_at": at.isoformat() if at else None,
            "last_judgment_id": snapshot.last_judgment_id}


def judgments_json_chunks(campaign: Campaign, snapshot: JudgmentSnapshot | None = None) -> Iterator[str]:
    """``{"campaign": name, "snapshot": {...}, "judgments": [...]}`` with each judgment of ``snapshot`` (by default,
    the judgments now; ``snapshot_json``) and its candidates, a chunk per batch: the text ``json.dumps(...,
    indent=2)`` gives for the whole document."""
    snapshot = snapshot or Judgment.objects.of_campaign(campaign).snapshot()
    head = json.dumps({"campaign": campaign.name, "snapshot": snapshot_json(snapshot)}, indent=2, ensure_ascii=False)
    yield head[:-2] + ',\n  "judgments": ['
    separator = "\n"
    for batch in judgment_batches(campaign, snapshot):
        yield separator + ",\n".join(
            textwrap.indent(json.dumps(record, indent=2, ensure_ascii=False), "    ") for record in batch
        )
        separator = ",\n"
    yield ("]" if separator == "\n" else "\n  ]") + "\n}\n"


def judgments_json(campaign: Campaign, snapshot: JudgmentSnapshot | None = None) -> str:
    """``judgments_json_chunks`` as one text."""
    return "".join(judgments_json_chunks(campaign, snapshot))


def judgments_csv_chunks(campaign: Campaign, snapshot: JudgmentSnapshot | None = None) -> Iterator[str]:
    """One row per judged candidate of the judgments of ``snapshot`` (by default, the judgments now; a flagged
    screen: one row with empty candidate columns); formula-like cells neutralised (``gecappraise.safe_csv``); the
    header, then a chunk per batch."""
    snapshot = snapshot or Judgment.objects.of_campaign(campaign).snapshot()
    out = io.StringIO()
    writer = SafeDictWriter(out, JUDGMENT_FIELDS + CANDIDATE_FIELDS)
    writer.writeheader()
    for batch in judgment_batches(campaign, snapshot):
        for record in batch:
            judgment = {field: record[field] for field in JUDGMENT_FIELDS}
            for candidate in record["candidates"] or [{}]:
                writer.writerow({**judgment, **candidate})
        yield out.getvalue()
        out.seek(0)
        out.truncate()
    if out.tell():
        yield out.getvalue()


def judgments_csv(campaign: Campaign, snapshot: JudgmentSnapshot | None = None) -> str:
    """``judgments_csv_chunks`` as one text."""
    return "".join(judgments_csv_chunks(campaign, snapshot))


#: The judgments' downloads by file extension: the function that writes one (of a campaign and a snapshot) and its
#: media type.
JUDGMENT_EXPORTS = {
    "csv": (judgments_csv_chunks, "text/csv; charset=utf-8"),
    "json": (judgments_json_chunks, "application/json"),
}
