"""Importing PRWS scores on the web: the PRWS campaign page's scores upload (``campaign-scores-import``) and
``POST /api/campaigns/{id}/scores/``, which check and store a scores CSV as ``manage.py import_scores`` does, all or
nothing, and say why when they refuse it."""
from __future__ import annotations

import html
import re

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.models import BackgroundJob, Campaign, Judgment
from annotation.services.invites import create_invite

from .factories import small_campaign
from .test_score_import import LONG, WIDE, state

pytestmark = pytest.mark.django_db

SUMMARY = "Imported 6 ratings on 3 screens by 2 raters."
CHOOSE_AGAIN = "Choose the file again: a browser does not keep it after an error."


@pytest.fixture
def campaign(organizer) -> Campaign:
    """small_campaign in PRWS mode (6 lines; ZEPHYRSYS, QUOKKAGEC, MARMOTFIX and INPUT), organized by ``olga``."""
    made = small_campaign("scored", mode=Campaign.Mode.PRWS)
    made.organizers.add(organizer)
    return made


def csv_file(text: str | bytes, name: str = "scores.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text if isinstance(text, bytes) else text.encode(), content_type="text/csv")


def post(client: Client, campaign: Campaign, text: str | bytes, **fields):
    """The campaign page's scores upload of ``text``, followed to the page it redirects to."""
    data = {"file": csv_file(text), "layout": "long", "rater": "", "map_users": "", **fields}
    return client.post(reverse("campaign-scores-import", args=[campaign.pk]), data, follow=True)


def said(response) -> list[str]:
    """The messages the page shows, unescaped."""
    return [html.unescape(text) for text in re.findall(r'<li class="(?:error|success)">(.*?)</li>',
                                                        response.content.decode(), re.S)]


def raters(campaign: Campaign) -> set[str]:
    return set(Judgment.objects.filter(assignment__campaign=campaign).values_list("assignment__judge__username",
                                                                                 flat=True))


def test_a_prws_campaigns_page_offers_the_scores_upload_and_a_ranking_campaigns_does_not(campaign, organizer_client,
                                                                                         organizer):
    page = organizer_client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert f'action="{reverse("campaign-scores-import", args=[campaign.pk])}"' in page
    assert "Import scores" in page and 'name="layout" value="wide"' in page and 'name="map_users"' in page
    ranked = small_campaign("ranked")
    ranked.organizers.add(organizer)
    ranking_page = organizer_client.get(reverse("campaign-detail", args=[ranked.pk])).content.decode()
    assert reverse("campaign-scores-import", args=[ranked.pk]) not in ranking_page
    assert "Import scores" not in ranking_page


def test_a_long_file_is_imported_with_a_summary(campaign, organizer_client):
    response = post(organizer_client, campaign, LONG)
    assert response.redirect_chain[-1][0].endswith("?at=appraise#appraise")
    assert said(response) == [SUMMARY]
    assert raters(campaign) == {"ann", "bob"} and state()[2] == 3
    assert campaign.judges.filter(username="ann").exists()


def test_a_wide_file_goes_to_the_rater_named_and_unknown_systems_may_be_skipped(campaign, organizer_client):
    header, *rows = WIDE.splitlines()
    with_ref = "\n".join([f"{header},ref", "50,60,60,70", *(f"{row}," if row else row for row in rows[1:])]) + "\n"
    refused = post(organizer_client, campaign, with_ref, layout="wide", rater="gmeg-fce")
    assert said(refused)[0].startswith("scores.csv: row 1, column 4: unknown system 'ref'")
    response = post(organizer_client, campaign, with_ref, layout="wide", rater="gmeg-fce", skip_unknown="on")
    assert said(response) == ["Imported 9 ratings on 4 screens by 1 rater. Skipped 1 cell naming no system of the "
                              "campaign ('ref')."]
    assert raters(campaign) == {"gmeg-fce"}


@pytest.mark.parametrize(("text", "message"), [
    (LONG.replace("ann,3,MARMOTFIX,40,1", "ann,3,MARMOTFIX,140,1"), "scores.csv: row 8: score '140' is outside 0-100"),
    (LONG.replace("bob,1,MARMOTFIX", "bob,1,NOPE"), "scores.csv: row 5: unknown system 'NOPE'"),
    (LONG + "ann,9,INPUT,5\n", "scores.csv: row 9: line 9 is out of range (the campaign has lines 0 to 5)"),
    (b"rater,segment,system,score\nann,0,INPUT,\xff\n", "scores.csv: row 2: not UTF-8 text"),
])
def test_a_bad_row_is_refused_naming_the_file_and_row_and_nothing_is_stored(campaign, organizer_client, text,
                                                                            message):
    before = state()
    response = post(organizer_client, campaign, text, map_users="ann=ann.r")
    (refusal,) = said(response)
    assert refusal.startswith(message) and refusal.endswith(f"Nothing was imported. {CHOOSE_AGAIN}"), refusal
    assert state() == before
    assert response.context["scores_form"]["map_users"].value() == "ann=ann.r", "the typed map is kept"
    assert response.context["scores_form"]["layout"].value() == "long"
    again = organizer_client.get(reverse("campaign-detail", args=[campaign.pk]))
    assert again.context["scores_form"]["map_users"].value() is None, "once"


@pytest.mark.parametrize(("typed", "message"), [
    ("ann=alice bob", "user map: 'bob' is not NAME=ACCOUNT. Nothing was imported."),
    ("ann=alice,bob=b;c", "user map: 'b;c' in 'bob=b;c' is not a valid username"),
    ("ann=alice\nann=carol", "user map: 'ann' is mapped twice"),
    ("ann=alice bob=alice", "user map: two names are mapped to 'alice'"),
    ("zed=alice", "scores.csv: the user map names 'zed', but the file has no judge of that name"),
])
def test_a_bad_user_map_entry_is_refused_naming_it(campaign, organizer_client, typed, message):
    before = state()
    response = post(organizer_client, campaign, LONG, map_users=typed)
    (refusal,) = said(response)
    assert refusal.startswith(message) and refusal.endswith(f"Nothing was imported. {CHOOSE_AGAIN}"), refusal
    assert state() == before
    assert response.context["scores_form"]["map_users"].value() == typed


def test_a_user_map_gives_raters_accounts(campaign, organizer_client):
    response = post(organizer_client, campaign, LONG, map_users="ann=ann.r,\r\nbob=robert")
    assert said(response) == [SUMMARY]
    assert raters(campaign) == {"ann.r", "robert"}


def test_an_organizer_maps_only_to_accounts_they_may_use_and_is_told_the_same_for_each(campaign, organizer_client,
                                                                                      organizer):
    """On the command line a map reaches any account; on the web, only a judge-only account of the organizer's own
    campaigns (judge_accounts.import_refusal), and the refusal does not say what the account is."""
    User.objects.create_superuser("root", password="root-password-1")
    other = small_campaign("theirs", mode=Campaign.Mode.PRWS)
    other.judges.add(User.objects.create_user("their-judge"))
    before = state()
    for target in ("root", "their-judge", "olga"):
        (refusal,) = said(post(organizer_client, campaign, LONG, map_users=f"ann={target}"))
        assert refusal.startswith(f"scores.csv: row 2: rater 'ann' is mapped to the account '{target}', which cannot "
                                  "be used; choose another name. Nothing was imported."), refusal
    (in_file,) = said(post(organizer_client, campaign, LONG.replace("ann,", "root,")))
    assert in_file.startswith("scores.csv: row 2: rater 'root' cannot be used; choose another name. Imported raters "
                              "are accounts of this campaign only: map the name to an account explicitly "
                              "(root=ACCOUNT in the user map"), in_file
    (wide_rater,) = said(post(organizer_client, campaign, WIDE, layout="wide", rater="root"))
    assert wide_rater.startswith("scores.csv: rater 'root' cannot be used; choose another name; name another rater")
    assert state() == before
    ours = small_campaign("ours", mode=Campaign.Mode.PRWS)
    ours.organizers.add(organizer)
    create_invite(ours, "our-judge", organizer)
    assert said(post(organizer_client, campaign, LONG, map_users="ann=our-judge")) == [SUMMARY]
    assert raters(campaign) == {"our-judge", "bob"}


@pytest.mark.parametrize(("fields", "message"), [
    ({"layout": "wide"}, "A wide file's ratings belong to one rater: name the rater"),
    ({"layout": "wide", "rater": "two words"}, "Rater 'two words' is not a valid user name"),
    ({"layout": "wide", "rater": "gmeg-mean", "map_users": "a=b"},
     "A wide file has one rater, named in Rater; the user map is for long files."),
    ({"layout": "long", "rater": "gmeg-mean"}, "A long file names its raters in its first column"),
    ({"layout": "sideways"}, "Select a valid choice. sideways is not one of the available choices."),
])
def test_the_form_refuses_a_layout_without_what_it_needs(campaign, organizer_client, fields, message):
    before = state()
    (refusal,) = said(post(organizer_client, campaign, WIDE, **fields))
    assert refusal.startswith(message) and refusal.endswith(f"Nothing was imported. {CHOOSE_AGAIN}"), refusal
    assert state() == before


def test_no_file_is_refused_without_telling_to_choose_it_again(campaign, organizer_client):
    response = organizer_client.post(reverse("campaign-scores-import", args=[campaign.pk]), {"layout": "long"},
                                     follow=True)
    assert said(response) == ["Choose a scores CSV file to upload. Nothing was imported."]


def test_a_file_over_the_upload_limit_is_refused_before_it_is_read(campaign, organizer_client, settings):
    settings.MAX_UPLOAD_BYTES = len(LONG) - 1
    (refusal,) = said(post(organizer_client, campaign, LONG))
    assert refusal == (f"scores.csv: {len(LONG)} bytes is over the upload limit of {len(LONG) - 1} bytes. Nothing was "
                       f"imported. {CHOOSE_AGAIN}")
    assert state()[2] == 0


def test_a_file_over_the_upload_limit_is_refused_where_it_would_go_to_a_background_job(campaign, organizer_client,
                                                                                       settings):
    settings.IMPORT_IN_REQUEST_BYTES = 10
    settings.MAX_UPLOAD_BYTES = len(LONG) - 1
    (refusal,) = said(post(organizer_client, campaign, LONG))
    assert refusal.startswith(f"scores.csv: {len(LONG)} bytes is over the upload limit")
    assert not BackgroundJob.objects.exists() and state()[2] == 0


def test_a_ranking_campaign_refuses_scores_saying_why(organizer, organizer_client, settings):
    ranked = small_campaign("ranked")
    ranked.organizers.add(organizer)
    before = state()
    for in_request in (10**6, 10):  # imported in the request, or a job would be recorded
        settings.IMPORT_IN_REQUEST_BYTES = in_request
        response = post(organizer_client, ranked, LONG)
        assert said(response) == ["'ranked' is a relative ranking campaign; scores go into PRWS campaigns (created in "
                                  "the mode 'Partial ranking with scalars': import_outputs --mode prws). Nothing was "
                                  "imported."]
        assert response.redirect_chain[-1][0].endswith("?at=appraise#appraise")
    assert state() == before and not BackgroundJob.objects.exists()


def test_a_large_file_is_imported_by_a_background_job(campaign, organizer_client, settings,
                                                     django_capture_on_commit_callbacks):
    settings.IMPORT_IN_REQUEST_BYTES = 10
    url = reverse("campaign-scores-import", args=[campaign.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = organizer_client.post(url, {"file": csv_file(LONG), "map_users": "bob=robert"})
    job = BackgroundJob.objects.get()
    assert response["Location"] == reverse("background-job", args=[job.pk])
    assert (job.kind, job.status, job.campaign) == (BackgroundJob.Kind.SCORES, BackgroundJob.Status.DONE, campaign)
    page = organizer_client.get(response["Location"]).content.decode()
    assert "PRWS scores import" in page and "Done" in page and SUMMARY in page
    assert raters(campaign) == {"ann", "robert"} and not job.files.exists()
    with django_capture_on_commit_callbacks(execute=True):
        again = organizer_client.post(url, {"file": csv_file(LONG)})
    job = BackgroundJob.objects.latest("pk")
    assert job.status == BackgroundJob.Status.FAILED
    assert job.error == "scores.csv: ann already has scores for line 1 in 'scored' (was this file imported before?)"
    assert html.escape(job.error) in organizer_client.get(again["Location"]).content.decode()


def test_only_the_campaigns_organizers_and_admins_import(campaign):
    judge = User.objects.create_user("jim", password="pw")
    campaign.judges.add(judge)
    other = User.objects.create_user("otto", password="pw")
    small_campaign("theirs", mode=Campaign.Mode.PRWS).organizers.add(other)
    url = reverse("campaign-scores-import", args=[campaign.pk])
    for user in (judge, other):
        client = Client()
        client.force_login(user)
        assert client.post(url, {"file": csv_file(LONG)}).status_code == 404
    assert Client().post(url, {"file": csv_file(LONG)})["Location"].startswith("/accounts/login/")
    assert Client().get(url).status_code == 302
    assert state()[2] == 0
    admin = Client()
    admin.force_login(User.objects.create_superuser("root", password="root-password-1"))
    assert admin.get(url).status_code == 405
    assert said(post(admin, campaign, LONG)) == [SUMMARY]


def test_the_api_imports_scores_as_the_page_does(campaign, organizer_client, settings,
                                                 django_capture_on_commit_callbacks):
    url = f"/api/campaigns/{campaign.pk}/scores/"
    done = organizer_client.post(url, {"file": csv_file(LONG), "map_users": "bob=robert"})
    assert done.status_code == 201, done.content
    assert done.json() == {"ratings": 6, "screens": 3, "raters": 2, "skipped": 0, "unknown": [],
                           "skip_unknown": False}
    before = state()
    bad = organizer_client.post(url, {"file": csv_file("ann,0,INPUT,101\n")})
    assert bad.status_code == 400 and bad.json() == {"file": ["scores.csv: row 1: score '101' is outside 0-100"]}
    no_rater = organizer_client.post(url, {"file": csv_file(WIDE), "layout": "wide"})
    assert no_rater.status_code == 400 and "name the rater" in no_rater.json()["rater"][0]
    bad_map = organizer_client.post(url, {"file": csv_file(LONG), "map_users": "ann"})
    assert bad_map.status_code == 400 and bad_map.json() == {"map_users": ["user map: 'ann' is not NAME=ACCOUNT"]}
    unknown = organizer_client.post(url, {"file": csv_file(LONG), "raters": "x"})
    assert unknown.status_code == 400 and "takes no part named 'raters'" in unknown.json()["raters"][0]
    assert state() == before
    wide = organizer_client.post(url, {"file": csv_file(WIDE), "layout": "wide", "rater": "gmeg-mean",
                                       "skip_unknown": "true"})
    assert wide.status_code == 201 and wide.json()["ratings"] == 9 and wide.json()["skip_unknown"] is True
    settings.IMPORT_IN_REQUEST_BYTES = 10
    with django_capture_on_commit_callbacks(execute=True):
        queued = organizer_client.post(url, {"file": csv_file("carl,0,INPUT,5\n")})
    assert queued.status_code == 202 and queued.json()["kind"] == "scores"
    assert organizer_client.get(queued["Location"]).json()["result"]["ratings"] == 1


def test_the_api_refuses_scores_for_a_ranking_campaign(organizer, organizer_client):
    ranked = small_campaign("ranked")
    ranked.organizers.add(organizer)
    refused = organizer_client.post(f"/api/campaigns/{ranked.pk}/scores/", {"file": csv_file(LONG)})
    assert refused.status_code == 400
    assert refused.json()["file"][0].startswith("'ranked' is a relative ranking campaign; scores go into PRWS")
    assert state()[2] == 0
