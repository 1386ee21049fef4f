"""The Django admin for support work: every annotation model, with list displays, filters and search.

What support asks: a judge's assignments (Assignment, searched by username), a screen's judgments (Judgment,
filtered by campaign and searched by screen number or token, or from the screen's "judgments" link), who was
invited, which screens are excluded, whose API tokens exist (revoked here by deleting them; made only on the
account page or by ``manage.py api_token``, which check who may hold one). The test set, assignments, references
and screen jobs are shown read-only (editing them would change what analyses read); judgments, their ranks or
scores and flags can neither be changed nor deleted here. Foreign keys are raw ids, so no page lists a whole table
in a drop-down.
"""
from __future__ import annotations

from collections.abc import Sequence

from django.contrib import admin, messages
from django.contrib.admin.utils import get_fields_from_path
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import smart_split, unescape_string_literal

from .models import (
    ApiToken,
    Assignment,
    BackgroundJob,
    Campaign,
    CampaignSlots,
    Candidate,
    CandidateJudgment,
    CrowdSession,
    CrowdWorker,
    Document,
    Flag,
    GoldEdit,
    GuidelinesAcknowledgement,
    Invite,
    JobFile,
    Judgment,
    Output,
    RaterStatus,
    ReferenceSet,
    ReferenceText,
    Screen,
    ScreenCandidate,
    ScreenJob,
    Segment,
    ServedPrefix,
    System,
    TrainingAnswer,
    TrainingCandidate,
    TrainingScreen,
)
from .number_fields import PlainFloatField, PlainIntegerField
from .request_numbers import whole_number
from .services import campaign_closing
from .services.judge_accounts import delete_accounts


def changelist_link(model, label: str, **filters) -> str:
    """A link to ``model``'s admin list filtered by ``filters`` (lookups as the list's query string takes them)."""
    query = "&".join(f"{key}={value}" for key, value in filters.items())
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    return format_html('<a href="{}?{}">{}</a>', url, query, label)


def search_lookup(model: type[models.Model], name: str) -> tuple[str, models.Field]:
    """The ORM lookup of the search field ``name`` of ``model``'s admin and the field it ends at: a text field is
    searched for a part (``icontains``; with ``=``, the whole text, ``iexact``), a field of another type with ``=``
    for a value of its type (``exact``)."""
    path = name.removeprefix("=")
    field = get_fields_from_path(model, path)[-1]
    if name == path:
        return f"{path}__icontains", field
    return f"{path}__{'iexact' if isinstance(field, (models.CharField, models.TextField)) else 'exact'}", field


def search_value(lookup: str, field: models.Field, term: str) -> object | None:
    """What ``lookup`` compares with the search term ``term``: the term itself, or for an ``exact`` lookup the value
    of the field's type that it is (None: it is none, e.g. a word for a number or a token); a number is ASCII digits
    (``whole_number``: ``int`` would read ``٣`` as 3 and ``1_0`` as 10)."""
    if not lookup.endswith("__exact"):
        return term
    if isinstance(field, models.IntegerField):
        return whole_number(term)
    try:
        return field.to_python(term)
    except ValidationError:
        return None


class SupportAdmin(admin.ModelAdmin):
    """Large tables: no full count of unfiltered lists, 50 rows a page, every field shown, the related rows the
    list shows fetched with it, and searches that indexes answer (``get_search_results``)."""

    show_full_result_count = False
    list_per_page = 50

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet, search_term: str
    ) -> tuple[QuerySet, bool]:
        """The rows that match every term of ``search_term`` (a quoted phrase is one term): a term matches a row when
        one of ``search_fields`` does (``search_lookup``); a term that is no value of a field's type skips that
        field. Each field's rows are asked for on their own, and the list takes their ids (``pk IN (... UNION ALL
        ...)``), so each lookup is answered from its own table's indexes and no row is listed twice.

        Django's own search compares a number or a token as text (``UPPER("number"::text) = UPPER('7')``, which no
        index answers) and puts every field in one condition over the joined tables, so each search read whole
        tables: a judge's assignments among 350,000 took 1 s."""
        fields = self.get_search_fields(request)
        if not (fields and search_term):
            return queryset, False
        lookups = [search_lookup(self.model, name) for name in fields]
        for term in smart_split(search_term):
            if term.startswith(('"', "'")) and term[0] == term[-1]:
                term = unescape_string_literal(term)
            matches = [
                self.model._default_manager.filter(**{lookup: value}).order_by().values("pk")
                for lookup, value in ((lookup, search_value(lookup, field, term)) for lookup, field in lookups)
                if value is not None
            ]
            if not matches:
                return queryset.none(), False
            queryset = queryset.filter(pk__in=matches[0].union(*matches[1:], all=True) if matches[1:] else matches[0])
        return queryset, False

    def get_list_select_related(self, request: HttpRequest) -> Sequence[str]:
        """``list_select_related`` where the admin names it (columns that reach further, through methods); otherwise
        the foreign keys that ``list_display`` shows, so that the list is one query."""
        if self.list_select_related:
            return self.list_select_related
        related = {field.name for field in self.model._meta.get_fields() if field.many_to_one or field.one_to_one}
        return tuple(name for name in self.list_display if name in related)


