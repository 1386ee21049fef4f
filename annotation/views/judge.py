"""The judge's pages: home, invite, guidelines, training, the ranking or PRWS screen, flag and undo (G15 section
4.2, N19 section 4.2).

Each view parses the request, calls a service (queue, invites, guidelines, training) and renders or redirects.
Screens are shown through ``presentation.display``, which knows candidates only by display position and by keys
of the serving: no page, form or embedded JSON of a judge names a system (or a candidate's id). A screen's form
posts its candidates' keys with the ranks or scores; a post whose keys are not the screen's is refused whole.
Refusals (a stale or foreign screen, a changed screen, a used invite) render a page with the reason and a way on,
and change nothing. Screens are never cached, so the back button asks the
server again (and lands on the judge's current screen).

A login session may end while a judge's page is open (a log-out in another tab or window, or its time ran out):
the screen's lease request then answers 401, and the page says so before anything is sent (``session_notices``:
log in again, or, for a crowd worker, who has no password, open the study link again). A page sent without a
session goes to the login page, which says the session ended and that nothing was saved (``login_first``).
"""
from __future__ import annotations

import functools
import uuid
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from ..forms import FlagForm, RankingForm, ScoreForm, ThrottledPasswordChangeForm, UndoForm, posted_keys
from ..models import Assignment, Campaign, CrowdSession, TrainingScreen
from ..permissions import is_crowd_worker, is_organizer, judged_campaign_or_404, managed_campaigns
from ..request_numbers import whole_number
from ..services import crowd_completion, guidelines, own_judgments, queue, training
from ..services.invites import (
    InviteError,
    LoginRequired,
    UsedInvite,
    WrongAccount,
    find_invite,
    link_logs_in,
    redeem_invite,
)
from ..services.presentation import ScreenDisplay, display
from . import crowd

#: Query parameter of the page after a submit: the token of the submit it offers to undo (``queue.undo_last`` only
#: undoes the judge's last submit, so the offer needs no session write).
UNDO_PARAMETER = "undo"
#: Query parameter of the page after a flag, beside ``UNDO_PARAMETER``: the offer says the screen was flagged. It
#: only words the judge's own offer, so the page takes it from the URL instead of asking the database.
FLAGGED_PARAMETER = "flagged"

#: Query parameter of the login page when a judge's page was sent, or opened, after its login session had ended:
#: the login page says so, and that nothing was saved (``gecappraise.accounts.LoginView``).
SESSION_ENDED_PARAMETER = "ended"
#: The lease request's answer (401) once the login session has ended; the page shows ``session_notices`` instead.
SESSION_ENDED_MESSAGE = "Your login session has ended."

#: The lease request's answer (409) for a screen submitted already, in another tab or window.
SUBMITTED_ELSEWHERE_MESSAGE = (
    "You submitted this screen already, in another tab or window; nothing more from this page is saved."
)

#: Session key prefix of the values an undone screen shows again (``undo`` stores them under the new token; the
#: screen's first view takes them into the page, whose script keeps them per token in sessionStorage).
UNDONE_VALUES = "gecappraise-undone:"


