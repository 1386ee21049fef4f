"""Yes-or-no settings sent as text (boolean_fields.PlainBooleanField): the API took every text but ``false`` as true,
so ``crowd=0`` made a crowd campaign with a public study link, ``source_is_system=off`` judged the source, and a
scores upload's ``skip_unknown=0`` skipped the rows naming no system; now each is true or false as spelled, or a 400
naming the field, with nothing made."""
from __future__ import annotations

import pytest

from annotation.campaign_forms import CampaignImportForm
from annotation.models import Campaign, Judgment

from .factories import small_campaign
from .test_importing import SOURCE, SYSTEMS
from .test_organizer import upload
from .test_score_upload import csv_file

pytestmark = pytest.mark.django_db

FALSE = ["false", "False", "0", "off", "no", " NO ", ""]
TRUE = ["true", "TRUE", "1", "on", "yes"]
NEITHER = ["maybe", "2", "-1", "nope", "t", "truee"]


def create(client, **fields):
    return client.post("/api/campaigns/", {
        "name": "flags", "source": upload("source", SOURCE),
        "systems": [upload(name, data) for name, data in SYSTEMS.items()], **fields})


@pytest.mark.parametrize("text", FALSE + TRUE)
def test_the_api_reads_a_campaigns_yes_or_no_settings_as_spelled(organizer_client, text):
    response = create(organizer_client, crowd=text, crowd_code_encodes_qc=text, source_is_system=text)
    assert response.status_code == 201, response.content
    made = Campaign.objects.get()
    truth = text in TRUE
    assert (made.crowd, made.crowd_code_encodes_qc) == (truth, truth)
    assert response.json()["crowd"] is truth and (response.json()["study_link"] is not None) is truth
    assert made.systems.filter(kind="input").exists() is truth


@pytest.mark.parametrize("field", ["crowd", "crowd_code_encodes_qc", "source_is_system"])
@pytest.mark.parametrize("text", NEITHER)
def test_the_api_refuses_a_yes_or_no_setting_that_is_neither(organizer_client, field, text):
    response = create(organizer_client, **{field: text})
    assert response.status_code == 400
    assert response.json() == {field: [f"{text!r} is not true or false (true or false; also 1 or 0, on or off, yes "
                                       "or no)."]}
    assert not Campaign.objects.exists()


def test_the_web_forms_ticked_and_unticked_boxes_read_as_before():
    ticked = CampaignImportForm({"name": "n", "mode": "ranking", "crowd": "on", "source_is_system": "on"})
    unticked = CampaignImportForm({"name": "n", "mode": "ranking"})
    ticked.is_valid()
    unticked.is_valid()
    assert (ticked.cleaned_data["crowd"], ticked.cleaned_data["source_is_system"]) == (True, True)
    assert (unticked.cleaned_data["crowd"], unticked.cleaned_data["source_is_system"]) == (False, False)
    assert "checked" in str(ticked["crowd"]) and "checked" not in str(unticked["crowd"])


def test_a_scores_upload_skips_unknown_systems_only_when_asked(organizer, organizer_client):
    campaign = small_campaign("scored", mode=Campaign.Mode.PRWS)
    campaign.organizers.add(organizer)
    url = f"/api/campaigns/{campaign.pk}/scores/"
    unknown_row = "ann,0,INPUT,60\nann,0,NOSUCHSYS,40\n"
    for text in ("0", "off", "no"):
        refused = organizer_client.post(url, {"file": csv_file(unknown_row), "skip_unknown": text})
        assert refused.status_code == 400 and "NOSUCHSYS" in refused.json()["file"][0], refused.content
    neither = organizer_client.post(url, {"file": csv_file(unknown_row), "skip_unknown": "maybe"})
    assert neither.json() == {"skip_unknown": ["'maybe' is not true or false (true or false; also 1 or 0, on or "
                                               "off, yes or no)."]}
    assert not Judgment.objects.exists()
    skipped = organizer_client.post(url, {"file": csv_file(unknown_row), "skip_unknown": "1"})
    assert skipped.status_code == 201 and skipped.json()["skipped"] == 1 and skipped.json()["skip_unknown"] is True
