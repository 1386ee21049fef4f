"""The organizer's judging pages over HTTP (Django test client, PostgreSQL): invite links (shown once, revoked,
and from ``manage.py invite``), guidelines with preview, training screens, attention checks, the per-judge panel
of the campaign page, and that only a campaign's organizers reach any of it, with CSRF, writing nothing on bad
input."""
from __future__ import annotations

import html
import re
from datetime import timedelta
from io import StringIO

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import (
    BackgroundJob,
    Campaign,
    GuidelinesAcknowledgement,
    Invite,
    ScreenCandidate,
    System,
    TrainingAnswer,
    TrainingCandidate,
    TrainingScreen,
)
from annotation.random_streams import campaign_rng
from annotation.services import attention_requests, background_jobs, guidelines, queue
from annotation.services.attention import add_attention_checks
from annotation.services.importing import import_outputs
from annotation.services.invites import InviteError, create_invite, digest, redeem_invite, revoke_invite
from annotation.services.judging_overview import attention_coverage, campaign_progress, judge_activity
from annotation.services.textfiles import NamedFile
from annotation.services.training import (
    ONE_IS_NOT_RANKED,
    add_training_screen,
    answer_training,
    remove_training_screen,
)

from .factories import add_screen, candidate_of, judge, login, small_campaign

pytestmark = pytest.mark.django_db
User = get_user_model()
LINK = re.compile(r'value="(http://testserver/invite/[A-Za-z0-9_-]+/)"')


@pytest.fixture
def organizer():
    return User.objects.create_user("orga", password="organizer-pw-1")


@pytest.fixture
def campaign(organizer):
    campaign = small_campaign(max_candidates=4, owner=organizer)
    campaign.organizers.add(organizer)
    return campaign


def detail_url(campaign) -> str:
    return reverse("campaign-detail", args=[campaign.pk])


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def page_text(response) -> str:
    """The response body unescaped, with every run of white space as one space."""
    return " ".join(html.unescape(response.content.decode()).split())


# Invites


def test_an_invite_link_is_shown_once_and_logs_the_judge_in(campaign, organizer):
    client = login(organizer)
    response = client.post(reverse("campaign-invite", args=[campaign.pk]), {"username": "newbie", "valid_days": 3})
    assert response.status_code == 302 and response["Location"] == detail_url(campaign) + "?at=invites#invites"
    page = client.get(response["Location"])
    links = LINK.findall(page.content.decode())
    assert len(links) == 1
    invite = Invite.objects.get()
    assert invite.digest == digest(links[0].rsplit("/", 2)[1]), "the page shows the link of the stored invite"
    assert invite.judge.username == "newbie" and invite.created_by == organizer
    assert timedelta(days=3) - (invite.expires_at - invite.created_at) < timedelta(seconds=5)
    assert "Invited newbie. Copy the link now: it is shown only once." in messages_of(page)
    assert 'data-copy="invite-link-1"' in page.content.decode()
    again = client.get(detail_url(campaign))
    assert not LINK.findall(again.content.decode()), "shown once"
    assert "Not used yet" in page_text(again)

    judge_client = Client()
    path = links[0].removeprefix("http://testserver")
    assert "Continue as newbie" in judge_client.get(path).content.decode()
    assert judge_client.post(path).status_code == 302
    assert campaign.judges.filter(username="newbie").exists()
    assert "Used " in page_text(client.get(detail_url(campaign)))


def test_the_page_showing_a_new_invite_link_is_never_stored_by_a_browser_or_proxy(campaign, organizer):
    # The campaign page that shows a new link had no Cache-Control: a browser could keep it, the link with it, on
    # disk and show it again from its history after "shown only once" (the API tokens page was fixed alike).
    client = login(organizer)
    page = client.post(reverse("campaign-invite", args=[campaign.pk]), {"username": "newbie", "valid_days": 3},
                       follow=True)
    assert len(LINK.findall(page.content.decode())) == 1
    assert "no-store" in page["Cache-Control"] and "private" in page["Cache-Control"]


def section_of(page: str, message: str) -> str | None:
    """The id of the campaign page's section whose messages list holds ``message`` (the page's sections do not
    nest), or "top" for the list above them all."""
    before = page[:page.index(f">{html.escape(message)}</li>")]
    sections = re.findall(r'<section[^>]* id="([\w-]+)"', before)
    return sections[-1] if sections else "top"


