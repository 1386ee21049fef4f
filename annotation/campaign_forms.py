"""Organizer forms: creating a campaign from uploaded files, adding screens, importing Appraise XML and PRWS scores.

The web pages and the REST API validate uploads with these same forms, then call the import services.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.http import QueryDict

from .boolean_fields import PlainBooleanField
from .models import BackgroundJob, Campaign, markdown_too_long
from .number_fields import PlainFloatField, PlainIntegerField
from .services import background_jobs
from .services.appraise_import import AppraiseImportSummary, check_takes_appraise_xml, import_appraise_xml
from .services.appraise_xml import AppraiseXMLError, check_upload_size
from .services.field_rules import check_campaign_name
from .services.importing import check_system_names, import_test_set
from .services.judged_screens import USER_MAP_SYNTAX, parse_user_map
from .services.score_import import WIDE_RATER, ScoreImportSummary, check_takes_scores, import_scores
from .services.screens import MAX_SCREENS_PER_JOB
from .services.textfiles import InputFileError, NamedFile, check_size
from .upload_names import check_sent_name
from .validators import validate_one_line

T = TypeVar("T")


def field_checked(check: Callable[[T], None], value: T) -> T:
    """``value`` once ``check`` (a check of the imports, raising InputFileError) passes it; its refusal as the
    field's ValidationError."""
    try:
        check(value)
    except InputFileError as error:
        raise ValidationError(str(error)) from None
    return value


def instruction_field() -> forms.CharField:
    """The judge screen's one-line instruction as the model declares it (label, help, length), optional: the New
    campaign form and the guidelines page take it."""
    return Campaign._meta.get_field("instruction").formfield(required=False)


def checked_instruction(value: str | None) -> str:
    """The judge screen's instruction, trimmed: one line of printable text (``validators.validate_one_line``);
    ValidationError otherwise."""
    text = (value or "").strip()
    validate_one_line(text)
    return text


