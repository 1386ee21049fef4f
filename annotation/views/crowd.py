"""Crowd campaigns' pages (issue 10): the public study link, a worker's completion page, and the organizer's CSV
of workers' sessions.

The study link parses the platform's parameters (``crowd_entry.parse_visit``). A GET or HEAD of it stores nothing and
signs no one in: it shows the study's start page, whose Start (or, for a worker's session under way, Continue) button
POSTs the same link. A link preview (a chat app, a mail scanner) or a browser's prefetch of a worker's link made
their account and session and took a screen's lease. The POST makes the link's session the worker's current one,
logs the worker in as their campaign-local judge and sends them on to their current screen. An MTurk preview shows a
sample screen and stores nothing. A session whose code was given shows its end page (the code, as stored) to a GET
too. A closed study takes no new worker or session, but a worker it knows still gets the end of their session (the
completion code the close gave it), and its link stores nothing. A refused link changes nothing and says why.
Someone signed in with an account of their own (an organizer trying the link, an invited judge) is asked first:
continuing signs them out and in as the crowd worker.
"""
from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from gecappraise.client_address import client_address

from ..downloads import save_snapshot_as
from ..models import Campaign, CrowdSession
from ..permissions import is_crowd_worker, managed_campaign_or_404
from ..services import crowd_completion, crowd_entry, crowd_exports
from ..services.presentation import display

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


#: The study link's answer (404) when no crowd study has its key: a mistyped link, or its campaign was deleted.
NO_STUDY = (
    "No study has this link: its address may be mistyped, or the researcher removed the study. If you did work in "
    "it, contact the researcher through the platform."
)


def _refused(request: HttpRequest, message: str, status: int) -> HttpResponse:
    return render(request, "judge/refused.html", {"message": message}, status=status)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def study_link(request: HttpRequest, key: str) -> HttpResponse:
    """The campaign's public study link. GET and HEAD store nothing: the study's start page (``_start_page``), or
    the end page of a session whose code was given. POST (the start page's button): create or resume the worker's
    judge and the link's session, log them in, go on judging in it; the link of an earlier session whose code was
    given shows that code again.

    Once the study is closed, a worker it knows still comes back, to the end of the session the link names (or of
    their current one): the completion code the close gave it when they submitted a screen in it
    (``campaign_closing``), or why it has none; anyone else (a new worker, a new session id, an MTurk preview) gets
    a 410. Whatever the method, nothing is stored and no browser is logged in."""
    campaign = crowd_entry.crowd_campaign(key)
    if campaign is None:
        return _refused(request, NO_STUDY, 404)
    try:
        visit = crowd_entry.parse_visit(request.GET)
    except crowd_entry.CrowdLinkError as error:
        return _refused(request, str(error), 400)
    if campaign.closed_at is not None:
        ended = crowd_entry.visited_session(campaign, visit)
        if ended is None:
            return _refused(request, "This study is closed; it takes no more work.", 410)
        return end_page(request, campaign, ended)
    if visit.preview:
        return _preview(request, campaign)
    if request.method != "POST":
        return _start_page(request, campaign, visit)
    try:
        session = crowd_entry.enter(campaign, visit, client_address(request))
    except crowd_entry.TooManyNewWorkers as error:
        return _refused(request, str(error), 429)
    judge = session.worker.judge
    if request.user != judge:
        login(request, judge, backend=MODEL_BACKEND)
    if not session.current:
        return completion(request, campaign, session)
    return redirect("judge-campaign", campaign.pk)


def _start_page(request: HttpRequest, campaign: Campaign, visit: crowd_entry.Visit) -> HttpResponse:
    """What a GET of the open study's link shows, storing nothing: the end page of a session whose code was given;
    to a browser signed in to an account of its own, the question whether to sign out and continue as the worker;
    otherwise the study's name and task with a Start button (Continue for the worker's session under way), which
    POSTs the link as it was opened (the worker, study and session ids in its query string). Rendering the form sets
    the CSRF cookie, so a first visit's POST passes the CSRF check."""
    session = crowd_entry.visited_session(campaign, visit)
    if session is not None and session.completed_at is not None:
        return end_page(request, campaign, session)
    context = {"campaign": campaign, "visit": visit, "action": request.get_full_path(), "session": session}
    if _signed_in_elsewhere(request):
        return render(request, "judge/crowd_switch.html", context)
    return render(request, "judge/crowd_start.html", context)


def reopening_link(session: CrowdSession) -> str:
    """The study link as the worker of ``session`` opens it from their platform (their worker id, the session's study
    and session ids): opening it again logs them in and goes on in that session, at their current screen."""
    worker = session.worker
    values = (worker.worker_id, session.study_id, session.session_id)
    query = urlencode([(name, value) for name, value in zip(crowd_entry.PARAMETERS[worker.platform], values) if value])
    return f"{reverse('crowd-study-link', args=[worker.campaign.crowd_key])}?{query}"


def _signed_in_elsewhere(request: HttpRequest) -> bool:
    """Signed in to an account of one's own, not a crowd worker's (this one's, or another's on a shared browser):
    the study link would sign them out of it."""
    return request.user.is_authenticated and not is_crowd_worker(request.user)


def _preview(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """A sample screen of the campaign (its first), read-only: MTurk shows it before a worker accepts the HIT."""
    screen = campaign.screens.filter(excluded=False, control=False).order_by("number").first()
    shown = display(screen.segment, screen.slots, show_replaced=campaign.show_replaced_words) if screen else None
    return render(request, "judge/crowd_preview.html", {"campaign": campaign, "display": shown})


def completion(request: HttpRequest, campaign: Campaign, session: CrowdSession) -> HttpResponse:
    """The end of the worker's ``session``: its completion code and, if the organizer set one, the way (followed at
    once by the browser) to the platform's completion URL; a session without a submitted screen gets no code."""
    return end_page(request, campaign, crowd_completion.complete(session))


def end_page(request: HttpRequest, campaign: Campaign, session: CrowdSession) -> HttpResponse:
    """The end page of ``session`` as it is stored: its code and the way to the completion URL, or, without a code,
    why there is none."""
    context = {"campaign": campaign, "session": session, "completion_url": crowd_completion.completion_url(session)}
    return render(request, "judge/crowd_done.html", context)


@login_required
def crowd_workers_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """The sessions of a campaign's crowd workers as CSV, one row per session, that is per platform submission
    (``crowd_exports.COLUMNS``), for its organizers to approve and pay each submission; of the snapshot of its
    judgments read with it, which the file name and headers name (``save_snapshot_as``)."""
    campaign = managed_campaign_or_404(request, pk)
    snapshot, text = crowd_exports.crowd_workers_export(campaign)
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    return save_snapshot_as(response, campaign.name, "crowd-workers.csv", snapshot)