def login_first(view: Callable[..., HttpResponse] | None = None, *, back: Callable[..., str] | None = None):
    """``login_required`` for a judge's page, telling the login page when the login session ended under the judge.

    A request without a logged-in user goes to the login page, which comes back to the page asked for, or, for an
    address only a form posts to, to ``back(**kwargs)`` (the page the form is on). A POST, or a request that
    still carried a session cookie naming no session (it ran out), adds ``SESSION_ENDED_PARAMETER``: the login page
    then says that the session had ended and that nothing the page sent was saved.
    """

    def decorate(page: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(page)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.user.is_authenticated:
                return page(request, *args, **kwargs)
            following = back(**kwargs) if back is not None else request.get_full_path()
            query = {"next": following}
            if request.method == "POST" or settings.SESSION_COOKIE_NAME in request.COOKIES:
                query[SESSION_ENDED_PARAMETER] = "1"
            return redirect(f"{resolve_url(settings.LOGIN_URL)}?{urlencode(query)}")

        return wrapped

    return decorate(view) if view is not None else decorate


def form_target(back: Callable[..., str]):
    """For an address only a form posts to (flag, undo): ``login_first`` back to the page the form is on,
    ``back(**kwargs)``, and a request of another method than POST (the address opened again: the address bar's
    Enter after a refused form's answer) goes to that page, instead of a 405 without a body, which the browser shows
    as its own error page."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def posted_only(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method != "POST":
                return redirect(back(**kwargs))
            return view(request, *args, **kwargs)

        return login_first(posted_only, back=back)

    return decorate


def session_notices(campaign: Campaign, assignment: Assignment, judge, session: CrowdSession | None) -> dict:
    """What the screen's page says, for good, when its lease request finds that the page can no longer send it
    (screen.js; each a ``text``, and a link ``href`` with its words ``link``, or no link): ``sessionEnded``, the
    login session ended (a 401: log in again; for a crowd worker's ``session``, open the study link again; for a
    judge who joined by an invite link and has no password, ask the organizer for a new link, as no login is
    possible); ``pageExpired``, the user logged in or out elsewhere since the page was opened, so its CSRF token is
    no longer the browser's (the CSRF check's 403: reload it). The screen comes back with the values given (kept in
    the tab). ``judge`` is the assignment's judge, logged in."""
    values = "scores" if campaign.mode == Campaign.Mode.PRWS else "ranks"
    screen_page = reverse("judge-screen", args=[assignment.token])
    comes_back = f"the screen comes back in this tab with the {values} you gave it."
    if session is None and not judge.has_usable_password():
        ended = {
            "text": "Your login session has ended (you logged out in another tab or window, or it ran out), so this "
                    "screen can no longer be sent from this page. You joined by an invite link and set no password, "
                    "so you cannot log in again: ask the campaign's organizer for a new invite link.",
            "href": None,
            "link": None,
        }
    elif session is None:
        ended = {
            "text": "Your login session has ended (you logged out in another tab or window, or it ran out), so this "
                    f"screen can no longer be sent from this page. Log in again to go on: {comes_back}",
            "href": screen_page,
            "link": "Log in again",
        }
    else:
        ended = {
            "text": "Your session on this site has ended, so this screen can no longer be sent from this page. Open "
                    f"the study link again to go on: {comes_back}",
            "href": crowd.reopening_link(session),
            "link": "Open the study link again",
        }
    expired = {
        "text": "You logged in or out in another tab or window since this page was opened, so it can no longer send "
                f"this screen. Reload it to go on: {comes_back}",
        "href": screen_page,
        "link": "Reload this screen",
    }
    return {"sessionEnded": ended, "pageExpired": expired}


#: A training answer posted for a training screen that is not the campaign's (the organizer removed it meanwhile).
TRAINING_REMOVED = "This training screen was removed by the organizer while you had it open; nothing was saved."


def _refused(
    request: HttpRequest, message: str, status: int, campaign: Campaign | None = None, finished: Campaign | None = None
) -> HttpResponse:
    """The refusal page: ``message``, with the way to the judge's current screen of ``campaign``, or, for a
    ``finished`` (closed) campaign, to its end page (a crowd worker's completion code)."""
    context = {"message": message, "campaign": campaign, "finished": finished}
    return render(request, "judge/refused.html", context, status=status)


def _refused_by_queue(request: HttpRequest, error: queue.QueueError, campaign: Campaign | None = None):
    """The refusal page of ``error``, with the way to the judge's current screen of ``campaign``; none when they are
    not its judge, and for a closed campaign the way to its end page, where a crowd worker gets the completion
    code of their session."""
    status = 403 if isinstance(error, (queue.ForeignScreen, queue.NotAJudge)) else 409
    if isinstance(error, queue.CampaignClosed):
        return _refused(request, str(error), status, finished=error.campaign or campaign)
    return _refused(request, str(error), status, None if isinstance(error, queue.NotAJudge) else campaign)


def _shown(assignment: Assignment, token: uuid.UUID) -> ScreenDisplay:
    """The display of ``assignment``'s screen served as ``token``, as its campaign shows replaced words."""
    screen = assignment.screen
    return display(screen.segment, screen.slots, token, show_replaced=screen.campaign.show_replaced_words)


def _rank_choices(max_rank: int) -> list[tuple[int, str]]:
    """Rank values with their words: 1 is "Best", ``max_rank`` is "Worst" (G15 Figure 2a)."""
    return [(rank, "Best" if rank == 1 else "Worst" if rank == max_rank else "") for rank in range(1, max_rank + 1)]


