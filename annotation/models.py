"""The data of a human evaluation campaign.

A Campaign holds the test set (Documents of Segments, the source sentences) and the Systems whose outputs are
judged. The outputs of a segment are collapsed (METHODS 1): each distinct output string is one Candidate, and an
Output row records which candidate each system produced for each segment. A Screen is one sampled set of
candidates of a segment in display order (METHODS 2); an Assignment gives a screen to a judge; a Judgment
records what the judge did with it, one CandidateJudgment per shown candidate (a rank, or a PRWS score), or a
Flag when the judge flagged the screen instead.

Integrity lives in the database: unique constraints and check constraints, not only in forms. Default orderings
name foreign keys by their column (``campaign_id``): ordered by the relation, every default-ordered query would join
the related table to sort by that model's own ordering (campaigns by name).
"""
from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator, MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Count, F, Max, Q
from django.db.models.functions import Coalesce
from django.utils import timezone
from knox.models import AbstractAuthToken

from gecappraise import plurals

from .validators import validate_completion_url, validate_one_line, validate_p_value_above_zero


class JobStatus(models.TextChoices):
    """Where a piece of background work stands: a screen job, a background job, an analysis run."""

    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


#: The longest Markdown a campaign's guidelines (and a training screen's feedback) may hold, in characters: on the
#: New campaign form, the API, the guidelines page and in the model's validation.
MARKDOWN_MAX = 50_000


def markdown_too_long(what: str) -> str:
    """The refusal of ``what`` (e.g. "guidelines") over MARKDOWN_MAX characters."""
    return f"Keep the {what} to {MARKDOWN_MAX:,} characters at most."


def new_crowd_key() -> str:
    """A fresh secret for a campaign's public study link (24 URL-safe characters)."""
    return secrets.token_urlsafe(18)


def counted(rows: models.QuerySet, key: str) -> models.Expression:
    """How many of ``rows`` have ``key`` equal to the outer row's primary key (0 for none): a subquery that reads
    each outer row's own rows, through the index of ``key``."""
    grouped = rows.filter(**{key: models.OuterRef("pk")}).order_by().values(key)
    return Coalesce(models.Subquery(grouped.annotate(n=models.Count("pk")).values("n")), 0)


def unique_within(prefix: str, parent: str, *fields: str) -> list[models.UniqueConstraint]:
    """One unique constraint for each of ``fields`` among the rows of one ``parent`` (a foreign key), named
    ``{prefix}_unique_{field}``: e.g. a document's name and position are each unique within its campaign."""
    return [models.UniqueConstraint(fields=[parent, field], name=f"{prefix}_unique_{field}") for field in fields]


class CampaignQuerySet(models.QuerySet):
    def with_sizes(self) -> CampaignQuerySet:
        """The campaigns with their sizes: ``n_systems``, ``n_documents`` and ``n_segments`` (the test set's: its
        systems are those uploaded, not the control the screens' checks add) and ``n_screens`` (the next screen
        number, as ``screens.screen_count``). Each is a subquery of its own table read through the campaign's index,
        so a list of campaigns reads each campaign's rows of each table once, in the one query that lists them."""
        last = Screen.objects.filter(campaign=models.OuterRef("pk")).order_by("-number").values("number")[:1]
        return self.annotate(n_systems=counted(System.objects.exclude(kind=System.Kind.CONTROL), "campaign"),
                             n_documents=counted(Document.objects.all(), "campaign"),
                             n_segments=counted(Segment.objects.all(), "campaign"),
                             n_screens=Coalesce(models.Subquery(last) + 1, 0))


