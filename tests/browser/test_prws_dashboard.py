"""The live dashboard of a PRWS campaign in headless Chromium: what it says is worded for judges who score."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Campaign
from tests.annotation.factories import judge, small_campaign
from tests.browser.session import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_judge_without_attention_checks_has_judged_none_not_ranked_none(live_server, new_page):
    """The rate cell's title said "no attention check ranked yet" to the organizer of a PRWS campaign too."""
    organizer_user = get_user_model().objects.create_user("orga", password="organizer-pw-1")
    campaign = small_campaign(mode=Campaign.Mode.PRWS)
    campaign.organizers.add(organizer_user)
    judge("judy", campaign)
    organizer = new_page()
    log_in(organizer, live_server, "orga", "organizer-pw-1", reverse("campaign-detail", args=[campaign.pk]))
    rate = organizer.locator("#judge-progress tr[data-judge='judy'] td.rate")
    expect(rate).to_have_text("–")
    expect(rate).to_have_attribute("title", "no attention check judged yet")
