"""A done analysis run's reports as the pages and the API send them: rendered once per web process and kept."""
from __future__ import annotations

from django.core.cache import cache

from .models import AnalysisRun

REPORT_CACHE_SECONDS = 3600
"""How long a web process keeps a report it rendered: a done run's result never changes, and the HTML report's
plots take about a second to draw."""


def rendered_report(run: AnalysisRun, name: str) -> str:
    """The done run's report ``name`` (a format of ``reports.formats``), rendered once per web process and kept for
    ``REPORT_CACHE_SECONDS`` (under the run's id and finish time, which a database restored from a backup does not
    give another result); the run's result is read from the database only when it is rendered."""
    from .reports.formats import render_report

    key = f"analysis-report:{run.pk}:{run.finished_at.isoformat() if run.finished_at else ''}:{name}"
    text = cache.get(key)
    if text is None:
        result = AnalysisRun.objects.values_list("result", flat=True).get(pk=run.pk)
        text = render_report(result, name, standalone=name == "latex")
        cache.set(key, text, REPORT_CACHE_SECONDS)
    return text
