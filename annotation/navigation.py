"""The site header's links by role (a template context processor, listed in settings.TEMPLATES)."""
from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from .permissions import roles


def _links(user) -> dict[str, bool | str]:
    """Which role links the header shows: Campaigns to organizers and admins, Judging to judges (and to anyone who
    organizes nothing, whose start page it is), Admin to staff, Password to everyone but crowd workers (their study
    link is their only way in; the password page refuses them); and ``who``, the name the header and the 403 page
    give the user: their username, or for a crowd worker, whose account's username the product made up, "Crowd
    worker" and the worker id their platform gave them."""
    if not user.is_authenticated:
        return {"campaigns": False, "judging": False, "admin": False, "password": False, "who": ""}
    found = roles(user)
    return {
        "campaigns": found.organizes,
        "judging": not found.organizes or found.judges,
        "admin": user.is_staff,
        "password": not found.crowd_worker,
        "who": user.get_username() if found.worker_id is None else f"Crowd worker {found.worker_id}",
    }


def role_links(request: HttpRequest) -> dict:
    """``nav``: the header's role links, computed only when a template reads them (JSON views pay nothing). A request
    refused before the authentication middleware ran (a 400 for a host name the site does not serve) has no user:
    its page shows the links of nobody logged in."""
    return {"nav": SimpleLazyObject(lambda: _links(getattr(request, "user", None) or AnonymousUser()))}
