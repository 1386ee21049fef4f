"""The report formats: how each is rendered, its file extension and its media type."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from annotation.downloads import download_name

from ..run_status import MEDIA_TYPES
from .csv import render_csv
from .html import render_html
from .json import render_json
from .latex import render_latex


@dataclass(frozen=True)
class ReportFormat:
    """A report format: ``render(analysis)`` gives the report's text."""

    name: str
    extension: str
    content_type: str
    render: Callable[[Mapping], str]


FORMATS: dict[str, ReportFormat] = {
    "html": ReportFormat("html", "html", MEDIA_TYPES["html"], render_html),
    "latex": ReportFormat("latex", "tex", MEDIA_TYPES["tex"], render_latex),
    "json": ReportFormat("json", "json", MEDIA_TYPES["json"], render_json),
    "csv": ReportFormat("csv", "csv", MEDIA_TYPES["csv"], render_csv),
}
"""Formats by the name ``manage.py export_report --format`` takes."""

BY_EXTENSION = {f.extension: f for f in FORMATS.values()}


def render_report(analysis: Mapping, format_name: str, standalone: bool = False) -> str:
    """The report of ``analysis`` in format ``format_name``; ``standalone`` makes the LaTeX a complete document."""
    if standalone and format_name != "latex":
        raise ValueError("standalone applies to the latex format only")
    if format_name not in FORMATS:
        raise ValueError(f"unknown report format {format_name!r} (formats: {', '.join(FORMATS)})")
    return render_latex(analysis, standalone=True) if standalone else FORMATS[format_name].render(analysis)


def report_filename(campaign: str, run_id: int, seed: int, extension: str) -> str:
    """``<campaign slug>-analysis-<run id>-seed<seed>.<extension>``, the name of every download of a run."""
    return download_name(campaign, f"analysis-{run_id}-seed{seed}.{extension}")