class ReadOnlyAdmin(SupportAdmin):
    """Shown, searched and deletable (with what depends on it) but never added or edited here."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    """Rows shown under their parent, never added, changed or deleted there; ``fields`` are all read-only."""

    extra = 0
    can_delete = False

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> tuple[str, ...]:
        return tuple(self.fields)

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class UndeletableAdmin(ReadOnlyAdmin):
    """Read-only, and never deleted here: what judges submitted (it leaves only with its campaign or judge), what
    a screen shows (a served screen does not change under its judge) and the test set (it leaves only with its
    campaign: a segment takes its screens and their slots with it, which the campaign's kept slot counts would not
    follow, and a system or an output changes the multiplicities its segments keep for sampling)."""

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Campaign)
class CampaignAdmin(SupportAdmin):
    list_display = ("name", "mode", "sampling", "selection", "max_candidates", "redundancy", "owner", "created_at",
                    "closed_at", "screens")
    list_filter = ("mode", "sampling", "selection", "closed_at")
    search_fields = ("name", "owner__username", "organizers__username", "judges__username")
    raw_id_fields = ("owner",)
    filter_horizontal = ("organizers", "judges")
    readonly_fields = ("distinct_histogram", "created_at")
    date_hierarchy = "created_at"
    # Settings read as the New campaign form reads them: 1e-400 is refused, not stored as 0, and 1_0 not read as 10.
    # BigIntegerField (the seed) by name: the admin's defaults give it a widget of its own, found before IntegerField.
    formfield_overrides = {models.FloatField: {"form_class": PlainFloatField},
                           models.IntegerField: {"form_class": PlainIntegerField},
                           models.BigIntegerField: {"form_class": PlainIntegerField}}

    @admin.display(description="screens")
    def screens(self, campaign: Campaign) -> str:
        return changelist_link(Screen, "screens", campaign__id__exact=campaign.pk)

    def save_model(self, request: HttpRequest, obj: Campaign, form, change: bool) -> None:
        """Save the campaign; closing it (``closed_at`` set where it was empty) goes through
        ``campaign_closing.close``, which ends its crowd workers' sessions with their codes in the same
        transaction, and opening it again (``closed_at`` emptied) through ``campaign_closing.reopen``, as on the
        campaign page. A close or reopen that another one overtook (the campaign was closed, or opened, meanwhile)
        keeps the stored ``closed_at`` and says so."""
        was_closed = form.initial.get("closed_at") is not None
        try:
            if change and obj.closed_at is not None and not was_closed:
                campaign_closing.close(obj, obj.closed_at)
            elif change and obj.closed_at is None and was_closed:
                campaign_closing.reopen(obj)
        except campaign_closing.ClosingRefused as refused:
            self.message_user(request, str(refused), messages.WARNING)
        super().save_model(request, obj, form, change)


#: The models the admin lists read-only with nothing but their columns, filters and searched fields: model ->
#: (list_display, list_filter, search_fields). Django makes each one's ModelAdmin from these and ReadOnlyAdmin, or
#: UndeletableAdmin for the test set (``TEST_SET``).
READ_ONLY_LISTS = {
    System: (("name", "kind", "campaign"), ("kind", "campaign"), ("name", "campaign__name")),
    Document: (("name", "position", "campaign"), ("campaign",), ("name", "campaign__name")),
    Segment: (("id", "campaign", "document", "line", "position", "source"), ("campaign",),
              ("source", "=line", "document__name")),
    Candidate: (("id", "segment", "text"), ("segment__campaign",), ("text", "systems__name")),
    Output: (("id", "system", "segment", "candidate"), ("system__campaign", "system__kind"),
             ("system__name", "=segment__line")),
    GuidelinesAcknowledgement: (("judge", "campaign", "acknowledged_at"), ("campaign",), ("judge__username",)),
    TrainingCandidate: (("training_screen", "position", "candidate", "expected_rank"),
                        ("training_screen__campaign",), ()),
    TrainingAnswer: (("judge", "training_screen", "agreement", "ranks", "created_at"),
                     ("training_screen__campaign",), ("judge__username",)),
    ReferenceSet: (("name", "kind", "campaign", "annotators", "imported_at"), ("kind", "campaign"),
                   ("name", "campaign__name")),
    GoldEdit: (("reference_set", "segment", "annotator", "start", "end", "error_type", "corrections"),
               ("reference_set", "error_type"), ("=segment__line", "error_type")),
    ReferenceText: (("reference_set", "segment", "text"), ("reference_set",), ("text", "=segment__line")),
}
TEST_SET = {System, Document, Segment, Candidate, Output}
for model, (columns, filters, searched) in READ_ONLY_LISTS.items():
    admin.site.register(model, UndeletableAdmin if model in TEST_SET else ReadOnlyAdmin, list_display=columns,
                        list_filter=filters, search_fields=searched)


class AssignmentInline(ReadOnlyInline):
    """A screen's slots: who took each, its status and times (read-only)."""

    model = Assignment
    fields = ("position", "judge", "status", "repeat_of", "served_at", "submitted_at", "judgment_link")
    show_change_link = True

    @admin.display(description="judgment")
    def judgment_link(self, assignment: Assignment) -> str:
        return changelist_link(Judgment, "judgment", assignment__id__exact=assignment.pk)


