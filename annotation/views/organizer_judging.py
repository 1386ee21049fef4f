"""Organizer pages for judging a campaign: invite links, guidelines, training screens, attention checks, and the
judging panel of the campaign page (judges' activity and attention-check rates).

Each view parses the request with a form of ``judging_forms``, calls a service (invites, guidelines, training,
attention) and redirects to the campaign page with a message, or renders the form again with its errors. Only
the campaign's organizers (and admins) reach these pages; other campaigns are not found (404), as on the other
organizer pages. Bad input writes nothing.

An invite's link holds a secret that is stored only as a digest, so the page shows it once: the view keeps the
new links in the session until the campaign page has shown them.
"""
from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Avg, Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import capfirst

from gecappraise.plurals import counted

from ..judging_forms import (
    AttentionChecksForm,
    GuidelinesForm,
    InviteForm,
    TrainingLineForm,
    TrainingScreenForm,
)
from ..models import BackgroundJob, Campaign, Candidate, GuidelinesAcknowledgement, Invite, Segment, TrainingScreen
from ..permissions import managed_campaign_or_404
from ..random_streams import campaign_rng
from ..services import attention_requests, background_jobs, guidelines, invites, training
from ..services.collapsing import diff_spans
from ..services.judging_overview import CampaignProgress, attention_coverage, judge_activity
from ..services.presentation import ShownCandidate, context_of
from .posted import campaign_post, form_with_refused_input, keep_refused_input, to_section, valid_post

#: Session key: {campaign id: [[username, link], ...]} of invite links not shown yet.
SESSION_NEW_INVITES = "organizer-new-invites"


def _keep_new_link(request: HttpRequest, campaign: Campaign, username: str, link: str) -> None:
    pending = request.session.get(SESSION_NEW_INVITES, {})
    pending.setdefault(str(campaign.pk), []).append([username, link])
    request.session[SESSION_NEW_INVITES] = pending


def _take_new_links(request: HttpRequest, campaign: Campaign) -> list[list[str]]:
    """The campaign's invite links not shown yet, removed from the session: each link is shown once."""
    pending = request.session.get(SESSION_NEW_INVITES, {})
    links = pending.pop(str(campaign.pk), [])
    if links:
        request.session[SESSION_NEW_INVITES] = pending
    return links


def judging_context(request: HttpRequest, campaign: Campaign, progress: CampaignProgress) -> dict:
    """What the campaign page's judging sections show (``organizer/_judging.html``), with the campaign's
    ``progress`` (``judging_overview.campaign_progress``); takes the invite links not shown yet out of the session,
    so each is shown once."""
    digest = guidelines.guidelines_digest(campaign)
    return {
        "campaign": campaign,
        "activity": judge_activity(campaign, progress),
        "new_links": _take_new_links(request, campaign),
        "invites": campaign.invites.select_related("judge", "created_by"),
        "now": timezone.now(),
        "invite_form": form_with_refused_input(request, campaign.pk, InviteForm),
        "guidelines_form": GuidelinesForm(initial={"guidelines": campaign.guidelines}),
        "guidelines_html": guidelines.render_guidelines(campaign.guidelines),
        "acknowledged": GuidelinesAcknowledgement.objects.filter(campaign=campaign, digest=digest).count(),
        "n_judges": campaign.judges.count(),
        "training_screens": campaign.training_screens.select_related("segment").annotate(
            n_candidates=Count("slots", distinct=True),
            n_answers=Count("answers", distinct=True),
            agreement=Avg("answers__agreement"),
        ),
        "training_line_form": TrainingLineForm(),
        "coverage": attention_coverage(campaign),
        "attention_form": AttentionChecksForm(),
    }


