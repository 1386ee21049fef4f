"""The judge's ranking screen in headless Chromium: the whole flow from an invite link, keyboard use, ties,
reload, double click, back button, flag, undo, the help key, the diff highlighting, and the layout at 1280x800
and at tablet width. Screenshots go to test-artifacts/."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from annotation.models import Assignment, Flag, Judgment, TrainingAnswer
from annotation.services import queue
from annotation.services.collapsing import diff_spans
from annotation.services.importing import import_outputs
from annotation.services.invites import create_invite
from annotation.services.textfiles import NamedFile
from annotation.services.training import add_training_screen
from tests.annotation.factories import SOURCE, SYSTEM_NAMES, add_screen, candidate_of, judge, small_campaign
from tests.browser.session import log_in

from .conftest import TABLET

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GUIDELINES = "Rank the corrections of the **bold** sentence from best (1) to worst (5). Ties are allowed."


@pytest.fixture
def campaign():
    organizer = get_user_model().objects.create_user("orga", password="organizer-pw-1")
    campaign = small_campaign(guidelines=GUIDELINES)
    campaign.organizers.add(organizer)
    return campaign


def join_by_invite(page, live_server, campaign, username: str) -> None:
    _, secret = create_invite(campaign, username, campaign.organizers.get())
    page.goto(live_server.url + reverse("invite", args=[secret]))
    page.get_by_role("button", name=f"Continue as {username}").click()


def on_screen(page, k: int, n: int) -> None:
    """Wait for "screen k of n" with the page's script running (module scripts run before DOMContentLoaded)."""
    expect(page.locator("#screen-counter")).to_have_text(f"Screen {k} of {n}")
    page.wait_for_load_state("domcontentloaded")


def rank_by_clicks(page, ranks) -> None:
    for position, rank in enumerate(ranks):
        page.locator(f"#candidate-{position} label.rank").nth(rank - 1).click()


def checked_ranks(page) -> list[str | None]:
    return page.eval_on_selector_all(
        ".candidate",
        "items => items.map(i => { const c = i.querySelector('input:checked'); return c ? c.value : null; })",
    )


def test_invite_three_screens_tie_reload_double_click_back_and_flag(live_server, new_page, artifacts, campaign):
    screens = [add_screen(campaign, line) for line in (1, 4, 2)]
    page = new_page()
    join_by_invite(page, live_server, campaign, "judy")
    expect(page.locator("#guidelines strong")).to_have_text("bold")
    page.get_by_role("button", name="I have read the guidelines").click()

    on_screen(page, 1, 3)
    expect(page.locator("#source strong")).to_have_text(SOURCE[1])
    expect(page.locator("#context-before")).to_have_text(SOURCE[0])
    expect(page.locator("#submit")).to_be_disabled()
    page.locator("#candidate-0 input").first.focus()
    for digit in "2122":
        page.keyboard.press(digit)
    assert checked_ranks(page) == ["2", "1", "2", "2"], "digits rank the focused correction, then move on; ties allowed"
    expect(page.locator("#submit")).to_be_enabled()
    page.screenshot(path=artifacts / "judge-screen-ranking-1280x800.png")
    page.keyboard.press("Enter")

    on_screen(page, 2, 3)
    second_url = page.url
    rank_by_clicks(page, [1, 3])
    expect(page.locator("#ranked-status")).to_have_text("2 of 4 corrections ranked.")
    page.reload()
    assert page.url == second_url
    on_screen(page, 2, 3)
    page.get_by_role("button", name="Reset").click()
    rank_by_clicks(page, [1, 3, 2, 4])
    page.locator("#submit").dblclick()
    on_screen(page, 3, 3)
    expect(page.locator(".messages")).to_have_count(0)

    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    repost = page.request.post(
        second_url,
        form={"csrfmiddlewaretoken": csrf, "rank_0": "4", "rank_1": "4", "rank_2": "4", "rank_3": "4"},
        headers={"Referer": second_url},
    )
    assert repost.ok and "saved already; this second submission was not stored" in repost.text()

    page.go_back()
    on_screen(page, 3, 3)
    expect(page.locator(".messages")).to_contain_text("submitted that screen already")

    page.get_by_role("button", name="Flag…").click()
    expect(page.locator("#flag-dialog")).to_be_visible()
    page.get_by_label("Garbled source sentence").check()
    page.get_by_label("Details (optional)").fill("the source is cut off")
    page.screenshot(path=artifacts / "judge-screen-flagged-1280x800.png")
    page.get_by_role("button", name="Flag screen").click()
    expect(page.locator("#all-done")).to_contain_text("submitted 3 screens")

    judgments = {j.assignment.screen_id: j for j in Judgment.objects.select_related("assignment")}
    assert set(judgments) == {screen.pk for screen in screens}
    assert Judgment.objects.count() == 3
    ranks = [list(judgments[s.pk].items.values_list("rank", flat=True)) for s in screens]
    assert ranks == [[2, 1, 2, 2], [1, 3, 2, 4], []]
    assert Flag.objects.get().judgment == judgments[screens[2].pk]
    assert Flag.objects.get().reason == "Garbled source sentence: the source is cut off"
    for judgment in judgments.values():
        assert judgment.assignment.judge.username == "judy"
        assert judgment.duration.total_seconds() > 0
        assert judgment.active_time is not None and judgment.active_time <= judgment.duration
    assert not Assignment.objects.exclude(status=Assignment.Status.SUBMITTED).exists()


