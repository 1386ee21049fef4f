"""A login session lasts ``SESSION_COOKIE_AGE`` (Django's two weeks) from the last day it was used, not from the
log-in, so a judge who judges day after day is not logged out in the middle of a screen two weeks after logging in;
one away longer than that logs in again.

Django moves a session's expiry only when it writes the session, and ``SESSION_SAVE_EVERY_REQUEST`` would write it
at every request (a commit more per judge page). This middleware writes it at most once a day: on a logged-in
user's first request of the day (by the server's date) it notes the day in the session, which Django then saves
with a new expiry and sends with a new cookie. A log-in notes the day in the session it writes anyway
(``note_the_day``, connected to ``user_logged_in`` by the annotation app), so the next request writes nothing.
Requests without a session cookie are not looked at, so anonymous pages are not made to vary by cookie.
"""
from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

#: Session key of the day (ISO date) the session was last renewed.
RENEWED_ON = "gecappraise-renewed-on"


def note_the_day(sender, request: HttpRequest, user, **kwargs) -> None:
    """``user_logged_in`` receiver: the session the log-in writes counts as renewed today."""
    request.session[RENEWED_ON] = timezone.localdate().isoformat()


class SessionRenewalMiddleware:
    """After the view: renew the session of a logged-in user once a day (placed after AuthenticationMiddleware, so
    that SessionMiddleware saves it; a log-out in the view leaves nothing to renew)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if settings.SESSION_COOKIE_NAME in request.COOKIES and request.user.is_authenticated:
            today = timezone.localdate().isoformat()
            if request.session.get(RENEWED_ON) != today:
                request.session[RENEWED_ON] = today
        return response
