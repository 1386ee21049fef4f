"""The organizer's rater quality control page: each rater's numbers, verdict and why, and the decisions on them
(``services.rater_qc``). Only the campaign's organizers and admins reach it (``permissions.can_decide_raters``);
others get 404, as on the other organizer pages."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import capfirst
from django.views.decorators.http import require_GET, require_POST

from ..models import Campaign
from ..permissions import can_decide_raters
from ..rater_forms import RaterDecisionForm
from ..services import rater_qc
from .posted import valid_post


def _campaign(request: HttpRequest, pk: int) -> Campaign:
    campaign = get_object_or_404(Campaign, pk=pk)
    if not can_decide_raters(request.user, campaign):
        raise Http404
    return campaign


@login_required
@require_GET
def rater_list(request: HttpRequest, pk: int) -> HttpResponse:
    """Every rater's QC numbers, verdict and why, with the forms that decide on them."""
    campaign = _campaign(request, pk)
    context = {
        "campaign": campaign,
        "rule": rater_qc.QcRule.of(campaign),
        "verdicts": rater_qc.campaign_verdicts(campaign),
    }
    return render(request, "organizer/raters.html", context)


@login_required
@require_POST
def rater_decision(request: HttpRequest, pk: int) -> HttpResponse:
    """Include or exclude a rater by hand, return them to the checks' verdict, or offer a fresh attempt."""
    campaign = _campaign(request, pk)
    form = valid_post(request, RaterDecisionForm, "Choose a rater and a decision. Nothing was changed.")
    if form is None:
        return redirect("campaign-raters", pk=pk)
    try:
        done = rater_qc.decide(campaign, form.cleaned_data["judge"], form.cleaned_data["action"], request.user)
    except ValueError as exc:
        messages.error(request, f"{capfirst(str(exc))}. Nothing was changed.")
    else:
        messages.success(request, done)
    return redirect("campaign-raters", pk=pk)
