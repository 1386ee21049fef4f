"""The site's start page: each role lands on its own (organizers and admins on their campaigns, judges on theirs)."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from ..permissions import organizes
from . import judge


@login_required
def start(request: HttpRequest) -> HttpResponse:
    """Redirect organizers and admins to the campaigns they manage; show anyone else the judge's home."""
    if organizes(request.user):
        return redirect("campaign-list")
    return judge.home(request)
