"""Logging in through the login page, as a person does; waiting for the live dashboard of the campaign page."""
from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Campaign
from annotation.templatetags.dashboard_panel import POLL_SECONDS
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


#: The longest the live dashboard takes to show a change (ms): the poll in flight when it happened may have read
#: before it, the next starts ``POLL_SECONDS`` after that one ended (or failed), and each poll's requests may take
#: a poll interval of their own on a loaded machine.
UPDATE = 3 * POLL_SECONDS * 1000


def dashboard_updated(page) -> None:
    """Wait until the dashboard of the campaign page open in ``page`` has shown what its endpoints answered: its
    status says when it last did, once every part is filled in (``static/js/dashboard.js``). A first poll that
    fails is tried again at the next, hence ``UPDATE``."""
    expect(page.locator("#dashboard-status")).to_have_text(re.compile(r"^Last update \d\d:\d\d:\d\d\.$"),
                                                           timeout=UPDATE)
