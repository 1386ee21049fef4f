"""The organizer pages' posts: what every post on one campaign checks first (``campaign_post``); posted forms,
valid or refused with a message that says what was not done; and the way back to the section of the campaign page
that posted them, where their message is shown."""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from ..campaign_forms import UploadRefused
from ..judging_forms import error_text
from ..models import BackgroundJob, Campaign
from ..permissions import managed_campaign_or_404


def campaign_post(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """``view`` as a POST on one campaign's organizer page: a visitor not logged in is sent to log in, another
    method gets 405, and ``view`` is called with the campaign ``pk`` in place of ``pk`` if the user manages it (404
    otherwise, as ``managed_campaign_or_404``)."""

    @login_required
    @require_POST
    @wraps(view)
    def on_campaign(request: HttpRequest, pk: int, **kwargs) -> HttpResponse:
        return view(request, managed_campaign_or_404(request, pk), **kwargs)

    return on_campaign


def valid_post(request: HttpRequest, form_class: type[forms.Form], refusal: str) -> forms.Form | None:
    """``form_class`` bound to the POST if it is valid; otherwise None, with ``refusal`` as an error message, its
    ``{errors}`` replaced by the form's errors (the view then redirects back: nothing was changed)."""
    form = form_class(request.POST)
    if form.is_valid():
        return form
    messages.error(request, refusal.replace("{errors}", error_text(form)))
    return None


#: Session key: {"<campaign id>/<form class>": {field: posted text}} of refused forms not shown again yet.
SESSION_REFUSED_INPUT = "organizer-refused-input"


def choose_files_again(request: HttpRequest) -> str:
    """What a refused form that keeps its typed fields says of the files it was sent: a browser cannot fill a file
    input again, so they must be chosen again ("" when no file was sent)."""
    sent = sum(len(request.FILES.getlist(name)) for name in request.FILES)
    if not sent:
        return ""
    if sent == 1:
        return "Choose the file again: a browser does not keep it after an error."
    return "Choose the files again: a browser does not keep them after an error."


def refuse_upload(request: HttpRequest, campaign_pk: int, form_class: type[forms.Form], refusal: str) -> None:
    """Show a refused import's ``refusal``, a sentence or several, followed by "Nothing was imported." and the word to
    choose the files again; keep the typed fields of ``form_class`` for the campaign page (``keep_refused_input``)."""
    messages.error(request, f"{refusal.rstrip('.')}. Nothing was imported. {choose_files_again(request)}".rstrip())
    keep_refused_input(request, campaign_pk, form_class)


def import_upload(request: HttpRequest, campaign: Campaign, form: forms.Form, section: str) -> HttpResponse:
    """An upload form's post (``AppraiseUploadForm``, ``ScoresUploadForm``: bound, with ``imported``): its file
    imported, with the summary as the message, or its background job's page for a large file; or the refusal
    (``refuse_upload``), nothing stored. Back to the campaign page's ``section`` otherwise."""
    if not form.is_valid():
        refuse_upload(request, campaign.pk, type(form), form_refusal(form))
        return to_section(campaign.pk, section)
    upload = form.cleaned_data["file"]
    try:
        done = form.imported(campaign, request.user)
    except UploadRefused as refused:
        refuse_upload(request, campaign.pk, type(form), str(refused))
        return to_section(campaign.pk, section)
    if isinstance(done, BackgroundJob):
        messages.success(request, f"Importing {upload.name} in the background.")
        return redirect("background-job", job_id=done.pk)
    messages.success(request, done.text())
    return to_section(campaign.pk, section)


def form_refusal(form: forms.Form) -> str:
    """A refused form's errors as sentences, each ending in one full stop."""
    return " ".join(f"{error.rstrip('.')}." for errors in form.errors.values() for error in errors)


def keep_refused_input(request: HttpRequest, campaign_pk: int, form_class: type[forms.Form]) -> None:
    """Keep the text fields a refused ``form_class`` posted, so that the campaign page shows the form filled in with
    them again (``form_with_refused_input``) and nothing has to be typed twice (a file has to be chosen again)."""
    kept = request.session.get(SESSION_REFUSED_INPUT, {})
    kept[f"{campaign_pk}/{form_class.__name__}"] = {
        name: request.POST.get(name, "") for name, field in form_class.base_fields.items()
        if not isinstance(field, forms.FileField)
    }
    request.session[SESSION_REFUSED_INPUT] = kept


def form_with_refused_input(request: HttpRequest, campaign_pk: int, form_class: type[forms.Form]) -> forms.Form:
    """An unbound ``form_class`` for the campaign page, filled in with what its last refused post held
    (``keep_refused_input``), once; with its initial values otherwise."""
    kept = request.session.get(SESSION_REFUSED_INPUT, {})
    refused = kept.pop(f"{campaign_pk}/{form_class.__name__}", None)
    if refused is None:
        return form_class()
    request.session[SESSION_REFUSED_INPUT] = kept
    return form_class(initial=refused)


#: The campaign page's sections that post forms, by their element id. A redirect to one of them names it in the
#: query (``?at=invites``) as well as in the fragment: the page then shows the messages inside that section, where
#: the browser scrolls to, instead of at the top of a long page (the fragment alone never reaches the server).
CAMPAIGN_SECTIONS = frozenset({"screens", "appraise", "references", "invites", "guidelines", "training", "attention"})


def to_section(campaign_pk: int, section: str) -> HttpResponse:
    """Redirect to ``section`` of the campaign page, with its messages shown there."""
    if section not in CAMPAIGN_SECTIONS:
        raise ValueError(f"no such section of the campaign page: {section}")
    return redirect(f"{reverse('campaign-detail', args=[campaign_pk])}?at={section}#{section}")


def messages_section(request: HttpRequest) -> str | None:
    """The campaign page's section that shows the messages (``?at=``), or None: at the top of the page."""
    section = request.GET.get("at")
    return section if section in CAMPAIGN_SECTIONS else None
