"""Stored analyses: one AnalysisRun per request, with its parameters, progress and result."""
from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.models import Campaign, JobStatus


class AnalysisRunQuerySet(models.QuerySet):
    def claimed(self) -> AnalysisRunQuerySet:
        """Runs a worker or process has taken: running, or queued and sent to it (``task_id`` set)."""
        running = Q(status=AnalysisRun.Status.RUNNING)
        return self.filter(running | (Q(status=AnalysisRun.Status.QUEUED) & ~Q(task_id="")))

    def unfinished(self) -> AnalysisRunQuerySet:
        """Runs queued or running: not done, not failed."""
        return self.filter(status__in=[AnalysisRun.Status.QUEUED, AnalysisRun.Status.RUNNING])

    def waiting(self) -> AnalysisRunQuerySet:
        """Queued runs not sent anywhere yet, oldest first."""
        return self.filter(status=AnalysisRun.Status.QUEUED, task_id="").order_by("id")

    def stalled(self, before: datetime) -> AnalysisRunQuerySet:
        """Claimed runs whose claim expired: no heartbeat since ``before`` (runs from before heartbeats: no start or
        creation since then)."""
        return self.claimed().alias(
            last_sign=Coalesce("heartbeat_at", "started_at", "created_at")
        ).filter(last_sign__lt=before)


class AnalysisRun(models.Model):
    """An analysis of a campaign's judgments, computed by a Celery task (``ranking.tasks``).

    ``parameters`` holds the method parameters and ``seed``; ``snapshot`` the data it saw (judgment count, last
    judgment time), so that a result can be recomputed exactly. ``result`` is the analysis JSON of PRODUCT.md;
    it is written once, together with status ``done``, never in pieces.
    """

    Status = JobStatus

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
    heartbeat_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When a worker or process last claimed the run or reported on it (sent, started, progress); a "
        "claimed run silent for ANALYSIS_CLAIM_SECONDS goes back to the queue.",
    )

    objects = AnalysisRunQuerySet.as_manager()

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

    QUIET_SECONDS = 60
    """A claimed run silent this long says so on the analyses page (``stage_shown``)."""

    def stage_shown(self, now: datetime | None = None) -> str:
        """The stage as the analyses page shows it. A running run no worker has reported on for ``QUIET_SECONDS``
        says how long, and that it goes back to the queue once silent for ``ANALYSIS_CLAIM_SECONDS`` (a worker
        killed whole returns its task to the broker only after Redis's visibility timeout, an hour)."""
        if self.status != self.Status.RUNNING or self.heartbeat_at is None:
            return self.stage
        quiet = ((now or timezone.now()) - self.heartbeat_at).total_seconds()
        if quiet < self.QUIET_SECONDS:
            return self.stage
        note = (f"no word from a worker for {_minutes(quiet)}; it goes back to the queue after "
                f"{_minutes(settings.ANALYSIS_CLAIM_SECONDS)} without one")
        return f"{self.stage}; {note}" if self.stage else note


def _minutes(seconds: float) -> str:
    whole = max(1, round(seconds / 60))
    return f"{whole} minute{'s' if whole != 1 else ''}"


class AnalysisChunk(models.Model):
    """The score samples of one bootstrap chunk of a run, stored by the worker that computed it (``ranking.tasks``).

    The run's last step starts once every chunk is stored, and reads them in order, drawing again those drawn from
    other rankings than its own (``data``: judgments undone or committed late since); the rows go when the run is
    done. Counting the chunks here, under a lock on the run's row, leaves no instant in which a killed worker's
    finished chunk is neither counted nor computed again (Celery's Redis chord counted in Redis after the result
    was stored, and a process killed in between left the run one short until its claim expired)."""

    run = models.ForeignKey(AnalysisRun, on_delete=models.CASCADE, related_name="chunks")
    method = models.CharField(max_length=16)
    chunk = models.PositiveIntegerField()
    samples = models.BinaryField(help_text="float64 samples (chunk size, systems) in NumPy's .npy format.")
    data = models.CharField(
        max_length=64, blank=True, default="",
        help_text="Digest of the rankings the samples were drawn from (runs.rankings_digest).",
    )

    class Meta:
        ordering = ["run_id", "method", "chunk"]
        constraints = [models.UniqueConstraint(fields=["run", "method", "chunk"], name="analysis_chunk_once")]

    def __str__(self) -> str:
        return f"chunk {self.method} {self.chunk} of analysis {self.run_id}"


class StoredMetricScores(models.Model):
    """One automatic metric's scores of a campaign's systems (``automatic_metrics.pack``: system and sentence scores,
    sentence statistics), computed by the first analysis that needs them and read by every later one
    (``metric_store``). They depend only on the systems' outputs, which do not change once imported, on the reference
    sets the metric reads (``references``: their ids, ascending; a set added or deleted changes them) and on the
    scorer (``version``: ``automatic_metrics.SCORES_VERSION``); a campaign keeps one row per metric, its newest."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    metric = models.CharField(max_length=16)
    references = models.TextField(help_text="Ids of the reference sets the scores were computed from, ascending.")
    version = models.PositiveSmallIntegerField()
    details = models.JSONField(help_text="The systems in the order of the arrays, and ERRANT's per-type counts.")
    data = models.BinaryField(help_text="The scores' NumPy arrays in compressed .npz format.")
    computed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "stored metric scores"
        constraints = [models.UniqueConstraint(fields=["campaign", "metric", "references", "version"],
                                               name="stored_metric_scores_once")]

    def __str__(self) -> str:
        return f"{self.metric} of {self.campaign} (references {self.references})"