def test_highlighted_spans_in_the_dom_match_the_diff(live_server, new_page, campaign):
    names = ("MARMOTFIX", "INPUT", "ZEPHYRSYS", "QUOKKAGEC")
    shown = [candidate_of(campaign, 1, name) for name in names]
    add_screen(campaign, 1, shown)
    page = new_page()
    join_by_invite(page, live_server, campaign, "judy")
    page.get_by_role("button", name="I have read the guidelines").click()
    on_screen(page, 1, 1)
    for position, candidate in enumerate(shown):
        spans = page.eval_on_selector_all(
            f"#sentence-{position} [data-op]", "els => els.map(e => [e.dataset.op, e.textContent])"
        )
        assert [tuple(span) for span in spans] == diff_spans(SOURCE[1], candidate.text, show_replaced=True)
    inserted = page.locator("#sentence-2 ins").first
    assert inserted.evaluate("e => getComputedStyle(e).color") == "rgb(11, 79, 208)"
    deleted = page.locator("#sentence-3 del").first
    assert "line-through" in deleted.evaluate("e => getComputedStyle(e).textDecorationLine")
    assert page.locator(".sentence script, .sentence b, #source script").count() == 0
    assert page.dialogs == [], "no script from the sentences ran"
    html = page.content()
    assert not any(name in html for name in SYSTEM_NAMES)


def lena_logged_in(campaign, live_server, new_page, lines, next_url=""):
    """Lena, a judge with a password, logged in (and sent on to ``next_url``) with a screen of each of ``lines`` of
    the campaign, whose guidelines are emptied so that nothing stands before them."""
    campaign.guidelines = ""
    campaign.save()
    judge("lena", campaign, password="lena-password-1")
    for line in lines:
        add_screen(campaign, line)
    page = new_page()
    log_in(page, live_server, "lena", "lena-password-1", next_url)
    return page


def test_undo_help_key_login_and_logout(live_server, new_page, artifacts, campaign):
    page = lena_logged_in(campaign, live_server, new_page, (1, 4))
    page.get_by_role("link", name=re.compile("Start judging")).click()
    on_screen(page, 1, 2)
    first_url = page.url

    page.keyboard.press("?")
    expect(page.locator("#help-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#help-dialog")).to_be_hidden()

    page.locator("#candidate-0 input").first.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    expect(page.locator("#ranked-status")).to_have_text(re.compile("Give every correction a rank first"))
    assert page.url == first_url and not Judgment.objects.exists()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    for digit in "1245":
        page.keyboard.press(digit)
    assert checked_ranks(page) == ["1", "2", "4", "5"], "arrows move, digits overwrite and move on"
    page.get_by_role("button", name="Submit").click()
    on_screen(page, 2, 2)
    assert Judgment.objects.count() == 1

    page.get_by_role("button", name="Undo it").click()
    on_screen(page, 1, 2)
    expect(page.locator("#source strong")).to_have_text(SOURCE[1])
    assert page.url != first_url, "the undone screen is served under a new token"
    assert Judgment.objects.count() == 0
    rank_by_clicks(page, [4, 4, 1, 1])
    page.get_by_role("button", name="Submit").click()
    on_screen(page, 2, 2)
    assert list(Judgment.objects.get().items.values_list("rank", flat=True)) == [4, 4, 1, 1]

    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()


