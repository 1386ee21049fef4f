"""The judge's screen with long corrections (issue 9, "The judge's screen") in headless Chromium: the sticky action
bar within the window at 1280x800, 1366x768 and 768x1024 with five 50-token corrections, a focused row kept clear
of the bar, the instruction line per mode, WCAG AA contrast of every highlight on every row background (and on the
organizer's page of the screen, highlighted alike), unsent ranks and scores restored after a reload and the
submitted ones after Undo, the PRWS "Perfect" key, one banner after a flag and the flag count on the done page.
Screenshots: test-artifacts/judge-reach-*.png."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Campaign, Judgment
from annotation.services.collapsing import diff_spans
from annotation.services.importing import NamedFile, import_outputs
from annotation.services.invites import create_invite
from tests.annotation.factories import add_screen, small_campaign
from tests.browser.session import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DEFAULT_INSTRUCTION = "Rank each correction from 1 = best to 5 = worst; ties are allowed."
VIEWPORTS = ({"width": 1280, "height": 800}, {"width": 1366, "height": 768}, {"width": 768, "height": 1024})

#: A 50-token source sentence and five systems' corrections of it, each with insertions, deletions and
#: substitutions.
SOURCE = (
    "In the recent years , many people has argue that the goverment should spend more money for public transport "
    "because it reduce the traffic jam and the pollution in big city , but other people think that the money is "
    "more better spend on the hospital and school ."
)
OUTPUTS = {
    "ALPHA": SOURCE.replace("has argue", "have argued").replace("should spend", "should also spend"),
    "BRAVO": SOURCE.replace("In the recent", "In recent").replace("reduce", "reduces").replace("city", "cities"),
    "CHARLIE": SOURCE.replace("more better spend", "better spent").replace("the hospital and school", "hospitals"),
    "DELTA": SOURCE.replace("for public", "on public").replace("traffic jam", "traffic jams")
    .replace(" , but", "; but"),
    "ECHO": SOURCE.replace("many people has argue", "many have argued").replace("the pollution", "pollution"),
}


def _file(name: str, text: str) -> NamedFile:
    return NamedFile(name, (text + "\n").encode())


def long_campaign(mode: str = Campaign.Mode.RANKING) -> Campaign:
    organizer = get_user_model().objects.create_user("orga", password="organizer-pw-1")
    campaign = import_outputs(
        f"long-{mode}",
        _file("INPUT", SOURCE),
        [_file(name, text) for name, text in OUTPUTS.items()],
        guidelines="Judge the corrections.",
        mode=mode,
    )
    campaign.organizers.add(organizer)
    return campaign


def start_judging(page, live_server, campaign: Campaign, username: str) -> None:
    _, secret = create_invite(campaign, username, campaign.organizers.get())
    page.goto(live_server.url + reverse("invite", args=[secret]))
    page.get_by_role("button", name=f"Continue as {username}").click()
    page.get_by_role("button", name="I have read the guidelines").click()
    expect(page.locator("#screen-counter")).to_be_visible()
    page.wait_for_load_state("domcontentloaded")


def judging_at_each_size(live_server, new_page, prefix: str):
    """For each of VIEWPORTS: its name, the viewport and a page of a new judge at the first screen of five long
    corrections."""
    campaign = long_campaign()
    for _ in VIEWPORTS:
        add_screen(campaign, 0)
    for number, viewport in enumerate(VIEWPORTS):
        page = new_page(viewport)
        start_judging(page, live_server, campaign, f"{prefix}{number}")
        yield f"{viewport['width']}x{viewport['height']}", viewport, page


def inside_window(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return box["y"] >= 0 and box["y"] + box["height"] <= size["height"] and box["x"] + box["width"] <= size["width"]


def checked_ranks(page) -> list[str | None]:
    return page.eval_on_selector_all(
        ".candidate",
        "items => items.map(i => { const c = i.querySelector('input:checked'); return c ? c.value : null; })",
    )


def test_actions_stay_in_the_window_and_the_focused_row_clear_of_them(live_server, new_page, artifacts):
    for name, viewport, page in judging_at_each_size(live_server, new_page, "judge"):
        assert page.locator(".candidate").count() == 5
        page_height = page.evaluate("() => document.documentElement.scrollHeight")
        assert page_height > viewport["height"], f"the five long corrections are taller than the window at {name}"
        for selector in ("#submit", "#reset", "#flag-open", "#ranked-status"):
            assert inside_window(page, selector), f"{selector} is outside the window at {name}"
        expect(page.locator("#instruction")).to_have_text(DEFAULT_INSTRUCTION)
        page.screenshot(path=artifacts / f"judge-reach-top-{name}.png")

        page.locator("#candidate-0 input[type=radio]").first.focus()
        for _ in range(4):
            page.keyboard.press("ArrowDown")
        expect(page.locator("#candidate-4 input[type=radio]").first).to_be_focused()
        bar_top = page.locator("#action-bar").bounding_box()["y"]
        last = page.locator("#candidate-4").bounding_box()
        assert last["y"] + last["height"] <= bar_top, f"the focused last row is under the action bar at {name}"
        for _ in range(4):
            page.keyboard.press("ArrowUp")
        expect(page.locator("#candidate-0 input[type=radio]").first).to_be_focused()
        first = page.locator("#candidate-0").bounding_box()
        assert first["y"] >= 0 and first["y"] + first["height"] <= bar_top
        page.locator("#candidate-3 input[type=radio]").first.focus()
        page.keyboard.press("Tab")
        focused_row = page.evaluate("() => document.activeElement.closest('.candidate').id")
        row = page.locator(f"#{focused_row}").bounding_box()
        bar_top = page.locator("#action-bar").bounding_box()["y"]
        assert row["y"] + row["height"] <= bar_top, f"Tab hides the row at {name}"
        for selector in ("#submit", "#reset", "#flag-open", "#ranked-status"):
            assert inside_window(page, selector), f"{selector} left the window after scrolling at {name}"
        page.screenshot(path=artifacts / f"judge-reach-scrolled-{name}.png")


def test_a_click_on_a_row_partly_under_the_action_bar_ranks_it(live_server, new_page, artifacts):
    """A mouse click focuses the radio before it ends: the row must not be scrolled from under the pointer then
    (which lost the click on a row whose bottom was under the bar: Submit stayed disabled)."""
    for name, _, page in judging_at_each_size(live_server, new_page, "clicker"):
        bar_top = page.locator("#action-bar").bounding_box()["y"]
        partly_hidden = [
            position for position in range(5)
            if (box := page.locator(f"#candidate-{position}").bounding_box())["y"] < bar_top < box["y"] + box["height"]
        ]
        assert partly_hidden, f"a row reaches under the action bar at {name}"
        for position in range(5):
            page.locator(f"#candidate-{position} label.rank").nth(position).click()
        assert checked_ranks(page) == ["1", "2", "3", "4", "5"], f"every click ranked its row at {name}"
        expect(page.get_by_role("button", name="Submit")).to_be_enabled()


#: WCAG contrast in the page: ``contrast(element)`` gives an element's ratio of text to the colour behind it (its own
#: background over its ancestors', down to the white canvas), whether it is struck through, and how it looks.
CONTRAST_FUNCTIONS = """
  const channel = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const rgba = (text) => {
    const v = text.match(/[\\d.]+/g).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3]));
  const behind = (element) => {
    const layers = [];
    for (let e = element; e; e = e.parentElement) layers.push(rgba(getComputedStyle(e).backgroundColor));
    return layers.reverse().reduce((bottom, top) => over(top, bottom), [255, 255, 255]);
  };
  const contrast = (element) => {
    const style = getComputedStyle(element);
    const background = behind(element);
    const [light, dark] = [luminance(over(rgba(style.color), background)), luminance(background)]
      .sort((a, b) => b - a);
    return {op: element.dataset.op, ratio: (light + 0.05) / (dark + 0.05),
            struck: style.textDecorationLine.includes("line-through"),
            look: [style.color, style.backgroundColor, style.fontWeight, style.textDecorationLine]};
  };
