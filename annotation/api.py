"""REST API for organizers: campaigns, test-set import, screens, Appraise XML, PRWS scores. Thin views over the
services."""
from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TypeVar

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import QueryDict, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.text import capfirst
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from .api_responses import JOB_NOT_FOUND, NOT_RANKINGS, READ_ERRORS, WRITE_ERRORS
from .campaign_forms import (
    AppraiseUploadForm,
    CampaignImportForm,
    ScoresUploadForm,
    ScreensForm,
    UploadRefused,
    named_file,
)
from .downloads import judgments_download, save_snapshot_as
from .models import BackgroundJob, Campaign, Judgment, ScreenJob
from .permissions import IsOrganizer, managed_campaigns, visible_jobs
from .rater_forms import RaterDecisionForm
from .serializers import (
    AppraiseImportSummarySerializer,
    AppraiseUploadSerializer,
    BackgroundJobSerializer,
    CampaignClosedSerializer,
    CampaignCreateSerializer,
    CampaignReopenedSerializer,
    CampaignSerializer,
    RaterDecisionSerializer,
    RaterQcSerializer,
    RaterVerdictSerializer,
    ReferenceSetSerializer,
    ReferencesUploadSerializer,
    ScoreImportSummarySerializer,
    ScoresUploadSerializer,
    ScreenJobSerializer,
    ScreensCreatedSerializer,
    ScreensRequestSerializer,
    ScreensStateSerializer,
)
from .services import background_jobs, campaign_closing, rater_qc
from .services.appraise_import import NotARankingCampaign, export_appraise_xml_chunks
from .services.references import import_references
from .services.score_import import check_takes_scores
from .services.screen_jobs import NOT_STOPPED, request_screens, resume_job, screens_state
from .services.screens import NoScreenPossible, no_screen_reason, screen_count
from .services.textfiles import InputFileError
from .upload_names import SentNamesParser

#: An id in an address: ASCII digits (DRF's default lookup takes any text, and the ORM reads ``٣`` as 3).
ID_PATTERN = "[0-9]+"
#: The headers a download of judgments names its snapshot in (``downloads.save_snapshot_as``).
SNAPSHOT_HEADERS = [
    OpenApiParameter("X-Snapshot-Judgments", int, OpenApiParameter.HEADER, response=[200],
                     description="The number of the campaign's judgments when the download started: those it holds."),
    OpenApiParameter("X-Snapshot-Last-Judgment-At", str, OpenApiParameter.HEADER, response=[200],
                     description="When the last of them was stored (ISO 8601); not sent without judgments."),
    OpenApiParameter("X-Snapshot-Last-Judgment-Id", int, OpenApiParameter.HEADER, response=[200],
                     description="Their highest id: the download holds the judgments with an id up to it, as an "
                     "analysis of this snapshot does; not sent without judgments."),
]


def form_errors(form) -> dict[str, list[str]]:
    """A Django form's errors as the API's 400 body: each field with its messages."""
    return {field: list(messages) for field, messages in form.errors.items()}


class FileDownloads:
    """A viewset whose GETs of ``file_actions`` answer a file in its own media type (Appraise XML, a report): DRF
    chose the renderer by the Accept header before the view ran, and the API's render JSON and the browsable page
    only, so a client asking for the file's type (``Accept: application/xml``, ``text/csv``, as the schema gives
    it) got a 406. The file now comes whatever the header, and the action's errors in JSON."""

    file_actions: frozenset[str] = frozenset()

    def perform_content_negotiation(self, request: Request, force: bool = False) -> tuple:
        download = self.action in self.file_actions and request.method in ("GET", "HEAD")
        return super().perform_content_negotiation(request, force=force or download)


