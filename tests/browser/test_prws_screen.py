"""The judge's PRWS screen in headless Chromium (N19 section 4.2, Figure 2; METHODS 11): sliders set by keyboard and
by mouse, Submit held back until every slider was moved, "Meaning changed" by click and by key, Reset, a double
click stored once, and the scores (with each slider's first and last value) in the database; scores typed as
digits, focus moving on to the next correction as on the ranking screen. Screenshot:
test-artifacts/judge-prws-1280x800.png."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Assignment, Campaign, Judgment
from annotation.services.invites import create_invite
from tests.annotation.factories import SOURCE, SYSTEM_NAMES, add_screen, small_campaign

from .conftest import TABLET

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def campaign(django_user_model):
    organizer = django_user_model.objects.create_user("orga", password="organizer-pw-1")
    campaign = small_campaign(mode=Campaign.Mode.PRWS, guidelines="Score every **correction** of the bold sentence.")
    campaign.organizers.add(organizer)
    return campaign


def on_screen(page, k: int, n: int) -> None:
    expect(page.locator("#screen-counter")).to_have_text(f"Screen {k} of {n}")
    page.wait_for_load_state("domcontentloaded")


def slider_values(page) -> list[int]:
    return page.eval_on_selector_all("input[type=range]", "els => els.map(e => Number(e.value))")


def moved(page) -> list[bool]:
    return page.eval_on_selector_all("input.moved", "els => els.map(e => e.value === '1')")


def click_slider_at(page, position: int, fraction: float) -> None:
    """A mouse click at ``fraction`` of the slider's width."""
    box = page.locator(f"#score-{position}").bounding_box()
    page.mouse.click(box["x"] + fraction * box["width"], box["y"] + box["height"] / 2)


def join_by_invite(page, live_server, campaign, username: str):
    """``page`` of a new judge who followed an invite link of ``campaign`` and read its guidelines."""
    _, secret = create_invite(campaign, username, campaign.organizers.get())
    page.goto(live_server.url + reverse("invite", args=[secret]))
    page.get_by_role("button", name=f"Continue as {username}").click()
    page.get_by_role("button", name="I have read the guidelines").click()
    return page


def test_rate_a_screen_with_sliders_by_keyboard_and_mouse(live_server, new_page, artifacts, campaign):
    screens = [add_screen(campaign, line) for line in (1, 4)]
    page = join_by_invite(new_page(), live_server, campaign, "rita")

    on_screen(page, 1, 2)
    first_url = page.url
    expect(page.locator("#source strong")).to_have_text(SOURCE[1])
    expect(page.locator("#candidate-0 .scale")).to_contain_text("Completely ungrammatical/Garbled")
    expect(page.locator("#candidate-0 .scale")).to_contain_text("Perfect")
    expect(page.locator("#submit")).to_be_disabled()
    expect(page.locator("#ranked-status")).to_have_text("0 of 4 corrections scored.")
    assert slider_values(page) == [50, 50, 50, 50] and moved(page) == [False] * 4
    expect(page.locator("#value-0")).to_have_text("–")
    page.screenshot(path=artifacts / "judge-prws-unmoved-1280x800.png")

    # Keyboard: a digit sets tens, arrows fine-tune, ArrowDown moves on, "m" ticks the box of the focused one.
    page.locator("#score-0").focus()
    page.keyboard.press("8")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    for _ in range(5):
        page.keyboard.press("ArrowLeft")
    page.keyboard.press("m")
    assert slider_values(page)[:2] == [83, 45] and moved(page) == [True, True, False, False]
    expect(page.locator("#value-0")).to_have_text("83")
    expect(page.locator("#ranked-status")).to_have_text("2 of 4 corrections scored.")

    # Mouse: a click on the third slider's track, then Enter with the fourth not yet moved.
    click_slider_at(page, 2, 0.25)
    assert 15 <= slider_values(page)[2] <= 35 and moved(page)[2]
    page.locator("#candidate-2 .sentence").click()
    page.keyboard.press("Enter")
    expect(page.locator("#ranked-status")).to_have_text(
        "Move every slider first: Correction 4 has no score yet."
    )
    expect(page.locator("#submit")).to_be_disabled()
    assert page.url == first_url and not Judgment.objects.exists()

    # Mouse: drag the fourth slider's handle from the middle to near the right end; tick its box by a click.
    box = page.locator("#score-3").bounding_box()
    middle_y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] / 2, middle_y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.7, middle_y, steps=5)
    page.mouse.move(box["x"] + box["width"] * 0.95, middle_y, steps=5)
    page.mouse.up()
    assert slider_values(page)[3] >= 85 and all(moved(page))
    page.locator("#candidate-3").get_by_label("Meaning changed").check()
    expect(page.locator("#submit")).to_be_enabled()
    expect(page.locator("#ranked-status")).to_have_text("Every correction has a score.")
    expect(page.locator("#value-3")).to_have_text(str(slider_values(page)[3]))
    page.screenshot(path=artifacts / "judge-prws-1280x800.png")
    html = page.content()
    assert not any(name in html for name in SYSTEM_NAMES)

    expected = slider_values(page)
    page.locator("#submit").dblclick()
    on_screen(page, 2, 2)
    judgment = Judgment.objects.get()
    assert judgment.assignment.screen == screens[0] and judgment.assignment.judge.username == "rita"
    stored = list(judgment.items.order_by("position").values_list("score", "meaning_changed", "rank"))
    assert stored == [(expected[0], False, None), (expected[1], True, None), (expected[2], False, None),
                      (expected[3], True, None)]
    assert judgment.active_time is not None and judgment.active_time <= judgment.duration
    sliders = list(judgment.items.order_by("position").values_list("slider_first", "slider_last"))
    assert sliders[:2] == [(80.0, expected[0]), (49.0, expected[1])], "first value after moving, and the last"
    assert sliders[2] == (expected[2], expected[2]) and 50 < sliders[3][0] < expected[3] == sliders[3][1]

    # Second screen: Reset puts every slider back unmoved and clears the boxes.
    page.locator("#score-0").focus()
    page.keyboard.press("3")
    page.keyboard.press("m")
    page.get_by_role("button", name="Reset").click()
    expect(page.locator("#ranked-status")).to_have_text(re.compile(r"^0 of \d corrections scored\.$"))
    assert not any(moved(page)) and set(slider_values(page)) == {50}
    assert not page.locator("#candidate-0 input[type=checkbox]").is_checked()
    for position in range(len(slider_values(page))):
        click_slider_at(page, position, 0.5)
    assert all(moved(page)), "a click that leaves a slider at its start still counts as moved"
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#all-done")).to_be_visible()
    assert Judgment.objects.count() == 2
    second = Judgment.objects.latest("id").items.values_list("slider_first", "slider_last")
    assert all(first == last for first, last in second), "Reset forgets the first values (the 3 pressed before it)"
    assert not Assignment.objects.exclude(status=Assignment.Status.SUBMITTED).exists()


