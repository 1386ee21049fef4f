"""The organizer's judging panel in headless Chromium: an organizer logs in, writes guidelines, makes a training
screen, adds an attention check and invites a judge; the judge opens the link in a second browser (own cookies),
reads the guidelines, answers the training screen and ranks the control last; the organizer's campaign page then
shows that judge's rate as 100%. Screenshots go to test-artifacts/."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import CandidateJudgment, Invite, ScreenCandidate, System, TrainingCandidate
from annotation.services.invites import digest
from tests.annotation.factories import add_screen
from tests.browser.session import ORGANIZER_PASSWORD as PASSWORD
from tests.browser.session import log_in, organized_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]



@pytest.fixture
def campaign():
    campaign = organized_campaign()
    add_screen(campaign, 1)
    return campaign


def test_organizer_invites_a_judge_who_ranks_the_attention_check_last(live_server, new_page, artifacts, campaign):
    campaign_path = reverse("campaign-detail", args=[campaign.pk])
    organizer = new_page()
    organizer.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    log_in(organizer, live_server, "orga", PASSWORD, campaign_path)
    expect(organizer.get_by_role("heading", name="small", exact=True)).to_be_visible()

    organizer.get_by_label("Guidelines (Markdown)").fill(
        "Rank the corrections from **best** to worst. ![An example](https://images.example/ranks.png)")
    organizer.get_by_role("button", name="Preview").click()
    expect(organizer.locator("#preview-note")).to_be_visible()
    expect(organizer.locator("#guidelines-preview strong")).to_have_text("best")
    # An image from another site is not loaded: its alt text stands in for it, with no broken-image icon.
    expect(organizer.locator("#guidelines-preview")).to_contain_text("to worst. An example")
    expect(organizer.locator("#guidelines-preview img")).to_have_count(0)
    organizer.screenshot(path=artifacts / "organizer-guidelines-preview-1280x800.png")
    organizer.get_by_role("button", name="Save guidelines").click()
    expect(organizer.locator(".messages")).to_contain_text("Saved the guidelines.")

    organizer.get_by_label("Add a training screen for the sentence at line (0-based)").fill("4")
    organizer.get_by_role("button", name="Choose corrections…").click()
    expect(organizer.locator("#source strong")).to_have_text("It have many problem .")
    expect(organizer.locator("#training-form .candidate")).to_have_count(4)
    expect(organizer.locator("#training-form .sentence ins").first).to_be_visible()
    for number, rank in ((1, "2"), (2, "1"), (3, "4"), (4, "3")):
        organizer.get_by_label(f"Correction {number}", exact=True).select_option(rank)
    organizer.get_by_label("Feedback shown after the judge answers (Markdown)").fill("*Problems*: plural after many.")
    organizer.screenshot(path=artifacts / "organizer-training-1280x800.png", full_page=True)
    organizer.get_by_role("button", name="Add training screen").click()
    expect(organizer.locator(".messages")).to_contain_text("Added training screen 1 (line 4).")
    expect(organizer.locator("#training-list tbody tr")).to_have_count(1)
    expected = list(TrainingCandidate.objects.order_by("position").values_list("expected_rank", flat=True))
    assert expected == [2, 1, 4, 3]

    organizer.get_by_label("Add attention checks to").fill("100")
    organizer.get_by_role("button", name="Add attention checks").click()
    expect(organizer.locator(".messages")).to_contain_text("Added attention checks to 1 of the 1 unserved screen")
    coverage = re.compile(r"with an attention check: 1 of 1\.\s+Unserved screens without one: 0\.")
    expect(organizer.locator("#attention-coverage")).to_have_text(coverage)

    organizer.get_by_label("Judge's username").fill("judy")
    organizer.get_by_role("button", name="Create invite link").click()
    link_box = organizer.locator("#invite-link-1")
    link = link_box.input_value()
    assert link.startswith(f"{live_server.url}/invite/")
    assert Invite.objects.get().digest == digest(link.rstrip("/").rsplit("/", 1)[1])
    organizer.get_by_role("button", name="Copy link").click()
    expect(organizer.locator(".copy-status")).to_have_text("Copied.")
    assert organizer.evaluate("navigator.clipboard.readText()") == link
    organizer.screenshot(path=artifacts / "organizer-invite-link-1280x800.png")
    expect(organizer.locator("#invite-list tr[data-invite='judy'] .status")).to_have_text("Not used yet")

    judge = new_page()
    judge.goto(link)
    judge.get_by_role("button", name="Continue as judy").click()
    expect(judge.locator("#guidelines strong")).to_have_text("best")
    judge.get_by_role("button", name="I have read the guidelines").click()
    expect(judge.locator(".training-note")).to_be_visible()
    judge.wait_for_load_state("domcontentloaded")
    for position, rank in enumerate([2, 1, 4, 3]):
        judge.locator(f"#candidate-{position} label.rank").nth(rank - 1).click()
    judge.locator("#submit").click()
    expect(judge.locator("#agreement")).to_contain_text("You ordered 100% of the pairs")
    expect(judge.locator(".feedback-text em")).to_have_text("Problems")
    judge.locator("#continue").click()
    expect(judge.locator("#screen-counter")).to_have_text("Screen 1 of 1")
    judge.wait_for_load_state("domcontentloaded")
    control = ScreenCandidate.objects.get(
        screen__campaign=campaign, candidate__outputs__system__kind=System.Kind.CONTROL
    ).position
    slots = judge.locator(".candidate").count()
    assert slots == 5, "four distinct outputs and the control"
    for position in range(slots):
        rank = campaign.max_candidates if position == control else 1
        judge.locator(f"#candidate-{position} label.rank").nth(rank - 1).click()
    judge.locator("#submit").click()
    expect(judge.locator("#all-done")).to_be_visible()
    stored = CandidateJudgment.objects.get(position=control)
    assert stored.rank == campaign.max_candidates and stored.judgment.assignment.judge.username == "judy"

    organizer.goto(live_server.url + campaign_path)
    row = organizer.locator("#judge-activity tr[data-judge='judy']")
    cells = row.locator("td")
    expect(cells.nth(3)).to_have_text("100%")
    assert [cells.nth(i).inner_text() for i in range(3)] == ["judy", "1", "1"]
    expect(cells.nth(4)).to_have_text(re.compile(r"^\d+\.\d s$"))
    expect(organizer.locator("#invite-list tr[data-invite='judy'] .status")).to_contain_text("Used")
    expect(organizer.locator("#invite-link-1")).to_have_count(0)
    expect(organizer.locator("#guidelines-read")).to_have_text("1 of 1 judge")
    expect(organizer.locator("#training-list tbody td").nth(5)).to_have_text("100%")
    organizer.screenshot(path=artifacts / "organizer-campaign-1280x800.png", full_page=True)