class Campaign(models.Model):
    """An evaluation campaign: a test set, its systems, and how screens are sampled and assigned."""

    class Mode(models.TextChoices):
        RANKING = "ranking", "Relative ranking"
        PRWS = "prws", "Partial ranking with scalars"

    class Sampling(models.TextChoices):
        DIVERSITY = "diversity", "Diversity-weighted (G15 4.1)"
        UNIFORM = "uniform", "Uniform over sentences"
        FULL = "full", "Full coverage (every sentence once)"

    class Selection(models.TextChoices):
        RANDOM = "random", "Random order (G15 4.1)"
        ACTIVE = "active", "Active: where the ranking is most uncertain"

    name = models.CharField(max_length=200, unique=True)
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.RANKING)
    max_candidates = models.PositiveSmallIntegerField(
        default=5, validators=[MinValueValidator(2), MaxValueValidator(10)],
        help_text="M: the most candidates shown on one screen (2 to 10).",
    )
    sampling = models.CharField(max_length=16, choices=Sampling.choices, default=Sampling.DIVERSITY)
    selection = models.CharField(
        "selection of the next screen", max_length=16, choices=Selection.choices, default=Selection.RANDOM,
        help_text="Random: screens are sampled in advance (G15 4.1). Active: a short queue of screens is chosen "
        "in the background as judgments arrive, where they teach the most about the system ranking (TrueSkill "
        "for ranking, EASL for PRWS); redundancy, repeats and per-judge limits hold as for random screens.",
    )
    seed = models.BigIntegerField(default=1, help_text="Seed of every random choice of this campaign.")
    redundancy = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(1000)],
        help_text="How many judges see each screen (1 to 1,000).",
    )
    repeat_rate = models.FloatField(
        default=0.0, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Share of a judge's screens shown to that judge again later (intra-annotator), 0 to 1.",
    )
    guidelines = models.TextField(
        blank=True, max_length=MARKDOWN_MAX,
        validators=[MaxLengthValidator(MARKDOWN_MAX, message=markdown_too_long("guidelines"))],
        help_text=f"Guidelines for judges, in Markdown (at most {MARKDOWN_MAX:,} characters).",
    )
    instruction = models.CharField(
        "instruction on the judge's screen", max_length=200, blank=True, validators=[validate_one_line],
        help_text="One line above the corrections, e.g. \u201cRank each correction from 1 = best to 5 = worst; ties "
        "are allowed.\u201d Empty: that default (for PRWS: score from 0 to 100).",
    )
    show_replaced_words = models.BooleanField(
        default=True,
        help_text="Substitutions show the replaced words struck through before the new ones (off: G15's display).",
    )
    source_language = models.CharField(max_length=32, default="err")
    target_language = models.CharField(max_length=32, default="cor")
    distinct_histogram = models.JSONField(
        default=dict, blank=True, help_text="Number of sentences by number of distinct outputs."
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    organizers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="organized_campaigns")
    judges = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="judged_campaigns")
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    control_share = models.FloatField(
        "share of control screens", default=0.0, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="0 to 1: this share of new screens shows the source beside Source+error (the source with 1-2 "
        "inserted errors), for rater quality control; needs the source judged too. 0: none.",
    )
    qc_control_threshold = models.FloatField(
        "rater QC: control threshold", default=0.7, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="0 to 1: a rater must judge Source+error worse than Source on at least this share of control "
        "screens (N19: 0.7).",
    )
    qc_p_value = models.FloatField(
        "rater QC: p-value", default=0.01, validators=[validate_p_value_above_zero, MaxValueValidator(1.0)],
        help_text="Above 0, at most 1: a rater passes the one-sided Mann-Whitney test of control against other "
        "judgments at this p-value or below (Appraise: 0.01).",
    )
    qc_min_total_seconds = models.FloatField(
        "rater QC: least total time (seconds)", default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(10**7)],
        help_text="A rater with less time on screens in total fails (0: no limit).",
    )
    qc_min_median_seconds = models.FloatField(
        "rater QC: least median time per screen (seconds)", default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(10**5)],
        help_text="A rater whose median time per screen is shorter fails (0: no limit).",
    )
    crowd = models.BooleanField(
        "crowd campaign", default=False,
        help_text="Workers of Prolific, Mechanical Turk or another platform join through one public study link, "
        "without an account; the campaign page shows the link.",
    )
    crowd_key = models.CharField(
        max_length=32, unique=True, default=new_crowd_key, editable=False,
        help_text="The secret part of the public study link.",
    )
    crowd_session_screens = models.PositiveIntegerField(
        "crowd: screens per session", default=100, validators=[MinValueValidator(1), MaxValueValidator(10**5)],
        help_text="The most screens a worker judges in one session before getting the completion code.",
    )
    crowd_campaign_screens = models.PositiveIntegerField(
        "crowd: screens per worker", default=0, validators=[MaxValueValidator(10**7)],
        help_text="The most screens one worker judges in the whole campaign (0: no limit).",
    )
    crowd_completion_url = models.CharField(
        "crowd: completion URL", max_length=500, blank=True, validators=[validate_completion_url],
        help_text="Where workers are sent at the end of a session; {code} becomes the completion code, e.g. "
        "https://app.prolific.com/submissions/complete?cc={code}. Empty: the code is only shown.",
    )
    crowd_code_encodes_qc = models.BooleanField(
        "crowd: code encodes rater QC", default=False,
        help_text="The completion code differs for workers who pass and fail rater QC (as Appraise does).",
    )

    objects = CampaignQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        # Each check names what it holds, for a form or serializer that validates the model's constraints.
        constraints = [
            models.CheckConstraint(
                condition=Q(control_share__gte=0.0) & Q(control_share__lte=1.0), name="campaign_control_share_range",
                violation_error_message="The share of control screens must be from 0 to 1.",
            ),
            models.CheckConstraint(
                condition=Q(qc_control_threshold__gte=0.0) & Q(qc_control_threshold__lte=1.0)
                & Q(qc_p_value__gt=0.0) & Q(qc_p_value__lte=1.0)
                & Q(qc_min_total_seconds__gte=0.0) & Q(qc_min_median_seconds__gte=0.0),
                name="campaign_qc_thresholds_range",
                violation_error_message="Rater QC: the control threshold must be from 0 to 1, the p-value above 0 "
                "and at most 1, and the least times 0 or more.",
            ),
            models.CheckConstraint(
                condition=Q(max_candidates__gte=2) & Q(max_candidates__lte=10), name="campaign_m_range",
                violation_error_message="M, the most candidates on a screen, must be from 2 to 10.",
            ),
            models.CheckConstraint(
                condition=Q(redundancy__gte=1), name="campaign_redundancy_positive",
                violation_error_message="Redundancy, the judges per screen, must be at least 1.",
            ),
            models.CheckConstraint(
                condition=Q(crowd_session_screens__gte=1), name="campaign_crowd_session_positive",
                violation_error_message="Crowd: the screens per session must be at least 1.",
            ),
            models.CheckConstraint(
                condition=Q(repeat_rate__gte=0.0) & Q(repeat_rate__lte=1.0), name="campaign_repeat_rate_range",
                violation_error_message="The repeat rate must be from 0 to 1.",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """A campaign with crowd workers stays in crowd mode (every form of it, the admin's among them, checks this):
        out of it, its study link answers 404, and its workers' accounts, which have no password and no other way
        in, could no longer reach their completion codes, nor be told apart from invited judges."""
        if self.pk is None or self.crowd:
            return
        workers = CrowdWorker.objects.filter(campaign_id=self.pk).count()
        if workers:
            raise ValidationError({"crowd": (
                f"This campaign has {plurals.counted(workers, 'crowd worker')}, who joined by its study link and "
                "have no account of their own: it stays a crowd campaign while it has them. To end the study, close "
                "the campaign (each session in which a screen was submitted gets its completion code)."
            )})


class System(models.Model):
    """A producer of outputs: a GEC system, the unchanged input, a reference, or a quality-control output."""

    class Kind(models.TextChoices):
        SYSTEM = "system", "System"
        INPUT = "input", "Input (source)"
        REFERENCE = "reference", "Reference"
        CONTROL = "control", "Control"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="systems")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.SYSTEM)
    unchanged = models.PositiveIntegerField(
        default=0, editable=False,
        help_text="Outputs identical to the source sentence, counted when the test set was imported (a control's "
                  "outputs never are: the corrupter changes a token).",
    )

    class Meta:
        ordering = ["campaign_id", "name"]
        constraints = [
            *unique_within("system", "campaign", "name"),
            models.CheckConstraint(condition=~Q(name=""), name="system_name_not_empty"),
        ]

    def __str__(self) -> str:
        return self.name


