"""REST API of a campaign's analyses (under ``/api/campaigns/{id}/analyses/``): list them, start one, follow it, and
download a done one's reports, for the campaign's organizers and the admins, as the analyses page does. Thin views
over ``dispatch.start_analysis`` and the reports (imported when one is asked for, so loading the URLs imports no
NumPy, SciPy or matplotlib, as ``views`` does)."""
from __future__ import annotations

from collections.abc import Mapping

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.api import FileDownloads, checked_fields, form_errors
from annotation.api_responses import READ_ERRORS, WRITE_ERRORS
from annotation.downloads import save_as
from annotation.models import Campaign
from annotation.permissions import IsOrganizer, managed_campaigns

from .dispatch import TooManyAnalyses, start_analysis
from .forms import AnalysisForm
from .models import AnalysisRun
from .rendered_reports import rendered_report
from .run_status import MEDIA_TYPES

NOT_DONE = OpenApiResponse(inline_serializer("AnalysisNotDone", {"detail": serializers.CharField()}),
                           description="The run is not done (queued, running or failed): it has no reports.")
TOO_MANY = OpenApiResponse(inline_serializer("TooManyAnalyses", {"detail": serializers.CharField()}),
                           description="The campaign has ANALYSES_PER_CAMPAIGN analyses queued or running (5 unless "
                           "the server sets another number): none was started; start it once one of them is done.")
RUN_NOT_FOUND = OpenApiResponse(inline_serializer("AnalysisRunNotFound", {"detail": serializers.CharField()}),
                                description="No campaign with this id among those the user manages, or no analysis "
                                "of this id in it.")


def form_field(field_class: type[serializers.Field], name: str, help_text: str) -> serializers.Field:
    """The serializer field of ``AnalysisForm``'s field ``name``, with its bounds and its default (the schema states
    what the form takes)."""
    field = AnalysisForm.base_fields[name]
    return field_class(required=False, default=field.initial, min_value=field.min_value, max_value=field.max_value,
                       help_text=help_text)


class AnalysisRequestSerializer(serializers.Serializer):
    """What ``POST analyses/`` takes (JSON or a form), each field as the analyses page's form: left out, its
    default."""

    bootstrap = form_field(serializers.IntegerField, "bootstrap", "Bootstrap samples per method.")
    confidence = form_field(serializers.FloatField, "confidence", "Of the rank ranges.")
    seed = form_field(serializers.IntegerField, "seed", "The random seed: the same seed gives the same numbers.")
    accuracy_folds = form_field(serializers.IntegerField, "accuracy_folds",
                                "G15 Table 4's cross-validation folds (G15 used 100); 0 skips it, and 1 is refused.")


class AnalysisRunSerializer(serializers.Serializer):
    """One analysis run as the API shows it: its state, and its reports once done."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=AnalysisRun.Status.choices)
    label = serializers.CharField(help_text="The status as the analyses page says it.")
    progress = serializers.FloatField(min_value=0, max_value=100, help_text="Percent done, 0 to 100.")
    stage = serializers.CharField(allow_blank=True, help_text="What the run is computing now.")
    error = serializers.CharField(allow_blank=True, help_text="Why a failed run failed.")
    parameters = serializers.JSONField(help_text="The parameters it was started with.")
    reports = serializers.DictField(child=serializers.CharField(), help_text="A done run's reports by format "
                                    "(json, html, tex, csv): the address of each; empty until the run is done.")


def run_json(run: AnalysisRun) -> dict:
    """``AnalysisRunSerializer``'s fields of ``run``."""
    done = run.status == AnalysisRun.Status.DONE
    return {
        "id": run.pk, "status": run.status, "label": run.get_status_display(), "progress": run.progress,
        "stage": run.stage_shown(), "error": run.error, "parameters": run.parameters,
        "reports": {extension: reverse("api-campaign-analysis-report", args=[run.campaign_id, run.pk, extension])
                    for extension in MEDIA_TYPES} if done else {},
    }


