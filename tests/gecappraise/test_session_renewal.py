"""A login session lasts two weeks from the last day it was used (gecappraise/session_renewal.py), not from the
log-in: a judge who judged every day was logged out in the middle of a screen on the fifteenth."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from gecappraise.session_renewal import RENEWED_ON
from tests.annotation.factories import judge

pytestmark = pytest.mark.django_db


def expiry(client: Client):
    return Session.objects.get(session_key=client.cookies[settings.SESSION_COOKIE_NAME].value).expire_date


def test_a_session_used_today_lasts_its_age_from_today_and_is_written_once_a_day():
    client = Client()
    client.force_login(judge("ann"))
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    session = client.session
    session[RENEWED_ON] = (timezone.localdate() - timedelta(days=1)).isoformat()
    session.save()
    thirteen_days_on = timezone.now() + timedelta(days=1)  # logged in 13 days ago: a day left
    Session.objects.filter(session_key=key).update(expire_date=thirteen_days_on)

    response = client.get("/judge/")
    assert response.status_code == 200
    age = timedelta(seconds=settings.SESSION_COOKIE_AGE)
    assert expiry(client) > timezone.now() + age - timedelta(minutes=1), "renewed from today"
    assert response.cookies[settings.SESSION_COOKIE_NAME]["max-age"] == settings.SESSION_COOKIE_AGE

    Session.objects.filter(session_key=key).update(expire_date=thirteen_days_on)
    again = client.get("/judge/")
    assert expiry(client) == thirteen_days_on, "not written again the same day"
    assert settings.SESSION_COOKIE_NAME not in again.cookies


def test_the_first_request_after_a_log_in_writes_no_session():
    """The log-in wrote the session today: the next request does not write it again (the organizer's and judge's
    pages ask as many queries on the first request after a log-in as on later ones)."""
    client = Client()
    client.force_login(judge("ann"))
    assert client.session[RENEWED_ON] == timezone.localdate().isoformat()
    assert settings.SESSION_COOKIE_NAME not in client.get("/judge/").cookies


def test_anonymous_requests_and_a_log_out_renew_nothing():
    assert settings.SESSION_COOKIE_NAME not in Client().get("/accounts/login/").cookies
    client = Client()
    client.force_login(judge("ann"))
    client.post("/accounts/logout/")
    assert not Session.objects.exists()
