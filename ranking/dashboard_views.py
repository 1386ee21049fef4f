"""JSON endpoints of the organizer's dashboard: the live leaderboard and its history (``ranking.leaderboard``).

Only the campaign's organizers and admins get them (``annotation.permissions``); anyone else gets 404, as on
the other organizer pages, so judges never see system names or scores. The numeric stack is imported with the
first request, not with the URLconf.
"""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, JsonResponse
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET

from annotation.permissions import managed_campaign_or_404
from annotation.request_numbers import whole_number

#: The stopping hint's K may be a whole number of rankings in this range.
STOPPING_K_RANGE = (1, 10_000_000)


def _json(data: dict, status: int = 200) -> JsonResponse:
    """Strict JSON (no NaN or Infinity), never cached by the browser: the dashboard polls it."""
    response = JsonResponse(data, status=status, json_dumps_params={"allow_nan": False})
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_GET
def leaderboard_json(request: HttpRequest, pk: int) -> JsonResponse:
    """The live Expected Wins leaderboard of the campaign's judgments so far."""
    campaign = managed_campaign_or_404(request, pk)
    from .leaderboard import leaderboard

    return _json(leaderboard(campaign))


@gzip_page
@login_required
@require_GET
def history_json(request: HttpRequest, pk: int) -> JsonResponse:
    """The leaderboard's history and stopping hint; ``?k=N`` sets the hint's K (default 200 rankings). Compressed
    for a browser that takes gzip (a history of 2,000 checkpoints of 50 systems is 0.9 MB of JSON, 0.25 MB so): it
    holds no secret, so compressing it reveals none (BREACH)."""
    campaign = managed_campaign_or_404(request, pk)
    from .leaderboard import STOPPING_K, history

    raw = request.GET.get("k", str(STOPPING_K))
    low, high = STOPPING_K_RANGE
    k = whole_number(raw, digits=len(str(high)))
    if k is None or not low <= k <= high:
        return _json({"error": f"k must be a whole number of rankings from {low} to {high:,}, got {raw[:20]!r}."},
                     status=400)
    return _json(history(campaign, k))