def campaign_formfield(db_field, **kwargs) -> forms.Field | None:
    """The model field's form field, as the model declares it (label, help text, default as initial value), with
    the bounds of its MinValueValidator and MaxValueValidator as the form field's own (so the page's number input
    carries them as ``min`` and ``max``, and a value out of range is refused under its field); a setting reads its
    number as the imports do (``PlainIntegerField``, ``PlainFloatField``), a yes-or-no one only as true or false
    (``PlainBooleanField``). A setting with a default may be left
    empty: it then takes that default (``CampaignImportForm.import_options``)."""
    for validator in db_field.validators:
        if isinstance(validator, MinValueValidator):
            kwargs.setdefault("min_value", validator.limit_value)
        elif isinstance(validator, MaxValueValidator):
            kwargs.setdefault("max_value", validator.limit_value)
    if db_field.has_default():
        kwargs.setdefault("required", False)
    if isinstance(db_field, models.FloatField):
        kwargs.setdefault("form_class", PlainFloatField)
    elif isinstance(db_field, models.IntegerField):
        kwargs.setdefault("form_class", PlainIntegerField)
    elif isinstance(db_field, models.BooleanField):
        kwargs.setdefault("form_class", PlainBooleanField)
    return db_field.formfield(**kwargs)


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """A file field that takes several files (Django's documented pattern)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, (list, tuple)):
            return [single(item, initial) for item in data]
        return [single(data, initial)] if data else []


def named_file(upload) -> NamedFile:
    """An uploaded file as a NamedFile (its name and bytes); a file whose name was changed on the way in
    (``upload_names``) or over the upload limit is refused before it is read (Django has streamed it to a temporary
    file)."""
    check_sent_name(upload)
    check_size(upload.name, upload.size, settings.MAX_UPLOAD_BYTES)
    return NamedFile(upload.name, upload.read())


class CampaignImportForm(forms.ModelForm):
    """A new campaign and its test set: either separate files or one archive."""

    source = forms.FileField(required=False, help_text="The source sentences, one per line.")
    systems = MultipleFileField(
        required=False,
        help_text="System outputs, one file per system, aligned with the source line by line. A file's name is its "
        "system's name: letters, digits and ASCII punctuation (no spaces, no / or \\, not starting with '.').",
    )
    documents = forms.FileField(required=False, help_text="Optional: the document id of each source line (an "
                                "archive holds its own, a file named documents).")
    archive = forms.FileField(
        required=False,
        help_text="Or: one zip or tar archive holding a 'source' file (or INPUT), the systems and optionally "
        "a 'documents' file.",
    )
    source_name = forms.CharField(
        required=False, max_length=200, help_text="The archive's source file name, if not 'source' or 'INPUT'."
    )
    source_is_system = PlainBooleanField(
        required=False, initial=True, label="Judge the source too", help_text="As G15 judged INPUT as a 13th system."
    )

    show_replaced_words = forms.TypedChoiceField(
        required=False, choices=[("yes", "Show them struck through before the new words"),
                                 ("no", "Hide them, showing only the new words (as G15)")],
        coerce=lambda value: value == "yes", empty_value=True, initial="yes", widget=forms.RadioSelect,
        label="Replaced words",
        help_text="How a substitution shows the words it replaces (\u201cmake the\u201d \u2192 \u201cmakes\u201d).",
    )

    class Meta:
        model = Campaign
        fields = ["name", "mode", "max_candidates", "sampling", "selection", "seed", "redundancy", "repeat_rate",
                  "guidelines", "instruction", "show_replaced_words", "control_share", "qc_control_threshold",
                  "qc_p_value", "qc_min_total_seconds",
                  "qc_min_median_seconds", "crowd", "crowd_session_screens", "crowd_campaign_screens",
                  "crowd_completion_url", "crowd_code_encodes_qc"]
        formfield_callback = campaign_formfield
        error_messages = {"guidelines": {"max_length": markdown_too_long("guidelines")},
                          "name": {"unique": "A campaign of this name exists already: choose another name."}}

    @classmethod
    def with_defaults(cls, data, files) -> CampaignImportForm:
        """The form bound to a REST request, where a field left out takes its default (as the API's schema says),
        not what an HTML form's missing field means (an unticked box: false). ``data`` is copied shallowly: a REST
        request's data holds its uploaded files too, and ``QueryDict.copy`` deep-copies, which a file Django has
        streamed to disk (a request over ``FILE_UPLOAD_MAX_MEMORY_SIZE``) cannot be."""
        filled = QueryDict(mutable=True)
        filled.update(data)
        for name, field in cls.base_fields.items():
            if name not in filled and name not in files and field.initial is not None:
                filled[name] = field.initial
        return cls(filled, files)

    def clean_name(self) -> str:
        """The name as the import takes it (``field_rules.check_campaign_name``), refused here under its field:
        for an upload a background job imports, the job was recorded (202) and failed on the name."""
        return field_checked(check_campaign_name, self.cleaned_data["name"])

    def clean_instruction(self) -> str:
        return checked_instruction(self.cleaned_data.get("instruction"))

    def clean(self):
        data = super().clean()
        has_files = bool(data.get("source") or data.get("systems"))
        if bool(data.get("archive")) == has_files:
            raise ValidationError("Upload either a source file with system files, or one archive.")
        if has_files and not data.get("source"):
            raise ValidationError("The source file is missing.")
        if has_files and data.get("source") and "source_is_system" in data:
            self._check_system_names(data)
        if data.get("source_name") and not data.get("archive"):
            self.add_error("source_name", "The source file's name applies to an archive; the source file uploaded "
                           "on its own is the source.")
        if data.get("documents") and data.get("archive"):
            self.add_error("documents", "An archive holds its own document index (a file named documents); the "
                           "document index uploaded beside it would not be read.")
        return data

    def _check_system_names(self, data: dict) -> None:
        """The system files' names as the import checks them (``importing.check_system_names``), refused here under
        ``systems``: for an upload a background job imports, the job was recorded (202) and failed on them."""
        names = [upload.name for upload in data.get("systems") or []]
        try:
            check_system_names(data["source"].name, names, data["source_is_system"])
        except InputFileError as error:
            self.add_error("systems", str(error))

    def uploads(self) -> list[tuple[str, UploadedFile]]:
        """The uploaded files with the field each came in (``archive``, or ``source``, ``systems``, ``documents``)."""
        data = self.cleaned_data
        if data.get("archive"):
            return [("archive", data["archive"])]
        uploads = [("source", data["source"])] + [("systems", upload) for upload in data["systems"]]
        return uploads + ([("documents", data["documents"])] if data.get("documents") else [])

    def upload_size(self) -> int:
        """The bytes uploaded, in all files."""
        return sum(upload.size for _, upload in self.uploads())

    def import_options(self) -> dict:
        """What ``importing.import_test_set`` takes besides the files: the name, the archive's source name, whether
        the source is judged, and the campaign's settings (JSON-able, for a background import); a setting left empty
        is left out, so that the campaign takes its default."""
        data = self.cleaned_data
        given = [field for field in self.Meta.fields if data[field] not in self.fields[field].empty_values]
        options = {field: data[field] for field in given}
        return {**options, "source_name": data.get("source_name") or None, "source_is_system": data["source_is_system"]}

    def save(self, commit: bool = True, owner=None) -> Campaign | BackgroundJob:
        """Check and write the campaign; or, for an upload over ``IMPORT_IN_REQUEST_MB``, record the background job
        that will (``services.background_jobs``). A refusal becomes a form error (ValidationError); nothing is
        written then."""
        try:
            files = [(field_name, named_file(upload)) for field_name, upload in self.uploads()]
            if not background_jobs.in_request(self.upload_size()):
                return background_jobs.record_job(BackgroundJob.Kind.TEST_SET, files, self.import_options(), owner)
            campaign = import_test_set(files=files, owner=owner, **self.import_options())
        except (InputFileError, background_jobs.JobRefused) as exc:
            self.add_error(None, str(exc))
            raise ValidationError(str(exc)) from None
        if owner is not None:
            campaign.organizers.add(owner)
        return campaign


SCREENS_COUNT_ERROR = f"The number of screens must be a whole number from 1 to {MAX_SCREENS_PER_JOB:,}."


class ScreensForm(forms.Form):
    """Add screens to a campaign by its sampling settings (empty count: every sentence once, full coverage)."""

    count = PlainIntegerField(
        min_value=1, max_value=MAX_SCREENS_PER_JOB, required=False,
        error_messages=dict.fromkeys(("invalid", "min_value", "max_value"), SCREENS_COUNT_ERROR),
    )


def user_map_field(file_has: str) -> forms.CharField:
    """The optional *User map* of an import form, written as USER_MAP_SYNTAX (``checked_user_map``); ``file_has``
    names what the file calls its judges ("A user of the file")."""
    return forms.CharField(
        required=False,
        max_length=100_000,
        label="User map",
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "annotator01=alice annotator02=bob"}),
        help_text=f"Optional: {USER_MAP_SYNTAX}. {file_has} is otherwise an account of this campaign only.",
    )


def checked_user_map(text: str) -> dict[str, str]:
    """A user map field's pairs as {name in the file: account} (``parse_user_map``); ValidationError naming the first
    pair that is not NAME=ACCOUNT, holds a name that is not a valid username, or maps a name or an account twice."""
    try:
        return parse_user_map(text)
    except ValueError as error:
        raise ValidationError(str(error)) from None


class UploadRefused(ValueError):
    """An upload form's file refused by its import, which stored nothing; the message names the file and the item or
    row at fault."""


class AppraiseUploadForm(forms.Form):
    """An Appraise XML file of ranking judgments to add to a campaign, and which accounts its users are.

    ``map_users`` (USER_MAP_SYNTAX) gives users of the file explicitly to existing accounts; unmapped users are
    accounts of this campaign only (``services.judge_accounts``). ``cleaned_data["map_users"]`` is a dict.
    """

    file = forms.FileField(
        help_text="Appraise XML, in the schema of CoNLL-14's judgments.xml.",
        error_messages={"required": "Choose an Appraise XML file to upload."},
    )
    map_users = user_map_field("A user of the file")

    def clean_file(self):
        return field_checked(check_sent_name, self.cleaned_data["file"])

    def queued_job(self, campaign: Campaign, by: AbstractBaseUser) -> BackgroundJob | None:
        """For a file over ``IMPORT_IN_REQUEST_MB``, the background job recorded to import it into ``campaign``;
        None for a file the request imports itself (after ``is_valid``). AppraiseXMLError, with nothing recorded,
        for a campaign that takes no Appraise XML (a PRWS one) or a file over ``MAX_UPLOAD_MB``."""
        upload = self.cleaned_data["file"]
        if background_jobs.in_request(upload.size):
            return None
        check_takes_appraise_xml(campaign)
        check_upload_size(upload.size, settings.MAX_UPLOAD_BYTES)
        return background_jobs.record_job(BackgroundJob.Kind.APPRAISE_XML, [("file", named_file(upload))],
                                          {"map_users": self.cleaned_data["map_users"]}, by, campaign)

    def clean_map_users(self) -> dict[str, str]:
        return checked_user_map(self.cleaned_data["map_users"])

    def imported(self, campaign: Campaign, by: AbstractBaseUser) -> AppraiseImportSummary | BackgroundJob:
        """Import the valid form's file into ``campaign`` for ``by`` now, or record its background job
        (``queued_job``); UploadRefused, with nothing stored, for a file the import refuses."""
        upload = self.cleaned_data["file"]
        try:
            return self.queued_job(campaign, by) or import_appraise_xml(
                campaign, upload, self.cleaned_data["map_users"], by)
        except AppraiseXMLError as exc:
            raise UploadRefused(f"{upload.name}: {exc}") from None


class ScoresUploadForm(forms.Form):
    """A CSV file of PRWS scores to add to a PRWS campaign, as ``manage.py import_scores`` takes it: its layout
    (``long``, or ``wide`` with the ``rater`` its ratings go to), which accounts a long file's raters are
    (``map_users``, USER_MAP_SYNTAX, as ``--map-user``), and whether to skip what names no system of the campaign.

    A wide file needs its rater, and takes no user map; a long file names its raters itself and takes no rater. After
    ``is_valid``, ``import_options()`` holds what ``score_import.import_scores`` takes besides the file.
    """

    file = forms.FileField(
        label="Scores CSV",
        help_text="UTF-8 CSV. Long: one rating per row, rater,segment,system,score[,meaning_changed], segment the "
        "0-based line of the source, score 0-100 (a header row of these names may come first). Wide: a header of "
        "system names, then one row per line of the source in order, one column per system, an empty cell not "
        "rated (GMEG-Data's *-segment-scores.csv).",
        error_messages={"required": "Choose a scores CSV file to upload."},
    )
    layout = forms.TypedChoiceField(
        choices=[("long", "Long: one rating per row"), ("wide", "Wide: one column per system")],
        coerce=str, required=False, empty_value="long", initial="long", widget=forms.RadioSelect, label="Layout",
    )
    rater = forms.CharField(
        required=False, max_length=150, label="Rater",
        help_text=f"Wide files: the rater whose ratings they are (GMEG-Data's released means: {WIDE_RATER}); a new "
        "name becomes an account of this campaign only.",
    )
    map_users = user_map_field("Long files: a rater of the file")
    skip_unknown = PlainBooleanField(
        required=False, label="Skip unknown systems",
        help_text="Skip a column (wide) or row (long) that names no system of the campaign, such as GMEG's ref "
        "column, instead of refusing the file; the summary says how many cells were skipped.",
    )

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "id_scores_%s")  # its own ids on the campaign page, beside its other forms
        super().__init__(*args, **kwargs)

    def clean_file(self):
        return field_checked(check_sent_name, self.cleaned_data["file"])

    def clean_rater(self) -> str:
        rater = self.cleaned_data["rater"].strip()
        if rater:
            try:
                get_user_model().username_validator(rater)
            except ValidationError:
                raise ValidationError(f"Rater {rater!r} is not a valid user name (letters, digits, @.+-_).") from None
        return rater

    def clean_map_users(self) -> dict[str, str]:
        return checked_user_map(self.cleaned_data["map_users"])

    def clean(self):
        data = super().clean()
        wide = data.get("layout") == "wide"
        if wide and "rater" in data and not data["rater"]:
            self.add_error("rater", "A wide file's ratings belong to one rater: name the rater (GMEG-Data's "
                           f"released means: {WIDE_RATER}).")
        if not wide and data.get("rater"):
            self.add_error("rater", "A long file names its raters in its first column; the rater is for wide files "
                           "(choose Wide, or leave the rater empty).")
        if wide and data.get("map_users"):
            self.add_error("map_users", "A wide file has one rater, named in Rater; the user map is for long files.")
        return data

    def import_options(self) -> dict:
        """What ``score_import.import_scores`` takes besides the campaign, the file and who imports (JSON-able, for a
        background job): ``wide``, ``rater``, ``users`` and ``skip_unknown``."""
        data = self.cleaned_data
        wide = data["layout"] == "wide"
        return {"wide": wide, "rater": data["rater"] if wide else WIDE_RATER, "users": data["map_users"],
                "skip_unknown": data["skip_unknown"]}

    def queued_job(self, campaign: Campaign, by: AbstractBaseUser) -> BackgroundJob | None:
        """For a file over ``IMPORT_IN_REQUEST_MB``, the background job recorded to import it into ``campaign``;
        None for a file the request imports itself (after ``is_valid``). InputFileError, with nothing recorded, for
        a campaign that takes no scores (a ranking one: ScoreImportError) or a file over ``MAX_UPLOAD_MB``."""
        upload = self.cleaned_data["file"]
        if background_jobs.in_request(upload.size):
            return None
        check_takes_scores(campaign)
        return background_jobs.record_job(BackgroundJob.Kind.SCORES, [("file", named_file(upload))],
                                          self.import_options(), by, campaign)

    def imported(self, campaign: Campaign, by: AbstractBaseUser) -> ScoreImportSummary | BackgroundJob:
        """Import the valid form's file into ``campaign`` for ``by`` now, or record its background job
        (``queued_job``); UploadRefused, with nothing stored, for a file the import refuses."""
        upload = self.cleaned_data["file"]
        try:
            return self.queued_job(campaign, by) or import_scores(
                campaign, named_file(upload).data, name=upload.name, by=by, **self.import_options())
        except InputFileError as exc:
            raise UploadRefused(str(exc)) from None