@admin.register(Screen)
class ScreenAdmin(SupportAdmin):
    """Screens: only ``excluded`` (left out of every analysis) can be changed."""

    list_display = ("id", "campaign", "number", "segment", "excluded", "created_at", "judgments")
    list_filter = ("campaign", "excluded")
    search_fields = ("=number", "campaign__name", "segment__source")
    fields = ("campaign", "number", "segment", "created_at", "excluded")
    readonly_fields = ("campaign", "number", "segment", "created_at")
    inlines = (AssignmentInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        """Never: a screen leaves only with its campaign (its judgments with it; its number keeps the campaign's
        screens numbered without gaps, which ``screens.screen_count`` relies on)."""
        return False

    @admin.display(description="judgments")
    def judgments(self, screen: Screen) -> str:
        return changelist_link(Judgment, "judgments", assignment__screen__id__exact=screen.pk)


@admin.register(ScreenCandidate)
class ScreenCandidateAdmin(UndeletableAdmin):
    """What a screen shows."""

    list_display = ("screen", "position", "candidate")
    list_filter = ("screen__campaign",)
    search_fields = ("=screen__number",)


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin):
    """A judge's assignments: search by username, filter by campaign and status."""

    list_display = ("id", "campaign", "screen_number", "judge", "status", "repeat_of", "position", "served_at",
                    "lease_expires_at", "submitted_at")
    list_filter = ("status", "campaign", ("repeat_of", admin.EmptyFieldListFilter))
    search_fields = ("judge__username", "=token", "=screen__number")
    list_select_related = ("campaign", "screen", "judge")
    # A campaign's slots in the order they are handed out, read from the index assignment_campaign_position (the
    # model's ordering, by position across campaigns, has no index: 413 ms a page among 350,000 assignments).
    ordering = ("campaign_id", "position", "id")

    @admin.display(description="screen", ordering="screen__number")
    def screen_number(self, assignment: Assignment) -> int:
        return assignment.screen.number

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        """Never: a slot leaves only with its campaign or its judge's account (the campaign's kept slot counts,
        ``CampaignSlots``, follow those; its judgment would go with it)."""
        return False