class Document(models.Model):
    """A document of the test set (an essay); context never crosses its boundary."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="documents")
    name = models.CharField(max_length=200)
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["campaign_id", "position"]
        constraints = unique_within("document", "campaign", "name", "position")

    def __str__(self) -> str:
        return self.name


class Segment(models.Model):
    """A source sentence. ``line`` is its 0-based line number in the input files (Appraise ``src-id``)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="segments")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="segments")
    position = models.PositiveIntegerField(help_text="0-based position within its document.")
    line = models.PositiveIntegerField(help_text="0-based line number in the input files (Appraise src-id).")
    source = models.TextField(blank=True)
    multiplicities = models.JSONField(
        default=list, blank=True, editable=False,
        help_text="How many systems produced each of the segment's candidates, in the candidates' order (by id): "
        "what screen planning samples from, written with the candidates (the import, a control candidate).",
    )

    class Meta:
        ordering = ["campaign_id", "line"]
        constraints = unique_within("segment", "campaign", "line") + unique_within("segment", "document", "position")

    def __str__(self) -> str:
        return f"{self.campaign_id}:{self.line}"


class Candidate(models.Model):
    """One distinct output of a segment; the systems that produced it are its Output rows (METHODS 1)."""

    segment = models.ForeignKey(
        Segment, on_delete=models.CASCADE, related_name="candidates",
        db_index=False,  # the index candidate_segment_order serves it
    )
    text = models.TextField(blank=True)
    systems = models.ManyToManyField(System, through="Output", related_name="candidates")

    class Meta:
        ordering = ["segment_id", "id"]
        # A segment's candidates in their order (by id), from the index alone: each candidate's place among its
        # segment's, which active PRWS selection numbers the rated candidates by (ranking.active_screens).
        indexes = [models.Index(fields=["segment", "id"], name="candidate_segment_order")]

    def __str__(self) -> str:
        return self.text[:60]


class Output(models.Model):
    """System ``system`` produced candidate ``candidate`` for ``segment``: exactly one per (segment, system)."""

    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="outputs")
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="outputs")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="outputs")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["segment", "system"], name="output_one_per_system"),
        ]


class ScreenQuerySet(models.QuerySet):
    def unserved(self) -> ScreenQuerySet:
        """Screens no judge has been given: every assignment still in the pool (``AssignmentQuerySet.taken`` has
        none of them). Only these may still change (attention checks)."""
        taken = Assignment.objects.taken().filter(screen=models.OuterRef("pk"))
        return self.exclude(models.Exists(taken))

    def submitted(self) -> ScreenQuerySet:
        """Screens with a submitted judgment (ranks, scores or a flag) in one of their slots, a repeat's included."""
        done = Assignment.objects.taken().filter(screen=models.OuterRef("pk"), status=Assignment.Status.SUBMITTED)
        return self.filter(models.Exists(done))

    def waiting(self) -> ScreenQuerySet:
        """Screens still waiting for a judgment: a slot of theirs is pending or served, so ratings of their
        candidates are on their way."""
        open_ = Assignment.objects.filter(screen=models.OuterRef("pk"),
                                          status__in=(Assignment.Status.PENDING, Assignment.Status.SERVED))
        return self.filter(models.Exists(open_))

    def flagged(self) -> ScreenQuerySet:
        """Screens a judge flagged instead of judging (a judgment of theirs is a ``Flag``)."""
        return self.filter(models.Exists(Flag.objects.filter(judgment__assignment__screen=models.OuterRef("pk"))))

    def with_counts(self) -> ScreenQuerySet:
        """The screens with ``n_candidates`` (the corrections shown), ``n_slots`` (original slots: ``redundancy``
        judges' each, repeats not counted), ``n_submitted`` (those of them submitted) and ``n_flags`` (flags in any
        slot). Each is a subquery through the screen's index of its table, so a page of screens reads its own rows
        only, whatever the campaign's size."""
        original = Assignment.objects.filter(repeat_of__isnull=True)
        return self.annotate(
            n_candidates=counted(ScreenCandidate.objects.all(), "screen"),
            n_slots=counted(original, "screen"),
            n_submitted=counted(original.filter(status=Assignment.Status.SUBMITTED), "screen"),
            n_flags=counted(Flag.objects.all(), "judgment__assignment__screen"),
        )