class AnalysisViewSet(FileDownloads, viewsets.ViewSet):
    """A campaign's analyses. Every method, OPTIONS too, first finds the campaign among those the user manages, and
    the run of the address among the campaign's (404 otherwise), as the campaign endpoints do."""

    permission_classes = [IsOrganizer]
    file_actions = frozenset({"report"})
    campaign: Campaign
    run: AnalysisRun

    def initial(self, request: Request, *args, **kwargs) -> None:
        super().initial(request, *args, **kwargs)
        self.campaign = get_object_or_404(managed_campaigns(request.user), pk=kwargs["pk"])
        if "run_id" in kwargs:
            self.run = get_object_or_404(AnalysisRun.objects.defer("result"), pk=kwargs["run_id"],
                                         campaign=self.campaign)

    @extend_schema(summary="The campaign's analyses, newest first",
                   responses={200: AnalysisRunSerializer(many=True), **READ_ERRORS})
    def list(self, request: Request, pk: int) -> Response:
        """Every analysis of the campaign, as ``retrieve`` shows one."""
        runs = AnalysisRun.objects.filter(campaign=self.campaign).defer("result")
        return Response([run_json(run) for run in runs])

    @extend_schema(summary="Start an analysis of the campaign's judgments as they are now (it is queued and runs in "
                   "the background; follow it at its address)", request=AnalysisRequestSerializer,
                   responses={202: AnalysisRunSerializer, **WRITE_ERRORS, 429: TOO_MANY})
    def start(self, request: Request, pk: int) -> Response:
        """Record an analysis of the judgments as they are now with the parameters given (JSON or a form; each left
        out takes the analyses page's default) and queue it (202); a 400 naming the field starts nothing, and so does
        a 429 while the campaign has ``ANALYSES_PER_CAMPAIGN`` runs queued or running."""
        if not isinstance(request.data, Mapping):  # JSON that is not an object: a list, a string, a number, null
            raise ValidationError({"__all__": ["Send an object of the analysis parameters (or an empty one)."]})
        checked_fields(request, AnalysisForm.base_fields)
        defaults = {name: field.initial for name, field in AnalysisForm.base_fields.items()}
        form = AnalysisForm({**defaults, **{name: request.data[name] for name in request.data}})
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        try:
            run = start_analysis(self.campaign, form.parameters(), requested_by=request.user)
        except TooManyAnalyses as refused:
            return Response({"detail": str(refused)}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        return Response(run_json(run), status=status.HTTP_202_ACCEPTED)

    @extend_schema(summary="One analysis: its state, and the addresses of its reports once done",
                   responses={200: AnalysisRunSerializer, **READ_ERRORS, 404: RUN_NOT_FOUND})
    def retrieve(self, request: Request, pk: int, run_id: int) -> Response:
        """The run's state and progress; once done, the address of each of its reports."""
        return Response(run_json(self.run))

    @extend_schema(summary="A done analysis's report: JSON (the analysis JSON), a self-contained HTML page, a "
                   "standalone LaTeX document or CSV", responses={
                       **{(200, media.split(";")[0]): OpenApiResponse(
                           OpenApiTypes.OBJECT if extension == "json" else OpenApiTypes.STR,
                           description=f"The report as .{extension}.") for extension, media in MEDIA_TYPES.items()},
                       **READ_ERRORS, 404: RUN_NOT_FOUND, 409: NOT_DONE})
    def report(self, request: Request, pk: int, run_id: int, extension: str) -> HttpResponse:
        """The done run's report in the format of ``extension``, as a file named for the campaign, run and seed;
        409 while the run is not done, saying whether it will be (a failed run never is). The reports' modules are
        imported here, not with the URLs."""
        from .reports.formats import BY_EXTENSION, report_filename

        run = self.run
        if run.status == AnalysisRun.Status.FAILED:
            return Response({"detail": f"Analysis {run.pk} failed, so it has no reports; start another. Its error: "
                             f"{run.error}"}, status=status.HTTP_409_CONFLICT)
        if run.status != AnalysisRun.Status.DONE:
            return Response({"detail": f"Analysis {run.pk} is {run.get_status_display().lower()}: it has reports "
                             "once it is done."}, status=status.HTTP_409_CONFLICT)
        report = BY_EXTENSION[extension]
        response = HttpResponse(rendered_report(run, report.name), content_type=report.content_type)
        return save_as(response, report_filename(self.campaign.name, run.pk, run.seed, report.extension))
