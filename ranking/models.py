"""Stored analyses: one AnalysisRun per request, with its parameters, progress and result."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.models import Campaign


class AnalysisRun(models.Model):
    """An analysis of a campaign's judgments, computed by a Celery task (``ranking.tasks``).

    ``parameters`` holds the method parameters and ``seed``; ``snapshot`` the data it saw (judgment count, last
    judgment time), so that a result can be recomputed exactly. ``result`` is the analysis JSON of PRODUCT.md;
    it is written once, together with status ``done``, never in pieces.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="analysis_runs")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    parameters = models.JSONField(default=dict)
    seed = models.BigIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress = models.FloatField(default=0.0, help_text="Percent done, 0-100.")
    stage = models.CharField(max_length=100, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    task_id = models.CharField(max_length=64, blank=True)
    snapshot = models.JSONField(default=dict, blank=True)
    timings = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(progress__gte=0) & Q(progress__lte=100), name="analysis_progress_range"),
            models.CheckConstraint(
                condition=~Q(status="done") | Q(result__isnull=False), name="analysis_done_has_result"
            ),
        ]

    def __str__(self) -> str:
        return f"analysis {self.pk} of {self.campaign_id} ({self.status})"
