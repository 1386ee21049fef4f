"""A campaign's judgments as CSV (one row per judged candidate) and JSON (one object per judgment).

Each judged candidate carries the systems behind it (sorted, space-separated, as in Appraise XML), its rank or
PRWS score and meaning-changed box, and for PRWS screens judged here the slider's first value after it was moved
and its last (``slider_first``, ``slider_last``; empty for imported scores); a flagged screen is one row without a
candidate. Times are in seconds.
Rows follow the order in which judgments were stored, candidates their order on the screen.
"""
from __future__ import annotations

import io
import json
from collections import defaultdict

from gecappraise.safe_csv import SafeDictWriter

from ..models import Campaign, CandidateJudgment, Judgment
from .collapsing import candidate_name
from .outputs import candidate_systems

JUDGMENT_FIELDS = (
    "judgment", "item", "judge", "line", "document", "duration_seconds", "active_seconds", "submitted_at",
    "flagged", "flag_reason",
)
CANDIDATE_FIELDS = ("position", "systems", "text", "rank", "score", "meaning_changed", "slider_first", "slider_last")


def _seconds(value) -> float | None:
    return None if value is None else round(value.total_seconds(), 6)


def judgment_records(campaign: Campaign) -> list[dict]:
    """Every judgment of the campaign with its judged candidates (``candidates``, in screen order)."""
    systems = candidate_systems(campaign)
    candidates: dict[int, list[dict]] = defaultdict(list)
    for judgment_id, position, candidate_id, text, rank, score, changed, first, last in (
        CandidateJudgment.objects.of_campaign(campaign).in_order()
        .values_list("judgment_id", "position", "candidate_id", "candidate__text", "rank", "score", "meaning_changed",
                     "slider_first", "slider_last")
    ):
        candidates[judgment_id].append({
            "position": position, "systems": candidate_name(systems[candidate_id]), "text": text,
            "rank": rank, "score": score, "meaning_changed": changed, "slider_first": first, "slider_last": last,
        })
    rows = (
        Judgment.objects.filter(assignment__screen__campaign=campaign)
        .order_by("id")
        .values_list(
            "id", "external_id", "assignment__judge__username", "assignment__screen__segment__line",
            "assignment__screen__segment__document__name", "duration", "active_time",
            "assignment__submitted_at", "flag__id", "flag__reason",
        )
    )
    return [
        {
            "judgment": pk, "item": external or str(pk), "judge": judge, "line": line, "document": document,
            "duration_seconds": _seconds(duration), "active_seconds": _seconds(active),
            "submitted_at": submitted.isoformat() if submitted else None,
            "flagged": flag is not None, "flag_reason": reason if flag is not None else None,
            "candidates": candidates[pk],
        }
        for pk, external, judge, line, document, duration, active, submitted, flag, reason in rows
    ]


def judgments_json(campaign: Campaign) -> str:
    """``{"campaign": name, "judgments": [...]}`` with each judgment's candidates."""
    return json.dumps({"campaign": campaign.name, "judgments": judgment_records(campaign)}, indent=2,
                      ensure_ascii=False) + "\n"


def judgments_csv(campaign: Campaign) -> str:
    """One row per judged candidate (a flagged screen: one row with empty candidate columns); formula-like cells
    neutralised (``gecappraise.safe_csv``)."""
    out = io.StringIO()
    writer = SafeDictWriter(out, JUDGMENT_FIELDS + CANDIDATE_FIELDS)
    writer.writeheader()
    for record in judgment_records(campaign):
        judgment = {field: record[field] for field in JUDGMENT_FIELDS}
        for candidate in record["candidates"] or [{}]:
            writer.writerow({**judgment, **candidate})
    return out.getvalue()