def checked_fields(request, allowed: Collection[str], repeatable: Collection[str] = (),
                   files: Collection[str] = ()) -> None:
    """Refuse (400, naming the field) a form, multipart or JSON request with a field the endpoint does not take (a
    misspelt ``system`` would be dropped silently), with one that is not ``repeatable`` given twice (only the last
    of two ``source`` files, or of two ``count`` fields, would be used; JSON's parser refuses a repeated key), or
    with one of the ``files`` sent as a text field, a part without a filename (``curl -F 'systems=<beta.txt'``
    sends the file's content so): the form reads files only, so that system, documents or reference file was left
    out without a word; or with any other field sent as a file (``curl -F 'count=@100'``), of which the form read
    the file's name as the value (100 screens) and left its content unread. A form's ``csrfmiddlewaretoken`` (the
    browsable API's forms send it) is no field of the endpoint's, and is passed over; a JSON body has none."""
    errors: dict[str, list[str]] = {}
    form = isinstance(request.data, QueryDict)
    values = request.data.getlist if form else lambda name: [request.data[name]]
    for name in {*request.data.keys(), *request.FILES.keys()} - ({"csrfmiddlewaretoken"} if form else set()):
        given = max(len(request.FILES.getlist(name)), len(values(name)))
        if name not in allowed:
            errors[name] = [f"This endpoint takes no part named {name!r}; it takes: {', '.join(allowed)}."]
        elif name not in repeatable and given > 1:
            errors[name] = [f"Give {name!r} once, not {given} times."]
        elif name in files and name in request.POST:
            errors[name] = [f"{name!r} came as a text field; upload it as a file (a part with a filename, as "
                            f"curl's -F '{name}=@FILE' sends it)."]
        elif name not in files and name in request.FILES:
            errors[name] = [f"{name!r} came as a file; give it as a text field (a part without a filename, as "
                            f"curl's -F '{name}=VALUE' sends it)."]
    if errors:
        raise ValidationError(errors)


#: JSON's names of the values that are not strings (bool first: True is an int too).
JSON_KINDS = ((bool, "true or false"), ((int, float), "a number"), (list, "an array"), (dict, "an object"))


def checked_strings(data: Mapping) -> None:
    """Refuse (400, naming the field) a JSON body whose field is a number, true or false, an array or an object where
    the endpoint takes a string: its form reads text, and took ``{"judge": 5}`` as the judge ``5`` and ``["ann"]`` as
    ``"['ann']"``. Null is left to the form, which reads it as no value."""
    errors = {}
    for name, value in data.items():
        kind = next((kind for types, kind in JSON_KINDS if isinstance(value, types)), None)
        if kind is not None:
            errors[name] = [f"Give {name!r} as a string, not {kind}."]
    if errors:
        raise ValidationError(errors)


Changed = TypeVar("Changed")


def _changed_or_refused(change: Callable[[Campaign], Changed], campaign: Campaign) -> Changed:
    """``change(campaign)`` (``campaign_closing.close`` or ``reopen``), or a 400 saying why it changed nothing."""
    try:
        return change(campaign)
    except campaign_closing.ClosingRefused as refused:
        raise ValidationError({"__all__": [str(refused)]}) from None


def _opening_change(summary: str, answer: type[serializers.Serializer]) -> Callable:
    """The route (``POST campaigns/{id}/<name>/``, no body) and schema of an action that closes or reopens the
    campaign, answering 200 with ``answer``."""
    def decorate(view: Callable) -> Callable:
        routed = action(detail=True, methods=["post"])(view)
        return extend_schema(summary=summary, request=None, responses={200: answer, **WRITE_ERRORS})(routed)

    return decorate


def _imported(form, campaign: Campaign, by) -> Response:
    """An upload form's file (valid ``AppraiseUploadForm`` or ``ScoresUploadForm``) imported (201 with the summary),
    or its background job recorded (202); a 400 naming the file and item at fault otherwise, nothing stored."""
    try:
        done = form.imported(campaign, by)
    except UploadRefused as refused:
        raise ValidationError({"file": [str(refused)]}) from None
    if isinstance(done, BackgroundJob):
        return _accepted(done)
    return Response(done.as_result(), status=status.HTTP_201_CREATED)


def _accepted(job: BackgroundJob) -> Response:
    """202 for an upload imported by a background job: the job, and where to follow it."""
    data = BackgroundJobSerializer(job).data
    return Response(data, status=status.HTTP_202_ACCEPTED, headers={"Location": data["url"]})


ACCEPTED = OpenApiResponse(BackgroundJobSerializer, description="The upload is over IMPORT_IN_REQUEST_MB: a background "
                           "job imports it (all or nothing); follow it at its url (Location).")


