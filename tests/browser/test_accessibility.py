"""Accessibility of gecappraise (WCAG 2.1 AA) in headless Chromium.

- axe-core (the axe-playwright-python package ships it) over the judge's ranking and PRWS screens, their dialogs,
  and the other pages a judge, an organizer or a crowd worker sees: no serious or critical violation.
- What axe does not check, by hand: the focus indicator of every control on the judge's screens has a contrast of
  at least 3:1 with what surrounds it (1.4.11), as have the rank buttons' edges and the sliders not yet moved; every
  control of a correction names its correction; the PRWS screen announces a score once (by the slider), not twice.
- A judge who uses only the keyboard: logs in, opens a screen, ranks every correction (ties), resets, submits,
  undoes, flags; a PRWS judge sets every slider and "Meaning changed" and submits. Focus follows the reading order,
  is always visible and in view, never trapped (the modal dialogs keep it until Escape, then give it back), and
  lands on the sentence when a screen opens (on the message, when the server left one). The single-character
  keys can be kept to a focused correction (2.1.4).
- The organizer's live dashboard can be paused (2.2.2) and does not announce each poll; the crowd worker's
  redirect to the platform can be stopped (2.2.1); a background job's page updates in place instead of reloading.
"""
from __future__ import annotations

import io
import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone
from PIL import Image
from playwright.sync_api import expect

from annotation.models import BackgroundJob, Campaign, Flag, Judgment
from annotation.services.training import add_training_screen
from tests.annotation.factories import add_screen, candidate_of, judge, small_campaign
from tests.browser.session import dashboard_updated, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: WCAG 2.0 and 2.1, levels A and AA.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
PASSWORD = "judge-password-1"

#: What has focus: its id, else name=value, else its text.
FOCUSED = """() => { const e = document.activeElement;
  if (!e || e === document.body) return "body";
  return e.id || (e.name ? `${e.name}=${e.value}` : e.textContent.trim().replace(/\\s+/g, " ").slice(0, 40)); }"""

