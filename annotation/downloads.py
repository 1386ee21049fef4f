"""The names a campaign's downloads are saved under: ``<campaign slug>-<what>.<extension>``; a raw download (the
judgments, the pairwise judgments, the crowd workers) names the snapshot of the judgments it holds too, in its file
name and headers (``save_snapshot_as``).

The slug keeps the campaign's own letters (``slugify(allow_unicode=True)``): an ASCII slug dropped every letter of
a Hebrew or Chinese name, and each of that campaign's downloads was saved as ``campaign-...``. A name that is not
ASCII goes in the header as RFC 6266's ``filename*`` (UTF-8, percent-encoded), which browsers read.
"""
from __future__ import annotations

from datetime import UTC
from typing import TYPE_CHECKING

from django.http import HttpResponse, StreamingHttpResponse
from django.utils.http import content_disposition_header
from django.utils.text import slugify

from gecappraise.plurals import counted

from .models import Judgment
from .services.judgment_exports import JUDGMENT_EXPORTS

if TYPE_CHECKING:
    from .models import Campaign, JudgmentSnapshot


def download_name(campaign_name: str, what: str, snapshot: JudgmentSnapshot | None = None) -> str:
    """``<campaign slug>-<what>``, the slug ``campaign`` when the name leaves no letter or digit. With the
    ``snapshot`` of the judgments the file holds, ``what``'s name before its extension is followed by
    ``-<N>-judgments-to-<last judgment's UTC time>`` (ISO 8601's basic form, to the second, which every file system
    takes: ``toy-judgments-3-judgments-to-20261207T101500Z.csv``), or ``-0-judgments`` without any."""
    if snapshot is not None:
        stem, dot, extension = what.rpartition(".")
        held = f"{snapshot.judgments}-judgments"
        if snapshot.last_judgment_at is not None:
            held += f"-to-{snapshot.last_judgment_at.astimezone(UTC):%Y%m%dT%H%M%SZ}"
        what = f"{stem}-{held}{dot}{extension}" if dot else f"{what}-{held}"
    return f"{slugify(campaign_name, allow_unicode=True) or 'campaign'}-{what}"


def described_snapshot(snapshot: JudgmentSnapshot) -> str:
    """``snapshot`` in words, for a command's line on stderr: ``the snapshot of 9 judgments up to id 42, the last
    stored at 2026-12-07T10:15:00.123456+00:00`` (``the snapshot of 0 judgments`` without any)."""
    text = f"the snapshot of {counted(snapshot.judgments, 'judgment')}"
    if snapshot.last_judgment_id is None:
        return text
    return f"{text} up to id {snapshot.last_judgment_id}, the last stored at {snapshot.last_judgment_at.isoformat()}"


def save_as(response: HttpResponse, filename: str, inline: bool = False) -> HttpResponse:
    """``response`` with the Content-Disposition that saves it as ``filename`` (``inline``: shown in the browser,
    saved under that name)."""
    response["Content-Disposition"] = content_disposition_header(not inline, filename)
    return response


def save_snapshot_as(response: HttpResponse, campaign_name: str, what: str, snapshot: JudgmentSnapshot) -> HttpResponse:
    """``response``, a download of the judgments in ``snapshot``, saved as ``download_name(campaign_name, what,
    snapshot)`` and naming the snapshot in the headers ``X-Snapshot-Judgments``, ``X-Snapshot-Last-Judgment-At``
    (ISO 8601, as an analysis's ``snapshot.last_judgment_at``) and ``X-Snapshot-Last-Judgment-Id``, the last two
    left out without judgments."""
    response["X-Snapshot-Judgments"] = str(snapshot.judgments)
    if snapshot.last_judgment_id is not None:
        response["X-Snapshot-Last-Judgment-At"] = snapshot.last_judgment_at.isoformat()
        response["X-Snapshot-Last-Judgment-Id"] = str(snapshot.last_judgment_id)
    return save_as(response, download_name(campaign_name, what, snapshot))


def judgments_download(campaign: Campaign, extension: str) -> StreamingHttpResponse:
    """The campaign's judgments as CSV or JSON (``extension``; ``judgment_exports.JUDGMENT_EXPORTS``) of the
    snapshot taken now, streamed and saved as ``save_snapshot_as`` names it: the campaign page's download and the
    API's."""
    snapshot = Judgment.objects.of_campaign(campaign).snapshot()
    chunks, content_type = JUDGMENT_EXPORTS[extension]
    response = StreamingHttpResponse(chunks(campaign, snapshot), content_type=content_type)
    return save_snapshot_as(response, campaign.name, f"judgments.{extension}", snapshot)
