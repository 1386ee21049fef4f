"""Organizer pages: campaigns, imports, screens, Appraise XML. Each view parses the request, calls a service,
and renders."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import capfirst
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from gecappraise.plurals import counted

from ..campaign_forms import SCREENS_COUNT_ERROR, AppraiseUploadForm, CampaignImportForm, ScoresUploadForm, ScreensForm
from ..downloads import judgments_download, save_snapshot_as
from ..models import BackgroundJob, Campaign, Judgment, ScreenJob, System
from ..permissions import is_organizer, managed_campaign_or_404, managed_campaigns, visible_jobs
from ..services import background_jobs
from ..services.appraise_import import NotARankingCampaign, export_appraise_xml_chunks
from ..services.judging_overview import campaign_progress
from ..services.screen_jobs import NOT_STOPPED, active_jobs, request_screens, resume_job
from ..services.screens import MAX_SCREENS_PER_REQUEST, no_screen_reason
from .organizer_judging import judging_context
from .posted import (
    campaign_post,
    choose_files_again,
    form_with_refused_input,
    import_upload,
    messages_section,
    to_section,
    valid_post,
)
from .screen_list import screen_list


@login_required
def campaign_list(request: HttpRequest) -> HttpResponse:
    campaigns = managed_campaigns(request.user).with_sizes()
    if not campaigns and not is_organizer(request.user):
        raise PermissionDenied("Only organizers manage campaigns.")
    context = {"campaigns": campaigns, "can_create": is_organizer(request.user),
               "imports": background_jobs.recent_jobs(request.user)}
    return render(request, "organizer/campaign_list.html", context)


@login_required
def campaign_create(request: HttpRequest) -> HttpResponse:
    if not is_organizer(request.user):
        raise PermissionDenied("Only organizers create campaigns.")
    form = CampaignImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            made = form.save(owner=request.user)
        except ValidationError:
            pass
        else:
            if isinstance(made, BackgroundJob):
                messages.success(request, f"Importing {made.options['name']!r} in the background.")
                return redirect("background-job", job_id=made.pk)
            messages.success(request, f"Created campaign {made.name!r}.")
            return redirect("campaign-detail", pk=made.pk)
    context = {"form": form, "choose_files_again": choose_files_again(request) if form.errors else ""}
    return render(request, "organizer/campaign_form.html", context, status=400 if form.errors else 200)


@login_required
def background_job_detail(request: HttpRequest, job_id: int) -> HttpResponse:
    """A background import's state; the page updates itself until the job has finished (in place with
    JavaScript, static/js/background_job.js; by reloading without)."""
    background_jobs.fail_abandoned()
    job = get_object_or_404(visible_jobs(request.user).select_related("campaign"), pk=job_id)
    summary = background_jobs.imported_summary(job)
    return render(request, "organizer/background_job.html", {"job": job, "summary": summary})


@never_cache
@login_required
def campaign_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's page. Never cached: it shows new invite links once (``judging_context``) and the study link's
    secret, which a browser would otherwise keep on disk and show again from its history."""
    campaign = managed_campaign_or_404(request, pk)
    histogram = sorted((int(k), v) for k, v in campaign.distinct_histogram.items())
    peak = max((v for _, v in histogram), default=1)
    total = sum(v for _, v in histogram)
    progress = campaign_progress(campaign)
    systems = list(campaign.systems.all())
    context = {
        **judging_context(request, campaign, progress),
        "campaign": campaign,
        "systems": systems,
        "n_systems": sum(system.kind != System.Kind.CONTROL for system in systems),
        "n_documents": campaign.documents.count(),
        "n_segments": campaign.segments.count(),
        "histogram": [(k, v, 100 * v / peak) for k, v in histogram],
        "mean_distinct": sum(k * v for k, v in histogram) / total if total else 0,
        "progress": progress,
        "screens_form": ScreensForm(),
        "no_screen_reason": no_screen_reason(campaign),
        "screen_jobs": active_jobs(campaign),
        "max_screens_at_once": MAX_SCREENS_PER_REQUEST,
        "appraise_form": form_with_refused_input(request, campaign.pk, AppraiseUploadForm),
        "scores_form": form_with_refused_input(request, campaign.pk, ScoresUploadForm),
        "study_link": request.build_absolute_uri(reverse("crowd-study-link", args=[campaign.crowd_key]))
        if campaign.crowd else None,
        "messages_section": messages_section(request),
    }
    return render(request, "organizer/campaign_detail.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def campaign_screens(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the list of the campaign's screens (``screen_list``); POST: add screens (the campaign page's form)."""
    if request.method == "POST":
        return add_screens(request, pk=pk)
    return screen_list(request, managed_campaign_or_404(request, pk))


@campaign_post
def add_screens(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """Sample the number of screens the form asks for (none: full coverage), at once or by a background job."""
    form = valid_post(request, ScreensForm, f"{SCREENS_COUNT_ERROR} No screen was added.")
    if form is None:
        return to_section(campaign.pk, "screens")
    try:
        done = request_screens(campaign, form.cleaned_data["count"], requested_by=request.user)
    except ValueError as exc:
        messages.error(request, f"{capfirst(str(exc))}. No screen was added.")
    else:
        if done.job is None:
            messages.success(request, f"Added {counted(done.created, 'screen')}.")
        else:
            messages.success(request, f"Adding {done.job.requested:,} screens in the background; see their progress "
                                      "under Add screens.")
    return to_section(campaign.pk, "screens")


@campaign_post
def screen_job_resume(request: HttpRequest, campaign: Campaign, screen_job_id: int) -> HttpResponse:
    """Go on with a screen job that stopped: it writes the screens it has not written yet."""
    job = get_object_or_404(ScreenJob, pk=screen_job_id, campaign=campaign)
    if resume_job(job):
        messages.success(request, f"Going on with the {job.requested - job.created:,} screens not added yet; see "
                                  "their progress under Add screens.")
    else:
        messages.error(request, NOT_STOPPED)
    return to_section(campaign.pk, "screens")


@campaign_post
def campaign_appraise_import(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    return import_upload(request, campaign, AppraiseUploadForm(request.POST, request.FILES), "appraise")


@login_required
def campaign_appraise_export(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's ranking judgments as Appraise XML, streamed; of the snapshot taken now, which the file name and
    headers name (``save_snapshot_as``)."""
    campaign = managed_campaign_or_404(request, pk)
    snapshot = Judgment.objects.of_campaign(campaign).snapshot()
    try:
        chunks = export_appraise_xml_chunks(campaign, snapshot)
    except NotARankingCampaign as refused:
        return render(request, "400.html", {"status": 409, "reason": f"{refused}: the CSV and JSON links beside "
                                            "it on the campaign page."}, status=409)
    response = StreamingHttpResponse(chunks, content_type="application/xml; charset=utf-8")
    return save_snapshot_as(response, campaign.name, "judgments.xml", snapshot)


@login_required
def campaign_judgments_export(request: HttpRequest, pk: int, extension: str) -> HttpResponse:
    """The campaign's judgments as CSV (one row per judged candidate) or JSON, streamed a batch at a time; of the
    snapshot taken now, which the file name and headers name (``save_snapshot_as``)."""
    return judgments_download(managed_campaign_or_404(request, pk), extension)