def focused_slider(page) -> str:
    return page.evaluate("() => document.activeElement.id")


def test_typing_a_score_moves_on_to_the_next_correction(live_server, new_page, artifacts, campaign):
    """As digits rank a correction and move on on the ranking screen: digits typed in quick succession form one
    score (one digit: tens), and focus moves on once it is complete, at once or after a short pause."""
    add_screen(campaign, 1)
    page = join_by_invite(new_page(), live_server, campaign, "tess")
    on_screen(page, 1, 1)
    expect(page.locator("#keys-help")).to_contain_text("7 = 70, 35 = 35, 100 = 100")
    help_text = page.locator("#help-dialog .key-list").text_content()
    assert "One digit sets the tens" in help_text and "once the score is complete, or after a short pause" in help_text

    page.locator("#score-0").focus()
    page.keyboard.type("35")  # two digits: complete, the next correction at once
    expect(page.locator("#score-1")).to_be_focused()
    page.keyboard.type("100")
    expect(page.locator("#score-2")).to_be_focused()
    page.keyboard.press("7")  # one digit: 70, and the next correction after the pause
    assert focused_slider(page) == "score-2" and slider_values(page)[2] == 70
    expect(page.locator("#score-3")).to_be_focused()
    page.keyboard.press("+")  # the last correction: 100, and focus stays
    assert slider_values(page) == [35, 100, 70, 100] and all(moved(page))
    expect(page.locator("#value-1")).to_have_text("100")
    expect(page.locator("#ranked-status")).to_have_text("Every correction has a score.")
    page.wait_for_timeout(1000)
    assert focused_slider(page) == "score-3"

    page.locator("#score-0").focus()
    page.keyboard.type("107")  # 10 cannot become 107: 10 is complete, 7 is the next correction's
    assert slider_values(page)[:2] == [10, 70]
    page.keyboard.press("ArrowRight")  # an arrow right after a digit fine-tunes that score and stays on it
    page.wait_for_timeout(1000)
    assert focused_slider(page) == "score-1" and slider_values(page)[:2] == [10, 71]
    page.keyboard.press("ArrowUp")
    page.keyboard.type("05")
    expect(page.locator("#score-1")).to_be_focused()
    assert slider_values(page) == [5, 71, 70, 100]
    page.screenshot(path=artifacts / "judge-prws-typed-1280x800.png")

    page.keyboard.press("Enter")
    expect(page.locator("#all-done")).to_be_visible()
    stored = list(Judgment.objects.get().items.order_by("position").values_list("slider_first", "slider_last"))
    assert stored == [(35, 5), (100, 71), (70, 70), (100, 100)], "a typed first score counts with all its digits"


def test_the_prws_screen_fits_a_tablet(live_server, new_page, artifacts, campaign):
    campaign.guidelines = ""
    campaign.save()
    add_screen(campaign, 1)
    _, secret = create_invite(campaign, "tara", campaign.organizers.get())
    page = new_page(TABLET)
    page.goto(live_server.url + reverse("invite", args=[secret]))
    page.get_by_role("button", name="Continue as tara").click()
    on_screen(page, 1, 1)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scrolling"
    sentence = page.locator("#sentence-0").bounding_box()
    slider = page.locator("#score-0").bounding_box()
    assert slider["y"] >= sentence["y"] + sentence["height"] - 1, "the slider goes under the sentence"
    assert slider["width"] >= 0.6 * TABLET["width"], "a wide slider for a finger"
    page.screenshot(path=artifacts / "judge-prws-768x1024.png", full_page=True)