def test_the_screen_fits_a_tablet_and_a_laptop(live_server, new_page, artifacts, campaign):
    campaign.guidelines = ""
    campaign.save()
    judge("tess", campaign, password="tess-password-1")
    add_screen(campaign, 1)
    for viewport, name in ((TABLET, "768x1024"), (None, "1280x800")):
        page = new_page(viewport)
        log_in(page, live_server, "tess", "tess-password-1")
        page.get_by_role("link", name=re.compile("judging")).click()
        on_screen(page, 1, 1)
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"horizontal scrolling at {name}"
        submit = page.locator("#submit").bounding_box()
        assert submit["y"] + submit["height"] <= page.viewport_size["height"], f"Submit is below the fold at {name}"
        page.screenshot(path=artifacts / f"judge-screen-{name}.png", full_page=True)
        labels = page.eval_on_selector_all(
            "input, button, textarea, select",
            "els => els.filter(e => e.type !== 'hidden' && !e.labels?.length && !e.getAttribute('aria-label')"
            " && !e.textContent.trim() && !e.closest('[aria-labelledby]')).length",
        )
        assert labels == 0, "every control has a label"


def test_training_screen_and_its_feedback(live_server, new_page, artifacts, campaign):
    shown = [candidate_of(campaign, 4, name) for name in ("ZEPHYRSYS", "INPUT", "QUOKKAGEC")]
    add_training_screen(campaign, campaign.segments.get(line=4), shown, [1, 3, 2], feedback="*problems*: plural.")
    add_screen(campaign, 1)
    page = new_page()
    join_by_invite(page, live_server, campaign, "trish")
    page.get_by_role("button", name="I have read the guidelines").click()
    expect(page.locator(".counter")).to_have_text("Training screen 1 of 1")
    page.wait_for_load_state("domcontentloaded")
    rank_by_clicks(page, [1, 2, 3])
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#agreement")).to_have_text(
        "You ordered 67% of the pairs of corrections as the organizers did."
    )
    expect(page.locator(".feedback-text em")).to_have_text("problems")
    page.screenshot(path=artifacts / "judge-training-feedback-1280x800.png")
    page.get_by_role("link", name="Continue").click()
    on_screen(page, 1, 1)
    assert TrainingAnswer.objects.get().ranks == [1, 2, 3] and not Judgment.objects.exists()


def test_a_training_screen_sends_no_lease_request(live_server, new_page, campaign):
    """A training screen has no lease (no leaseUrl in its config): its page posts nothing while the judge works. It
    used to post to ".../training/undefined" without pause, the interval's delay being NaN."""
    shown = [candidate_of(campaign, 4, name) for name in ("ZEPHYRSYS", "INPUT", "QUOKKAGEC")]
    add_training_screen(campaign, campaign.segments.get(line=4), shown, [1, 3, 2])
    page = new_page()
    join_by_invite(page, live_server, campaign, "tina")
    page.get_by_role("button", name="I have read the guidelines").click()
    expect(page.locator(".counter")).to_have_text("Training screen 1 of 1")
    page.wait_for_load_state("domcontentloaded")
    posted = []
    page.on("request", lambda request: request.method == "POST" and posted.append(request.url))
    for step in range(10):  # a judge reading and moving the pointer for a second
        page.mouse.move(100 + 10 * step, 300)
        page.wait_for_timeout(100)
    assert posted == []


def test_an_active_judge_keeps_the_screen_past_its_lease(live_server, new_page, campaign, settings):
    """screen.js renews the lease while the judge works, so a long screen is not given to someone else."""
    settings.JUDGE_LEASE_MINUTES = 0.05  # a 3 s lease, renewed every 0.75 s of activity
    add_screen(campaign, 0)
    page = new_page()
    join_by_invite(page, live_server, campaign, "slow")
    page.get_by_role("button", name="I have read the guidelines").click()
    on_screen(page, 1, 1)
    assignment = Assignment.objects.get(judge__username="slow", status=Assignment.Status.SERVED)
    first_lease = assignment.lease_expires_at
    for step in range(25):  # 5 s of a judge reading and moving the pointer
        page.mouse.move(100 + 10 * step, 300)
        page.wait_for_timeout(200)
    assignment.refresh_from_db()
    assert assignment.lease_expires_at > first_lease + timedelta(seconds=1)
    assert assignment.lease_expires_at > timezone.now()
    rank_by_clicks(page, [1, 2, 3])
    page.get_by_role("button", name="Submit").click()
    page.wait_for_url(re.compile(r"/done/"))  # the test ends on a loaded page, with no request of it under way
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED


