"""The live dashboard of a PRWS campaign in headless Chromium: what it says is worded for judges who score, and
why it has no ranking when rater QC left out every judgment so far."""
from __future__ import annotations

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Campaign
from annotation.services.screens import create_screens
from tests.annotation.factories import judge, small_campaign
from tests.annotation.test_rater_qc import careful_values, judge_all, random_values
from tests.browser.session import dashboard_updated, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_judge_without_attention_checks_has_judged_none_not_ranked_none(live_server, new_page):
    """The rate cell's title said "no attention check ranked yet" to the organizer of a PRWS campaign too."""
    organizer_user = get_user_model().objects.create_user("orga", password="organizer-pw-1")
    campaign = small_campaign(mode=Campaign.Mode.PRWS)
    campaign.organizers.add(organizer_user)
    judge("judy", campaign)
    organizer = new_page()
    log_in(organizer, live_server, "orga", "organizer-pw-1", reverse("campaign-detail", args=[campaign.pk]))
    dashboard_updated(organizer)
    rate = organizer.locator("#judge-progress tr[data-judge='judy'] td.rate")
    expect(rate).to_have_text("–")
    expect(rate).to_have_attribute("title", "no attention check judged yet")


def test_the_leaderboard_says_rater_qc_excluded_every_rater_and_links_to_its_page(live_server, new_page):
    """40 judgments by two raters, both excluded by rater QC: the leaderboard said "No ranking yet: no pairwise
    judgment yet."."""
    organizer_user = get_user_model().objects.create_user("orga", password="organizer-pw-1")
    campaign = small_campaign(mode=Campaign.Mode.PRWS, redundancy=2, sampling="uniform", control_share=0.5,
                              qc_min_median_seconds=5)
    campaign.organizers.add(organizer_user)
    create_screens(campaign, 20)
    rng = np.random.default_rng(7)
    judge_all(campaign, judge("random", campaign), random_values, 20, rng)
    judge_all(campaign, judge("hasty", campaign), careful_values, 1, rng)
    organizer = new_page()
    log_in(organizer, live_server, "orga", "organizer-pw-1", reverse("campaign-detail", args=[campaign.pk]))
    dashboard_updated(organizer)
    reason = organizer.locator("#leaderboard-reason")
    expect(reason).to_have_text("No ranking yet: the judgments so far are all from raters whom rater QC excluded. "
                                "Include a rater by hand or offer a fresh attempt on the rater QC page.")
    reason.get_by_role("link", name="rater QC page").click()
    expect(organizer.get_by_role("heading", level=1)).to_have_text("Rater quality control")