@admin.register(CampaignSlots)
class CampaignSlotsAdmin(ReadOnlyAdmin):
    """A campaign's original slots as its pages count them (``kept_slots``): read-only, never deleted here."""

    list_display = ("campaign", "originals", "original_ids")

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(ServedPrefix)
class ServedPrefixAdmin(ReadOnlyAdmin):
    """Where a campaign's unserved screens start, as its list of screens reads them (``served_prefix``): read-only,
    never deleted here."""

    list_display = ("campaign", "below")

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class JobAdmin(ReadOnlyAdmin):
    """Background work of a campaign: found by its campaign's name or its error."""

    search_fields = ("campaign__name", "error")


@admin.register(ScreenJob)
class ScreenJobAdmin(JobAdmin):
    list_display = ("id", "campaign", "status", "requested", "created", "requested_by", "requested_at", "sent_at",
                    "finished_at", "error")
    list_filter = ("status", "campaign")


class JobFileInline(ReadOnlyInline):
    model = JobFile
    fields = ("position", "field", "name")


@admin.register(JobFile)
class JobFileAdmin(ReadOnlyAdmin):
    """A waiting import's files (a finished job's are deleted); their bytes are not shown."""

    list_display = ("id", "job", "position", "field", "name")
    fields = ("job", "position", "field", "name")


@admin.register(BackgroundJob)
class BackgroundJobAdmin(JobAdmin):
    list_display = ("id", "kind", "campaign", "status", "size", "requested_by", "requested_at", "sent_at",
                    "finished_at", "error")
    list_filter = ("kind", "status")
    inlines = [JobFileInline]


class CandidateJudgmentInline(ReadOnlyInline):
    model = CandidateJudgment
    fields = ("position", "candidate", "rank", "score", "meaning_changed")


class FlaggedFilter(admin.SimpleListFilter):
    title = "flagged"
    parameter_name = "flagged"

    def lookups(self, request, model_admin):
        return (("yes", "Flagged"), ("no", "Judged"))

    def queryset(self, request, queryset: QuerySet) -> QuerySet:
        if self.value() in ("yes", "no"):
            return queryset.filter(flag__isnull=self.value() == "no")
        return queryset


@admin.register(Judgment)
class JudgmentAdmin(UndeletableAdmin):
    """Judgments (read-only): filter by campaign or flag, search by judge, screen number, token or Appraise id;
    a screen's judgments are its "judgments" link in the screen list."""

    list_display = ("id", "campaign", "screen_number", "judge", "created_at", "duration", "active_time", "flagged",
                    "external_id")
    list_filter = ("assignment__campaign", FlaggedFilter, "created_at")
    search_fields = ("assignment__judge__username", "=assignment__screen__number", "=assignment__token",
                     "external_id")
    list_select_related = ("assignment__campaign", "assignment__screen", "assignment__judge", "flag")
    inlines = (CandidateJudgmentInline,)

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        """Also the links from a screen (``assignment__screen__id__exact``) and from an assignment."""
        if lookup in ("assignment__screen__id__exact", "assignment__id__exact"):
            return True
        return super().lookup_allowed(lookup, value, request)

    @admin.display(description="campaign", ordering="assignment__campaign__name")
    def campaign(self, judgment: Judgment) -> Campaign:
        return judgment.assignment.campaign

    @admin.display(description="screen", ordering="assignment__screen__number")
    def screen_number(self, judgment: Judgment) -> int:
        return judgment.assignment.screen.number

    @admin.display(description="judge", ordering="assignment__judge__username")
    def judge(self, judgment: Judgment) -> str:
        return judgment.assignment.judge.username

    @admin.display(description="flag", boolean=True)
    def flagged(self, judgment: Judgment) -> bool:
        return hasattr(judgment, "flag")


class RankFilter(admin.SimpleListFilter):
    """Ranks by value, 1 to 10 (``candidate_rank_range``): Django's filter of a field lists the values the table
    holds, a DISTINCT over every judged candidate on each page (140 ms at 1,000,000)."""

    title = "rank"
    parameter_name = "rank"

    def lookups(self, request, model_admin):
        return [(str(rank), str(rank)) for rank in range(1, 11)]

    def queryset(self, request, queryset: QuerySet) -> QuerySet:
        value = self.value()
        rank = whole_number(value or "", digits=2)
        return queryset if rank is None else queryset.filter(rank=rank)


