"""Logging in through the login page, as a person does."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.models import Campaign
from tests.annotation.factories import small_campaign

#: The password of the organizer of ``organized_campaign``.
ORGANIZER_PASSWORD = "organizer-pw-1"


def organized_campaign() -> Campaign:
    """A small campaign (``small_campaign``) owned and organized by ``orga``, whose password is
    ``ORGANIZER_PASSWORD``."""
    organizer = get_user_model().objects.create_user("orga", password=ORGANIZER_PASSWORD)
    campaign = small_campaign(owner=organizer)
    campaign.organizers.add(organizer)
    return campaign


def log_in(page, live_server, username: str, password: str, next_path: str = "") -> None:
    """Fill the login page with ``username`` and ``password`` and submit it; with ``next_path`` the login goes on
    there."""
    page.goto(f"{live_server.url}{reverse('login')}" + (f"?next={next_path}" if next_path else ""))
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state()
