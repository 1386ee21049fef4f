"""Organizer forms: creating a campaign from uploaded files, adding screens, importing Appraise XML.

The web pages and the REST API validate uploads with these same forms, then call the import services.
"""
from __future__ import annotations

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError

from .models import Campaign
from .services.importing import import_outputs, read_test_set, split_archive, create_campaign
from .services.judged_screens import USER_MAP_SYNTAX, parse_user_map
from .services.screens import MAX_SCREENS_PER_JOB
from .services.textfiles import InputFileError, NamedFile, check_size


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
    """An uploaded file as a NamedFile (its base name and bytes); a file over the upload limit is refused
    before it is read (Django has streamed it to a temporary file)."""
    name = upload.name.rsplit("/", 1)[-1]
    check_size(name, upload.size, settings.MAX_UPLOAD_BYTES)
    return NamedFile(name, upload.read())


class CampaignImportForm(forms.ModelForm):
    """A new campaign and its test set: either separate files or one archive."""

    source = forms.FileField(required=False, help_text="The source sentences, one per line.")
    systems = MultipleFileField(
        required=False,
        help_text="System outputs, one file per system, aligned with the source line by line. A file's name is its "
        "system's name: letters, digits and ASCII punctuation (no spaces, no / or \\, not starting with '.').",
    )
    documents = forms.FileField(required=False, help_text="Optional: the document id of each source line.")
    archive = forms.FileField(
        required=False,
        help_text="Or: one zip or tar archive holding a 'source' file (or INPUT), the systems and optionally "
        "a 'documents' file.",
    )
    source_name = forms.CharField(
        required=False, max_length=200, help_text="The archive's source file name, if not 'source' or 'INPUT'."
    )
    source_is_system = forms.BooleanField(
        required=False, initial=True, label="Judge the source too", help_text="As G15 judged INPUT as a 13th system."
    )

    class Meta:
        model = Campaign
        fields = ["name", "mode", "max_candidates", "sampling", "seed", "redundancy", "repeat_rate", "guidelines"]

    def clean(self):
        data = super().clean()
        has_files = bool(data.get("source") or data.get("systems"))
        if bool(data.get("archive")) == has_files:
            raise ValidationError("Upload either a source file with system files, or one archive.")
        if has_files and not data.get("source"):
            raise ValidationError("The source file is missing.")
        return data

    def save(self, commit: bool = True, owner=None) -> Campaign:
        """Check and write the campaign; file problems become form errors and nothing is written."""
        data = self.cleaned_data
        options = {field: data[field] for field in self.Meta.fields if field != "name"}
        try:
            if data.get("archive"):
                source, systems, documents = split_archive(
                    named_file(data["archive"]), data.get("source_name") or None,
                    source_is_system=data["source_is_system"],
                )
                campaign = create_campaign(data["name"], read_test_set(source, systems, documents), owner=owner, **options)
            else:
                campaign = import_outputs(
                    data["name"],
                    named_file(data["source"]),
                    [named_file(f) for f in data["systems"]],
                    named_file(data["documents"]) if data.get("documents") else None,
                    source_is_system=data["source_is_system"],
                    owner=owner,
                    **options,
                )
        except InputFileError as exc:
            self.add_error(None, str(exc))
            raise ValidationError(str(exc)) from None
        if owner is not None:
            campaign.organizers.add(owner)
        return campaign


SCREENS_COUNT_ERROR = f"The number of screens must be a whole number from 1 to {MAX_SCREENS_PER_JOB:,}."


class ScreensForm(forms.Form):
    """Add screens to a campaign by its sampling settings (empty count: every sentence once, full coverage)."""

    count = forms.IntegerField(
        min_value=1, max_value=MAX_SCREENS_PER_JOB, required=False,
        error_messages=dict.fromkeys(("invalid", "min_value", "max_value"), SCREENS_COUNT_ERROR),
    )


class AppraiseUploadForm(forms.Form):
    """An Appraise XML file of ranking judgments to add to a campaign, and which accounts its users are.

    ``map_users`` (USER_MAP_SYNTAX) gives users of the file explicitly to existing accounts; unmapped users are
    accounts of this campaign only (``services.judge_accounts``). ``cleaned_data["map_users"]`` is a dict.
    """

    file = forms.FileField(
        help_text="Appraise XML, in the schema of CoNLL-14's judgments.xml.",
        error_messages={"required": "Choose an Appraise XML file to upload."},
    )
    map_users = forms.CharField(
        required=False,
        max_length=100_000,
        label="User map",
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "annotator01=alice annotator02=bob"}),
        help_text=f"Optional: {USER_MAP_SYNTAX}. A user of the file is otherwise an account of this campaign only.",
    )

    def clean_map_users(self) -> dict[str, str]:
        try:
            return parse_user_map(self.cleaned_data["map_users"])
        except ValueError as error:
            raise ValidationError(str(error)) from None
