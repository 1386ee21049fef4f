"""The site header's links by role (a template context processor, listed in settings.TEMPLATES)."""
from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from .permissions import roles


def _links(user) -> dict[str, bool]:
    """Which role links the header shows: Campaigns to organizers and admins, Judging to judges (and to anyone who
    organizes nothing, whose start page it is), Admin to staff."""
    if not user.is_authenticated:
        return {"campaigns": False, "judging": False, "admin": False}
    found = roles(user)
    return {
        "campaigns": found.organizes,
        "judging": not found.organizes or found.judges,
        "admin": user.is_staff,
    }


def role_links(request: HttpRequest) -> dict:
    """``nav``: the header's role links, computed only when a template reads them (JSON views pay nothing)."""
    return {"nav": SimpleLazyObject(lambda: _links(request.user))}
