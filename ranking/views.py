"""Analysis pages: start an analysis of a campaign, follow its progress, download its JSON and reports."""
from __future__ import annotations


from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import slugify

from annotation.permissions import managed_campaigns

from .forms import AnalysisForm
from .loading import load_rankings
from .models import AnalysisRun
from .reports.pairs_tsv import expanded_tsv, unexpanded_tsv
from .reports.formats import BY_EXTENSION, render_report, report_filename
from .runs import create_run
from .tasks import enqueue, resend_waiting


@login_required
def analyses(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(managed_campaigns(request.user), pk=pk)
    form = AnalysisForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        run = create_run(campaign, form.parameters(), requested_by=request.user)
        enqueue(run)
        messages.success(request, f"Analysis {run.pk} is queued.")
        return redirect("campaign-analyses", pk=campaign.pk)
    resend_waiting()
    runs = AnalysisRun.objects.filter(campaign=campaign).defer("result")
    busy = runs.filter(status__in=[AnalysisRun.Status.QUEUED, AnalysisRun.Status.RUNNING]).exists()
    return render(request, "ranking/analyses.html", {"campaign": campaign, "form": form, "runs": runs, "busy": busy},
                  status=400 if form.errors else 200)


@login_required
def analysis_report(request: HttpRequest, pk: int, run_id: int, extension: str) -> HttpResponse:
    """A done run's report as JSON, HTML, LaTeX (a standalone document) or CSV, for the campaign's organizers."""
    campaign = get_object_or_404(managed_campaigns(request.user), pk=pk)
    run = get_object_or_404(AnalysisRun, pk=run_id, campaign=campaign, status=AnalysisRun.Status.DONE)
    report = BY_EXTENSION[extension]
    text = render_report(run.result, report.name, standalone=report.name == "latex")
    response = HttpResponse(text, content_type=report.content_type)
    name = report_filename(campaign.name, run.pk, run.seed, report.extension)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
def pairs_download(request: HttpRequest, pk: int, kind: str) -> HttpResponse:
    """The campaign's unexpanded or expanded pairwise judgments as TSV, for its organizers."""
    campaign = get_object_or_404(managed_campaigns(request.user), pk=pk)
    render = unexpanded_tsv if kind == "unexpanded" else expanded_tsv
    response = HttpResponse(render(load_rankings(campaign)), content_type="text/tab-separated-values; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slugify(campaign.name) or "campaign"}-{kind}-pairs.tsv"'
    return response