@pytest.mark.parametrize(("url_name", "data", "section", "message"), [
    ("campaign-invite", {"username": "bad name!", "valid_days": 3}, "invites", "No invite was created."),
    ("campaign-invite", {"username": "newbie", "valid_days": 3}, "invites", "Invited newbie."),
    ("campaign-screens", {"count": 1}, "screens", "Added 1 screen."),
    ("campaign-screens", {"count": -1}, "screens", "No screen was added."),
    ("campaign-appraise-import", {"file": SimpleUploadedFile("bad.xml", b"<oops")}, "appraise",
     "Nothing was imported."),
    ("campaign-references-import", {}, "references", "No reference was added."),
])
def test_a_form_of_the_campaign_page_answers_in_its_own_section(campaign, organizer, url_name, data, section,
                                                                 message):
    """The page goes back to the form's section, so its message must be there, not thousands of pixels above."""
    client = login(organizer)
    response = client.post(reverse(url_name, args=[campaign.pk]), data)
    assert response["Location"] == f"{detail_url(campaign)}?at={section}#{section}"
    page = client.get(response["Location"]).content.decode()
    text = next(line for line in re.findall(r'<li class="[^"]*">([^<]*)</li>', page) if message in html.unescape(line))
    assert section_of(page, html.unescape(text)) == section


def test_messages_stay_at_the_top_without_a_known_section(campaign, organizer):
    client = login(organizer)
    client.post(reverse("campaign-invite", args=[campaign.pk]), {"username": "bad name!", "valid_days": 3})
    page = client.get(detail_url(campaign) + "?at=nowhere").content.decode()
    assert section_of(page, html.unescape(next(
        line for line in re.findall(r'<li class="[^"]*">([^<]*)</li>', page) if "No invite" in line))) == "top"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"username": "", "valid_days": 14}, "Give the judge's username."),
        ({"username": "no spaces please", "valid_days": 14}, "is not a valid username"),
        ({"username": "orga", "valid_days": 14}, "'orga' cannot be used; choose another name."),
        ({"username": "fresh", "valid_days": 0}, "The link's validity is a whole number of days (1 to 365)."),
        ({"username": "fresh", "valid_days": "soon"}, "The link's validity is a whole number of days (1 to 365)."),
    ],
)
def test_a_bad_invite_says_why_and_writes_nothing(campaign, organizer, data, message):
    """... and the form shows what was typed again, to be corrected (it was empty: the username typed once more),
    once."""
    users = User.objects.count()
    client = login(organizer)
    response = client.post(reverse("campaign-invite", args=[campaign.pk]), data, follow=True)
    shown = " ".join(messages_of(response))
    assert message in shown and "No invite was created." in shown
    assert not Invite.objects.exists() and User.objects.count() == users
    form = response.context["invite_form"]
    assert (form["username"].value(), form["valid_days"].value()) == (data["username"], str(data["valid_days"]))
    again = client.get(detail_url(campaign)).context["invite_form"]
    assert (again["username"].value(), again["valid_days"].value()) == (None, 14)


def test_a_closed_campaign_takes_no_invites(campaign, organizer):
    campaign.closed_at = timezone.now()
    campaign.save()
    url = reverse("campaign-invite", args=[campaign.pk])
    response = login(organizer).post(url, {"username": "late", "valid_days": 1}, follow=True)
    assert "The campaign is closed. No invite was created." in messages_of(response)
    assert not Invite.objects.exists() and not User.objects.filter(username="late").exists()
    assert "it takes no new judges" in response.content.decode()


def test_an_unused_invite_can_be_revoked_and_its_link_stops_working(campaign, organizer):
    invite, secret = create_invite(campaign, "maybe", organizer)
    response = login(organizer).post(reverse("campaign-invite-revoke", args=[campaign.pk, invite.pk]), follow=True)
    assert "Revoked the invite of maybe; its link no longer works." in messages_of(response)
    assert not Invite.objects.exists()
    assert User.objects.filter(username="maybe").exists(), "the account stays"
    assert Client().get(reverse("invite", args=[secret])).status_code == 410


def test_a_used_invite_cannot_be_revoked(campaign, organizer):
    invite, secret = create_invite(campaign, "early", organizer)
    redeem_invite(secret)
    response = login(organizer).post(reverse("campaign-invite-revoke", args=[campaign.pk, invite.pk]), follow=True)
    assert "The invite of 'early' has been used already; it cannot be revoked." in messages_of(response)
    assert Invite.objects.get().used_at is not None