#: How the focused element shows focus: the outline of the element that draws it (a rank button's box for its
#: hidden radio), the background around that outline, and whether the element is in view and not covered.
FOCUS_RING = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const shown = e.matches(".rank input") ? e.nextElementSibling : e;
  const style = getComputedStyle(shown);
  let background = "rgb(255, 255, 255)";
  for (let a = shown.parentElement; a; a = a.parentElement) {
    const color = getComputedStyle(a).backgroundColor;
    if (color !== "transparent" && !/rgba\\(.*,\\s*0\\)$/.test(color)) { background = color; break; }
  }
  const box = shown.getBoundingClientRect();
  const x = Math.min(Math.max(box.left + box.width / 2, 0), innerWidth - 1);
  const y = Math.min(Math.max(box.top + Math.min(box.height / 2, 10), 0), innerHeight - 1);
  const hit = document.elementFromPoint(x, y);
  return {
    visible: e.matches(":focus-visible"), outline: style.outlineStyle, width: parseFloat(style.outlineWidth),
    color: style.outlineColor, background, inView: box.top >= 0 && box.bottom <= innerHeight,
    uncovered: Boolean(hit) && (e.contains(hit) || hit.contains(e) || shown.contains(hit)),
  };
}"""


def luminance(color: str) -> float:
    red, green, blue = (int(part) / 255 for part in re.findall(r"[\d.]+", color)[:3])
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def axe_violations(page, context=None) -> list[str]:
    """The serious and critical WCAG 2.1 A/AA violations axe-core finds on ``page`` (within ``context``)."""
    options = {"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]}
    found = Axe().run(page, context, options).response["violations"]
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']]}"
            for v in found if v["impact"] in ("serious", "critical")]


def focused(page) -> str:
    return page.evaluate(FOCUSED)


def assert_focus_shown(page) -> None:
    """The focused element shows a focus ring of at least 2 px at 3:1 against its surroundings, in view."""
    ring = page.evaluate(FOCUS_RING)
    where = focused(page)
    assert ring is not None, "focus is lost (on the page's body)"
    assert ring["visible"] and ring["outline"] != "none" and ring["width"] >= 2, f"no focus ring on {where}: {ring}"
    assert contrast(ring["color"], ring["background"]) >= 3, f"focus ring of {where} too faint: {ring}"
    assert ring["inView"] and ring["uncovered"], f"{where} is out of view or covered: {ring}"


def press(page, key: str, expected: str | None = None) -> str:
    """Press ``key``; focus must stay shown (and be on ``expected``, when given)."""
    page.keyboard.press(key)
    if expected is not None:
        for _ in range(20):  # what a key does after a timeout (Reset) has 1 s
            if focused(page) == expected:
                break
            page.wait_for_timeout(50)
        assert focused(page) == expected, f"after {key}: focus on {focused(page)}, not {expected}"
    assert_focus_shown(page)
    return focused(page)


def press_in_turn(page, steps: str) -> None:
    """``press`` each step of ``steps``, one a line ``KEY -> FOCUS``: after KEY, focus must be shown on FOCUS."""
    for step in steps.strip().splitlines():
        key, arrow, expected = (part.strip() for part in step.partition("->"))
        assert arrow and key and expected, f"not a step KEY -> FOCUS: {step!r}"
        press(page, key, expected)


def tab_to(page, target: str, limit: int = 15, key: str = "Tab") -> list[str]:
    """Press Tab (or ``key``) until ``target`` has focus; every stop shows focus. The stops, in order."""
    stops = []
    for _ in range(limit):
        page.keyboard.press(key)
        stops.append(focused(page))
        if stops[-1] != "body":
            assert_focus_shown(page)
        if stops[-1] == target or stops[-1].startswith(target):
            return stops
    raise AssertionError(f"{target} not reached by {key}: {stops}")


def enter_to_next_page(page, key: str = "Enter") -> None:
    with page.expect_navigation():
        page.keyboard.press(key)
    page.wait_for_load_state("domcontentloaded")


def on_arrival(page, expected: str = "#context") -> None:
    """A judge's screen that just opened: focus is on the sentence (or on ``expected``, e.g. the server's message),
    shown, and in view."""
    expect(page.locator("#ranking-form")).to_be_visible()
    page.wait_for_load_state()
    assert page.evaluate("selector => document.activeElement.matches(selector)", expected), (
        f"focus on arrival: {focused(page)}, not {expected}")
    assert_focus_shown(page)


def keyboard_log_in(page, live_server, username: str) -> None:
    page.goto(live_server.url + reverse("login"))
    # The browser runs a page's autofocus at a rendering step after its load event, so the test waits for it.
    expect(page.locator("#id_username")).to_be_focused()
    page.keyboard.type(username)
    press(page, "Tab", "id_password")
    page.keyboard.type(PASSWORD)
    enter_to_next_page(page)
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()


def start_judging(page) -> None:
    """From the judge's home: Tab to "Start judging", open it, acknowledge the guidelines."""
    tab_to(page, "Start judging")
    enter_to_next_page(page)
    tab_to(page, "acknowledge")
    enter_to_next_page(page)


def candidate_rows(page) -> int:
    return page.locator(".candidate").count()


def judging(live_server, new_page, campaign, username: str):
    """A page where ``username`` logged in (by mouse) and acknowledged ``campaign``'s guidelines."""
    page = new_page()
    log_in(page, live_server, username, PASSWORD)
    page.goto(live_server.url + reverse("judge-campaign", args=[campaign.pk]))
    page.get_by_role("button", name="I have read the guidelines").click()
    return page


def first_of_two_screens(live_server, new_page, campaign, username: str):
    """``username`` logs in and starts judging ``campaign``'s two screens by keyboard; returns the page, on the first
    screen as it opens (``on_arrival``), and its number of corrections."""
    for line in (1, 4):
        add_screen(campaign, line)
    page = new_page()
    keyboard_log_in(page, live_server, username)
    start_judging(page)
    expect(page.locator("#screen-counter")).to_have_text("Screen 1 of 2")
    on_arrival(page)
    return page, candidate_rows(page)


def checked_ranks(page) -> list[str | None]:
    return page.eval_on_selector_all(
        ".candidate", "items => items.map(i => { const c = i.querySelector('input:checked'); return c && c.value; })")


@pytest.fixture
def organizer():
    return get_user_model().objects.create_user("orga", password="organizer-pw-1")