@campaign_post
def invite_create(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """Invite a judge (creating the account when new); the link is shown once on the campaign page.

    The messages are the same for a new username and an existing account that may be invited, and the same for
    every username that cannot be invited (``invites``), so that they do not tell an organizer what an account is;
    only an admin is told that the link asks an existing account to log in first."""
    form = valid_post(request, InviteForm, "{errors} No invite was created.")
    if form is None:
        keep_refused_input(request, campaign.pk, InviteForm)
        return to_section(campaign.pk, "invites")
    try:
        valid_for = timedelta(days=form.cleaned_data["valid_days"])
        invite, secret = invites.create_invite(campaign, form.cleaned_data["username"], request.user, valid_for)
    except invites.InviteError as error:
        messages.error(request, f"{error} No invite was created.")
        keep_refused_input(request, campaign.pk, InviteForm)
        return to_section(campaign.pk, "invites")
    link = request.build_absolute_uri(reverse("invite", args=[secret]))
    _keep_new_link(request, campaign, invite.judge.username, link)
    messages.success(request, f"Invited {invite.judge.username}. Copy the link now: it is shown only once.")
    if request.user.is_superuser and not invites.link_logs_in(invite):
        messages.info(
            request,
            f"{invite.judge.username} is an existing account: the link asks them to log in with their own password "
            "first.",
        )
    return to_section(campaign.pk, "invites")


@campaign_post
def invite_revoke(request: HttpRequest, campaign: Campaign, invite_id: int) -> HttpResponse:
    """Revoke an unused invite: its link stops working."""
    invite = get_object_or_404(Invite.objects.select_related("judge", "campaign"), pk=invite_id, campaign=campaign)
    try:
        invites.revoke_invite(invite, request.user)
    except invites.InviteError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Revoked the invite of {invite.judge.username}; its link no longer works.")
    return to_section(campaign.pk, "invites")


@login_required
def guidelines_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """Edit the guidelines: "preview" renders the draft as judges will see it, "save" stores it."""
    campaign = managed_campaign_or_404(request, pk)
    posted = request.POST if request.method == "POST" else None
    form = GuidelinesForm(posted, initial={"guidelines": campaign.guidelines, "instruction": campaign.instruction})
    previewing = request.method == "POST" and request.POST.get("action") == "preview"
    if request.method == "POST" and form.is_valid() and not previewing:
        said = guidelines.save_wording(campaign, form.cleaned_data["guidelines"], form.cleaned_data["instruction"])
        for message in said:
            messages.success(request, message)
        if not said:
            messages.info(request, "The guidelines and the instruction are unchanged.")
        return to_section(campaign.pk, "guidelines")
    draft = form.cleaned_data["guidelines"] if form.is_bound and form.is_valid() else campaign.guidelines
    context = {"campaign": campaign, "form": form, "preview_html": guidelines.render_guidelines(draft),
               "previewing": previewing and form.is_valid()}
    return render(request, "organizer/guidelines_form.html", context, status=400 if form.errors else 200)


def _training_candidates(campaign: Campaign, segment: Segment) -> list[Candidate]:
    """The segment's candidates in the order a training screen shows them: by id, then permuted by a generator
    drawn from the campaign's ``training`` random stream for the line, as real screens show candidates in a random
    order (METHODS 2)."""
    candidates = list(segment.candidates.order_by("id"))
    order = campaign_rng(campaign, "training", segment.line).permutation(len(candidates))
    return [candidates[i] for i in order]


def _line_segment(campaign: Campaign, form: TrainingLineForm) -> Segment | None:
    """The segment at the form's line, or None with the reason added to the form."""
    if not form.is_bound or not form.is_valid():
        return None
    segment = campaign.segments.select_related("document").filter(line=form.cleaned_data["line"]).first()
    if segment is None:
        lines = campaign.segments.count()
        form.add_error("line", f"No sentence at line {form.cleaned_data['line']}; the lines go from 0 to {lines - 1}.")
    elif segment.candidates.count() < 2:
        form.add_error("line", f"The sentence at line {segment.line} has one distinct correction only, and a training "
                               f"screen shows two or more: {training.ONE_IS_NOT_RANKED}")
        return None
    return segment


@login_required
def training_add(request: HttpRequest, pk: int) -> HttpResponse:
    """Add a training screen: choose a sentence by line (GET ``line``), then expected ranks and feedback (POST)."""
    campaign = managed_campaign_or_404(request, pk)
    line_form = TrainingLineForm(request.GET or None)
    segment = _line_segment(campaign, line_form)
    context = {"campaign": campaign, "line_form": line_form, "segment": segment}
    if segment is None:
        status = 400 if line_form.errors or request.method == "POST" else 200
        return render(request, "organizer/training_form.html", context, status=status)
    candidates = _training_candidates(campaign, segment)
    posted = request.POST if request.method == "POST" else None
    form = TrainingScreenForm(posted, candidates=candidates, max_rank=campaign.max_candidates)
    if form.is_bound and form.is_valid():
        shown, ranks = form.chosen()
        try:
            screen = training.add_training_screen(campaign, segment, shown, ranks, form.cleaned_data["feedback"])
        except training.TrainingError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"Added training screen {screen.position + 1} (line {segment.line}).")
            return to_section(campaign.pk, "training")
    before, after = context_of(segment)
    context.update(
        {
            "form": form,
            "before": before,
            "after": after,
            "rows": [
                (ShownCandidate(i, diff_spans(segment.source, candidate.text)), form[f"rank_{candidate.pk}"])
                for i, candidate in enumerate(candidates)
            ],
        }
    )
    return render(request, "organizer/training_form.html", context, status=400 if form.errors else 200)


@campaign_post
def training_delete(request: HttpRequest, campaign: Campaign, screen_id: int) -> HttpResponse:
    """Delete a training screen and the judges' answers to it."""
    screen = get_object_or_404(TrainingScreen, pk=screen_id, campaign=campaign)
    answers = screen.answers.count()
    number = screen.position + 1
    training.remove_training_screen(screen)
    with_answers = f" with its {counted(answers, 'answer')}" if answers else ""
    messages.success(request, f"Deleted training screen {number}{with_answers}.")
    return to_section(campaign.pk, "training")


@campaign_post
def attention_add(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """Put attention checks on a share of the unserved screens without one (``attention_requests``): at once, or
    by a background job when the share covers more than ``MAX_CHECKS_PER_REQUEST`` screens."""
    form = valid_post(request, AttentionChecksForm, "{errors} No attention check was added.")
    if form is None:
        return to_section(campaign.pk, "attention")
    try:
        if attention_requests.planned_checks(campaign, form.share()) > attention_requests.MAX_CHECKS_PER_REQUEST:
            job = background_jobs.record_job(BackgroundJob.Kind.ATTENTION_CHECKS, [], {"share": form.share()},
                                             request.user, campaign)
            messages.success(request, "Adding attention checks in the background.")
            return redirect("background-job", job_id=job.pk)
        done = attention_requests.add_checks_in_turn(campaign, form.share())
    except attention_requests.NoOpenScreens as error:
        messages.error(request, str(error))
        return to_section(campaign.pk, "attention")
    except ValueError as error:
        messages.error(request, f"{capfirst(str(error).rstrip('.'))}. No attention check was added.")
        return to_section(campaign.pk, "attention")
    messages.success(
        request,
        f"Added attention checks to {done.added:,} of the {counted(done.open, 'unserved screen')} "
        "without one.",
    )
    return to_section(campaign.pk, "attention")
