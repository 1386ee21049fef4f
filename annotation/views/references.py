"""The campaign page's references upload: M2 gold edits and/or corrected reference texts for the automatic
metrics, checked and stored as ``manage.py import_references`` does (same service, same messages)."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse

from ..campaign_forms import named_file
from ..models import Campaign
from ..services.references import import_references, reference_summary
from ..services.textfiles import InputFileError
from .posted import campaign_post, to_section


@campaign_post
def campaign_references_import(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """POST ``m2`` (one file) and/or ``references`` (several files): all stored, or none with the reason."""
    m2 = request.FILES.get("m2")
    texts = request.FILES.getlist("references")
    try:
        created = import_references(campaign, named_file(m2) if m2 else None, [named_file(f) for f in texts])
    except InputFileError as exc:
        messages.error(request, f"{exc}. No reference was added.")
    else:
        added = "; ".join(f"{reference.name!r}: {reference_summary(reference)}" for reference in created)
        messages.success(request, f"Added {added}.")
    return to_section(campaign.pk, "references")