class Screen(models.Model):
    """A sampled set of candidates of one segment, shown together in the stored order (METHODS 2)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="screens")
    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="screens")
    number = models.PositiveIntegerField(help_text="0-based sampling order within the campaign.")
    candidates = models.ManyToManyField(Candidate, through="ScreenCandidate", related_name="screens")
    created_at = models.DateTimeField(auto_now_add=True)
    excluded = models.BooleanField(
        default=False, help_text="Left out of every analysis: the organizer excluded it (e.g. after a flag)."
    )
    control = models.BooleanField(
        default=False, db_default=False,
        help_text="A control screen: it shows Source+error (and, placed by the sampler, Source) for rater QC.",
    )

    objects = ScreenQuerySet.as_manager()

    class Meta:
        ordering = ["campaign_id", "number"]
        constraints = [
            *unique_within("screen", "campaign", "number"),
            # The target of Assignment's (screen, campaign) foreign key (migration 0005, PostgreSQL).
            models.UniqueConstraint(fields=["id", "campaign"], name="screen_unique_id_campaign"),
        ]
        # The dashboard polls the excluded screens of a campaign; they are few among many.
        indexes = [models.Index(fields=["campaign"], condition=Q(excluded=True), name="screen_excluded")]

    def __str__(self) -> str:
        return f"screen {self.number} of {self.campaign_id}"


class ScreenCandidate(models.Model):
    """Candidate ``candidate`` is shown at ``position`` (0-based) on ``screen``."""

    screen = models.ForeignKey(Screen, on_delete=models.CASCADE, related_name="slots")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["screen_id", "position"]
        constraints = unique_within("screen_candidate", "screen", "position", "candidate")


class AssignmentQuerySet(models.QuerySet):
    def taken(self) -> AssignmentQuerySet:
        """Assignments a judge has been given (served, submitted, or a repeat): those with a judge. A pool slot
        leaves the pool when it gets one."""
        return self.filter(judge__isnull=False)


class AssignmentManager(models.Manager.from_queryset(AssignmentQuerySet)):
    """Fills in each new assignment's ``campaign`` from its screen in ``bulk_create`` (see Assignment)."""

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        unknown = {obj.screen_id for obj in objs if obj.campaign_id is None and not self.model.screen.is_cached(obj)}
        campaigns = dict(Screen.objects.filter(pk__in=unknown).values_list("pk", "campaign_id")) if unknown else {}
        for obj in objs:
            if obj.campaign_id is None:
                obj.campaign_id = campaigns[obj.screen_id] if obj.screen_id in campaigns else obj.screen.campaign_id
        return super().bulk_create(objs, *args, **kwargs)


