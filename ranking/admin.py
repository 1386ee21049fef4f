"""The Django admin of analysis runs: each run's parameters, status and error at a glance, read-only.

The result (the analysis JSON, megabytes on a large campaign) is never loaded by the list and shown on a run's page
only as stored or not; its reports are on the campaign's analyses page.
"""
from __future__ import annotations

import json

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from annotation.admin import ReadOnlyAdmin

from .models import AnalysisChunk, AnalysisRun, StoredMetricScores


@admin.register(AnalysisRun)
class AnalysisRunAdmin(ReadOnlyAdmin):
    """Search by campaign, requester or error text; filter by status and campaign. Runs can be deleted, not edited."""

    list_display = ("id", "campaign", "status", "parameter_summary", "seed", "requested_by", "created_at",
                    "finished_at", "attempts", "short_error")
    list_filter = ("status", "campaign", "created_at")
    search_fields = ("campaign__name", "requested_by__username", "error", "=task_id")
    fields = ("campaign", "requested_by", "status", "progress", "stage", "attempts", "task_id", "seed",
              "parameters_json", "snapshot_json", "timings_json", "error", "result_stored", "chunks_stored",
              "created_at", "started_at", "heartbeat_at", "finished_at")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).defer("result")

    @admin.display(description="parameters")
    def parameter_summary(self, run: AnalysisRun) -> str:
        return ", ".join(f"{key} {value}" for key, value in sorted(run.parameters.items())) or "–"

    @admin.display(description="error")
    def short_error(self, run: AnalysisRun) -> str:
        return run.error if len(run.error) <= 120 else run.error[:119] + "…"

    @admin.display(description="parameters")
    def parameters_json(self, run: AnalysisRun) -> str:
        return format_html("<pre>{}</pre>", json.dumps(run.parameters, indent=2, sort_keys=True))

    @admin.display(description="snapshot")
    def snapshot_json(self, run: AnalysisRun) -> str:
        return format_html("<pre>{}</pre>", json.dumps(run.snapshot, indent=2, sort_keys=True))

    @admin.display(description="timings")
    def timings_json(self, run: AnalysisRun) -> str:
        return format_html("<pre>{}</pre>", json.dumps(run.timings, indent=2, sort_keys=True))

    @admin.display(description="result")
    def result_stored(self, run: AnalysisRun) -> str:
        stored = AnalysisRun.objects.filter(pk=run.pk, result__isnull=False).exists()
        return "stored (its reports are on the campaign's analyses page)" if stored else "none"

    @admin.display(description="bootstrap chunks stored")
    def chunks_stored(self, run: AnalysisRun) -> str:
        """Of a run on the workers: how many of its chunks are stored (they go once it is done)."""
        return str(run.chunks.count())


@admin.register(AnalysisChunk)
class AnalysisChunkAdmin(ReadOnlyAdmin):
    """The stored bootstrap chunks of runs on the workers, read-only: which a stalled run has (not their samples)."""

    list_display = ("id", "run", "method", "chunk")
    list_filter = ("method",)
    search_fields = ("=run__id",)
    fields = ("run", "method", "chunk")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).defer("samples", "run__result")


@admin.register(StoredMetricScores)
class StoredMetricScoresAdmin(ReadOnlyAdmin):
    """The metric scores analyses computed from a campaign's references, read-only (not their arrays): deleting a
    row makes the next analysis compute that metric again."""

    list_display = ("campaign", "metric", "references", "version", "computed_at")
    list_filter = ("metric", "campaign")
    search_fields = ("campaign__name", "metric")
    fields = ("campaign", "metric", "references", "version", "computed_at")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).defer("data", "details")