def test_revoke_invite_needs_an_organizer_of_the_campaign(campaign, organizer):
    invite, _ = create_invite(campaign, "kept", organizer)
    stranger = User.objects.create_user("stranger")
    with pytest.raises(PermissionDenied):
        revoke_invite(invite, stranger)
    revoke_invite(invite, organizer)
    with pytest.raises(InviteError, match="does not exist any more"):
        revoke_invite(invite, organizer)


# manage.py invite


def test_the_invite_command_prints_one_working_link_per_judge(campaign):
    out = StringIO()
    call_command("invite", "--campaign", "small", "ann", "bob", "--base-url", "https://judge.example.org/", stdout=out)
    lines = out.getvalue().splitlines()
    assert [line.split("\t")[0] for line in lines] == ["ann", "bob"]
    for line in lines:
        username, link = line.split("\t")
        secret = re.fullmatch(r"https://judge\.example\.org/invite/([A-Za-z0-9_-]+)/", link).group(1)
        assert Invite.objects.get(digest=digest(secret)).judge.username == username
    assert Invite.objects.filter(campaign=campaign, created_by=campaign.owner).count() == 2


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--campaign", "small", "ann", "bad name"], "bad name: 'bad name' is not a valid username"),
        (["--campaign", "small", "ann", "orga"], "orga: 'orga' cannot be used; choose another name."),
        (["--campaign", "small", "ann", "ann"], "ann given more than once"),
        (["--campaign", "nope", "ann"], "no campaign named 'nope'"),
        (["--campaign", "small", "ann", "--base-url", "judge.example.org"], "is not an http(s) address"),
        (["--campaign", "small", "ann", "--by", "ann2"], "--by: no user named 'ann2'"),
        (["--campaign", "small", "ann", "--days", "0"], "--days must be from 1 to 365"),
    ],
)
def test_the_invite_command_refuses_bad_input_and_creates_nothing(campaign, arguments, message):
    users = User.objects.count()
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("invite", *arguments, stdout=StringIO())
    assert not Invite.objects.exists() and User.objects.count() == users


def test_the_invite_command_needs_a_manager(campaign):
    User.objects.create_user("outsider")
    with pytest.raises(CommandError, match="'outsider' does not manage campaign 'small'"):
        call_command("invite", "--campaign", "small", "ann", "--by", "outsider", stdout=StringIO())
    campaign.owner = None
    campaign.save()
    with pytest.raises(CommandError, match="has no owner; name an organizer or admin with --by"):
        call_command("invite", "--campaign", "small", "ann", stdout=StringIO())
    out = StringIO()
    call_command("invite", "--campaign", "small", "ann", "--by", "orga", stdout=out)
    assert out.getvalue().startswith("ann\thttp://127.0.0.1:8000/invite/")


# Guidelines


def test_guidelines_preview_saves_nothing_and_save_asks_judges_again(campaign, organizer):
    ann = judge("ann", campaign)
    campaign.guidelines = "Old."
    campaign.save()
    guidelines.acknowledge(campaign, ann)
    client = login(organizer)
    url = reverse("campaign-guidelines", args=[campaign.pk])
    text = "Rank **every** correction.\n\n- ties allowed\n\n<script>alert(1)</script>"
    preview = client.post(url, {"guidelines": text, "action": "preview"})
    assert preview.status_code == 200 and "Preview only: the guidelines are not saved yet." in preview.content.decode()
    assert str(preview.context["preview_html"]) == str(guidelines.render_guidelines(text))
    assert "<strong>every</strong>" in preview.content.decode() and "<script>alert" not in preview.content.decode()
    campaign.refresh_from_db()
    assert campaign.guidelines == "Old." and not guidelines.needs_acknowledgement(campaign, ann)

    saved = client.post(url, {"guidelines": text, "action": "save"}, follow=True)
    assert (
        "Saved the guidelines. Judges are asked to read them again when they next open the campaign."
        in messages_of(saved)
    )
    campaign.refresh_from_db()
    assert campaign.guidelines == text and guidelines.needs_acknowledgement(campaign, ann)
    assert str(guidelines.render_guidelines(text)) in saved.content.decode(), "the campaign page shows them rendered"
    assert 'Read in the current wording: <span id="guidelines-read">0 of 1 judge</span>.' in page_text(saved)
    unchanged = client.post(url, {"guidelines": text, "action": "save"}, follow=True)
    assert "The guidelines and the instruction are unchanged." in messages_of(unchanged)