@pytest.fixture
def ranking(organizer):
    campaign = small_campaign("ranked", guidelines="Rank the corrections of the **bold** sentence.")
    campaign.organizers.add(organizer)
    judge("judy", campaign, password=PASSWORD)
    return campaign


@pytest.fixture
def prws(organizer):
    campaign = small_campaign("scored", mode=Campaign.Mode.PRWS, guidelines="Score every **correction**.")
    campaign.organizers.add(organizer)
    judge("rita", campaign, password=PASSWORD)
    return campaign


def hand_checks(page) -> None:
    """What axe does not check on a judge's screen: focus rings of every control at 3:1, the edges of the rank
    buttons and of the sliders not yet moved at 3:1, every control of a correction naming it, one live region."""
    controls = page.locator("#ranking-form input:not([type=hidden]), #ranking-form button, #help-open")
    for index in range(controls.count()):
        control = controls.nth(index)
        if control.is_disabled():
            continue
        control.evaluate("e => e.focus({ focusVisible: true })")
        control.scroll_into_view_if_needed()
        assert_focus_shown(page)
    page.evaluate("() => document.activeElement.blur()")
    for position in range(candidate_rows(page)):
        row = page.locator(f"#candidate-{position}")
        background = row.evaluate("e => getComputedStyle(e).backgroundColor")
        for checkbox in row.get_by_role("checkbox").all():
            name = checkbox.evaluate("e => e.labels[0].textContent.replace(/\\s+/g, ' ').trim()")
            assert name.startswith("Meaning changed") and f"correction {position + 1}" in name, name
        edge = row.locator(".rank-value").first
        if edge.count():
            color = edge.evaluate("e => getComputedStyle(e).borderTopColor")
            assert contrast(color, background) >= 3, f"rank button edge {color} on {background}"
        slider = row.locator("input[type=range]")
        if slider.count():
            image = Image.open(io.BytesIO(slider.screenshot())).convert("RGB")
            darkest = min((image.getpixel((x, y)) for x in range(image.width) for y in range(image.height)), key=sum)
            assert contrast("rgb({}, {}, {})".format(*darkest), background) >= 3, (
                f"slider of correction {position + 1} too faint: darkest {darkest} on {background}")
    live = page.eval_on_selector_all(
        "#ranking-form [aria-live], #ranking-form [role=status], #ranking-form [role=alert], #ranking-form output",
        "els => els.filter(e => e.getAttribute('aria-hidden') !== 'true' && e.getAttribute('aria-live') !== 'off')"
        ".map(e => e.id)")
    assert live == ["ranked-status"], f"one live region (the status line) on the screen, not {live}"


def test_the_ranking_screen_and_its_dialogs_pass_axe_and_the_hand_checks(live_server, new_page, ranking):
    shown = [candidate_of(ranking, 4, name) for name in ("ZEPHYRSYS", "INPUT", "QUOKKAGEC")]
    add_training_screen(ranking, ranking.segments.get(line=4), shown, [1, 3, 2], feedback="*problems*: plural.")
    add_screen(ranking, 1)
    page = judging(live_server, new_page, ranking, "judy")
    expect(page.locator(".counter")).to_have_text("Training screen 1 of 1")
    assert axe_violations(page) == [], "training screen"
    for position in range(candidate_rows(page)):
        page.locator(f"#candidate-{position} label.rank").nth(position).click()
    page.locator("#submit").click()
    expect(page.locator("#agreement")).to_be_visible()
    assert axe_violations(page) == [], "training feedback"
    page.get_by_role("link", name="Continue").click()
    expect(page.locator("#screen-counter")).to_have_text("Screen 1 of 1")
    page.wait_for_load_state()
    assert page.evaluate("() => document.activeElement.id === 'context'"
                         " && !document.activeElement.matches(':focus-visible')"), (
        "after a click, the screen opens with focus on the sentence but no focus ring: it looks as before")
    assert axe_violations(page) == [], "ranking screen"
    hand_checks(page)
    page.locator("#candidate-0 label.rank").nth(1).click()
    hand_checks(page)  # a ranked row has its own background
    page.get_by_role("button", name="Flag…").click()
    assert axe_violations(page) == [], "flag dialog"
    page.keyboard.press("Escape")
    page.keyboard.press("?")
    expect(page.locator("#help-dialog")).to_be_visible()
    assert axe_violations(page) == [], "guidelines dialog"


