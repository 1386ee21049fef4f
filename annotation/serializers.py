"""REST serializers of campaigns (organizer view: systems are shown here, never on judge endpoints)."""
from django.urls import reverse
from django.utils.text import capfirst
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.fields import empty

from .campaign_forms import AppraiseUploadForm, CampaignImportForm, ScoresUploadForm
from .models import BackgroundJob, Campaign, RaterStatus, ReferenceSet, ScreenJob, System
from .rater_forms import RaterDecisionForm
from .services.screens import MAX_SCREENS_PER_JOB, MAX_SCREENS_PER_REQUEST


class SystemSerializer(serializers.ModelSerializer):
    class Meta:
        model = System
        fields = ["name", "kind"]


class CampaignSerializer(serializers.ModelSerializer):
    """A campaign of ``Campaign.objects.with_sizes()``, whose counts it reads (segments, documents, screens)."""

    systems = SystemSerializer(many=True, read_only=True)
    segments = serializers.IntegerField(source="n_segments", read_only=True)
    documents = serializers.IntegerField(source="n_documents", read_only=True)
    screens = serializers.IntegerField(source="n_screens", read_only=True)
    study_link = serializers.SerializerMethodField()

    class Meta:
        model = Campaign
        fields = [
            "id", "name", "mode", "max_candidates", "sampling", "selection", "seed", "redundancy", "repeat_rate",
            "instruction", "show_replaced_words", "distinct_histogram", "systems", "segments", "documents", "screens",
            "created_at", "crowd",
            "crowd_session_screens", "crowd_campaign_screens", "crowd_completion_url", "crowd_code_encodes_qc",
            "study_link", "closed_at",
        ]
        read_only_fields = fields
        extra_kwargs = {"closed_at": {"help_text": "When the campaign was closed (null while it is open): it then "
                                                   "serves and stores no judgment."}}

    def get_study_link(self, campaign: Campaign) -> str | None:
        """The crowd campaign's public study link (null for a campaign not in crowd mode)."""
        if not campaign.crowd:
            return None
        path = reverse("crowd-study-link", args=[campaign.crowd_key])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path


class CampaignClosedSerializer(serializers.Serializer):
    closed_at = serializers.DateTimeField(help_text="When the campaign was closed: now.")
    completed_sessions = serializers.IntegerField(
        help_text="Crowd sessions that got their completion code at the close (each with a submitted screen; 0 in a "
        "campaign not in crowd mode)."
    )


class CampaignReopenedSerializer(serializers.Serializer):
    closed_at = serializers.DateTimeField(allow_null=True, help_text="Always null: the campaign is open.")


@extend_schema_serializer(component_name="Screens")
class ScreensRequestSerializer(serializers.Serializer):
    count = serializers.IntegerField(
        min_value=1, max_value=MAX_SCREENS_PER_JOB, required=False,
        help_text=f"Screens to add (left out: every sentence once, in a campaign of full coverage sampling). Up to "
        f"{MAX_SCREENS_PER_REQUEST:,} are added at once (201); more, up to {MAX_SCREENS_PER_JOB:,}, by a background "
        "job (202).",
    )


def _form_help(form_class, name: str) -> str:
    return str(form_class.base_fields[name].help_text)


@extend_schema_field({"type": "number", "format": "double", "minimum": 0, "exclusiveMinimum": True, "maximum": 1})
class PValueThresholdField(serializers.FloatField):
    """A p-value threshold as the model's validators take it: above 0 (``validate_p_value_above_zero``), at most 1;
    described so, where a FloatField's schema would allow 0 and below."""