def test_the_organizer_rewords_the_judges_instruction_after_creation(campaign, organizer):
    url = reverse("campaign-guidelines", args=[campaign.pk])
    client = login(organizer)
    wording = "Order the corrections: 1 for the best, ties allowed."
    saved = client.post(url, {"guidelines": "", "instruction": f"  {wording} ", "action": "save"}, follow=True)
    assert messages_of(saved) == ["Saved the instruction; judges see it on their next screen."]
    campaign.refresh_from_db()
    assert campaign.instruction == wording and campaign.guidelines == ""
    refused = client.post(url, {"guidelines": "New.", "instruction": "two\nlines", "action": "save"})
    assert refused.status_code == 400 and "must be one line of text" in refused.content.decode()
    campaign.refresh_from_db()
    assert (campaign.instruction, campaign.guidelines) == (wording, ""), "nothing was saved"
    ann = judge("ann", campaign)
    add_screen(campaign, 1)
    judge_client = login(ann)
    screen_url = judge_client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
    assert f'<p class="instruction" id="instruction">{wording}</p>' in judge_client.get(screen_url).content.decode()


def test_too_long_guidelines_are_refused_and_kept_unchanged(campaign, organizer):
    response = login(organizer).post(
        reverse("campaign-guidelines", args=[campaign.pk]), {"guidelines": "x" * 50_001, "action": "save"}
    )
    assert response.status_code == 400
    assert "Keep the guidelines to 50,000 characters at most." in response.content.decode()
    assert "Nothing was saved." in response.content.decode()
    campaign.refresh_from_db()
    assert campaign.guidelines == ""


# Training screens


def test_a_training_screen_from_the_form_keeps_the_shown_order_and_ranks(campaign, organizer):
    client = login(organizer)
    url = reverse("campaign-training-add", args=[campaign.pk]) + "?line=1"
    page = client.get(url)
    assert page.status_code == 200
    rows = page.context["rows"]
    assert len(rows) == 4, "every distinct output of line 1"
    assert "<ins" in page.content.decode() and "&lt;b&gt;pears&lt;/b&gt;" in page.content.decode(), "escaped diff spans"
    ids = [int(field.name.removeprefix("rank_")) for _, field in rows]
    assert client.get(url).context["rows"][0][1].name == f"rank_{ids[0]}", "the same order every time"
    posted = {f"rank_{ids[0]}": "2", f"rank_{ids[2]}": "1", f"rank_{ids[3]}": "2", "feedback": "*Likes*, not like."}
    response = client.post(url, posted, follow=True)
    assert "Added training screen 1 (line 1)." in messages_of(response)
    screen = TrainingScreen.objects.get()
    assert screen.segment.line == 1 and screen.feedback == "*Likes*, not like."
    slots = list(TrainingCandidate.objects.filter(training_screen=screen).values_list("candidate_id", "expected_rank"))
    assert slots == [(ids[0], 2), (ids[2], 1), (ids[3], 2)], "the page's order, without the unranked one"
    assert "She like apples and" in response.content.decode() and 'id="training-list"' in response.content.decode()


@pytest.mark.parametrize(
    ("line", "ranks", "max_candidates", "message"),
    [
        (1, {}, 4, f"Give an expected rank to at least two corrections to show: {ONE_IS_NOT_RANKED}"),
        (1, {2: "1"}, 4, f"Give an expected rank to at least two corrections to show: {ONE_IS_NOT_RANKED}"),
        (1, {0: "1", 1: "2", 2: "3", 3: "3"}, 3,
         f"A training screen shows 2 to 3 candidates, not 4: {ONE_IS_NOT_RANKED}"),
        (1, {0: "9"}, 4, "Correction 1: choose a rank from 1 to 4."),
        (99, {}, 4, "No sentence at line 99; the lines go from 0 to 5."),
        ("x", {}, 4, "A line number is a whole number from 0."),
    ],
)
def test_a_bad_training_screen_says_why_and_writes_nothing(campaign, organizer, line, ranks, max_candidates, message):
    campaign.max_candidates = max_candidates
    campaign.save()
    client = login(organizer)
    url = reverse("campaign-training-add", args=[campaign.pk]) + f"?line={line}"
    rows = client.get(url).context.get("rows") or []
    response = client.post(url, {rows[i][1].name: rank for i, rank in ranks.items()})
    assert response.status_code == 400
    assert message in page_text(response)
    assert not TrainingScreen.objects.exists() and not TrainingCandidate.objects.exists()