def test_the_prws_screen_passes_axe_and_the_hand_checks(live_server, new_page, prws):
    add_screen(prws, 1)
    page = judging(live_server, new_page, prws, "rita")
    expect(page.locator("#screen-counter")).to_have_text("Screen 1 of 1")
    page.wait_for_load_state()
    assert axe_violations(page) == [], "PRWS screen, sliders unmoved"
    hand_checks(page)
    page.locator("#score-0").focus()
    page.keyboard.press("7")
    expect(page.locator("#value-0")).to_have_text("70")
    assert axe_violations(page) == [], "PRWS screen, a slider moved"
    hand_checks(page)
    assert page.get_by_role("slider", name="Correction 1").get_attribute("aria-valuetext") == "70 of 100"


def test_a_judge_ranks_resets_submits_undoes_and_flags_with_the_keyboard_only(live_server, new_page, ranking):
    # Screen 1: focus starts on the sentence; Tab goes through the corrections in reading order, then the actions.
    page, n = first_of_two_screens(live_server, new_page, ranking, "judy")
    assert n == 4
    stops = tab_to(page, "flag-open")
    assert stops == [f"rank_{k}=1" for k in range(n)] + ["reset", "flag-open"], "Submit is disabled: not a stop"
    stops = tab_to(page, "rank_0=1", limit=20)
    assert stops[:2] == ["body", "Skip to content"] and stops[-2:] == ["help-open", "rank_0=1"], (
        f"Tab leaves the screen and comes round again, no trap: {stops}")

    # The guidelines dialog is modal: Tab goes round its controls (and the browser's), never to the page behind it;
    # Escape closes it and gives focus back.
    page.keyboard.press("?")
    expect(page.locator("#help-dialog")).to_be_visible()
    assert focused(page) == "help-title", "the dialog opens at its top, to be read from there"
    assert_focus_shown(page)
    for _ in range(3):
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.getElementById('help-dialog').contains(document.activeElement)"
                             " || document.activeElement === document.body"), focused(page)
    page.keyboard.press("Escape")
    expect(page.locator("#help-dialog")).to_be_hidden()
    assert focused(page) == "rank_0=1"

    # Ranks by arrows, Space and digits, with ties; Reset clears them and focus goes back to the first correction.
    press_in_turn(page, """
        ArrowRight -> rank_0=2
        Tab        -> rank_1=1
        Space      -> rank_1=1
        ArrowDown  -> rank_2=1
        2          -> rank_3=1
        ArrowUp    -> rank_2=2
    """)
    assert checked_ranks(page) == ["2", "1", "2", None]
    expect(page.locator("#ranked-status")).to_have_text("3 of 4 corrections ranked.")
    tab_to(page, "reset")
    press(page, "Enter", "rank_0=1")
    assert checked_ranks(page) == [None] * n
    expect(page.locator("#ranked-status")).to_have_text("0 of 4 corrections ranked.")
    for digit in "1223":
        page.keyboard.press(digit)
        assert_focus_shown(page)
    assert checked_ranks(page) == ["1", "2", "2", "3"]
    tab_to(page, "submit")
    enter_to_next_page(page)

    # Screen 2 opens with focus on its sentence; the Undo button is just before it.
    expect(page.locator("#screen-counter")).to_have_text("Screen 2 of 2")
    on_arrival(page)
    assert Judgment.objects.count() == 1
    tab_to(page, "undo", key="Shift+Tab", limit=2)
    enter_to_next_page(page)

    # The undone screen 1 is back with its ranks; focus is on the message that says so.
    expect(page.locator("#screen-counter")).to_have_text("Screen 1 of 2")
    on_arrival(page, ".messages")
    expect(page.locator(".messages")).to_contain_text("Judge the screen again")
    assert Judgment.objects.count() == 0 and checked_ranks(page) == ["1", "2", "2", "3"]
    tab_to(page, "submit")
    enter_to_next_page(page)

    # Screen 2 again: flag it from the keyboard. The dialog keeps focus, Escape gives it back to "Flag…".
    expect(page.locator("#screen-counter")).to_have_text("Screen 2 of 2")
    on_arrival(page)
    tab_to(page, "flag-open")
    page.keyboard.press("Enter")
    expect(page.locator("#flag-dialog")).to_be_visible()
    assert focused(page).startswith("flag-reason-"), focused(page)
    assert_focus_shown(page)
    page.keyboard.press("Escape")
    expect(page.locator("#flag-dialog")).to_be_hidden()
    assert focused(page) == "flag-open"
    page.keyboard.press("Enter")
    expect(page.locator("#flag-dialog")).to_be_visible()
    press(page, "Space")
    press(page, "Tab", "flag-details")
    page.keyboard.type("the source is cut off")
    press(page, "Tab", "flag-submit")
    enter_to_next_page(page)
    expect(page.locator("#all-done")).to_contain_text("submitted 2 screens")
    assert Judgment.objects.count() == 2 and Flag.objects.count() == 1
    assert list(Judgment.objects.get(flag__isnull=True).items.values_list("rank", flat=True)) == [1, 2, 2, 3]