"""

CONTRAST_SCRIPT = """
() => {""" + CONTRAST_FUNCTIONS + """
  const results = [];
  for (const row of document.querySelectorAll('.candidate')) {
    for (const state of ['unjudged', 'judged']) {
      row.classList.toggle('ranked', state === 'judged');
      row.classList.toggle('moved', state === 'judged');
      for (const element of row.querySelectorAll('.sentence [data-op]')) results.push({...contrast(element), state});
    }
  }
  return results;
}
"""


@pytest.mark.parametrize("mode", [Campaign.Mode.RANKING, Campaign.Mode.PRWS])
def test_every_highlight_has_aa_contrast_on_every_row_background(live_server, new_page, artifacts, mode):
    campaign = long_campaign(mode)
    add_screen(campaign, 0)
    page = new_page()
    start_judging(page, live_server, campaign, "cora")
    results = page.evaluate(CONTRAST_SCRIPT)
    ops = {result["op"] for result in results}
    assert {"equal", "insert", "replace", "delete"} <= ops
    for result in results:
        assert result["ratio"] >= 4.5, f"{result['op']} on a {result['state']} row: {result['ratio']:.2f}:1"
    assert all(result["struck"] for result in results if result["op"] == "delete"), "deleted words are struck through"
    page.screenshot(path=artifacts / f"judge-reach-contrast-{mode}.png")


PAGE_CONTRAST_SCRIPT = """
(selector) => {""" + CONTRAST_FUNCTIONS + """
  return Array.from(document.querySelectorAll(selector)).map(contrast);
}
"""


def test_the_organizers_screen_page_highlights_edits_as_the_judge_sees_them(live_server, new_page, artifacts):
    """The organizer's page of a screen (/campaigns/<id>/screens/<n>/) shows the corrections with the judge's
    highlighting (one stylesheet rule for both), at WCAG AA contrast."""
    campaign = long_campaign()
    screen = add_screen(campaign, 0)
    judge_page = new_page()
    start_judging(judge_page, live_server, campaign, "cora")
    judged = {row["op"]: row["look"] for row in judge_page.evaluate(PAGE_CONTRAST_SCRIPT, ".sentence [data-op]")}

    organizer = new_page()
    log_in(organizer, live_server, "orga", "organizer-pw-1",
           reverse("campaign-screen", args=[campaign.pk, screen.number]))
    expect(organizer.locator("#screen-candidates tbody tr")).to_have_count(5)
    results = organizer.evaluate(PAGE_CONTRAST_SCRIPT, "#screen-candidates [data-op]")
    assert {"equal", "insert", "replace", "delete"} <= {result["op"] for result in results}
    for result in results:
        assert result["ratio"] >= 4.5, f"{result['op']} on the organizer's screen page: {result['ratio']:.2f}:1"
        assert result["look"] == judged[result["op"]], f"{result['op']} looks as on the judge's screen"
    assert all(result["struck"] for result in results if result["op"] == "delete"), "deleted words are struck through"
    organizer.screenshot(path=artifacts / "organizer-screen-page-highlights.png", full_page=True)


def test_unsent_ranks_survive_a_reload_and_undo_shows_the_submitted_ones(live_server, new_page, artifacts):
    campaign = long_campaign()
    for _ in range(2):
        add_screen(campaign, 0)
    page = new_page()
    start_judging(page, live_server, campaign, "rosa")
    first_url = page.url
    for position, rank in enumerate([2, 1, 3]):
        page.locator(f"#candidate-{position} label.rank").nth(rank - 1).click()
    page.reload()
    page.wait_for_load_state("domcontentloaded")
    assert page.url == first_url
    assert checked_ranks(page) == ["2", "1", "3", None, None]
    expect(page.locator("#ranked-status")).to_have_text("3 of 5 corrections ranked.")
    page.screenshot(path=artifacts / "judge-reach-restored-after-reload.png")
    page.locator("#candidate-3 label.rank").nth(4).click()
    page.locator("#candidate-4 label.rank").nth(3).click()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#screen-counter")).to_have_text("Screen 2 of 2")

    page.get_by_role("button", name="Undo it").click()
    expect(page.locator("#screen-counter")).to_have_text("Screen 1 of 2")
    page.wait_for_load_state("domcontentloaded")
    assert not Judgment.objects.exists()
    assert checked_ranks(page) == ["2", "1", "3", "5", "4"], "the undone screen shows the ranks that were submitted"
    expect(page.locator("#submit")).to_be_enabled()
    page.screenshot(path=artifacts / "judge-reach-after-undo.png")
    page.locator("#candidate-0 label.rank").nth(0).click()
    page.reload()
    page.wait_for_load_state("domcontentloaded")
    assert checked_ranks(page) == ["1", "1", "3", "5", "4"], "a change after Undo survives a reload too"
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#screen-counter")).to_have_text("Screen 2 of 2")
    assert list(Judgment.objects.get().items.values_list("rank", flat=True)) == [1, 1, 3, 5, 4]
    assert checked_ranks(page) == [None] * 5, "the next screen starts empty"


def test_prws_perfect_key_restore_and_one_banner_after_a_flag(live_server, new_page, artifacts):
    campaign = long_campaign(Campaign.Mode.PRWS)
    for _ in range(2):
        add_screen(campaign, 0)
    page = new_page()
    start_judging(page, live_server, campaign, "pia")
    expect(page.locator("#instruction")).to_contain_text("Score each correction from 0")
    expect(page.locator("#keys-help")).to_contain_text("+ = 100 (Perfect)")
    page.locator("#score-0").focus()
    page.keyboard.press("+")
    expect(page.locator("#score-1")).to_be_focused()
    page.keyboard.press("7")
    page.keyboard.press("m")
    values = page.eval_on_selector_all("input[type=range]", "els => els.map(e => Number(e.value))")
    assert values[:2] == [100, 70]
    page.reload()
    page.wait_for_load_state("domcontentloaded")
    values = page.eval_on_selector_all("input[type=range]", "els => els.map(e => Number(e.value))")
    assert values[:2] == [100, 70]
    assert page.eval_on_selector_all("input.moved", "els => els.map(e => e.value)") == ["1", "1", "", "", ""]
    assert page.locator("#candidate-1 input[type=checkbox]").is_checked()
    expect(page.locator("#ranked-status")).to_have_text("2 of 5 corrections scored.")
    page.screenshot(path=artifacts / "judge-reach-prws-restored.png")

    page.get_by_role("button", name="Flag…").click()
    page.get_by_label("Garbled source sentence").check()
    page.get_by_role("button", name="Flag screen").click()
    expect(page.locator("#screen-counter")).to_have_text("Screen 2 of 2")
    expect(page.locator(".messages")).to_have_count(0)
    expect(page.locator("#undo-form")).to_contain_text("The screen was flagged.")
    assert "saved" not in page.locator("#undo-form").text_content()
    page.screenshot(path=artifacts / "judge-reach-one-banner-after-flag.png")
    page.get_by_role("button", name="Flag…").click()
    page.get_by_label("Garbled source sentence").check()
    page.get_by_role("button", name="Flag screen").click()
    expect(page.locator("#all-done")).to_contain_text("submitted 2 screens, 2 of them flagged")
    expect(page.locator("#undo-form")).to_contain_text("Your last screen was flagged.")


def sentence_spans(page, position: int) -> list[tuple[str, str]]:
    spans = page.eval_on_selector_all(
        f"#sentence-{position} [data-op]", "els => els.map(e => [e.dataset.op, e.textContent])"
    )
    return [tuple(span) for span in spans]


@pytest.mark.parametrize("show_replaced", [True, False])
def test_replaced_words_and_the_organizers_instruction(live_server, new_page, artifacts, show_replaced):
    campaign = long_campaign()
    campaign.show_replaced_words = show_replaced
    campaign.instruction = "" if show_replaced else "Put the best correction first (1); equal ones may share a rank."
    campaign.save()
    add_screen(campaign, 0)
    page = new_page()
    start_judging(page, live_server, campaign, "rhea")
    expected_instruction = campaign.instruction or DEFAULT_INSTRUCTION
    expect(page.locator("#instruction")).to_have_text(expected_instruction)
    for position, text in enumerate(OUTPUTS.values()):
        assert sentence_spans(page, position) == diff_spans(SOURCE, text, show_replaced=show_replaced)
    replaced = page.locator("[data-op=replaced]")
    if not show_replaced:
        expect(replaced).to_have_count(0)
        assert sentence_spans(page, 0) == diff_spans(SOURCE, OUTPUTS["ALPHA"]), "off: G15's display exactly"
    else:
        assert sentence_spans(page, 0)[1:3] == [("replaced", "has argue"), ("replace", "have argued")]
        first = replaced.first
        assert "line-through" in first.evaluate("e => getComputedStyle(e).textDecorationLine")
        assert first.evaluate("e => e.nextElementSibling.dataset.op") == "replace"
    page.screenshot(path=artifacts / f"judge-reach-replaced-words-{'on' if show_replaced else 'off'}.png")


def test_the_screen_number_never_passes_the_total_as_repeats_come(live_server, new_page, artifacts):
    campaign = small_campaign("repeating", repeat_rate=1.0, guidelines="Judge the corrections.")
    campaign.organizers.add(get_user_model().objects.create_user("orga", password="organizer-pw-1"))
    for line in range(6):
        add_screen(campaign, line)
    page = new_page()
    start_judging(page, live_server, campaign, "remy")
    counters = ["Screen 1 of 6", "Screen 2 of 7 (6 + 1 repeat)", "Screen 3 of 8 (6 + 2 repeats)",
                "Screen 4 of 9 (6 + 3 repeats)", "Screen 5 of 10 (6 + 4 repeats)", "Screen 6 of 11 (6 + 5 repeats)",
                "Screen 7 of 12 (6 + 6 repeats)", "Screen 8 of 12 (6 + 6 repeats)"]
    for counter in counters:
        expect(page.locator("#screen-counter")).to_have_text(counter)
        page.wait_for_load_state("domcontentloaded")
        for position in range(page.locator(".candidate").count()):
            page.locator(f"#candidate-{position} label.rank").first.click()
        page.get_by_role("button", name="Submit").click()
    expect(page.locator("#screen-counter")).to_have_text("Screen 9 of 12 (6 + 6 repeats)")
    page.screenshot(path=artifacts / "judge-reach-repeats-apart.png")