def test_a_sentence_of_one_distinct_correction_cannot_be_a_training_screen(organizer):
    """A training screen of one correction was accepted: its judge's answer always agreed (relative ranking needs
    two corrections at least). A sentence every system left as the source has one correction only."""
    text = lambda rows: ("\n".join(rows) + "\n").encode()
    campaign = import_outputs("one", NamedFile("source", text(["He go .", "All right ."])), [
        NamedFile("fixer", text(["He goes .", "All right ."])), NamedFile("other", text(["He went .", "All right ."])),
    ])
    campaign.organizers.add(organizer)
    client = login(organizer)
    response = client.get(reverse("campaign-training-add", args=[campaign.pk]) + "?line=1")
    assert response.status_code == 400 and "rows" not in response.context
    assert (f"The sentence at line 1 has one distinct correction only, and a training screen shows two or more: "
            f"{ONE_IS_NOT_RANKED}") in page_text(response)
    assert client.get(reverse("campaign-training-add", args=[campaign.pk]) + "?line=0").status_code == 200


def test_the_campaign_page_says_the_training_line_is_0_based_as_the_training_form(campaign, organizer):
    client = login(organizer)
    page = page_text(client.get(reverse("campaign-detail", args=[campaign.pk])))
    assert "Add a training screen for the sentence at line (0-based)" in page
    form = page_text(client.get(reverse("campaign-training-add", args=[campaign.pk])))
    assert "Line (0-based)" in form


def test_prws_training_screens_take_an_expected_order_and_are_scored_with_sliders(organizer):
    campaign = small_campaign("scored", mode=Campaign.Mode.PRWS)
    campaign.organizers.add(organizer)
    client = login(organizer)
    url = reverse("campaign-training-add", args=[campaign.pk]) + "?line=1"
    rows = client.get(url).context["rows"]
    assert len(rows) == 4
    client.post(url, {rows[i][1].name: rank for i, rank in enumerate([1, 2, 2, 4])})
    screen = TrainingScreen.objects.get(campaign=campaign)
    ann = judge("ann", campaign)
    guidelines.acknowledge(campaign, ann)
    rater = login(ann)
    page = rater.get(reverse("judge-training", args=[campaign.pk]))
    assert page.status_code == 200 and 'type="range"' in page.content.decode() and "js/prws.js" in page.content.decode()
    data = {"training_screen": screen.pk, "score_0": "90", "score_1": "60", "score_2": "60", "score_3": "90"}
    data.update({f"moved_{i}": "1" for i in range(4)})
    response = rater.post(reverse("judge-training", args=[campaign.pk]), data, follow=True)
    answer = screen.answers.get(judge=ann)
    assert answer.ranks == [1, 2, 2, 1] and answer.agreement == pytest.approx(3 / 6)
    assert "You ordered 50% of the pairs of corrections as the organizers did" in page_text(response)
    assert "Your order" in response.content.decode()


def test_a_training_screen_removed_while_a_judge_has_it_open_is_said_so_on_submit(organizer):
    """The organizer deleted a training screen a judge had open: the judge's answer got the plain 'Not found'
    page; it says the screen was removed, that nothing was saved, and leads on to the campaign."""
    campaign = small_campaign("removed practice")
    segment = campaign.segments.get(line=1)
    shown = [candidate_of(campaign, 1, "ZEPHYRSYS"), candidate_of(campaign, 1, "INPUT")]
    screen = add_training_screen(campaign, segment, shown, [1, 2])
    ann = judge("ann", campaign)
    guidelines.acknowledge(campaign, ann)
    rater = login(ann)
    assert rater.get(reverse("judge-training", args=[campaign.pk])).status_code == 200
    screen_pk = screen.pk
    remove_training_screen(screen)
    response = rater.post(reverse("judge-training", args=[campaign.pk]), {"training_screen": screen_pk, "rank_0": 1})
    assert response.status_code == 409
    assert "This training screen was removed by the organizer while you had it open; nothing was saved." in \
        page_text(response)
    assert reverse("judge-campaign", args=[campaign.pk]) in response.content.decode()
    assert not TrainingAnswer.objects.exists()