def _give_to_another_judge(campaign, token) -> Assignment:
    """Let the lease of the screen served as ``token`` run out and another judge claim it (a new token)."""
    Assignment.objects.filter(token=token).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    other = queue.next_assignment(campaign, judge("quick", campaign))
    assert other.token != token and Assignment.objects.filter(pk=other.pk, judge=other.judge).exists()
    return other


def test_a_screen_given_away_in_the_background_says_so_when_the_judge_comes_back(live_server, new_page, campaign):
    """A tab left in the background past its lease: another judge claimed the screen. Coming back to the page (it
    shows again) asks about the lease at once, and the page says the screen is gone, with the way to the judge's
    current one, for good: ranking on does not take the message away nor enable Submit, and Enter submits nothing.
    The message used to come with the next heartbeat (a quarter lease of activity later, 7.5 minutes by default)
    in the status line, which the next click rewrote to "Every correction has a rank." with Submit enabled: the
    judge ranked the screen and lost it at the refused submit."""
    for line in (1, 4):
        add_screen(campaign, line)
    page = new_page()
    page.clock.install()  # the page's own clock, to be moved on by the ten minutes it spends in the background
    join_by_invite(page, live_server, campaign, "lena")
    page.get_by_role("button", name="I have read the guidelines").click()
    on_screen(page, 1, 2)
    token = page.url.rstrip("/").split("/")[-1]
    rank_by_clicks(page, [1])
    claimed = _give_to_another_judge(campaign, token)

    page.clock.fast_forward("10:00")  # no heartbeat meanwhile: the judge did nothing on the page
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")  # the tab shows again
    gone = page.locator("#screen-gone")
    expect(gone).to_be_visible()
    expect(gone).to_contain_text("given to another judge")
    expect(page.locator("#submit")).to_be_disabled()
    expect(page.locator("#flag-open")).to_be_disabled()
    rank_by_clicks(page, [1, 2, 3, 4])
    expect(page.locator("#ranked-status")).to_have_text("Every correction has a rank.")
    expect(gone).to_be_visible()
    expect(page.locator("#submit")).to_be_disabled()
    page.locator("#candidate-3 input").first.focus()
    page.keyboard.press("Enter")
    expect(gone).to_be_visible()
    assert page.url.rstrip("/").endswith(token) and not Judgment.objects.exists()

    page.get_by_role("link", name="Go to your current screen").click()
    on_screen(page, 1, 1)
    assert page.url.rstrip("/").split("/")[-1] not in (token, str(claimed.token))
    expect(page.locator("#screen-gone")).to_be_hidden()
    assert Assignment.objects.get(pk=claimed.pk).judge.username == "quick"


def test_the_heartbeat_of_an_active_judge_tells_a_screen_undone_in_another_tab(live_server, new_page, campaign):
    """The heartbeat (every quarter lease of activity) finds the screen undone in another tab: the page says so and
    submits nothing."""
    for line in (1, 4):
        add_screen(campaign, line)
    page = new_page()
    page.clock.install()
    join_by_invite(page, live_server, campaign, "lena")
    page.get_by_role("button", name="I have read the guidelines").click()
    on_screen(page, 1, 2)
    rank_by_clicks(page, [1, 2, 3, 4])
    page.get_by_role("button", name="Submit").click()
    on_screen(page, 2, 2)
    other_tab = page.context.new_page()
    other_tab.goto(page.url)
    other_tab.get_by_role("button", name="Undo it").click()
    expect(other_tab.locator("#screen-counter")).to_have_text("Screen 1 of 2")

    page.mouse.move(200, 300)  # the judge works on the first tab through the next heartbeat (7.5 minutes)
    page.clock.run_for("07:31")
    expect(page.locator("#screen-gone")).to_contain_text("undone")
    expect(page.locator("#submit")).to_be_disabled()
    assert Judgment.objects.count() == 0