def _screen_context(campaign: Campaign, shown: ScreenDisplay, form: RankingForm) -> dict:
    chosen = form.chosen() if form.is_bound else {}
    choices = _rank_choices(campaign.max_candidates)
    rows = [
        (candidate, [(value, word, chosen.get(candidate.position) == str(value)) for value, word in choices])
        for candidate in shown.candidates
    ]
    return {
        "campaign": campaign,
        "display": shown,
        "form": form,
        "rows": rows,
        "guidelines_html": guidelines.render_guidelines(campaign.guidelines),
        "config": {"maxRank": campaign.max_candidates, "idleCapSeconds": queue.IDLE_CAP_SECONDS},
    }


def _score_context(campaign: Campaign, shown: ScreenDisplay, form: ScoreForm) -> dict:
    """The PRWS screen's context: each candidate with its slider's value, whether it was moved, and its box."""
    entered = form.entered()
    return {
        "campaign": campaign,
        "display": shown,
        "form": form,
        "rows": [(candidate, *entered[candidate.position]) for candidate in shown.candidates],
        "guidelines_html": guidelines.render_guidelines(campaign.guidelines),
        "config": {"idleCapSeconds": queue.IDLE_CAP_SECONDS, "start": ScoreForm.START},
    }


def _empty_form(campaign: Campaign, count: int) -> RankingForm | ScoreForm:
    """An unbound form of the campaign's mode for a screen of ``count`` candidates."""
    if campaign.mode == Campaign.Mode.PRWS:
        return ScoreForm(count=count)
    return RankingForm(count=count, max_rank=campaign.max_candidates)


def _offered_undo(request: HttpRequest) -> dict:
    """The context of the page's undo offer: ``undo_token``, the submit it offers to undo (the ``undo`` parameter,
    if it is a token at all), ``undo_flagged`` (that submit was a flag) and ``undo_form``."""
    try:
        token = str(uuid.UUID(request.GET.get(UNDO_PARAMETER, "")))
    except ValueError:
        token = None
    return {
        "undo_token": token,
        "undo_flagged": token is not None and FLAGGED_PARAMETER in request.GET,
        "undo_form": UndoForm(initial={"token": token}),
    }


