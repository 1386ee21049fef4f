"""A run as the analyses page shows it: status, progress and report links, for the page and its status endpoint."""
from __future__ import annotations

from django.urls import reverse

from .models import AnalysisRun

ACTIVE = (AnalysisRun.Status.QUEUED, AnalysisRun.Status.RUNNING)
MEDIA_TYPES = {"json": "application/json", "html": "text/html; charset=utf-8",
               "tex": "application/x-tex; charset=utf-8", "csv": "text/csv; charset=utf-8"}
"""The media type of a report by its file extension (here, apart from the renderers, so that the URLs and the API's
schema name them without importing the numeric stack)."""

REPORTS = (("JSON", "json", False), ("HTML", "html", False), ("Download HTML", "html", True), ("LaTeX", "tex", False),
           ("CSV", "csv", False))
"""The report links of a done run: label, file extension, and whether the link asks to download (``?download=1``:
the HTML report opens in the browser otherwise; the other formats always download)."""


PARAMETER_LABELS = {
    "bootstrap": "bootstrap samples",
    "confidence": "rank range confidence",
    "seed": "seed",
    "judge_confidence": "per-judge confidence",
    "chunk_size": "bootstrap chunk",
    "accuracy_folds": "accuracy folds",
    "accuracy_bootstrap": "accuracy bootstrap samples",
    "correlation_decimals": "correlation decimals",
    "ignored_judges": "ignored judges",
    "judge": "judge",
    "metrics": "uploaded metrics",
    "references": "metrics computed from",
    "rater_qc": "raters excluded by QC",
}
"""How the analyses page names the stored parameters (a parameter not listed is shown by its key)."""


def _parameter_value(key: str, value) -> str:
    if key == "accuracy_folds" and value == 0:
        return "0 (skipped)"
    if key == "judge" and value is None:
        return "all"
    if key == "rater_qc":
        return ", ".join(rater["rater"] for rater in value.get("excluded", [])) or "none"
    if value is None:
        return "none"
    if isinstance(value, dict):
        return ", ".join(str(name) for name in value) or "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(item) for item in value) or "none"
    return str(value)


def parameter_items(parameters: dict) -> list[tuple[str, str]]:
    """Every stored parameter of a run as (label, value) text: those of PARAMETER_LABELS in its order, then any
    other by its key, alphabetically."""
    keys = [key for key in PARAMETER_LABELS if key in parameters]
    keys += sorted(key for key in parameters if key not in PARAMETER_LABELS)
    return [(PARAMETER_LABELS.get(key, key.replace("_", " ")), _parameter_value(key, parameters[key])) for key in keys]


def report_url(run: AnalysisRun, extension: str, download: bool = False) -> str:
    """The address of a done run's report; ``download`` asks for it as a file even where it would open inline."""
    url = reverse("campaign-analysis-report", args=[run.campaign_id, run.pk, extension])
    return f"{url}?download=1" if download else url


def run_status(run: AnalysisRun) -> dict:
    """``{id, status, label, progress (percent), stage, error, reports: [{label, url}]}``, read from the run's row
    only (never from the task queue or its result backend)."""
    return {
        "id": run.pk,
        "status": run.status,
        "label": run.get_status_display(),
        "progress": run.progress,
        "stage": run.stage_shown(),
        "error": run.error,
        "reports": [
            {"label": label, "url": report_url(run, extension, download)}
            for label, extension, download in REPORTS
        ] if run.status == AnalysisRun.Status.DONE else [],
    }
