"""A run as the analyses page shows it: status, progress and report links, for the page and its status endpoint."""
from __future__ import annotations

from django.urls import reverse

from .models import AnalysisRun

ACTIVE = (AnalysisRun.Status.QUEUED, AnalysisRun.Status.RUNNING)
REPORTS = (("JSON", "json"), ("HTML", "html"), ("LaTeX", "tex"), ("CSV", "csv"))
"""The report links of a done run: label and file extension."""


def run_status(run: AnalysisRun) -> dict:
    """``{id, status, label, progress (percent), stage, error, reports: [{label, url}]}``, read from the run's row
    only (never from the task queue or its result backend)."""
    return {
        "id": run.pk,
        "status": run.status,
        "label": run.get_status_display(),
        "progress": run.progress,
        "stage": run.stage,
        "error": run.error,
        "reports": [
            {"label": label, "url": reverse("campaign-analysis-report", args=[run.campaign_id, run.pk, extension])}
            for label, extension in REPORTS
        ] if run.status == AnalysisRun.Status.DONE else [],
    }