class Assignment(models.Model):
    """A screen to be judged by one judge.

    Pool slots have no judge yet; a judge claims one (see ``services.queue``). ``repeat_of`` marks a second
    showing of a screen to the same judge, for intra-annotator agreement; it becomes due once the judge has
    submitted ``due_after`` screens of the campaign. A judge has at most one original (non-repeat) assignment
    of a screen.

    ``campaign`` is the screen's campaign, kept on the row so that the queue's questions (the first open slot of
    a campaign, how many screens a judge can still reach, how many slots are claimed) are answered from
    per-campaign indexes without touching the campaign's other screens; ``save`` and ``bulk_create`` fill it in
    from the screen, and on PostgreSQL a foreign key on (screen, campaign) keeps it equal to the screen's.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SERVED = "served", "Served"
        SUBMITTED = "submitted", "Submitted"

    screen = models.ForeignKey(Screen, on_delete=models.CASCADE, related_name="assignments")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+", editable=False, db_index=False)
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="assignments",
        db_index=False,  # the index assignment_judge_rows serves it
    )
    position = models.PositiveIntegerField(help_text="Order in which pool slots are handed out.")
    repeat_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="repeats",
        db_index=False,  # the partial index assignment_repeats serves it
    )
    due_after = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    token = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    served_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    objects = AssignmentManager()

    class Meta:
        ordering = ["position", "id"]
        indexes = [
            # A judge's own rows of a campaign, and nothing else, for every question the queue asks about the judge:
            # their open ones (by status), the screens they have had (screen, from the index alone), their counts
            # (status, repeat_of) and their last submit (submitted_at, id, read backwards). Pool slots have no judge
            # and are left out.
            models.Index(
                fields=["judge", "campaign", "status", "submitted_at", "id"], include=["screen", "repeat_of"],
                condition=Q(judge__isnull=False), name="assignment_judge_rows",
            ),
            # A campaign's slots, and its last position (``screens.next_slot_position``).
            models.Index(fields=["campaign", "position"], name="assignment_campaign_position"),
            # The pool: open slots of a campaign in the order they are handed out, and by screen (progress).
            models.Index(
                fields=["campaign", "position", "id"], name="assignment_pool_order",
                condition=Q(judge__isnull=True, status="pending", repeat_of__isnull=True),
            ),
            models.Index(
                fields=["campaign", "screen"], name="assignment_pool_screens",
                condition=Q(judge__isnull=True, status="pending", repeat_of__isnull=True),
            ),
            # Slots that left the pool (claimed, served, submitted), by campaign: the organizer's counts, originals
            # and repeats apart, from the index alone (``kept_slots.slot_counts``).
            models.Index(
                fields=["campaign", "status", "screen"], include=["repeat_of"], name="assignment_taken",
                condition=Q(judge__isnull=False),
            ),
            models.Index(fields=["repeat_of"], name="assignment_repeats", condition=Q(repeat_of__isnull=False)),
            # Leases (served screens, and screens undone since) in the order slots are handed out: expired ones
            # return to the pool, the first one first. By position, so that every plan of the claim finds the first
            # expired lease among the few leases: a generic plan of the prepared claim walked the campaign's
            # positions (assignment_campaign_position) past all of its assignments.
            models.Index(
                fields=["campaign", "position", "id"], name="assignment_leases",
                condition=Q(lease_expires_at__isnull=False),
            ),
            # The dashboard's data version: count, id sum and last submit of a campaign's submitted slots, read
            # from the index alone (``ranking.leaderboard.data_version``).
            models.Index(
                fields=["campaign", "id", "submitted_at"], name="assignment_submitted", condition=Q(status="submitted")
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="submitted") | Q(judge__isnull=False), name="assignment_submitted_has_judge"
            ),
            models.CheckConstraint(
                condition=Q(repeat_of__isnull=True) | Q(judge__isnull=False), name="assignment_repeat_has_judge"
            ),
            models.UniqueConstraint(
                fields=["screen", "judge"], condition=Q(repeat_of__isnull=True, judge__isnull=False),
                name="assignment_one_original_per_judge",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.screen} for {self.judge_id or 'pool'}"

    def save(self, *args, **kwargs):
        if self.campaign_id is None:
            self.campaign_id = self.screen.campaign_id
        super().save(*args, **kwargs)


class CampaignSlots(models.Model):
    """A campaign's original (non-repeat) assignment slots: how many and the sum of their ids, kept in the
    transactions that write them (``screens.write_screens``, ``judged_screens.write_judged_screens``, both under the
    campaign's lock) and delete them (a judge's account, deleted with its slots), so that the organizer's pages count
    a million slots without reading them (``services.kept_slots``). No row: none yet. Repeats, which submits write,
    and the slots judges took are counted from their partial indexes instead."""

    campaign = models.OneToOneField(Campaign, primary_key=True, on_delete=models.CASCADE, related_name="+")
    originals = models.BigIntegerField(default=0)
    original_ids = models.BigIntegerField(default=0, help_text="The sum of the original slots' ids.")

    def __str__(self) -> str:
        return f"{self.originals} original slots of {self.campaign_id}"


class ServedPrefix(models.Model):
    """Where a campaign's unserved screens start: every screen numbered below ``below`` has been given to a judge
    (``ScreenQuerySet.unserved`` keeps none of them), so the organizer's list of screens not served yet reads from
    there instead of walking the served screens (``services.served_prefix``). The list moves it forward; deleting a
    judge's account, whose slots go with it, moves it back to the first of the judge's screens, in the deletion's
    transaction. No row: 0."""

    campaign = models.OneToOneField(Campaign, primary_key=True, on_delete=models.CASCADE, related_name="+")
    below = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"screens below {self.below} of {self.campaign_id} served"


class ScreenJob(models.Model):
    """A request for more screens than one web request writes: a background task writes them in chunks.

    The screens are planned as one batch (seeded with the campaign's seed and ``first_number``, the number the
    campaign's next screen had when the job was asked for), so they are the screens ``create_screens`` would have
    written at once; ``created`` counts those written so far, each chunk in one transaction with its count, so a
    job that was interrupted goes on where it stopped (``services.screen_jobs``).
    """

    Status = JobStatus

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="screen_jobs")
    requested = models.PositiveIntegerField(help_text="Screens to create.")
    created = models.PositiveIntegerField(default=0, help_text="Screens created so far.")
    first_number = models.PositiveIntegerField(help_text="Seeds the batch's plan (with the campaign's seed).")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    error = models.CharField(max_length=500, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True, help_text="When it was handed to the task queue.")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign_id", "-requested_at"]
        constraints = [
            models.CheckConstraint(condition=Q(requested__gte=1), name="screen_job_requests_screens"),
            models.CheckConstraint(
                condition=Q(created__lte=F("requested")), name="screen_job_created_at_most_requested"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.requested} screens for {self.campaign_id} ({self.status})"


class BackgroundJob(models.Model):
    """Work too large for a web request (``services.background_jobs``): importing a large upload (a test set,
    Appraise XML, a PRWS scores CSV), or putting attention checks on many screens. An upload's files are kept in the
    database (``JobFile``), so a worker on another machine reads them; a background task does the work all or
    nothing, as the request would have.
    ``options`` holds the request's other fields; ``result`` what the job made (the new campaign's id, counts);
    ``error`` why it failed, naming the file and line or item. A finished job's files are deleted (names stay)."""

    class Kind(models.TextChoices):
        TEST_SET = "test_set", "Test set import (a new campaign)"
        APPRAISE_XML = "appraise_xml", "Appraise XML import"
        ATTENTION_CHECKS = "attention", "Attention checks"
        SCORES = "scores", "PRWS scores import"

    Status = JobStatus

    kind = models.CharField(max_length=16, choices=Kind.choices)
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.CASCADE, related_name="background_jobs",
        help_text="The campaign worked on; for a test set, the campaign it created.",
    )
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True, max_length=2000)
    result = models.JSONField(default=dict, blank=True)
    size = models.BigIntegerField(default=0, help_text="Bytes uploaded.")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True, help_text="When it was handed to the task queue.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]
        indexes = [models.Index(fields=["status", "sent_at"], name="background_job_waiting")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)