@extend_schema_view(
    retrieve=extend_schema(summary="A background import the user requested or may follow",
                           responses={200: BackgroundJobSerializer, 401: READ_ERRORS[401], 403: READ_ERRORS[403],
                                      404: OpenApiResponse(READ_ERRORS[404].response,
                                                           description="No import with this id that the user may "
                                                           "follow.")}),
)
class BackgroundJobViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Background imports: their state, what they made, or why they failed (nothing written then)."""

    serializer_class = BackgroundJobSerializer
    permission_classes = [IsAuthenticated]
    lookup_url_kwarg = "job_id"
    lookup_value_regex = ID_PATTERN

    def get_queryset(self):
        return visible_jobs(self.request.user)

    def retrieve(self, request, *args, **kwargs):
        background_jobs.fail_abandoned()
        return super().retrieve(request, *args, **kwargs)


@extend_schema_view(
    list=extend_schema(summary="The campaigns the user manages",
                       responses={200: CampaignSerializer(many=True), 401: READ_ERRORS[401],
                                  403: READ_ERRORS[403]}),
    retrieve=extend_schema(summary="One campaign the user manages", responses={200: CampaignSerializer, **READ_ERRORS}),
)
class CampaignViewSet(FileDownloads, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Campaigns the user manages. POST (multipart) creates one from uploaded files, all or nothing."""

    serializer_class = CampaignSerializer
    permission_classes = [IsOrganizer]
    file_actions = frozenset({"appraise_xml", "judgments"})
    parser_classes = [SentNamesParser, FormParser]
    lookup_value_regex = ID_PATTERN

    def get_queryset(self):
        return managed_campaigns(self.request.user).with_sizes().prefetch_related("systems")

    def initial(self, request, *args, **kwargs) -> None:
        """DRF's checks, then, at a screen job's address, the job among the campaign's (404 otherwise), before any
        method: OPTIONS answered 200 for any job id, another campaign's or none, where its POST is a 404."""
        super().initial(request, *args, **kwargs)
        if "screen_job_id" in kwargs:
            self.screen_job = get_object_or_404(ScreenJob, pk=kwargs["screen_job_id"], campaign=self.get_object())

    @extend_schema(summary="Create a campaign from uploaded files (all or nothing; organizers)",
                   request={"multipart/form-data": CampaignCreateSerializer},
                   responses={201: CampaignSerializer, 202: ACCEPTED, 400: WRITE_ERRORS[400], 401: WRITE_ERRORS[401],
                              403: WRITE_ERRORS[403]})
    def create(self, request):
        checked_fields(request, CampaignImportForm.base_fields, repeatable={"systems"},
                       files={"source", "systems", "documents", "archive"})
        form = CampaignImportForm.with_defaults(request.data, request.FILES)
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        try:
            made = form.save(owner=request.user)
        except DjangoValidationError as exc:
            raise ValidationError({"__all__": exc.messages}) from None
        if isinstance(made, BackgroundJob):
            return _accepted(made)
        return Response(CampaignSerializer(Campaign.objects.with_sizes().get(pk=made.pk)).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(methods=["GET"], summary="The campaign's screen count and its background jobs adding screens",
                   responses={200: ScreensStateSerializer, **READ_ERRORS})
    @extend_schema(methods=["POST"], summary="Add screens by the campaign's sampling settings (no count: every "
                   "sentence once); beyond the request's cap a background job adds them",
                   request=ScreensRequestSerializer,
                   responses={201: ScreensCreatedSerializer, 202: ScreenJobSerializer, **WRITE_ERRORS})
    @action(detail=True, methods=["get", "post"])
    def screens(self, request, pk=None):
        """POST: add screens, at once (201) or by a job (202, its progress in GET). GET: screens and jobs."""
        campaign = self.get_object()
        if request.method == "GET":
            state = screens_state(campaign)
            return Response({"total": state.total, "jobs": ScreenJobSerializer(state.jobs, many=True).data,
                             "refused": no_screen_reason(campaign)})
        checked_fields(request, ScreensForm.base_fields)
        form = ScreensForm(request.data)
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        try:
            done = request_screens(campaign, form.cleaned_data["count"], requested_by=request.user)
        except ValueError as exc:
            refused = f"{capfirst(str(exc))}. No screen was added."
            raise ValidationError({"__all__" if isinstance(exc, NoScreenPossible) else "count": [refused]}) from None
        if done.job is not None:
            return Response(ScreenJobSerializer(done.job).data, status=status.HTTP_202_ACCEPTED)
        return Response({"created": done.created, "total": screen_count(campaign)}, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Go on with a screen job that stopped: it writes the screens it has not written yet",
                   request=None, responses={202: ScreenJobSerializer, **WRITE_ERRORS, 404: JOB_NOT_FOUND})
    @action(detail=True, methods=["post"], url_path=rf"screen-jobs/(?P<screen_job_id>{ID_PATTERN})/resume")
    def resume_screen_job(self, request, pk=None, screen_job_id=None):
        """POST: queue a failed screen job again (202; its progress in GET ``screens/``); 400 unless it failed."""
        job = self.screen_job
        if not resume_job(job):
            raise ValidationError({"__all__": [NOT_STOPPED]})
        job.refresh_from_db()
        return Response(ScreenJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)

    @_opening_change("Close the campaign: judges get and submit no more screens; a crowd study takes no new work, and "
                     "each crowd session with a submitted screen gets its completion code now",
                     CampaignClosedSerializer)
    def close(self, request, pk=None):
        """POST: close the campaign now (``campaign_closing.close``); 400 when it was closed already (nothing is
        changed)."""
        campaign = self.get_object()
        completed = _changed_or_refused(campaign_closing.close, campaign)
        closed = {"closed_at": campaign.closed_at, "completed_sessions": completed}
        return Response(CampaignClosedSerializer(closed).data)

    @_opening_change("Open the closed campaign again: judges are served screens again; a crowd session that got its "
                     "code at the close stays complete (its worker goes on in a new session)",
                     CampaignReopenedSerializer)
    def reopen(self, request, pk=None):
        """POST: open the closed campaign again (``campaign_closing.reopen``); 400 when it is open (nothing is
        changed)."""
        _changed_or_refused(campaign_closing.reopen, self.get_object())
        return Response(CampaignReopenedSerializer({"closed_at": None}).data)

    @extend_schema(methods=["GET"], summary="The campaign's judgments as Appraise XML", responses={
        (200, "application/xml"): OpenApiResponse(OpenApiTypes.STR, description=(
            "The judgments as Appraise XML: those of the snapshot taken when the request came, which the file name "
            "(Content-Disposition) and the X-Snapshot headers name.")),
        **READ_ERRORS, 409: NOT_RANKINGS,
    }, parameters=SNAPSHOT_HEADERS)
    @extend_schema(methods=["POST"], summary="Import Appraise XML judgments (all or nothing)",
                   request={"multipart/form-data": AppraiseUploadSerializer},
                   responses={201: AppraiseImportSummarySerializer, 202: ACCEPTED, **WRITE_ERRORS})
    @action(detail=True, methods=["get", "post"], url_path="appraise-xml")
    def appraise_xml(self, request, pk=None):
        """GET: the judgments as Appraise XML, of the snapshot taken now, which the file name and headers name as
        the campaign page's download does (``save_snapshot_as``). POST (multipart fields ``file`` and optional
        ``map_users``, as on the campaign page): import Appraise XML; ``already_imported`` counts items the campaign
        held before."""
        campaign = self.get_object()
        if request.method == "GET":
            snapshot = Judgment.objects.of_campaign(campaign).snapshot()
            try:
                chunks = export_appraise_xml_chunks(campaign, snapshot)
            except NotARankingCampaign as refused:
                judgments = reverse("api-campaign-judgments", args=[campaign.pk, "json"])
                return Response({"detail": f"{refused}: {judgments} (or csv/)."}, status=status.HTTP_409_CONFLICT)
            response = StreamingHttpResponse(chunks, content_type="application/xml; charset=utf-8")
            return save_snapshot_as(response, campaign.name, "judgments.xml", snapshot)
        checked_fields(request, AppraiseUploadForm.base_fields, files={"file"})
        if request.FILES.get("file") is None:
            raise ValidationError({"file": ["Upload an Appraise XML file in the field 'file'."]})
        form = AppraiseUploadForm(request.data, request.FILES)
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        return _imported(form, campaign, request.user)

    @extend_schema(summary="The campaign's judgments as CSV (one row per judged candidate) or JSON, of the snapshot "
                   "taken now, which the file name and X-Snapshot-* headers name", responses={
                       (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="The judgments as CSV."),
                       (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT,
                                                                  description="The judgments as JSON."),
                       **READ_ERRORS},
                   parameters=[OpenApiParameter("extension", str, OpenApiParameter.PATH, enum=["csv", "json"],
                                                description="The file format."), *SNAPSHOT_HEADERS])
    @action(detail=True, methods=["get"], url_path=r"judgments/(?P<extension>csv|json)")
    def judgments(self, request, pk=None, extension=None):
        """GET: the judgments as the campaign page's downloads give them (``downloads.judgments_download``)."""
        return judgments_download(self.get_object(), extension)

    @extend_schema(summary="Import PRWS scores from CSV (all or nothing; PRWS campaigns)",
                   request={"multipart/form-data": ScoresUploadSerializer},
                   responses={201: ScoreImportSummarySerializer, 202: ACCEPTED, **WRITE_ERRORS})
    @action(detail=True, methods=["post"])
    def scores(self, request, pk=None):
        """POST (multipart ``file``, optional ``layout``, ``rater``, ``map_users`` and ``skip_unknown``, as on the
        campaign page and as ``manage.py import_scores`` takes them): add the file's ratings; 400 naming the row at
        fault, with nothing stored, or for a campaign that is not a PRWS one."""
        campaign = self.get_object()
        checked_fields(request, ScoresUploadForm.base_fields, files={"file"})
        if request.FILES.get("file") is None:
            raise ValidationError({"file": ["Upload a scores CSV file in the field 'file'."]})
        try:
            check_takes_scores(campaign)
        except InputFileError as exc:
            raise ValidationError({"file": [str(exc)]}) from None
        form = ScoresUploadForm(request.data, request.FILES)
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        return _imported(form, campaign, request.user)

    @extend_schema(methods=["GET"], summary="The campaign's references for automatic metrics",
                   responses={200: ReferenceSetSerializer(many=True), **READ_ERRORS})
    @extend_schema(methods=["POST"], summary="Import references: M2 gold edits and/or corrected texts (all or "
                   "nothing)", request={"multipart/form-data": ReferencesUploadSerializer},
                   responses={201: ReferenceSetSerializer(many=True), **WRITE_ERRORS})
    @action(detail=True, methods=["get", "post"])
    def references(self, request, pk=None):
        """GET: the reference sets. POST (multipart ``m2`` and/or ``references``, repeated): check them against
        the campaign's source and store them, as ``manage.py import_references``."""
        campaign = self.get_object()
        if request.method == "GET":
            return Response(ReferenceSetSerializer(campaign.reference_sets.all(), many=True).data)
        checked_fields(request, ("m2", "references"), repeatable={"references"}, files={"m2", "references"})
        m2 = request.FILES.get("m2")
        texts = request.FILES.getlist("references")
        try:
            created = import_references(campaign, named_file(m2) if m2 else None, [named_file(f) for f in texts])
        except InputFileError as exc:
            raise ValidationError({"references": [str(exc)]}) from None
        return Response(ReferenceSetSerializer(created, many=True).data, status=status.HTTP_201_CREATED)

    @extend_schema(methods=["GET"], summary="Rater quality control: the rule and every rater's numbers and verdict",
                   responses={200: RaterQcSerializer, **READ_ERRORS})
    @extend_schema(methods=["POST"], summary="Decide on a rater: follow the checks, include or exclude by hand, or "
                   "offer a fresh attempt", request=RaterDecisionSerializer,
                   responses={200: RaterVerdictSerializer, **WRITE_ERRORS})
    @action(detail=True, methods=["get", "post"], parser_classes=api_settings.DEFAULT_PARSER_CLASSES)
    def raters(self, request, pk=None):
        """GET: each rater's QC numbers, verdict and why, as on the rater QC page. POST (``judge``, ``action``):
        the organizer's decision, as that page's form; the rater's verdict after it."""
        campaign = self.get_object()
        if request.method == "GET":
            verdicts = rater_qc.campaign_verdicts(campaign)
            return Response({"rule": rater_qc.QcRule.of(campaign).as_json(),
                             "raters": [verdict.as_json() for verdict in verdicts]})
        if not isinstance(request.data, Mapping):  # JSON that is not an object: a list, a string, a number, null
            raise ValidationError({"__all__": ["Send an object with the fields 'judge' and 'action'."]})
        checked_fields(request, RaterDecisionForm.base_fields)
        checked_strings(request.data)
        form = RaterDecisionForm(request.data)
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        username = form.cleaned_data["judge"]
        try:
            rater_qc.decide(campaign, username, form.cleaned_data["action"], request.user)
        except ValueError as exc:
            raise ValidationError({"judge": [str(exc)]}) from None
        verdict = next(v for v in rater_qc.campaign_verdicts(campaign) if v.judge == username)
        return Response(verdict.as_json())
