"""The New campaign form, the screens form and the campaign page's facts in the organizer's words: the checkbox beside
its label, no internal names (n_screens), file names said as files ("the source file (source) has 4 lines") and a
count of one with its noun in the singular ("1 screen")."""
from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation.services import queue
from annotation.services.importing import import_outputs
from annotation.services.screens import create_screens
from annotation.services.textfiles import NamedFile
from tests.annotation.factories import judge, small_campaign

from .test_importing import SOURCE
from .test_organizer import form_data, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(organizer_client) -> Client:
    """An organizer's client (the tests below say ``client``)."""
    return organizer_client


def test_the_checkbox_sits_beside_its_label(client):
    page = client.get(reverse("campaign-create")).content.decode()
    rows = re.findall(r'<div class="field field-checkbox">\s*(<input[^>]*>)\s*(<label[^>]*>[^<]*</label>)', page)
    assert len(rows) == page.count('<div class="field field-checkbox">'), "a checkbox is not directly before its label"
    assert any('name="source_is_system"' in box and ">Judge the source too</label>" in label for box, label in rows)
    assert any('name="crowd"' in box and ">Crowd campaign</label>" in label for box, label in rows)


def test_a_short_system_file_is_named_as_a_file_against_the_source_file(client):
    page = client.post(reverse("campaign-create"), form_data(
        source=upload("source", SOURCE), systems=[upload("alpha", b"one\ntwo\n")])).content.decode()
    assert "alpha: 2 lines, but the source file (source) has 4 lines" in page


def test_a_name_taken_already_is_refused_in_plain_words(client):
    """Django's own words were shown: "Campaign with this Name already exists." (a capital N, the field's name)."""
    small_campaign("taken")
    page = client.post(reverse("campaign-create"), form_data(
        name="taken", source=upload("source", SOURCE), systems=[upload("alpha", SOURCE)])).content.decode()
    assert "A campaign of this name exists already: choose another name." in page
    assert "with this Name" not in page


def test_screens_without_a_number_are_refused_in_plain_words(client):
    campaign = small_campaign("sampled", sampling="diversity")
    campaign.organizers.add(User.objects.get(username="olga"))
    page = client.post(reverse("campaign-screens", args=[campaign.pk]), {"count": ""}, follow=True).content.decode()
    assert "n_screens" not in page and "number of screens" in page.lower()
    assert "No screen was added." in page
    assert "this campaign&#x27;s sampling is Diversity-weighted (G15 4.1). No screen was added." in page, (
        "the sampling as the form names it (it was lowercased: 'diversity-weighted (g15 4.1)')")
    assert "Give the number of screens: only full coverage plans every sentence" in page, (
        "the message is a sentence starting with a capital (it began 'give the number of screens')")


def test_the_progress_of_a_first_screen_and_judgment_is_counted_in_the_singular(client):
    """The campaign page's Progress line after the first screen and its first judgment; it said "1 screens, 1 of 2
    assignments submitted, 1 judgments". A test set of one sentence and one system was "1 sentences ..., 1 systems"."""
    campaign = small_campaign("first", redundancy=2)
    campaign.organizers.add(User.objects.get(username="olga"))
    create_screens(campaign, 1)
    ann = judge("ann", campaign)
    served = queue.next_assignment(campaign, ann)
    keys = queue.candidate_keys(served)
    queue.submit_ranking(served.token, ann, [1] * len(keys), keys)
    page = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    progress = re.search(r"<dt>Progress .*?</dt><dd>(.*?)</dd>", page).group(1)
    assert progress == "1 screen, 1 of 2 assignments submitted, 1 judgment"

    single = import_outputs("single", NamedFile("source", b"He go .\n"), [NamedFile("alpha", b"He goes .\n")])
    single.organizers.add(User.objects.get(username="olga"))
    page = client.get(reverse("campaign-detail", args=[single.pk])).content.decode()
    assert re.search(r"<dt>Test set</dt><dd>(.*?)</dd>", page).group(1) == "1 sentence in 1 document, 1 system"
    assert "distinct outputs among 1 system (G15 Figure 1)" in page
