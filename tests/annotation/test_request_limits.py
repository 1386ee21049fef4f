"""Request bodies: large ones only from accounts that may upload, none over MAX_REQUEST_BYTES, and what Django
refuses while reading a request (too many files or fields) answered with the limit named."""
from __future__ import annotations

import base64
import json

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.models import Campaign
from annotation.request_limits import SMALL_REQUEST_BYTES
from annotation.services import api_tokens

from .factories import judge, login
from .test_organizer import form_data

pytestmark = pytest.mark.django_db


def large_upload(size: int = 2 * SMALL_REQUEST_BYTES, name: str = "web") -> dict:
    """A campaign form of one sentence whose one system's output makes the body ``size`` bytes or more."""
    return form_data(name=name, source=SimpleUploadedFile("source", b"a\n"),
                     systems=[SimpleUploadedFile("big", b"x" * size)])


def basic(username: str, password: str) -> dict:
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"HTTP_AUTHORIZATION": f"Basic {token}"}


@pytest.mark.parametrize("who", ["anonymous", "judge"])
def test_a_large_body_from_an_account_that_may_not_upload_is_refused_unread(who):
    client = Client() if who == "anonymous" else login(judge("jim"))
    response = client.post(reverse("campaign-create"), large_upload())
    assert response.status_code == 413
    assert "larger than the 1 MB this account may send" in response.content.decode()
    api = client.post("/api/campaigns/", large_upload())
    assert api.status_code == 413 and "1 MB" in json.loads(api.content)["detail"]
    assert not Campaign.objects.exists()


def test_an_organizer_may_send_a_large_body_by_session_or_basic_credentials(organizer_client):
    page = organizer_client.post(reverse("campaign-create"), large_upload(name="by-page"))
    assert page.status_code == 302
    api = Client().post("/api/campaigns/", large_upload(name="by-api"), **basic("olga", "pw"))
    assert api.status_code == 201, api.content[:300]
    wrong = Client().post("/api/campaigns/", large_upload(name="wrong"), **basic("olga", "wrong"))
    assert wrong.status_code == 413
    assert sorted(Campaign.objects.values_list("name", flat=True)) == ["by-api", "by-page"]


def test_an_organizer_may_send_a_large_body_with_an_api_token(organizer_client):
    # The size check knew the session and Basic credentials only: a token's upload over 1 MB was a 413.
    _, key = api_tokens.create_token(User.objects.get(username="olga"))
    api = Client().post("/api/campaigns/", large_upload(name="by-token"), HTTP_AUTHORIZATION=f"Token {key}")
    assert api.status_code == 201, api.content[:300]
    for wrong in (f"Token {key[:-1]}x", "Token \xff"):
        refused = Client().post("/api/campaigns/", large_upload(name="wrong"), HTTP_AUTHORIZATION=wrong)
        assert refused.status_code == 413 and "1 MB" in json.loads(refused.content)["detail"]
    assert list(Campaign.objects.values_list("name", flat=True)) == ["by-token"]


def test_nobody_sends_more_than_max_request_bytes(organizer_client, settings):
    settings.MAX_REQUEST_BYTES = 3 * SMALL_REQUEST_BYTES
    response = organizer_client.post(reverse("campaign-create"), large_upload(4 * SMALL_REQUEST_BYTES))
    assert response.status_code == 413 and "larger than the 3 MB" in response.content.decode()


def test_too_many_files_are_refused_with_the_limit_named(organizer_client, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 3
    files = [SimpleUploadedFile(f"s{n}", b"a\n") for n in range(4)]
    client = organizer_client
    page = client.post(reverse("campaign-create"), form_data(source=files[0], systems=files[1:]))
    assert page.status_code == 400 and "at most 3 files" in page.content.decode()
    api = client.post("/api/campaigns/", form_data(source=files[0], systems=files[1:]))
    assert api.status_code == 400 and json.loads(api.content)["detail"].startswith("A request may carry at most 3")
    assert not Campaign.objects.exists()


def test_fields_outside_files_over_djangos_limit_are_refused_with_the_limit_named(organizer_client):
    """Guidelines of 3 MB (no file can hold them): Django's 2.5 MB for fields outside files, named."""
    data = {**large_upload(name="long-guidelines"), "guidelines": "x" * (3 * SMALL_REQUEST_BYTES)}
    page = organizer_client.post(reverse("campaign-create"), data)
    assert page.status_code == 400 and "larger than 2.5 MB in all" in page.content.decode()
    api = organizer_client.post("/api/campaigns/", data)
    assert api.status_code == 400 and "larger than 2.5 MB in all" in json.loads(api.content)["detail"]
    assert not Campaign.objects.exists()


@pytest.mark.parametrize("path", ["/", "/campaigns/", "/api/campaigns/", "/no/such/page/"])
def test_a_host_name_the_site_does_not_serve_gets_a_400_that_says_so(path):
    """Django refuses the host before the authentication middleware runs, so the page is rendered without a user
    (before: the header's links read ``request.user`` and the answer was a 500)."""
    response = Client().get(path, HTTP_HOST="evil.example")
    assert response.status_code == 400
    reason = "This server does not answer to that host name"
    if path.startswith("/api/"):
        assert json.loads(response.content)["detail"].startswith(reason)
    else:
        assert reason in response.content.decode() and "Log in" in response.content.decode()