@pytest.mark.parametrize("mode", [Campaign.Mode.RANKING, Campaign.Mode.PRWS])
def test_a_training_screen_compares_the_answer_with_the_expected_order_in_either_mode(organizer, mode):
    """The practice note said the answer "is compared with the organizers' ranking" to PRWS judges too, who score;
    it speaks of the order the organizers expect, which both modes compare with."""
    campaign = small_campaign(f"practice-{mode}", mode=mode)
    segment = campaign.segments.get(line=1)
    add_training_screen(campaign, segment, [candidate_of(campaign, 1, "ZEPHYRSYS"), candidate_of(campaign, 1, "INPUT")],
                        [1, 2])
    ann = judge("ann", campaign)
    guidelines.acknowledge(campaign, ann)
    text = page_text(login(ann).get(reverse("judge-training", args=[campaign.pk])))
    assert "Practice screen: your answer is compared with the order the organizers expect and is not part of the " \
           "results." in text
    assert "organizers' ranking" not in text


def test_deleting_a_training_screen_keeps_positions_contiguous(campaign, organizer):
    segments = [campaign.segments.get(line=line) for line in (0, 1, 2)]
    screens = [
        add_training_screen(campaign, segment,
                            [candidate_of(campaign, segment.line, name) for name in ("ZEPHYRSYS", "INPUT")], [1, 2])
        for segment in segments
    ]
    answer_training(screens[0], judge("ann", campaign), [1, 2])
    url = reverse("campaign-training-delete", args=[campaign.pk, screens[0].pk])
    response = login(organizer).post(url, follow=True)
    assert "Deleted training screen 1 with its 1 answer." in messages_of(response)
    assert list(TrainingScreen.objects.values_list("segment__line", "position")) == [(1, 0), (2, 1)]
    assert not TrainingAnswer.objects.exists()
    remove_training_screen(TrainingScreen.objects.get(position=0))
    assert list(TrainingScreen.objects.values_list("segment__line", "position")) == [(2, 0)]


# Attention checks and the judges' panel


def control_placement(campaign) -> list[tuple[int, int, str]]:
    return sorted(
        ScreenCandidate.objects.filter(screen__campaign=campaign, candidate__outputs__system__kind=System.Kind.CONTROL)
        .values_list("screen__number", "position", "candidate__text")
    )


def test_attention_checks_from_the_form_are_reproducible(organizer):
    placements = []
    for name in ("first", "second"):
        campaign = small_campaign(name, seed=7)
        campaign.organizers.add(organizer)
        for line in range(6):
            add_screen(campaign, line)
        client = login(organizer)
        url = reverse("campaign-attention", args=[campaign.pk])
        first = client.post(url, {"percent": 50}, follow=True)
        assert "Added attention checks to 3 of the 6 unserved screens without one." in messages_of(first)
        second = client.post(url, {"percent": 100}, follow=True)
        assert "Added attention checks to 3 of the 3 unserved screens without one." in messages_of(second)
        assert "Screens with an attention check: 6 of 6. Unserved screens without one: 0." in page_text(second)
        placements.append(control_placement(campaign))
    assert placements[0] == placements[1] and len(placements[0]) == 6
    expected = small_campaign("by-hand", seed=7)
    for line in range(6):
        add_screen(expected, line)
    add_attention_checks(expected, 0.5, campaign_rng(expected, "attention", 0))
    by_hand = control_placement(expected)
    assert len(by_hand) == 3 and set(by_hand) <= set(placements[0]), "the first request draws from (attention, 0)"


@pytest.mark.parametrize("percent", ["0", "101", "half", ""])
def test_a_bad_share_adds_no_attention_check(campaign, organizer, percent):
    add_screen(campaign, 0)
    url = reverse("campaign-attention", args=[campaign.pk])
    response = login(organizer).post(url, {"percent": percent}, follow=True)
    assert messages_of(response) == [
        "The share of screens is a whole percentage from 1 to 100. No attention check was added."
    ]
    assert not System.objects.filter(kind=System.Kind.CONTROL).exists() and not control_placement(campaign)


def test_attention_checks_need_unserved_screens(campaign, organizer):
    add_screen(campaign, 0)
    queue.next_assignment(campaign, judge("ann", campaign))
    response = login(organizer).post(reverse("campaign-attention", args=[campaign.pk]), {"percent": 100}, follow=True)
    assert messages_of(response) == ["No unserved screen is without an attention check; add screens first."]
    assert not System.objects.filter(kind=System.Kind.CONTROL).exists()


