"""The organizer's live dashboard (judging part) and the page of one screen, where a screen is excluded from
analysis or put back.

The campaign page polls ``dashboard_json`` (progress, time per screen, judges, flags, the jobs adding screens,
whether the campaign is closed) and the ranking app's leaderboard and history endpoints (``static/js/dashboard.js``).
Only the campaign's organizers and admins reach these views; others get 404, as on the other organizer pages.
"""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ..models import Screen
from ..permissions import managed_campaign_or_404
from ..screen_forms import ScreenExclusionForm
from ..services.dashboard import dashboard_data, split_flag_reason
from ..services.exclusion import set_excluded
from ..services.outputs import candidate_systems
from ..services.presentation import display
from ..services.screen_list import screen_way
from ..services.screens import screen_count
from .screen_list import ListParameterRefused, list_parameters, list_query, refused


@login_required
@require_GET
def dashboard_json(request: HttpRequest, pk: int) -> JsonResponse:
    """Progress against the plan, time per screen, judges, flags (each with the URL of its screen's page), the
    jobs adding screens in the background (``screen_jobs``: the campaign page's list of them, kept up to date) and
    when the campaign was closed (``closed_at`` and as the page writes it, ``closed_at_text``; null while open)."""
    campaign = managed_campaign_or_404(request, pk)
    data = dashboard_data(campaign)
    for flag in data["flags"]["shown"]:
        flag["url"] = reverse("campaign-screen", args=[campaign.pk, flag["screen"]])
    response = JsonResponse(data, json_dumps_params={"allow_nan": False})
    response["Cache-Control"] = "no-store"
    return response


def _screen_or_404(request: HttpRequest, pk: int, number: int) -> Screen:
    campaign = managed_campaign_or_404(request, pk)
    return get_object_or_404(Screen.objects.select_related("campaign", "segment__document"), campaign=campaign,
                             number=number)


@login_required
@require_GET
def screen_detail(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """One screen as its judges saw it, with the systems behind each correction, every judgment of it (ranks,
    scores or the flag's reason), and the form to exclude it from analysis or put it back; links to the previous
    and next screen of the list of screens it was opened from (its ``show`` and ``from``, kept in each link) and
    back to that list's page (``services.screen_list.screen_way``)."""
    screen = _screen_or_404(request, pk, number)
    try:
        show, start = list_parameters(request, screen_count(screen.campaign))
    except ListParameterRefused as refusal:
        return refused(request, refusal)
    way = screen_way(screen.campaign, show, number, start)
    shown = display(screen.segment, screen.slots)
    slots = list(screen.slots.order_by("position").values_list("candidate_id", flat=True))
    systems = candidate_systems(screen.campaign, slots)  # this screen's candidates, not the whole test set's
    judgments = []
    for judgment in (
        screen.assignments.filter(judgment__isnull=False).select_related("judge", "judgment__flag")
        .order_by("judgment__id")
    ):
        values = {item.position: item for item in judgment.judgment.items.all()}
        flag = getattr(judgment.judgment, "flag", None)
        judgments.append({
            "judge": judgment.judge.username,
            "repeat": judgment.repeat_of_id is not None,
            "submitted_at": judgment.submitted_at or judgment.judgment.created_at,
            "duration": judgment.judgment.duration,
            "values": [values.get(position) for position in range(len(slots))],
            "flag": split_flag_reason(flag.reason) if flag is not None else None,
        })
    context = {
        "campaign": screen.campaign,
        "screen": screen,
        "display": shown,
        "candidates": [(c, sorted(systems.get(pk, []))) for c, pk in zip(shown.candidates, slots)],
        "judgments": judgments,
        "form": ScreenExclusionForm(initial={"action": "include" if screen.excluded else "exclude"}),
        "show": show,
        "list_query": list_query(show, way.start),
        "list_url": reverse("campaign-screens", args=[pk]) + list_query(show, way.start),
        "previous_url": None if way.previous is None
        else reverse("campaign-screen", args=[pk, way.previous]) + list_query(show, way.previous_start),
        "next_url": None if way.next is None
        else reverse("campaign-screen", args=[pk, way.next]) + list_query(show, way.next_start),
    }
    return render(request, "organizer/screen_detail.html", context)


@login_required
@require_POST
def screen_exclusion(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Exclude the screen from analysis, or put it back; back to the screen's page with a message, in the list of
    screens it was opened from (the ``show`` and ``from`` of the form's address, unless the list refuses them)."""
    screen = _screen_or_404(request, pk, number)
    form = ScreenExclusionForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose to exclude the screen or to put it back. Nothing was changed.")
    elif not set_excluded(screen, form.excluded()):
        messages.info(request, f"Screen {number} was already {'excluded' if screen.excluded else 'included'}.")
    elif screen.excluded:
        messages.success(request, f"Screen {number} is excluded from analysis: its judgments no longer count.")
    else:
        messages.success(request, f"Screen {number} is back in the analysis.")
    kept = request.GET.urlencode()
    try:
        list_parameters(request, screen_count(screen.campaign))
    except ListParameterRefused:
        kept = ""
    return redirect(reverse("campaign-screen", args=[pk, number]) + (f"?{kept}" if kept else ""))