def test_right_to_left_sentences_read_right_to_left_beside_left_to_right_ones(live_server, new_page):
    """Hebrew and Arabic sentences are laid out right to left (dir="auto" on each sentence): the full stop ends the
    sentence on its left. Without it they were left-to-right paragraphs of an English page, whose full stop stood
    at the right end, before the sentence's first word as it is read, and ended every correction there too."""
    hebrew = ["הילד הלכו לבית הספר .", "זה ספר טוב ."]
    arabic_line = "ذهبت الولد إلى المدرسة ."
    source = NamedFile("INPUT", ("\n".join([*hebrew, arabic_line, "He go home ."]) + "\n").encode())
    outputs = {
        "SYSA": ["הילד הלך לבית הספר .", "זה ספר טוב .", "ذهب الولد إلى المدرسة .", "He goes home ."],
        "SYSB": ["הילדים הלכו לבית הספר .", "זה הספר טוב .", "ذهب الولد الى المدرسة .", "He went home ."],
    }
    systems = [NamedFile(name, ("\n".join(lines) + "\n").encode()) for name, lines in outputs.items()]
    documents = NamedFile("documents", b"d1\nd1\nd2\nd3\n")
    campaign = import_outputs("rtl", source, systems, documents, source_is_system=True, guidelines="")
    campaign.organizers.add(get_user_model().objects.create_user("orga", password="organizer-pw-1"))
    for line in (0, 3):
        add_screen(campaign, line)
    page = new_page()
    join_by_invite(page, live_server, campaign, "rina")
    on_screen(page, 1, 2)

    def direction(selector: str) -> str:
        return page.locator(selector).evaluate("e => getComputedStyle(e).direction")

    for selector in ("#source", "#context-after", *(f"#sentence-{k}" for k in range(3))):
        assert direction(selector) == "rtl", selector
    stop = page.locator("#sentence-0 [data-op]").last
    first = page.locator("#sentence-0 [data-op]").first
    assert stop.bounding_box()["x"] < first.bounding_box()["x"], "the sentence's first words stand on the right"
    rank_by_clicks(page, [1, 2, 3])
    page.get_by_role("button", name="Submit").click()
    on_screen(page, 2, 2)
    for selector in ("#source", "#sentence-0", "#sentence-1"):
        assert direction(selector) == "ltr", selector


def test_a_session_ended_in_another_tab_is_told_before_the_judge_submits_and_the_ranks_come_back(
    live_server, new_page, campaign
):
    """The judge logs out in another tab: coming back to the screen, the page asks about its lease at once, hears
    that the login session ended (401), says so for good with the way back (log in again), and submits and flags
    nothing; logging in again from the notice brings the screen back with the ranks given. The page used to find
    nothing wrong (the lease request was sent on to the login page, which it ignored), so Submit led to a plain
    login page that said nothing of the ranks sent."""
    page = lena_logged_in(campaign, live_server, new_page, (1, 4), reverse("judge-campaign", args=[campaign.pk]))
    on_screen(page, 1, 2)
    screen_url = page.url
    rank_by_clicks(page, [2, 1, 3])

    other_tab = page.context.new_page()
    other_tab.goto(live_server.url + reverse("judge-home"))
    other_tab.get_by_role("button", name="Log out").click()
    expect(other_tab.get_by_role("heading", name="Log in")).to_be_visible()
    page.bring_to_front()
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")  # the tab shows again

    ended = page.locator("#screen-gone")
    expect(ended).to_be_visible()
    expect(ended).to_contain_text("Your login session has ended")
    expect(ended).to_contain_text("Log in again")
    expect(page.locator("#submit")).to_be_disabled()
    expect(page.locator("#flag-open")).to_be_disabled()
    rank_by_clicks(page, [2, 1, 3, 4])
    expect(page.locator("#submit")).to_be_disabled()
    page.locator("#candidate-3 input").first.focus()
    page.keyboard.press("Enter")
    expect(ended).to_be_visible()
    assert page.url == screen_url and not Judgment.objects.exists()

    page.get_by_role("link", name="Log in again").click()
    expect(page.locator("#login-reason")).to_contain_text("Log in again to go back to your judging page")
    page.get_by_label("Username").fill("lena")
    page.get_by_label("Password").fill("lena-password-1")
    page.get_by_role("button", name="Log in").click()
    on_screen(page, 1, 2)
    assert page.url == screen_url
    assert checked_ranks(page) == ["2", "1", "3", "4"], "the ranks given before come back"
    expect(page.locator("#screen-gone")).to_be_hidden()
    page.get_by_role("button", name="Submit").click()
    on_screen(page, 2, 2)
    assert list(Judgment.objects.get().items.values_list("rank", flat=True)) == [2, 1, 3, 4]


