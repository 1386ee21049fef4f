"""Closing a campaign and opening it again, from its page (its organizers and admins): GET asks to confirm, saying
what the change does; POST makes it (``services.campaign_closing``) and goes back to the campaign page, whose
message says what was done, or why nothing was (the campaign was closed, or opened, already)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from ..permissions import managed_campaign_or_404
from ..services import campaign_closing


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def campaign_close(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: what closing does, and the button that closes; POST: close the campaign now."""
    campaign = managed_campaign_or_404(request, pk)
    if request.method != "POST":
        effects = None if campaign.closed_at else campaign_closing.closing_effects(campaign)
        return render(request, "organizer/campaign_closing.html",
                      {"campaign": campaign, "closing": True, "effects": effects})
    try:
        completed = campaign_closing.close(campaign)
    except campaign_closing.ClosingRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, campaign_closing.closed_summary(campaign, completed))
    return redirect("campaign-detail", pk=campaign.pk)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def campaign_reopen(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: what opening the campaign again does, and the button that opens it; POST: open it now."""
    campaign = managed_campaign_or_404(request, pk)
    if request.method != "POST":
        return render(request, "organizer/campaign_closing.html", {"campaign": campaign, "closing": False})
    try:
        campaign_closing.reopen(campaign)
    except campaign_closing.ClosingRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, campaign_closing.reopened_summary(campaign))
    return redirect("campaign-detail", pk=campaign.pk)