def test_the_judges_panel_shows_submits_checks_rate_and_median_time(campaign, organizer):
    for line in (0, 1, 2):
        add_screen(campaign, line, slots=2)
    add_attention_checks(campaign, 1.0, np.random.default_rng(1))
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    judge("cyd", campaign)
    start = timezone.now()
    for seconds, last in ((10, True), (60, False), (20, True)):
        assignment = queue.next_assignment(campaign, ann, now=start)
        control = control_placement_of(assignment)
        ranks = [1] * assignment.screen.slots.count()
        ranks[control] = 4 if last else 1
        later = start + timedelta(seconds=seconds)
        queue.submit_ranking(assignment.token, ann, ranks, queue.candidate_keys(assignment), now=later)
    flagged = queue.next_assignment(campaign, bob, now=start)
    queue.flag_screen(flagged.token, bob, "garbled", now=start + timedelta(seconds=5))

    rows = {row.judge: row for row in judge_activity(campaign, campaign_progress(campaign))}
    assert (rows["ann"].submitted, rows["ann"].checks, rows["ann"].ranked_last) == (3, 3, 2)
    assert rows["ann"].median_seconds == pytest.approx(20.0)
    bob_row = rows["bob"]
    assert (bob_row.submitted, bob_row.checks, bob_row.rate, bob_row.median_seconds) == (1, 0, None, 5.0)
    assert (rows["cyd"].submitted, rows["cyd"].median_seconds) == (0, None)

    page = login(organizer).get(detail_url(campaign)).content.decode()
    cells = {
        name: re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        for name, row in re.findall(r'<tr data-judge="(\w+)">(.*?)</tr>', page, re.S)
    }
    assert [cell.strip() for cell in cells["ann"]] == ["ann", "3", "3", "67%", "20.0 s"]
    assert [re.sub(r"<[^>]+>", "", cell).strip() for cell in cells["cyd"]] == ["cyd", "0", "0", "–", "–"]
    assert attention_coverage(campaign).with_check == 3


@pytest.mark.parametrize("mode, said, unsaid", [
    (Campaign.Mode.RANKING, ("Ranked the control last", "Attention checks count the ranked screens",
                             "an attentive judge ranks it last"), ("Scored the control lowest", "scores it lowest")),
    (Campaign.Mode.PRWS, ("Scored the control lowest", "Attention checks count the scored screens",
                          "an attentive judge scores it lowest"), ("Ranked the control last", "ranks it last")),
])
def test_the_judges_panel_words_the_attention_checks_as_the_campaigns_judges_work(organizer, mode, said, unsaid):
    """A PRWS campaign's judges table said "Ranked the control last" and "an attentive judge ranks it last", but
    PRWS judges score: the control judged worst is the one scored lowest."""
    campaign = small_campaign(mode=mode, owner=organizer)
    campaign.organizers.add(organizer)
    text = page_text(login(organizer).get(detail_url(campaign)))
    judges = text[text.index('id="judges"'):text.index('id="invites"')]
    assert all(words in judges for words in said), judges
    assert not any(words in judges for words in unsaid), judges
    live = text[text.index('id="judge-progress"'):text.index('id="rater-checks"')]
    assert said[0] in live and unsaid[0] not in live and "Control judged worst" not in live, \
        "the live dashboard's judges table names the column as the judges table does"
    attention = text[text.index('id="attention"'):]
    worst = "scored it lowest" if mode == Campaign.Mode.PRWS else "ranked it last"
    assert f"how often each judge judged the control worst ({worst})." in attention, attention


def control_placement_of(assignment) -> int:
    return ScreenCandidate.objects.get(
        screen=assignment.screen, candidate__outputs__system__kind=System.Kind.CONTROL
    ).position


# Who may do it


def organizer_requests(campaign, invite, training_screen) -> list[tuple[str, str, dict]]:
    pk = campaign.pk
    return [
        ("post", reverse("campaign-invite", args=[pk]), {"username": "intruder", "valid_days": 5}),
        ("post", reverse("campaign-invite-revoke", args=[pk, invite.pk]), {}),
        ("get", reverse("campaign-guidelines", args=[pk]), {}),
        ("post", reverse("campaign-guidelines", args=[pk]), {"guidelines": "hacked", "action": "save"}),
        ("get", reverse("campaign-training-add", args=[pk]) + "?line=0", {}),
        ("post", reverse("campaign-training-delete", args=[pk, training_screen.pk]), {}),
        ("post", reverse("campaign-attention", args=[pk]), {"percent": 100}),
    ]