def _go_on(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """Redirect to what the judge does next in the campaign: guidelines, training, the next screen, or done."""
    if guidelines.needs_acknowledgement(campaign, request.user):
        return redirect("judge-guidelines", campaign.pk)
    if training.next_training_screen(campaign, request.user) is not None:
        return redirect("judge-training", campaign.pk)
    return _next_screen(request, campaign)


def _next_screen(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """Redirect to the judge's next screen (served now), or to the done page when nothing is left or a crowd
    worker's session is full."""
    session = crowd_completion.current_session_of(campaign, request.user)
    if session is not None and crowd_completion.limit_reached(
        session, crowd_completion.submitted_screens(session.worker)
    ):
        return redirect("judge-done", campaign.pk)
    try:
        assignment = queue.next_assignment(campaign, request.user)
    except queue.QueueError as error:
        return _refused_by_queue(request, error, campaign)
    if assignment is None:
        return redirect("judge-done", campaign.pk)
    return redirect("judge-screen", assignment.token)


@login_first
def home(request: HttpRequest) -> HttpResponse:
    """The judge's campaigns with their progress; a crowd worker's in their current session (they joined by a study
    link and have no password to set: the page does not offer one)."""
    campaigns = request.user.judged_campaigns.order_by("closed_at", "name")
    rows = [(campaign, judge_progress(campaign, request.user)) for campaign in campaigns]
    crowd_worker = is_crowd_worker(request.user)
    return render(
        request,
        "judge/home.html",
        {
            "rows": rows,
            "crowd_worker": crowd_worker,
            "needs_password": not crowd_worker and not request.user.has_usable_password(),
            "organizes": is_organizer(request.user) or managed_campaigns(request.user).exists(),
        },
    )


def invite(request: HttpRequest, secret: str) -> HttpResponse:
    """A one-time invite link: GET asks to confirm (link previews must not use it up), POST accepts it.

    The link logs its judge in when ``link_logs_in`` allows; any other account logs in first (the page and an
    anonymous POST send it to the login page, which returns here) and then accepts. A used link opened again by
    its judge, logged in and judging the campaign, goes on to the campaign; anyone else is refused.
    """
    user = request.user if request.user.is_authenticated else None
    try:
        found = redeem_invite(secret, user=user) if request.method == "POST" else find_invite(secret)
    except LoginRequired:
        return redirect_to_login(request.path)
    except WrongAccount as error:
        return _refused(request, str(error), 403)
    except UsedInvite as error:
        accepted = error.invite
        if user == accepted.judge and accepted.campaign.judges.filter(pk=user.pk).exists():
            messages.info(request, f"You accepted this invite already: you are a judge of {accepted.campaign.name}.")
            return redirect("judge-campaign", accepted.campaign.pk)
        return _refused(request, str(error), 410)
    except InviteError as error:
        return _refused(request, str(error), 410)
    if request.method != "POST":
        context = {"invite": found, "link_logs_in": link_logs_in(found), "login_next": request.path}
        return render(request, "judge/invite.html", context)
    if user != found.judge:
        login(request, found.judge, backend="django.contrib.auth.backends.ModelBackend")
    messages.success(request, f"Welcome, {found.judge.username}. You are a judge of {found.campaign.name}.")
    return redirect("judge-campaign", found.campaign.pk)


@login_first
def campaign(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Start or continue judging a campaign."""
    return _go_on(request, judged_campaign_or_404(request, campaign_id))


@require_http_methods(["GET", "HEAD", "POST"])
@login_first
def done(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Nothing is left for the judge in the campaign (for now); a crowd worker gets the end of their session
    (``_session_end``). Its GET and HEAD store nothing."""
    found = judged_campaign_or_404(request, campaign_id)
    session = crowd_completion.current_session_of(found, request.user)
    if session is not None:
        return _session_end(request, found, session)
    return render(
        request,
        "judge/done.html",
        {
            "campaign": found,
            "progress": queue.progress(found, request.user),
            "flagged": own_judgments.flagged_count(found, request.user),
            **_offered_undo(request),
        },
    )


def _session_end(request: HttpRequest, campaign: Campaign, session: CrowdSession) -> HttpResponse:
    """A crowd worker's done page. The submit that ended their ``session`` gave its code
    (``crowd_completion.end_session_at_last_submit``), and the page shows it as stored. A worker who comes back to a
    session that serves nothing more but was not ended (full, or no screen left for them) gets a Finish button
    instead, as the study link gets a Start button: its POST ends the session (``crowd_completion.complete``, which
    gives the code once and keeps it) and comes back here to show the code. A worker who still has screens in the
    session goes on to the campaign; a session without a submitted screen gets no code."""
    if session.completed_at is None and not crowd_completion.may_finish(session):
        return redirect("judge-campaign", campaign.pk)
    if request.method == "POST":
        crowd_completion.complete(session)
        return redirect("judge-done", campaign.pk)
    screens = crowd_completion.uncoded_screens(session)
    if screens:
        return render(request, "judge/crowd_finish.html", {"campaign": campaign, "screens": screens})
    return crowd.end_page(request, campaign, session)


@login_first
def guidelines_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign's guidelines; POST acknowledges them. Guidelines that changed since the judge acknowledged them
    say so (``changed``); after a submit (``_following``) the page offers to undo it."""
    found = judged_campaign_or_404(request, campaign_id)
    if request.method == "POST":
        guidelines.acknowledge(found, request.user)
        return _go_on(request, found)
    must_acknowledge = guidelines.needs_acknowledgement(found, request.user)
    return render(
        request,
        "judge/guidelines.html",
        {
            "campaign": found,
            "guidelines_html": guidelines.render_guidelines(found.guidelines),
            "must_acknowledge": must_acknowledge,
            "changed": must_acknowledge and guidelines.acknowledged_before(found, request.user),
            **_offered_undo(request),
        },
    )


@never_cache
@login_first
def training_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The next training screen; POST stores the answer and shows the feedback."""
    found = judged_campaign_or_404(request, campaign_id)
    if request.method == "POST":
        posted = request.POST.get("training_screen", "")
        number = whole_number(posted)
        if number is None:
            raise Http404("No such training screen.")
        screen = TrainingScreen.objects.filter(campaign=found, pk=number).first()
        if screen is None:
            return _refused(request, TRAINING_REMOVED, 409, found)
    else:
        screen = training.next_training_screen(found, request.user)
        if screen is None:
            return _go_on(request, found)
    shown = display(screen.segment, screen.slots, show_replaced=found.show_replaced_words)
    posted = request.POST if request.method == "POST" else None
    scoring = found.mode == Campaign.Mode.PRWS
    if scoring:
        form = ScoreForm(posted, count=len(shown.candidates))
    else:
        form = RankingForm(posted, count=len(shown.candidates), max_rank=found.max_candidates)
    if form.is_bound and form.is_valid():
        if scoring:
            training.answer_training_scores(screen, request.user, form.scores())
        else:
            training.answer_training(screen, request.user, form.ranks())
        return redirect("judge-training-feedback", found.pk, screen.position)
    total = found.training_screens.count()
    context = _score_context(found, shown, form) if scoring else _screen_context(found, shown, form)
    context.update({"training_screen": screen, "training_total": total, "training_number": screen.position + 1})
    template = "judge/prws_screen.html" if scoring else "judge/screen.html"
    return render(request, template, context, status=400 if form.is_bound else 200)


@login_first
def training_feedback(request: HttpRequest, campaign_id: int, position: int) -> HttpResponse:
    """How the judge's answer to a training screen compares with the expected ranking."""
    found = judged_campaign_or_404(request, campaign_id)
    screen = get_object_or_404(TrainingScreen.objects.select_related("segment"), campaign=found, position=position)
    answer = get_object_or_404(screen.answers, judge=request.user)
    shown = display(screen.segment, screen.slots, show_replaced=found.show_replaced_words)
    expected = list(screen.slots.order_by("position").values_list("expected_rank", flat=True))
    return render(
        request,
        "judge/training_feedback.html",
        {
            "campaign": found,
            "display": shown,
            "rows": list(zip(shown.candidates, answer.ranks, expected)),
            "scored": found.mode == Campaign.Mode.PRWS,
            "agreement_percent": round(100 * answer.agreement),
            "feedback_html": guidelines.render_guidelines(screen.feedback),
            "training_number": screen.position + 1,
            "training_total": found.training_screens.count(),
        },
    )


def _submitted_already(request: HttpRequest, assignment: Assignment) -> HttpResponse:
    if request.method == "POST":
        messages.info(request, "That screen was saved already; this second submission was not stored (the first one "
                      "counts).")
    else:
        messages.info(request, "You have submitted that screen already; here is your current one.")
    return _go_on(request, assignment.screen.campaign)


def _open_assignment(view: Callable[[HttpRequest, Assignment, uuid.UUID], HttpResponse]):
    """Wrap a view of the screen served as ``token``: it is called with the judge's assignment if it is still open
    and, for a crowd worker, their session is not over (``crowd_completion.held_screen_refusal``); otherwise the
    page that says why not is the answer."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, token: uuid.UUID) -> HttpResponse:
        try:
            assignment = queue.assignment_for(token, request.user)
        except queue.QueueError as error:
            return _refused_by_queue(request, error)
        if assignment.status == Assignment.Status.SUBMITTED:
            return _submitted_already(request, assignment)
        refusal = crowd_completion.held_screen_refusal(assignment.screen.campaign, request.user)
        if refusal is not None:
            return _refused(request, refusal, 409, finished=assignment.screen.campaign)
        return view(request, assignment, token)

    return wrapped


@never_cache
@login_first
@_open_assignment
def screen(request: HttpRequest, assignment: Assignment, token: uuid.UUID) -> HttpResponse:
    """The ranking (or PRWS) screen served as ``token``; POST submits it (once, however often it is posted)."""
    found = assignment.screen.campaign
    if found.mode == Campaign.Mode.PRWS:
        return _score_screen(request, assignment, token)
    posted = request.method == "POST"
    shown = None if posted else _shown(assignment, token)
    keys = posted_keys(request.POST) if posted else [candidate.key for candidate in shown.candidates]
    form = RankingForm(request.POST if posted else None, count=len(keys), max_rank=found.max_candidates)
    if form.is_bound and form.is_valid():
        done = _submitted(request, assignment, token, form, lambda: queue.submit_ranking(
            token, request.user, form.ranks(), keys, form.active_time(),
            serve_next=crowd_completion.may_serve_after_submit(found, request.user), served=assignment))
        if done is not None:
            return done
    if not posted:
        queue.renew_lease(assignment, request.user)
    shown = shown or _shown(assignment, token)
    return _render_screen(request, assignment, shown, form, FlagForm(), status=400 if posted else 200)


def _submitted(request: HttpRequest, assignment: Assignment, token: uuid.UUID, form, submit) -> HttpResponse | None:
    """Run ``submit()`` (the queue's submit of ranks or scores, serving the next screen): the next page once stored
    (or already stored), the refusal page for a stale, foreign or changed screen, or None with the error on
    ``form`` when the values do not fit."""
    found = assignment.screen.campaign
    try:
        result = submit()
    except (queue.InvalidRanking, queue.InvalidScores) as error:
        form.add_error(None, str(error))
        return None
    except queue.QueueError as error:
        return _refused_by_queue(request, error, found)
    if not result.created:
        return _submitted_already(request, assignment)
    return _following(request, found, result)


def _following(
    request: HttpRequest, campaign: Campaign, result: queue.SubmitResult, flagged: bool = False
) -> HttpResponse:
    """Redirect to the screen the submit (a flag: ``flagged``) served next, or to the done page when none was left
    (a crowd worker's session ends there, with its code: ``end_session_at_last_submit``), offering to undo the
    submit; to the guidelines first when they changed since the judge read them (the screen served next waits, and
    comes once the judge acknowledges them)."""
    if result.following is None:
        crowd_completion.end_session_at_last_submit(campaign, request.user)
        page = reverse("judge-done", args=[campaign.pk])
    elif guidelines.needs_acknowledgement(campaign, request.user):
        page = reverse("judge-guidelines", args=[campaign.pk])
    else:
        page = reverse("judge-screen", args=[result.following.token])
    offer = {UNDO_PARAMETER: result.assignment.token, **({FLAGGED_PARAMETER: 1} if flagged else {})}
    return redirect(f"{page}?{urlencode(offer)}")


def _score_screen(request: HttpRequest, assignment: Assignment, token: uuid.UUID) -> HttpResponse:
    """The PRWS screen: a slider and a "Meaning changed" box per candidate; POST submits the scores once."""
    posted = request.method == "POST"
    shown = _shown(assignment, token)
    keys = [candidate.key for candidate in shown.candidates]
    if posted and posted_keys(request.POST) != keys:
        return _refused(request, queue.CHANGED_MESSAGE, 409, assignment.screen.campaign)
    form = ScoreForm(request.POST if posted else None, count=len(keys))
    if form.is_bound and form.is_valid():
        done = _submitted(request, assignment, token, form, lambda: queue.submit_scores(
            token, request.user, form.scores(), form.meaning_changed(), keys, form.active_time(),
            serve_next=crowd_completion.may_serve_after_submit(assignment.screen.campaign, request.user),
            first_values=form.first_values(), served=assignment))
        if done is not None:
            return done
    if not posted:
        queue.renew_lease(assignment, request.user)
    return _render_screen(request, assignment, shown, form, FlagForm(), status=400 if posted else 200)


def _render_screen(
    request: HttpRequest,
    assignment: Assignment,
    shown: ScreenDisplay,
    form: RankingForm | ScoreForm,
    flag_form: FlagForm,
    status: int,
) -> HttpResponse:
    found = assignment.screen.campaign
    scoring = isinstance(form, ScoreForm)
    context = _score_context(found, shown, form) if scoring else _screen_context(found, shown, form)
    session = crowd_completion.current_session_of(found, request.user)
    context["config"].update(
        leaseUrl=reverse("judge-lease", args=[assignment.token]),
        heartbeatSeconds=queue.lease_length().total_seconds() / 4,
        token=str(assignment.token),
        submitted=request.session.pop(f"{UNDONE_VALUES}{assignment.token}", []),
        **session_notices(found, assignment, request.user, session),
    )
    context.update(
        {
            "assignment": assignment,
            "progress": _progress_in(found, request.user, session),
            "flag_form": flag_form,
            **_offered_undo(request),
        }
    )
    return render(request, "judge/prws_screen.html" if scoring else "judge/screen.html", context, status=status)


def judge_progress(campaign: Campaign, judge) -> queue.Progress:
    """What the screen's counter and the judge's home page say: the judge's progress in the campaign, or a crowd
    worker's in their current session."""
    return _progress_in(campaign, judge, crowd_completion.current_session_of(campaign, judge))


def _progress_in(campaign: Campaign, judge, session: CrowdSession | None) -> queue.Progress:
    """``judge_progress`` given the judge's current crowd ``session`` of the campaign (None: not a crowd worker)."""
    progress = queue.progress(campaign, judge)
    return progress if session is None else crowd_completion.session_progress(session, progress)


@form_target(back=lambda token: reverse("judge-screen", args=[token]))
@_open_assignment
def flag(request: HttpRequest, assignment: Assignment, token: uuid.UUID) -> HttpResponse:
    """Flag the screen served as ``token`` with a reason instead of ranking it."""
    found = assignment.screen.campaign
    flag_form = FlagForm(request.POST)
    if not flag_form.is_valid():
        shown = _shown(assignment, token)
        return _render_screen(request, assignment, shown, _empty_form(found, len(shown.candidates)), flag_form, 400)
    try:
        result = queue.flag_screen(
            token, request.user, flag_form.reason_text(), flag_form.active_time(),
            serve_next=crowd_completion.may_serve_after_submit(found, request.user), served=assignment,
        )
    except queue.QueueError as error:
        return _refused_by_queue(request, error, found)
    if not result.created:
        return _submitted_already(request, assignment)
    return _following(request, found, result, flagged=True)


@form_target(back=lambda campaign_id: reverse("judge-campaign", args=[campaign_id]))
def undo(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Undo the last submitted screen (offered until the next one is submitted; ``undo_last`` refuses any other)
    and serve it again, showing the values that were submitted (ranks or scores) to judge it again from. A crowd
    worker may not once their session's code was given, nor undo a screen submitted before their session became
    current (``crowd_completion.undo_refusal``)."""
    found = judged_campaign_or_404(request, campaign_id)
    refusal = crowd_completion.undo_refusal(found, request.user)
    if refusal is not None:
        return _refused(request, refusal, 409, found)
    form = UndoForm(request.POST)
    if not form.is_valid():
        return _refused(
            request, "Only the last screen you submitted can be undone, before you submit the next one.", 409, found
        )
    submitted = own_judgments.submitted_values(form.cleaned_data["token"], request.user)
    flagged = own_judgments.was_flag(form.cleaned_data["token"], request.user)
    try:
        assignment = queue.undo_last(found, request.user, form.cleaned_data["token"])
    except queue.QueueError as error:
        return _refused_by_queue(request, error, found)
    if submitted:
        request.session[f"{UNDONE_VALUES}{assignment.token}"] = submitted
    if flagged:
        messages.info(request, "Your flag was withdrawn: the screen is back. Judge it, or flag it again.")
    else:
        messages.info(request, "Your last judgment was removed. Judge the screen again.")
    return redirect("judge-screen", assignment.token)


@login_first
def password(request: HttpRequest) -> HttpResponse:
    """Set a password (judges who joined by invite link have none) or change it; not for crowd workers, whose
    study link is their only way in."""
    if is_crowd_worker(request.user):
        return _refused(request, "Crowd workers enter through their study link; they have no password.", 403)
    if request.user.has_usable_password():
        form = ThrottledPasswordChangeForm(request, request.POST or None)
    else:
        form = SetPasswordForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        form.save()
        update_session_auth_hash(request, form.user)
        messages.success(request, "Your password is set. Log in with your username and this password next time.")
        return redirect(reverse("home"))
    return render(request, "judge/password.html", {"form": form}, status=400 if form.is_bound else 200)


@require_POST
def lease(request: HttpRequest, token: uuid.UUID) -> HttpResponse:
    """Keep the lease of the screen served as ``token`` while its judge is active on the page (screen.js calls it).

    204 when the screen is still the judge's; 409 with a message when it was submitted already (in another tab),
    undone or given to another judge, or its campaign closed (then with the way to its end page, as the refusal
    page gives it: ``href`` and its words ``link``, "Finish"; a crowd worker gets their completion code there); 403
    for another judge's screen, or once the judge was removed from the campaign; 401 when the login session has
    ended (the page then shows ``session_notices``). A page of an older login (its CSRF token was replaced by a
    log-in since) gets the CSRF check's 403 page, not JSON.
    """
    if not request.user.is_authenticated:
        return JsonResponse({"error": SESSION_ENDED_MESSAGE}, status=401)
    try:
        assignment = queue.assignment_for(token, request.user)
    except queue.QueueError as error:
        forbidden = isinstance(error, (queue.ForeignScreen, queue.NotAJudge))
        refusal = {"error": str(error)}
        if isinstance(error, queue.CampaignClosed):
            refusal |= {"href": reverse("judge-done", args=[error.campaign.pk]), "link": "Finish"}
        return JsonResponse(refusal, status=403 if forbidden else 409)
    if assignment.status == Assignment.Status.SUBMITTED:
        return JsonResponse({"error": SUBMITTED_ELSEWHERE_MESSAGE}, status=409)
    queue.renew_lease(assignment, request.user)
    return HttpResponse(status=204)