def test_a_login_again_in_another_tab_is_told_before_the_judge_submits_a_page_of_the_old_login(
    live_server, new_page, campaign
):
    """The judge logs out and in again in another tab: the login gave the browser a new CSRF token, so this page's
    form would be refused. Coming back, the page says so for good and how to go on (reload it), and the reload
    brings the ranks back. It used to let the judge submit into the 'form has expired' page."""
    page = lena_logged_in(campaign, live_server, new_page, (1,), reverse("judge-campaign", args=[campaign.pk]))
    on_screen(page, 1, 1)
    screen_url = page.url
    rank_by_clicks(page, [1, 2, 3, 4])

    other_tab = page.context.new_page()
    other_tab.goto(live_server.url + reverse("judge-home"))
    other_tab.get_by_role("button", name="Log out").click()
    log_in(other_tab, live_server, "lena", "lena-password-1")
    page.bring_to_front()
    page.evaluate("window.dispatchEvent(new Event('focus'))")  # the window has focus again

    expired = page.locator("#screen-gone")
    expect(expired).to_contain_text("logged in or out in another tab")
    expect(page.locator("#submit")).to_be_disabled()
    page.get_by_role("link", name="Reload this screen").click()
    on_screen(page, 1, 1)
    assert page.url == screen_url and checked_ranks(page) == ["1", "2", "3", "4"]
    page.get_by_role("button", name="Submit").click()
    page.wait_for_url(re.compile(r"/done/"))
    assert Judgment.objects.count() == 1


def test_a_judge_without_a_password_whose_session_ended_is_told_to_ask_for_a_new_invite_link(
    live_server, new_page, campaign
):
    """A judge who joined by an invite link and set no password cannot log in again: when their session ends with a
    screen open, the page says to ask the organizer for a new invite link, and offers no login it cannot use. It
    said "Log in again", which led to a login page that took no password of theirs."""
    add_screen(campaign, 1)
    page = new_page()
    join_by_invite(page, live_server, campaign, "ivy")
    page.get_by_role("button", name="I have read the guidelines").click()
    on_screen(page, 1, 1)
    other_tab = page.context.new_page()
    other_tab.goto(live_server.url + reverse("judge-home"))
    other_tab.get_by_role("button", name="Log out").click()
    page.bring_to_front()
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")

    ended = page.locator("#screen-gone")
    expect(ended).to_contain_text("ask the campaign's organizer for a new invite link")
    expect(page.locator("#screen-gone-link")).to_be_hidden()
    expect(page.locator("#submit")).to_be_disabled()


def test_a_screen_submitted_in_another_tab_says_so_when_the_judge_comes_back_to_this_one(
    live_server, new_page, campaign
):
    """The same screen open in two tabs, submitted in the first: coming back to the second, the page says the screen
    was submitted already, submits nothing and links to the judge's current screen. Its lease request answered 204
    for a submitted screen, so the judge could rank it all again in the second tab and lose that at the submit
    ('this second submission was not stored')."""
    for line in (1, 4):
        add_screen(campaign, line)
    page = new_page()
    join_by_invite(page, live_server, campaign, "lena")
    page.get_by_role("button", name="I have read the guidelines").click()
    on_screen(page, 1, 2)
    second_tab = page.context.new_page()
    second_tab.goto(page.url)
    expect(second_tab.locator("#screen-counter")).to_have_text("Screen 1 of 2")
    second_tab.wait_for_load_state("domcontentloaded")
    page.bring_to_front()
    rank_by_clicks(page, [1, 2, 3, 4])
    page.get_by_role("button", name="Submit").click()
    on_screen(page, 2, 2)

    second_tab.bring_to_front()
    second_tab.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    gone = second_tab.locator("#screen-gone")
    expect(gone).to_contain_text("You submitted this screen already, in another tab")
    expect(second_tab.locator("#submit")).to_be_disabled()
    second_tab.get_by_role("link", name="Go to your current screen").click()
    expect(second_tab.locator("#screen-counter")).to_have_text("Screen 2 of 2")
    assert Judgment.objects.count() == 1


def test_with_ranks_up_to_10_the_key_0_ranks_10_as_the_keys_help_says(live_server, new_page):
    """A campaign with ranks 1 to 10 (M = 10): the key 0 gives rank 10 (worst), as the help line says ("0 = 10").
    The help said "1-10", and a judge typing 1 then 0 for "worst" gave the correction rank 1 (best), 0 doing
    nothing."""
    campaign = small_campaign("ten", max_candidates=10, guidelines="")
    add_screen(campaign, 1)
    campaign.organizers.add(get_user_model().objects.create_user("orga10", password="pw-10-orga"))
    page = new_page()
    join_by_invite(page, live_server, campaign, "tess")
    on_screen(page, 1, 1)
    expect(page.locator("#keys-help")).to_contain_text("1–9 and 0 (= 10) rank the focused correction")
    page.locator("#candidate-0 input").first.focus()
    for key in "0932":
        page.keyboard.press(key)
    assert checked_ranks(page) == ["10", "9", "3", "2"]