def test_a_prws_judge_scores_with_the_keyboard_only(live_server, new_page, prws):
    page, n = first_of_two_screens(live_server, new_page, prws, "rita")
    stops = tab_to(page, "flag-open")
    expected = [stop for k in range(n) for stop in (f"score-{k}", f"meaning_{k}=1")] + ["reset", "flag-open"]
    assert stops == expected, "slider, then its box, correction by correction; then the actions"
    stops = tab_to(page, "score-0", limit=20)
    assert stops[:2] == ["body", "Skip to content"], f"Tab leaves the screen and comes round again: {stops}"

    # Set two sliders, then Reset: every slider is back unmoved and focus is on the first.
    press(page, "End", "score-0")
    press(page, "Tab", "meaning_0=1")
    press(page, "Space", "meaning_0=1")
    tab_to(page, "reset")
    press(page, "Enter", "score-0")
    expect(page.locator("#ranked-status")).to_have_text(f"0 of {n} corrections scored.")
    assert not page.locator("#candidate-0 input[type=checkbox]").is_checked()

    # Arrows, PageDown, typed digits and "+"; the boxes by Space and by "m".
    press_in_turn(page, """
        ArrowRight -> score-0
        ArrowRight -> score-0
        ArrowRight -> score-0
        Tab        -> meaning_0=1
        Space      -> meaning_0=1
        Tab        -> score-1
        PageDown   -> score-1
        Tab        -> meaning_1=1
        Tab        -> score-2
    """)
    page.keyboard.press("3")
    page.keyboard.press("5")
    expect(page.locator("#value-2")).to_have_text("35")
    assert focused(page) == "score-3", "a complete typed score moves on to the next correction"
    assert_focus_shown(page)
    press(page, "+", "score-3")
    press(page, "m", "score-3")
    expect(page.locator("#ranked-status")).to_have_text("Every correction has a score.")
    tab_to(page, "submit")
    enter_to_next_page(page)

    expect(page.locator("#screen-counter")).to_have_text("Screen 2 of 2")
    on_arrival(page)
    stored = list(Judgment.objects.get().items.order_by("position").values_list("score", "meaning_changed"))
    assert stored == [(53, True), (40, False), (35, False), (100, True)]