class JobFile(models.Model):
    """One uploaded file of a BackgroundJob: the form ``field`` it came in (``source``, ``systems``, ``documents``,
    ``archive``, ``file``), its name and bytes, in upload order."""

    job = models.ForeignKey(BackgroundJob, on_delete=models.CASCADE, related_name="files")
    field = models.CharField(max_length=16)
    position = models.PositiveIntegerField()
    name = models.CharField(max_length=255)
    data = models.BinaryField()

    class Meta:
        ordering = ["job_id", "position"]
        constraints = [models.UniqueConstraint(fields=["job", "position"], name="job_file_position_once")]


@dataclass(frozen=True)
class JudgmentSnapshot:
    """Judgments at one moment, as the analyses and the raw downloads name the data they hold: how many
    (``judgments``), when the last of them was stored (``last_judgment_at``) and the highest id
    (``last_judgment_id``; both None without any). The data of a snapshot are the judgments with an id up to
    ``last_judgment_id`` (``JudgmentQuerySet.up_to``), which an analysis and a download of one snapshot both read."""

    judgments: int
    last_judgment_at: datetime | None
    last_judgment_id: int | None

    @property
    def id_bound(self) -> int:
        """The highest id of its judgments, 0 without any: they are the judgments with an id up to it."""
        return self.last_judgment_id or 0


class JudgmentQuerySet(models.QuerySet):
    def of_campaign(self, campaign: Campaign) -> JudgmentQuerySet:
        """The judgments of ``campaign`` (through the assignment's campaign)."""
        return self.filter(assignment__campaign=campaign)

    def snapshot(self) -> JudgmentSnapshot:
        """These judgments now, in one query: their number, the last one's time and the highest id."""
        taken = self.aggregate(judgments=Count("id"), at=Max("created_at"), last=Max("id"))
        return JudgmentSnapshot(taken["judgments"], taken["at"], taken["last"])

    def up_to(self, snapshot: JudgmentSnapshot) -> JudgmentQuerySet:
        """Those in ``snapshot``: an id up to its ``last_judgment_id`` (none of a snapshot without judgments).
        Judgments are stored with increasing ids, so those stored after the snapshot are left out."""
        return self.filter(id__lte=snapshot.id_bound)


class Judgment(models.Model):
    """What a judge submitted for an assignment: per-candidate ranks or scores, or a flag.

    ``duration`` is the time on screen (served to submitted, or Appraise's ``duration`` for imported items);
    ``active_time`` is the client's focused, non-idle time. ``external_id``/``external_doc_id``/``external_group``
    keep Appraise's item ``id``, ``doc-id`` and result ``id`` so that exports round-trip. ``crowd_session`` is the
    crowd worker's session (CrowdSession) that was current when the judgment was stored, the one whose screens count
    it (empty for an invited judge's or an imported judgment, and for a crowd judgment from before migration 0023
    that could not be attributed, see there).
    """

    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="judgment")
    crowd_session = models.ForeignKey(
        "CrowdSession", null=True, blank=True, on_delete=models.SET_NULL, related_name="judgments",
        help_text="The crowd session current when the judgment was stored (empty: none, or not known).",
    )
    duration = models.DurationField(null=True, blank=True)
    active_time = models.DurationField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    external_id = models.CharField(max_length=100, blank=True)
    external_doc_id = models.CharField(max_length=200, blank=True)
    external_group = models.CharField(max_length=200, blank=True)

    objects = JudgmentQuerySet.as_manager()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"judgment of {self.assignment}"


class CandidateJudgmentQuerySet(models.QuerySet):
    """The judged candidates every reader starts from: the analyses' loading, the exports, attention checks, rater
    QC, re-imports and active selection."""

    def of_campaign(self, campaign: Campaign) -> CandidateJudgmentQuerySet:
        """The judged candidates of ``campaign``'s judgments (through the assignment's campaign, one join less)."""
        return self.filter(judgment__assignment__campaign=campaign)

    def up_to(self, snapshot: JudgmentSnapshot) -> CandidateJudgmentQuerySet:
        """Those of the judgments in ``snapshot`` (``JudgmentQuerySet.up_to``)."""
        return self.filter(judgment_id__lte=snapshot.id_bound)

    def ranked(self) -> CandidateJudgmentQuerySet:
        """Those with a rank (relative ranking)."""
        return self.filter(rank__isnull=False)

    def scored(self) -> CandidateJudgmentQuerySet:
        """Those with a PRWS score."""
        return self.filter(score__isnull=False)

    def in_order(self) -> CandidateJudgmentQuerySet:
        """By judgment, then by the position each candidate was shown at."""
        return self.order_by("judgment_id", "position")


class CandidateJudgment(models.Model):
    """The rank (1 = best) or PRWS score (0-100, with meaning_changed) a judgment gives one shown candidate."""

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="items")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="judgments")
    position = models.PositiveSmallIntegerField(help_text="Where the candidate was shown (0-based).")
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    meaning_changed = models.BooleanField(default=False)
    slider_first = models.FloatField(
        null=True, blank=True, help_text="PRWS: the slider's first value after the judge moved it (null: not moved)."
    )
    slider_last = models.FloatField(null=True, blank=True, help_text="PRWS: the slider's last value before submit.")

    objects = CandidateJudgmentQuerySet.as_manager()

    class Meta:
        ordering = ["judgment_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["judgment", "candidate"], name="candidate_judgment_unique"),
            *unique_within("candidate_judgment", "judgment", "position"),
            models.CheckConstraint(
                condition=Q(rank__isnull=True) | (Q(rank__gte=1) & Q(rank__lte=10)), name="candidate_rank_range"
            ),
            models.CheckConstraint(
                condition=Q(score__isnull=True) | (Q(score__gte=0) & Q(score__lte=100)),
                name="candidate_score_range",
            ),
            models.CheckConstraint(
                condition=Q(rank__isnull=False) | Q(score__isnull=False), name="candidate_rank_or_score"
            ),
        ]


