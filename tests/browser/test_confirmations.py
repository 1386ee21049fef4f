"""The organizer's actions that cannot be undone ask first, in headless Chromium: deleting a training screen (its
judges' answers go with it), revoking an invite (its link stops working for good), offering a rater a fresh
attempt (their judgments so far leave every analysis for good) and revoking one or all of one's API tokens (the
scripts that use them stop working). Cancel leaves everything as it was; OK does it. They used to happen at the
first click, a click beside the intended button included."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import ApiToken, Invite, RaterStatus, TrainingScreen
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services import queue
from annotation.services.api_tokens import create_token
from annotation.services.invites import create_invite
from annotation.services.training import add_training_screen, answer_training
from tests.annotation.factories import add_screen, judge
from tests.browser.session import ORGANIZER_PASSWORD as PASSWORD
from tests.browser.session import log_in, organized_campaign

from .conftest import DESKTOP

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: The background of a secondary button (site.css: --card).
CARD_WHITE = "rgb(255, 255, 255)"



@pytest.fixture
def campaign():
    """A campaign with a training screen answered by two judges, an unused invite and a rater who judged a screen."""
    campaign = organized_campaign()
    segment = campaign.segments.get(line=1)
    training = add_training_screen(campaign, segment, list(segment.candidates.order_by("id"))[:2], [1, 2])
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    for user in (ann, bob):
        answer_training(training, user, [1, 2])
    create_invite(campaign, "carol", campaign.owner)
    add_screen(campaign, 0, judges=[ann])
    served = queue.next_assignment(campaign, ann)
    keys = queue.candidate_keys(served)
    queue.submit_ranking(served.token, ann, list(range(1, len(keys) + 1)), keys)
    return campaign


def organizer_page(chromium, live_server, path: str, answer: str):
    """A page of the organizer's, in a browser context of its own, that answers every question with ``answer``
    ("accept" or "dismiss") and keeps the questions in ``page.dialogs``."""
    context = chromium.new_context(viewport=DESKTOP)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), getattr(dialog, answer)()))
    log_in(page, live_server, "orga", PASSWORD, path)
    return page


def test_cancel_leaves_the_training_screen_the_invite_and_the_rater_as_they_were(live_server, chromium, campaign):
    page = organizer_page(chromium, live_server, reverse("campaign-detail", args=[campaign.pk]), "dismiss")
    try:
        page.get_by_role("button", name="Delete training screen 1").click()
        page.get_by_role("button", name="Revoke the invite of carol").click()
        page.goto(live_server.url + reverse("campaign-raters", args=[campaign.pk]))
        page.get_by_label("Decision on ann").select_option("fresh")
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_label("Decision on ann")).to_have_value("fresh")
        assert page.dialogs == [
            "Delete training screen 1 and the judges' 2 answers to it? This cannot be undone.",
            "Revoke the invite of carol? Its link stops working for good; a new invite makes a new link.",
            "Offer ann a fresh attempt? Their judgments so far are kept but left out of every analysis for good.",
        ]
        page.get_by_label("Decision on ann").select_option("exclude")
        page.get_by_role("button", name="Save").click()
        expect(page.locator(".messages")).to_be_visible()
        assert len(page.dialogs) == 3, "a decision that can be undone is not asked about"
    finally:
        page.context.close()
    assert TrainingScreen.objects.filter(campaign=campaign).count() == 1
    assert Invite.objects.filter(campaign=campaign).count() == 1
    status = RaterStatus.objects.get(campaign=campaign, judge__username="ann")
    assert (status.attempt, status.decision) == (1, "exclude")


def test_ok_deletes_revokes_and_offers_the_fresh_attempt(live_server, chromium, campaign):
    page = organizer_page(chromium, live_server, reverse("campaign-detail", args=[campaign.pk]), "accept")
    try:
        page.get_by_role("button", name="Delete training screen 1").click()
        expect(page.locator(".messages")).to_contain_text("Deleted training screen 1 with its 2 answers.")
        page.get_by_role("button", name="Revoke the invite of carol").click()
        expect(page.locator(".messages")).to_contain_text("Revoked the invite of carol")
        page.goto(live_server.url + reverse("campaign-raters", args=[campaign.pk]))
        page.get_by_label("Decision on ann").select_option("fresh")
        page.get_by_role("button", name="Save").click()
        expect(page.locator(".messages")).to_contain_text("ann starts attempt 2")
        assert len(page.dialogs) == 3
    finally:
        page.context.close()
    assert not TrainingScreen.objects.filter(campaign=campaign).exists()
    assert not Invite.objects.filter(campaign=campaign).exists()
    assert RaterStatus.objects.get(campaign=campaign, judge__username="ann").attempt == 2


def test_revoking_api_tokens_asks_first(live_server, chromium, campaign):
    organizer = get_user_model().objects.get(username="orga")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    create_token(organizer, "nightly export")
    create_token(organizer)
    first, second = ApiToken.objects.filter(user=organizer).order_by("created")
    page = organizer_page(chromium, live_server, reverse("api-tokens"), "dismiss")
    try:
        page.get_by_role("button", name=f"Revoke the token {first.token_key}…").click()
        page.get_by_role("button", name="Revoke all").click()
        assert page.dialogs == [
            f"Revoke the token {first.token_key}… (nightly export)? A script that uses it stops working.",
            "Revoke all 2 of your tokens? Every script that uses one stops working.",
        ]
    finally:
        page.context.close()
    assert ApiToken.objects.filter(user=organizer).count() == 2
    page = organizer_page(chromium, live_server, reverse("api-tokens"), "accept")
    try:
        page.get_by_role("button", name=f"Revoke the token {second.token_key}…").click()
        expect(page.locator(".messages")).to_contain_text(f"Revoked the token {second.token_key}…")
        page.get_by_role("button", name="Revoke all").click()
        expect(page.locator(".messages")).to_contain_text("Revoked all your API tokens (1)")
        assert page.dialogs[1] == "Revoke your token? Every script that uses one stops working."
    finally:
        page.context.close()
    assert not ApiToken.objects.filter(user=organizer).exists()


def test_closing_and_reopening_offer_keeping_things_as_they_are_as_the_lesser_choice(live_server, chromium):
    """The pages that confirm closing and opening a campaign again showed "Keep it open" ("Keep it closed") as a
    filled button like the change itself, so both choices looked equally weighted; the way back is now drawn as a
    secondary button (outlined), as Reset and Cancel are on the judge's screen, and the pages pass axe."""
    from .test_accessibility import axe_violations

    campaign = organized_campaign()
    page = organizer_page(chromium, live_server, reverse("campaign-close", args=[campaign.pk]), "dismiss")

    def background(locator) -> str:
        return locator.evaluate("element => getComputedStyle(element).backgroundColor")

    try:
        for change, keep, next_page in (("Close the campaign", "Keep it open", "Open it again…"),
                                        ("Open the campaign again", "Keep it closed", None)):
            change_button = page.get_by_role("button", name=change, exact=True)
            keep_link = page.get_by_role("link", name=keep)
            assert background(keep_link) != background(change_button), f"{keep!r} looks like {change!r}"
            assert background(keep_link) == CARD_WHITE, f"{keep!r} is not drawn as a secondary button"
            assert axe_violations(page) == [], change
            change_button.click()
            page.wait_for_load_state()
            if next_page:
                page.get_by_role("link", name=next_page).click()
                page.wait_for_load_state()
    finally:
        page.context.close()