def test_the_other_pages_pass_axe(live_server, new_page, ranking, organizer):
    """Login, the judge's home and guidelines, the done page; the organizer's campaign list, campaign page (with
    the live dashboard), analyses, rater and screen list pages; the crowd worker's preview, screen and completion
    pages."""
    add_screen(ranking, 1)
    page = new_page()
    page.goto(live_server.url + reverse("login"))
    assert axe_violations(page) == [], "login"
    log_in(page, live_server, "judy", PASSWORD)
    assert axe_violations(page) == [], "judge's home"
    page.goto(live_server.url + reverse("judge-guidelines", args=[ranking.pk]))
    assert axe_violations(page) == [], "guidelines"
    page.get_by_role("button", name="I have read the guidelines").click()
    for position in range(candidate_rows(page)):
        page.locator(f"#candidate-{position} label.rank").nth(position).click()
    page.locator("#submit").click()
    expect(page.locator("#all-done")).to_be_visible()
    assert axe_violations(page) == [], "done"

    desk = new_page()
    log_in(desk, live_server, "orga", "organizer-pw-1")
    desk.goto(live_server.url + reverse("campaign-list"))
    assert axe_violations(desk) == [], "campaign list"
    desk.goto(live_server.url + reverse("campaign-detail", args=[ranking.pk]))
    dashboard_updated(desk)
    assert axe_violations(desk) == [], "campaign page with the dashboard"
    for name in ("campaign-analyses", "campaign-raters", "campaign-screens"):
        desk.goto(live_server.url + reverse(name, args=[ranking.pk]))
        assert axe_violations(desk) == [], name

    crowd = small_campaign("crowd", crowd=True, crowd_session_screens=1,
                           crowd_completion_url="https://app.prolific.com/submissions/complete?cc={code}")
    add_screen(crowd, 1)
    link = live_server.url + reverse("crowd-study-link", args=[crowd.crowd_key])
    worker = new_page()
    worker.context.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="done"))
    worker.goto(link + "?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=3XYZ")
    assert axe_violations(worker) == [], "crowd preview"
    worker.goto(link + "?workerId=A2WORKER&assignmentId=3ASSIGN&hitId=3HIT")
    assert axe_violations(worker) == [], "crowd start page"
    worker.get_by_role("button", name="Start", exact=True).click()
    expect(worker.locator("#source")).to_be_visible()
    assert axe_violations(worker) == [], "crowd screen"
    worker.wait_for_load_state()
    for position in range(candidate_rows(worker)):
        worker.locator(f"#candidate-{position} label.rank").nth(position).click()
    worker.locator("#submit").click()
    expect(worker.locator("#completion-code")).to_be_visible()
    assert axe_violations(worker) == [], "crowd completion"


def test_the_dashboard_can_be_paused_and_announces_no_routine_poll(live_server, new_page, ranking):
    """WCAG 2.2.2: the dashboard updates itself every 5 s, so the organizer can pause it (from the keyboard); the
    time of each poll is shown, not announced; only a failed update (and the recovery) would be."""
    add_screen(ranking, 1)
    polls = []
    page = new_page()
    page.on("request", lambda request: "dashboard.json" in request.url and polls.append(request.url))
    log_in(page, live_server, "orga", "organizer-pw-1", reverse("campaign-detail", args=[ranking.pk]))
    dashboard_updated(page)
    page.wait_for_timeout(6000)
    assert len(polls) >= 2
    live = page.eval_on_selector_all(
        "#dashboard [aria-live], #dashboard [role=status], #dashboard [role=alert]",
        "els => els.map(e => [e.id, e.textContent.trim()])")
    assert dict(live) == {"dashboard-announce": "", "stopping-hint": dict(live)["stopping-hint"]}, (
        f"no live region but the announcements and the stopping hint: {live}")
    assert not dict(live)["dashboard-announce"], "a routine poll is not announced"

    pause = page.get_by_role("button", name="Pause updates")
    pause.focus()
    page.keyboard.press("Enter")
    expect(pause).to_have_attribute("aria-pressed", "true")
    assert_focus_shown(page)
    expect(page.locator("#dashboard-status")).to_have_text(re.compile(r"^Paused\. Last update "))
    page.wait_for_timeout(300)
    paused_at = len(polls)
    page.wait_for_timeout(6000)
    assert len(polls) == paused_at, "no poll while paused"
    page.keyboard.press("Space")
    expect(pause).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#dashboard-status")).to_have_text(re.compile(r"^Last update "))
    assert len(polls) > paused_at, "resuming updates at once"