class Flag(models.Model):
    """The judge flagged the screen instead of judging it (Appraise ``skipped="true"``)."""

    judgment = models.OneToOneField(Judgment, on_delete=models.CASCADE, related_name="flag")
    reason = models.CharField(max_length=500, blank=True)

    def __str__(self) -> str:
        return self.reason or "flagged"



class RaterStatus(models.Model):
    """A judge's standing in rater quality control of a campaign (``services.rater_qc``).

    ``decision`` is the organizer's: ``auto`` follows the checks' verdict, ``include`` and ``exclude`` override it.
    ``attempt`` counts the judge's attempts; a fresh attempt keeps the earlier work but leaves it out of every
    analysis: the judge's judgments of the campaign with an id up to ``attempt_after`` belong to earlier attempts.
    """

    class Decision(models.TextChoices):
        AUTO = "auto", "Follow the checks"
        INCLUDE = "include", "Included by hand"
        EXCLUDE = "exclude", "Excluded by hand"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="rater_statuses")
    judge = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    decision = models.CharField(max_length=8, choices=Decision.choices, default=Decision.AUTO)
    attempt = models.PositiveSmallIntegerField(default=1)
    attempt_after = models.BigIntegerField(
        null=True, blank=True, help_text="Judgments with an id up to this belong to earlier attempts."
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign_id", "judge_id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "judge"], name="rater_status_once_per_judge"),
            models.CheckConstraint(condition=Q(attempt__gte=1), name="rater_status_attempt_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.judge_id} in {self.campaign_id}: {self.decision}, attempt {self.attempt}"


class Invite(models.Model):
    """A one-time link that logs ``judge`` in and adds them to ``campaign`` (see ``services.invites``).

    Only a SHA-256 digest of the link's secret is stored; the secret is shown once, when the invite is created.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invites")
    judge = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invites")
    digest = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign_id", "-created_at"]

    def __str__(self) -> str:
        return f"invite of {self.judge_id} to {self.campaign_id}"


class GuidelinesAcknowledgement(models.Model):
    """``judge`` read ``campaign``'s guidelines; ``digest`` (SHA-256 of their text) tells when they changed since."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="acknowledgements")
    judge = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    digest = models.CharField(max_length=64)
    acknowledged_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "judge"], name="acknowledgement_once_per_judge"),
        ]


class TrainingScreen(models.Model):
    """A practice screen shown before a judge's first real one, with the organizer's expected ranks and feedback.

    Training answers are TrainingAnswer rows, never Judgments: they cannot reach exports or analyses.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="training_screens")
    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveIntegerField(help_text="0-based order in the training phase.")
    feedback = models.TextField(blank=True, help_text="Shown after the judge answers, in Markdown.")

    class Meta:
        ordering = ["campaign_id", "position"]
        constraints = unique_within("training_screen", "campaign", "position")


class TrainingCandidate(models.Model):
    """Candidate ``candidate`` is shown at ``position`` on a training screen; the organizer expects
    ``expected_rank``."""

    training_screen = models.ForeignKey(TrainingScreen, on_delete=models.CASCADE, related_name="slots")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField()
    expected_rank = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["training_screen_id", "position"]
        constraints = [
            *unique_within("training_candidate", "training_screen", "position", "candidate"),
            models.CheckConstraint(
                condition=Q(expected_rank__gte=1) & Q(expected_rank__lte=10), name="training_expected_rank_range"
            ),
        ]


class TrainingAnswer(models.Model):
    """A judge's ranks (by position) on a training screen and their pairwise agreement with the expected ranks."""

    training_screen = models.ForeignKey(TrainingScreen, on_delete=models.CASCADE, related_name="answers")
    judge = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    ranks = models.JSONField()
    agreement = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["training_screen", "judge"], name="training_answer_once_per_judge"),
        ]


class ReferenceSet(models.Model):
    """References of a campaign for automatic metrics: the gold edits of an M2 file, or one corrected text.

    A campaign holds at most one M2 gold set (``GoldEdit`` rows, every annotator of the file) and any number of
    corrected reference texts (``ReferenceText`` rows, one per segment), each named after its file.
    """

    class Kind(models.TextChoices):
        M2 = "m2", "M2 gold edits"
        TEXT = "text", "Corrected reference text"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="reference_sets")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    annotators = models.JSONField(default=list, help_text="Annotator ids of an M2 file, ascending.")
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign_id", "kind", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="reference_set_unique_name"),
            models.UniqueConstraint(
                fields=["campaign"], condition=Q(kind="m2"), name="reference_set_one_m2_per_campaign"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind}) of {self.campaign_id}"


class GoldEdit(models.Model):
    """One ``A`` line of an M2 file: an annotator's edit of a segment's tokens ``start:end`` (``-1 -1`` for noop).

    ``position`` keeps the order of the file within the segment (the M2 scorer matches edits in that order).
    """

    reference_set = models.ForeignKey(ReferenceSet, on_delete=models.CASCADE, related_name="gold_edits")
    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="gold_edits")
    position = models.PositiveSmallIntegerField()
    annotator = models.PositiveSmallIntegerField()
    start = models.IntegerField()
    end = models.IntegerField()
    error_type = models.CharField(max_length=50)
    corrections = models.JSONField(help_text="Accepted corrections; an empty string deletes the tokens.")

    class Meta:
        ordering = ["reference_set_id", "segment_id", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["reference_set", "segment", "position"], name="gold_edit_unique_position"
            ),
            models.CheckConstraint(
                condition=(Q(start=-1) & Q(end=-1)) | (Q(start__gte=0) & Q(end__gte=F("start"))),
                name="gold_edit_span",
            ),
        ]


