"""The judge screen's campaign settings (issue 9): the organizer's one-line instruction (validated: one line of
printable text, at most 200 characters) and "show replaced words" (on unless turned off), through the New campaign
form and the REST API, and the replaced words in the diff spans."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Campaign
from annotation.services.collapsing import diff_spans

from .test_importing import SOURCE, SYSTEMS
from .test_organizer import form_data, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(organizer_client) -> Client:
    """An organizer's client (the tests below say ``client``)."""
    return organizer_client


def create(client: Client, **extra):
    files = {"source": upload("source", SOURCE), "systems": [upload(n, d) for n, d in SYSTEMS.items()]}
    return client.post(reverse("campaign-create"), form_data(**files, **extra))


def test_the_form_stores_the_instruction_and_the_replaced_words_setting(client):
    page = client.get(reverse("campaign-create")).content.decode()
    assert 'name="instruction"' in page and 'name="show_replaced_words"' in page
    assert create(client, instruction="  Rank them: 1 is best.  ", show_replaced_words="no").status_code == 302
    campaign = Campaign.objects.get(name="web")
    assert campaign.instruction == "Rank them: 1 is best." and campaign.show_replaced_words is False


def test_without_the_fields_the_defaults_hold(client):
    assert create(client).status_code == 302
    campaign = Campaign.objects.get(name="web")
    assert campaign.instruction == "" and campaign.show_replaced_words is True


@pytest.mark.parametrize(
    ("instruction", "message"),
    [
        ("Rank them.\nThen submit.", "one line of text, without line breaks"),
        ("Rank\tthem", "one line of text, without line breaks"),
        ("Rank them.\u2028Then submit.", "one line of text, without line breaks"),
        ("Rank them.\u2029Then submit.", "one line of text, without line breaks"),
        ("x" * 201, "at most 200 characters"),
    ],
)
def test_a_bad_instruction_is_refused_and_nothing_is_written(client, instruction, message):
    response = create(client, instruction=instruction)
    assert response.status_code != 302
    assert message in response.content.decode()
    assert not Campaign.objects.exists()


def test_the_api_takes_and_shows_both_settings(client):
    files = {"source": upload("source", SOURCE), "systems": [upload(n, d) for n, d in SYSTEMS.items()]}
    created = client.post("/api/campaigns/", form_data(name="api", instruction="Order them.", **files))
    assert created.status_code == 201, created.content
    body = client.get(f"/api/campaigns/{created.json()['id']}/").json()
    assert body["instruction"] == "Order them." and body["show_replaced_words"] is True
    refused = client.post("/api/campaigns/", form_data(name="bad", instruction="a\nb", **files))
    assert refused.status_code == 400 and "instruction" in refused.content.decode()
    assert not Campaign.objects.filter(name="bad").exists()


def test_replaced_words_come_before_the_new_ones_and_only_when_asked():
    source, corrected = "It will can make the trip .", "It will be able to makes trip ."
    shown = diff_spans(source, corrected, show_replaced=True)
    assert [span for span in shown if span[0] != "replaced"] == diff_spans(source, corrected)
    assert diff_spans("make the", "makes", show_replaced=True) == [("replaced", "make the"), ("replace", "makes")]
    assert diff_spans("will can", "will be able to", show_replaced=True) == [
        ("equal", "will"), ("replaced", "can"), ("replace", "be able to"),
    ]
