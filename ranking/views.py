"""Analysis pages: start an analysis of a campaign, follow its progress, download its JSON and reports.

Starting an analysis only records it (``ranking.dispatch``) and the page and its status endpoint read the runs'
rows: no request waits for the task queue. Reports and the pairs TSV import the numeric core when they are asked
for, so loading the URLs imports no NumPy, SciPy, matplotlib or numba.
"""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from annotation.downloads import save_as, save_snapshot_as
from annotation.models import Judgment
from annotation.permissions import managed_campaign_or_404
from annotation.request_numbers import whole_number

from .dispatch import TooManyAnalyses, start_analysis
from .forms import AnalysisForm
from .models import AnalysisRun
from .rendered_reports import rendered_report
from .run_status import parameter_items, run_status


@login_required
def analyses(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's analyses; a POST starts one and comes back here with ``?started=RUN`` (429 with the form's
    error while the campaign has ``ANALYSES_PER_CAMPAIGN`` runs queued or running)."""
    campaign = managed_campaign_or_404(request, pk)
    form = AnalysisForm(request.POST or None)
    too_many = False
    if request.method == "POST" and form.is_valid():
        try:
            run = start_analysis(campaign, form.parameters(), requested_by=request.user)
        except TooManyAnalyses as refused:
            form.add_error(None, str(refused))
            too_many = True
        else:
            return redirect(f"{reverse('campaign-analyses', args=[campaign.pk])}?started={run.pk}")
    runs = list(AnalysisRun.objects.filter(campaign=campaign).defer("result"))
    started = request.GET.get("started", "")
    started_id = whole_number(started)
    context = {
        "campaign": campaign,
        "form": form,
        "runs": [(run, parameter_items(run.parameters)) for run in runs],
        "started": next((run for run in runs if run.pk == started_id), None),
    }
    return render(request, "ranking/analyses.html", context, status=429 if too_many else 400 if form.errors else 200)


@login_required
def analyses_status(request: HttpRequest, pk: int) -> JsonResponse:
    """``{"runs": [run_status...]}`` of the campaign's runs, newest first: what the page polls for progress."""
    campaign = managed_campaign_or_404(request, pk)
    runs = AnalysisRun.objects.filter(campaign=campaign).defer("result", "parameters", "snapshot", "timings")
    return JsonResponse({"runs": [run_status(run) for run in runs]})


@login_required
def analysis_report(request: HttpRequest, pk: int, run_id: int, extension: str) -> HttpResponse:
    """A done run's report as JSON, HTML, LaTeX (a standalone document) or CSV, for the campaign's organizers.

    The HTML report opens in the browser (``?download=1`` downloads it); the other formats download as files."""
    from .reports.formats import BY_EXTENSION, report_filename

    campaign = managed_campaign_or_404(request, pk)
    run = get_object_or_404(AnalysisRun.objects.defer("result"), pk=run_id, campaign=campaign,
                            status=AnalysisRun.Status.DONE)
    report = BY_EXTENSION[extension]
    response = HttpResponse(rendered_report(run, report.name), content_type=report.content_type)
    name = report_filename(campaign.name, run.pk, run.seed, report.extension)
    disposition = "inline" if report.name == "html" and "download" not in request.GET else "attachment"
    return save_as(response, name, inline=disposition == "inline")


@login_required
def pairs_download(request: HttpRequest, pk: int, kind: str) -> HttpResponse:
    """The campaign's unexpanded or expanded pairwise judgments as TSV, for its organizers, streamed a batch of
    rankings at a time (``loading.pairwise_batches``: a PRWS campaign's from its scores); of the snapshot taken now,
    which the file name and headers name (``save_snapshot_as``)."""
    from .loading import pairwise_batches
    from .reports.pairs_tsv import expanded_tsv_chunks, unexpanded_tsv_chunks

    campaign = managed_campaign_or_404(request, pk)
    snapshot = Judgment.objects.of_campaign(campaign).snapshot()
    chunks = unexpanded_tsv_chunks if kind == "unexpanded" else expanded_tsv_chunks
    response = StreamingHttpResponse(chunks(pairwise_batches(campaign, snapshot)),
                                     content_type="text/tab-separated-values; charset=utf-8")
    return save_snapshot_as(response, campaign.name, f"{kind}-pairs.tsv", snapshot)