def test_the_crowd_worker_can_stay_on_the_completion_page(live_server, new_page, artifacts):
    """WCAG 2.2.1: the completion page takes the worker back to the platform after 3 s, as before, unless the
    worker stays (a button, a key); the worker hears where they are taken."""
    crowd = small_campaign("crowd", crowd=True, crowd_session_screens=1,
                           crowd_completion_url="https://app.prolific.com/submissions/complete?cc={code}")
    add_screen(crowd, 1)
    add_screen(crowd, 4)
    link = live_server.url + reverse("crowd-study-link", args=[crowd.crowd_key])
    platform = []

    def finish(page, worker: str) -> None:
        page.context.route("https://app.prolific.com/**", lambda route: (
            platform.append(route.request.url), route.fulfill(status=200, body="<h1>Prolific</h1>")))
        page.goto(f"{link}?PROLIFIC_PID={worker}&STUDY_ID=st01&SESSION_ID=se01")
        page.get_by_role("button", name="Start", exact=True).click()
        page.wait_for_load_state()
        for position in range(candidate_rows(page)):
            page.locator(f"#candidate-{position} label.rank").nth(position).click()
        page.locator("#submit").click()
        expect(page.locator("#completion-code")).to_be_visible()

    staying = new_page()
    finish(staying, "WORKERSTAYS")
    expect(staying.locator("#redirect-announce")).to_contain_text("taken back to the platform in 3 seconds")
    staying.keyboard.press("Tab")
    staying.wait_for_timeout(4000)
    assert platform == [] and "/done/" in staying.url, "a key keeps the worker on the page"
    expect(staying.locator("#redirect-note")).to_have_text("You stay on this page.")
    expect(staying.get_by_role("button", name="Stay on this page")).to_be_hidden()
    expect(staying.locator("#completion-link")).to_be_visible()

    leaving = new_page()
    finish(leaving, "WORKERLEAVES")
    leaving.wait_for_url(re.compile(r"app\.prolific\.com"), timeout=10_000)
    assert len(platform) == 1


def test_single_keys_can_be_kept_to_a_focused_correction(live_server, new_page, ranking):
    """WCAG 2.1.4: the single-character keys (digits, "?") act anywhere on the page unless the judge unticks "Single
    keys work anywhere on the page" in the guidelines dialog; then only while a correction has focus. Kept."""
    add_screen(ranking, 1)
    page = new_page()
    keyboard_log_in(page, live_server, "judy")
    start_judging(page)
    on_arrival(page)
    n = candidate_rows(page)
    page.keyboard.press("?")
    expect(page.locator("#help-dialog")).to_be_visible()
    tab_to(page, "keys-anywhere")
    press(page, "Space", "keys-anywhere")
    expect(page.get_by_label("Single keys work anywhere on the page")).not_to_be_checked()
    page.keyboard.press("Escape")
    expect(page.locator("#help-dialog")).to_be_hidden()
    assert focused(page) == "context"
    for key in ("3", "?"):
        page.keyboard.press(key)
    expect(page.locator("#help-dialog")).to_be_hidden()
    assert checked_ranks(page) == [None] * n, "no correction has focus: the keys do nothing"
    press(page, "Tab", "rank_0=1")
    press(page, "2", "rank_1=1")
    assert checked_ranks(page)[:2] == ["2", None], "a correction has focus: its keys work"

    page.reload()
    page.wait_for_load_state()
    page.keyboard.press("4")
    assert checked_ranks(page)[1:] == [None] * (n - 1)
    page.get_by_role("button", name="Guidelines").click()
    expect(page.get_by_label("Single keys work anywhere on the page")).not_to_be_checked()


def test_a_background_jobs_page_updates_in_place_instead_of_reloading(live_server, new_page, organizer, settings):
    """The page of a job not finished reloaded itself every 2 s (a meta refresh: axe's critical meta-refresh, and
    focus back at the top each time); it now updates its status in place, a live region, until the job ends."""
    settings.ANALYSIS_EXECUTION = "celery"  # nobody runs the job: the test finishes it
    job = BackgroundJob.objects.create(kind=BackgroundJob.Kind.APPRAISE_XML, requested_by=organizer)
    page = new_page()
    log_in(page, live_server, "orga", "organizer-pw-1", reverse("background-job", args=[job.pk]))
    expect(page.locator("#job-status")).to_contain_text("Queued: waiting for a worker")
    assert axe_violations(page) == []
    page.evaluate("() => { window.stillTheSamePage = true; }")
    tab_to(page, "← Campaigns")  # the organizer is somewhere on the page: an update must not move them
    BackgroundJob.objects.filter(pk=job.pk).update(
        status=BackgroundJob.Status.FAILED, error="judgments.xml: not Appraise XML", finished_at=timezone.now())
    expect(page.locator("#job-status")).to_contain_text("Failed: nothing was imported.", timeout=8000)
    expect(page.locator("#job-error")).to_have_text("judgments.xml: not Appraise XML")
    assert page.evaluate("() => window.stillTheSamePage === true"), "updated without a reload"
    assert focused(page) == "← Campaigns", "focus stays where it was"
    assert page.locator("#job-status").get_attribute("role") == "status"