class CampaignCreateSerializer(serializers.ModelSerializer):
    """The multipart body of ``POST /api/campaigns/``, for the API's description: the request is validated by
    ``CampaignImportForm``, as the web form is (either source and systems, or one archive). Each field states the
    default a request that leaves it out takes (``get_fields``)."""

    qc_p_value = PValueThresholdField(required=False,
                                      label=capfirst(Campaign._meta.get_field("qc_p_value").verbose_name),
                                      help_text=Campaign._meta.get_field("qc_p_value").help_text)

    source = serializers.FileField(required=False, help_text=_form_help(CampaignImportForm, "source"))
    systems = serializers.ListField(child=serializers.FileField(), required=False,
                                    help_text=_form_help(CampaignImportForm, "systems") + " Repeat the field per file.")
    documents = serializers.FileField(required=False, help_text=_form_help(CampaignImportForm, "documents"))
    archive = serializers.FileField(required=False, help_text=_form_help(CampaignImportForm, "archive"))
    source_name = serializers.CharField(required=False, max_length=200,
                                        help_text=_form_help(CampaignImportForm, "source_name"))
    source_is_system = serializers.BooleanField(required=False, default=True,
                                                help_text=_form_help(CampaignImportForm, "source_is_system"))
    show_replaced_words = serializers.ChoiceField(
        choices=["yes", "no"], required=False,
        help_text=_form_help(CampaignImportForm, "show_replaced_words") + " yes (the default) or no.",
    )

    class Meta:
        model = Campaign
        fields = [*CampaignImportForm.Meta.fields, "source", "systems", "documents", "archive", "source_name",
                  "source_is_system"]

    def get_fields(self) -> dict[str, serializers.Field]:
        """The fields, each with the default ``CampaignImportForm.with_defaults`` gives a request that leaves it out
        (the form field's initial value), so that the schema states it."""
        fields = super().get_fields()
        for name, field in fields.items():
            initial = CampaignImportForm.base_fields[name].initial
            if initial is not None and field.default is empty:
                field.default = initial
        return fields


class ScreensCreatedSerializer(serializers.Serializer):
    created = serializers.IntegerField(help_text="Screens added by this request.")
    total = serializers.IntegerField(help_text="Screens of the campaign now.")


class ScreenJobSerializer(serializers.ModelSerializer):
    """A background job adding screens: ``created`` of ``requested`` so far."""

    class Meta:
        model = ScreenJob
        fields = ["id", "requested", "created", "status", "error", "requested_at", "finished_at"]
        read_only_fields = fields


class BackgroundJobSerializer(serializers.ModelSerializer):
    """A background import (an upload over ``IMPORT_IN_REQUEST_MB``): its state, what it made, or why it failed."""

    campaign = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True,
        help_text="The campaign imported into (for a test set, the campaign it created, once done).",
    )
    url = serializers.SerializerMethodField(help_text="This job in the API.")
    page = serializers.SerializerMethodField(help_text="This job's page.")

    class Meta:
        model = BackgroundJob
        fields = ["id", "kind", "status", "campaign", "size", "result", "error", "requested_at", "started_at",
                  "finished_at", "url", "page"]
        read_only_fields = fields

    def get_url(self, job: BackgroundJob) -> str:
        return reverse("api-job-detail", args=[job.pk])

    def get_page(self, job: BackgroundJob) -> str:
        return reverse("background-job", args=[job.pk])


class ScreensStateSerializer(serializers.Serializer):
    total = serializers.IntegerField(help_text="Screens of the campaign now.")
    jobs = ScreenJobSerializer(many=True, help_text="Background jobs adding screens: running, queued, or recent.")
    refused = serializers.CharField(
        allow_null=True, help_text="Why no screen can ever be added (a POST is refused with it): judges need at least "
        "two systems, the source counting when it is judged, whose outputs differ on some sentence. Null when "
        "screens can be added.")


class AppraiseUploadSerializer(serializers.Serializer):
    """The multipart body of ``POST /api/campaigns/{id}/appraise-xml/`` (validated by ``AppraiseUploadForm``)."""

    file = serializers.FileField(help_text=_form_help(AppraiseUploadForm, "file"))
    map_users = serializers.CharField(required=False, allow_blank=True,
                                      help_text=_form_help(AppraiseUploadForm, "map_users"))


class AppraiseImportSummarySerializer(serializers.Serializer):
    rankings = serializers.IntegerField(help_text="Ranking items imported.")
    skipped = serializers.IntegerField(help_text="Items imported as flagged (skipped in Appraise).")
    judges = serializers.IntegerField(help_text="Distinct judges of the imported items.")
    already_imported = serializers.IntegerField(help_text="Items of the file the campaign held before (left out).")