class ReferenceText(models.Model):
    """The corrected text of one segment in one reference set of kind ``text``."""

    reference_set = models.ForeignKey(ReferenceSet, on_delete=models.CASCADE, related_name="texts")
    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="reference_texts")
    text = models.TextField(blank=True)

    class Meta:
        ordering = ["reference_set_id", "segment_id"]
        constraints = [
            models.UniqueConstraint(fields=["reference_set", "segment"], name="reference_text_unique_segment"),
        ]


class CrowdWorker(models.Model):
    """A crowd platform's worker in one crowd campaign: the campaign-local judge account ``judge`` (no password, no
    e-mail) of ``worker_id`` on ``platform``. Their platform submissions are their ``sessions`` (CrowdSession)."""

    class Platform(models.TextChoices):
        PROLIFIC = "prolific", "Prolific"
        MTURK = "mturk", "Mechanical Turk"
        GENERIC = "generic", "Other (?worker=)"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="crowd_workers")
    platform = models.CharField(max_length=16, choices=Platform.choices)
    worker_id = models.CharField(max_length=64)
    judge = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="crowd_worker")
    created_from = models.CharField(
        max_length=64, blank=True,
        help_text="A keyed hash of the address the worker first came from (the address itself is not kept), for the "
        "limit of new workers per address.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign_id", "platform", "worker_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "platform", "worker_id"], name="crowd_worker_once_per_campaign"
            ),
        ]
        indexes = [models.Index(fields=["campaign", "created_from", "created_at"], name="crowd_worker_origin")]

    def __str__(self) -> str:
        return f"{self.platform} worker {self.worker_id} in {self.campaign_id}"


class CrowdSessionQuerySet(models.QuerySet):
    def current_pk_locked(self, campaign_id: int, judge_id: int) -> int | None:
        """The id of the judge's current session in the campaign (None: the judge is no crowd worker of it), read
        after locking their CrowdWorker row. A visit switching sessions takes that lock too
        (``crowd_entry._open_session``), so a submit is wholly before or after the switch, and its judgment goes to
        the session whose screens count it."""
        worker = (
            CrowdWorker.objects.select_for_update().filter(campaign_id=campaign_id, judge_id=judge_id)
            .values_list("pk", flat=True).first()
        )
        if worker is None:
            return None
        return self.filter(worker_id=worker, current=True).values_list("pk", flat=True).first()

    def with_judged_time(self) -> CrowdSessionQuerySet:
        """Each session with ``judged``, the number of judgments attributed to it (``Judgment.crowd_session``), and
        ``active``, the sum of their recorded active time (None when none of them has one)."""
        return self.annotate(judged=models.Count("judgments"), active=models.Sum("judgments__active_time"))


class CrowdSession(models.Model):
    """One platform submission of a crowd worker (Prolific ``SESSION_ID``, MTurk ``assignmentId``; empty for a link
    opened without one): the organizer approves and pays each session by its own code.

    The worker judges in one session at a time, their ``current`` one: the session their last visit of the study
    link named, unless that one's code had been given already (its link then shows the code again, and the current
    session stays). A session's screens are ``screens``, those submitted while it was current before, plus, while it
    is current, the worker's screens submitted since it last became current (``base``: how many the worker had
    submitted then). ``code`` and ``outcome`` are what the worker was given when the session ended
    (``completed_at``). ``started_at`` is when the session began; for a session carried over from before sessions
    had records of their own, the worker's first visit if they had submitted no screen before it, else empty (not
    known). Its ``judgments`` are those stored while it was current (``Judgment.crowd_session``); they are all of its
    screens but for a session from before migration 0023 that the migration could not attribute wholly.
    """

    worker = models.ForeignKey(CrowdWorker, on_delete=models.CASCADE, related_name="sessions")
    session_id = models.CharField(max_length=64, blank=True)
    study_id = models.CharField(max_length=64, blank=True, help_text="Prolific STUDY_ID or MTurk hitId.")
    current = models.BooleanField(default=True)
    base = models.PositiveIntegerField(default=0)
    screens = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True, default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=16, blank=True)
    code = models.CharField(max_length=32, blank=True)

    objects = CrowdSessionQuerySet.as_manager()

    class Meta:
        ordering = ["worker_id", "id"]
        constraints = [
            *unique_within("crowd_session", "worker", "session_id"),
            models.UniqueConstraint(
                fields=["worker"], condition=Q(current=True), name="crowd_session_one_current_per_worker"
            ),
        ]

    def __str__(self) -> str:
        return f"session {self.session_id or '(none)'} of {self.worker}"


class ApiToken(AbstractAuthToken):
    """An API token of an organizer or admin (django-rest-knox's token, ``KNOX_TOKEN_MODEL``): the SHA-512 ``digest``
    of the token and its first characters (``token_key``, by which a request's token is looked up) are stored, never
    the token itself, which is shown once when it is made (``services.api_tokens``). ``name`` says what it is for."""

    name = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.token_key}… of {self.user_id}" + (f" ({self.name})" if self.name else "")
