"""The PRWS campaign page's scores upload: a CSV of 0-100 ratings checked and stored as ``manage.py import_scores``
does (same service, same messages), all or nothing; a file over ``IMPORT_IN_REQUEST_MB`` by a background job."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse

from ..campaign_forms import ScoresUploadForm
from ..models import Campaign
from ..services.score_import import check_takes_scores
from ..services.textfiles import InputFileError
from .posted import campaign_post, import_upload, to_section

#: The campaign page's section that holds the scores upload (a PRWS campaign's Judgments, where a ranking campaign
#: has its Appraise XML upload) and shows its messages.
SECTION = "appraise"


@campaign_post
def campaign_scores_import(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """POST ``file``, ``layout``, ``rater``, ``map_users`` and ``skip_unknown`` (``ScoresUploadForm``): the summary
    of what was imported, or the refusal with nothing stored and the typed fields kept for the form. A ranking
    campaign's page offers no such form; a post made anyway is refused, saying why."""
    try:
        check_takes_scores(campaign)
    except InputFileError as refused:
        messages.error(request, f"{refused}. Nothing was imported.")
        return to_section(campaign.pk, SECTION)
    return import_upload(request, campaign, ScoresUploadForm(request.POST, request.FILES), SECTION)
