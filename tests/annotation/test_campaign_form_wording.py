"""The New campaign form and the screens form in the organizer's words: the checkbox beside its label, no internal
names (n_screens) and file names said as files ("the source file (source) has 4 lines")."""
from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.annotation.factories import small_campaign

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


def test_screens_without_a_number_are_refused_in_plain_words(client):
    campaign = small_campaign("sampled", sampling="diversity")
    campaign.organizers.add(User.objects.get(username="olga"))
    page = client.post(reverse("campaign-screens", args=[campaign.pk]), {"count": ""}, follow=True).content.decode()
    assert "n_screens" not in page and "number of screens" in page.lower()
    assert "No screen was added." in page