def test_only_the_campaigns_organizers_reach_these_pages(campaign, organizer):
    invite, _ = create_invite(campaign, "invited", organizer)
    screen = add_training_screen(campaign, campaign.segments.get(line=0), [candidate_of(campaign, 0, "INPUT"),
                                                                   candidate_of(campaign, 0, "ZEPHYRSYS")], [2, 1])
    add_screen(campaign, 0)
    other_organizer = User.objects.create_user("otto")
    small_campaign("other").organizers.add(other_organizer)
    outsiders = [judge("jim", campaign), other_organizer]
    for user in outsiders:
        client = login(user)
        for method, url, data in organizer_requests(campaign, invite, screen):
            assert getattr(client, method)(url, data).status_code == 404, url
    anonymous = Client()
    for method, url, data in organizer_requests(campaign, invite, screen):
        response = getattr(anonymous, method)(url, data)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), url
    campaign.refresh_from_db()
    assert campaign.guidelines == "" and Invite.objects.count() == 1 and TrainingScreen.objects.count() == 1
    assert not User.objects.filter(username="intruder").exists() and not control_placement(campaign)
    admin = User.objects.create_superuser("root", password="root-pw-1")
    assert login(admin).get(reverse("campaign-guidelines", args=[campaign.pk])).status_code == 200


def test_every_form_needs_the_csrf_token(campaign, organizer):
    invite, _ = create_invite(campaign, "invited", organizer)
    screen = add_training_screen(campaign, campaign.segments.get(line=0), [candidate_of(campaign, 0, "INPUT"),
                                                                   candidate_of(campaign, 0, "ZEPHYRSYS")], [2, 1])
    add_screen(campaign, 0)
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    posts = [(url, data) for method, url, data in organizer_requests(campaign, invite, screen) if method == "post"]
    posts.append((reverse("campaign-training-add", args=[campaign.pk]) + "?line=0", {"feedback": "x"}))
    for url, data in posts:
        assert client.post(url, data).status_code == 403, url
    campaign.refresh_from_db()
    assert campaign.guidelines == "" and Invite.objects.count() == 1 and TrainingScreen.objects.count() == 1
    assert not control_placement(campaign) and not GuidelinesAcknowledgement.objects.exists()
    page = client.get(detail_url(campaign)).content.decode()
    forms = re.findall(r'<form method="post".*?</form>', page, re.S)
    assert len(forms) >= 6 and all("csrfmiddlewaretoken" in form for form in forms)


def test_attention_checks_on_more_screens_than_a_request_changes_are_a_job_placing_the_same_checks(
    organizer, monkeypatch, settings, django_capture_on_commit_callbacks
):
    placements = []
    for name, cap in (("at once", 100), ("by job", 2)):
        monkeypatch.setattr(attention_requests, "MAX_CHECKS_PER_REQUEST", cap)
        campaign = small_campaign(name, seed=7)
        campaign.organizers.add(organizer)
        for line in range(6):
            add_screen(campaign, line)
        client = login(organizer)
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("campaign-attention", args=[campaign.pk]), {"percent": 50})
        placements.append(control_placement(campaign))
    job = BackgroundJob.objects.get()
    assert response["Location"] == reverse("background-job", args=[job.pk])
    assert (job.kind, job.campaign, job.status, job.result) == (
        BackgroundJob.Kind.ATTENTION_CHECKS, campaign, BackgroundJob.Status.DONE, {"added": 3, "open": 6})
    assert placements[0] == placements[1] and len(placements[1]) == 3
    page = client.get(response["Location"]).content.decode()
    assert "Added attention checks to 3 of the 6 unserved screens without one." in page
    settings.ANALYSIS_EXECUTION = "celery"
    client.post(reverse("campaign-attention", args=[campaign.pk]), {"percent": 100})
    waiting = BackgroundJob.objects.get(status=BackgroundJob.Status.QUEUED)
    assert attention_requests.add_checks_in_turn(campaign, 1.0).added == 3, "the open screens got checks meanwhile"
    failed = background_jobs.run_background_job(waiting.pk)
    assert failed.status == BackgroundJob.Status.FAILED
    assert failed.error == "No unserved screen is without an attention check; add screens first."