@admin.register(CandidateJudgment)
class CandidateJudgmentAdmin(UndeletableAdmin):
    list_display = ("judgment", "position", "candidate", "rank", "score", "meaning_changed")
    list_filter = ("judgment__assignment__campaign", RankFilter, "meaning_changed")
    search_fields = ("judgment__assignment__judge__username", "=judgment__assignment__screen__number")
    list_select_related = ("judgment__assignment__screen", "candidate")


@admin.register(Flag)
class FlagAdmin(UndeletableAdmin):
    list_display = ("judgment", "reason", "campaign")
    list_filter = ("judgment__assignment__campaign",)
    search_fields = ("reason", "judgment__assignment__judge__username")
    list_select_related = ("judgment__assignment__campaign", "judgment__assignment__screen")

    @admin.display(description="campaign")
    def campaign(self, flag: Flag) -> Campaign:
        return flag.judgment.assignment.campaign


@admin.register(Invite)
class InviteAdmin(SupportAdmin):
    """Invites: the link itself is never stored (only its digest); an unused invite's expiry can be changed."""

    list_display = ("judge", "campaign", "created_by", "created_at", "expires_at", "used_at")
    list_filter = ("campaign", ("used_at", admin.EmptyFieldListFilter))
    search_fields = ("judge__username", "campaign__name", "created_by__username")
    fields = ("campaign", "judge", "created_by", "created_at", "expires_at", "used_at")
    readonly_fields = ("campaign", "judge", "created_by", "created_at", "used_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


class CrowdSessionInline(ReadOnlyInline):
    """A crowd worker's sessions (platform submissions), their screens and what each was given."""

    model = CrowdSession
    fields = ("session_id", "study_id", "current", "base", "screens", "started_at", "completed_at", "outcome", "code")


@admin.register(CrowdWorker)
class CrowdWorkerAdmin(ReadOnlyAdmin):
    """Crowd workers of crowd campaigns, with their sessions; they are made by the study link
    (``services.crowd_entry``)."""

    list_display = ("worker_id", "platform", "campaign", "created_at")
    list_filter = ("campaign", "platform")
    search_fields = ("worker_id", "sessions__session_id")
    inlines = (CrowdSessionInline,)


@admin.register(CrowdSession)
class CrowdSessionAdmin(UndeletableAdmin):
    """Crowd workers' sessions (platform submissions); the study link makes them (``services.crowd_entry``). Never
    deleted here: a session is the record a submission is paid against, and a worker whose current session was
    deleted could no longer open the study link (a session leaves only with its worker)."""

    list_display = ("session_id", "worker", "current", "started_at", "completed_at", "outcome")
    list_filter = ("worker__campaign", "current", "outcome")
    search_fields = ("session_id", "worker__worker_id")


@admin.register(RaterStatus)
class RaterStatusAdmin(ReadOnlyAdmin):
    """Rater QC standings; the organizer changes them on the campaign's dashboard (``services.rater_qc``)."""

    list_display = ("judge", "campaign", "decision", "attempt", "decided_by", "decided_at")
    list_filter = ("campaign", "decision")
    search_fields = ("judge__username",)



class TrainingCandidateInline(ReadOnlyInline):
    model = TrainingCandidate
    fields = ("position", "candidate", "expected_rank")


@admin.register(TrainingScreen)
class TrainingScreenAdmin(SupportAdmin):
    """Training screens: their feedback can be edited; their candidates and expected ranks are fixed."""

    list_display = ("id", "campaign", "position", "segment")
    list_filter = ("campaign",)
    search_fields = ("campaign__name", "feedback")
    fields = ("campaign", "position", "segment", "feedback")
    readonly_fields = ("campaign", "position", "segment")
    inlines = (TrainingCandidateInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False







@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """API tokens: their owner, name, first characters, creation and expiry (the token itself is not stored).
    Deleting one revokes it."""

    list_display = ("token_key", "name", "user", "created", "expiry")
    search_fields = ("user__username", "name", "token_key")
    raw_id_fields = ("user",)


class AccountAdmin(UserAdmin):
    """Django's accounts admin; deleting an account waits for its judging in flight (``delete_accounts``)."""

    def delete_model(self, request: HttpRequest, obj) -> None:
        delete_accounts(get_user_model().objects.filter(pk=obj.pk))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        delete_accounts(queryset)


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), AccountAdmin)