class ScoresUploadSerializer(serializers.Serializer):
    """The multipart body of ``POST /api/campaigns/{id}/scores/`` (validated by ``ScoresUploadForm``)."""

    file = serializers.FileField(help_text=_form_help(ScoresUploadForm, "file"))
    layout = serializers.ChoiceField(choices=["long", "wide"], required=False, default="long",
                                     help_text="long (the default) or wide, as described under file.")
    rater = serializers.CharField(required=False, allow_blank=True, max_length=150,
                                  help_text=_form_help(ScoresUploadForm, "rater") + " Required with wide, refused "
                                  "with long.")
    map_users = serializers.CharField(required=False, allow_blank=True,
                                      help_text=_form_help(ScoresUploadForm, "map_users") + " Refused with wide.")
    skip_unknown = serializers.BooleanField(required=False, default=False,
                                            help_text=_form_help(ScoresUploadForm, "skip_unknown"))


class ScoreImportSummarySerializer(serializers.Serializer):
    ratings = serializers.IntegerField(help_text="Ratings imported (one per rated correction: a sentence several "
                                       "systems produced counts once).")
    screens = serializers.IntegerField(help_text="Judged screens made: one per rater and line.")
    raters = serializers.IntegerField(help_text="Distinct raters (accounts) of the imported ratings.")
    skipped = serializers.IntegerField(help_text="Cells skipped because they name no system of the campaign "
                                       "(skip_unknown).")
    unknown = serializers.ListField(child=serializers.CharField(),
                                    help_text="The names of no system of the campaign that the skipped cells gave.")
    skip_unknown = serializers.BooleanField(help_text="Whether the import was asked to skip unknown systems.")


class ReferenceSetSerializer(serializers.ModelSerializer):
    """A campaign's reference set: M2 gold edits (with its annotator ids) or one corrected reference text."""

    class Meta:
        model = ReferenceSet
        fields = ["name", "kind", "annotators", "imported_at"]
        read_only_fields = fields


class ReferencesUploadSerializer(serializers.Serializer):
    """The multipart body of ``POST /api/campaigns/{id}/references/``: at least one of the two fields."""

    m2 = serializers.FileField(required=False, help_text="Gold edits in the M2 format ('S' lines equal to the "
                               "campaign's source lines); one M2 file per campaign.")
    references = serializers.ListField(child=serializers.FileField(), required=False,
                                       help_text="Corrected reference texts aligned line by line with the source, "
                                       "each named after its file (repeat the field).")


class RaterVerdictSerializer(serializers.Serializer):
    """One rater's QC numbers in their current attempt, verdict and why (``rater_qc.RaterVerdict.as_json``)."""

    rater = serializers.CharField()
    attempt = serializers.IntegerField()
    screens = serializers.IntegerField()
    control_screens = serializers.IntegerField(help_text="(a) Screens showing both Source and Source+error.")
    control_passed = serializers.IntegerField(help_text="(a) Of those, Source+error judged worse than Source.")
    control_rate = serializers.FloatField(allow_null=True)
    controls = serializers.IntegerField(help_text="Source+error candidates judged.")
    p_value = serializers.FloatField(allow_null=True, help_text="(b) One-sided Mann-Whitney U test.")
    total_seconds = serializers.FloatField(allow_null=True)
    median_seconds = serializers.FloatField(allow_null=True)
    passed = serializers.BooleanField(help_text="Every check with data passed.")
    decision = serializers.ChoiceField(choices=RaterStatus.Decision.choices)
    excluded = serializers.BooleanField(help_text="Left out of the analyses.")
    why = serializers.CharField()
    reason = serializers.CharField(required=False, help_text="Why each null number is undefined.")


class RaterQcSerializer(serializers.Serializer):
    """``GET /api/campaigns/{id}/raters/``: the campaign's QC rule and every rater's verdict."""

    rule = serializers.DictField(help_text="The thresholds: control_threshold, p_value, min_total_seconds, "
                                 "min_median_seconds, and the test.")
    raters = RaterVerdictSerializer(many=True)


class RaterDecisionSerializer(serializers.Serializer):
    """``POST /api/campaigns/{id}/raters/``: the organizer's decision on one rater."""

    judge = serializers.CharField(max_length=150, help_text="The rater's username.")
    action = serializers.ChoiceField(choices=RaterDecisionForm.base_fields["action"].choices,
                                     help_text="auto: follow the checks; include or exclude by hand; fresh: a "
                                     "fresh attempt (the work so far kept but left out of analyses).")
