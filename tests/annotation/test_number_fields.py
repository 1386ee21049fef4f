"""Whole numbers as users type them (number_fields.PlainIntegerField, request_numbers.plain_whole_number): every form,
the API and the commands take plain ASCII digits only; ``int`` took ``٣`` and ``３`` as 3, ``1_0`` as 10, ``+3``
as 3, and Django's form field took ``3.0`` as 3."""
from __future__ import annotations

import re
from collections.abc import Callable
from io import StringIO

import pytest
from django import forms
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from annotation.campaign_forms import SCREENS_COUNT_ERROR, CampaignImportForm, ScreensForm
from annotation.forms import FlagForm, RankingForm, ScoreForm
from annotation.judging_forms import DAYS_ERROR, PERCENT_ERROR, AttentionChecksForm, InviteForm, TrainingLineForm
from annotation.models import Campaign, Invite, Screen, ScreenJob
from ranking.forms import AnalysisForm

from .factories import small_campaign
from .test_importing import SOURCE, SYSTEMS
from .test_organizer import form_data, upload

pytestmark = pytest.mark.django_db

#: Texts ``int`` (or Django's IntegerField) read as a number and that are no plain whole number.
NOT_PLAIN = ["٣", "３", "1_0", "+3", "3.0", "0x3", "3e0", "3 3", "1,000"]
#: Beyond PostgreSQL's bigint, and beyond the 4,300 digits ``int`` reads.
HUGE = ["99999999999999999999", "9" * 5000]
TOO_LARGE = "is out of range (a whole number is at most 9,223,372,036,854,775,807)"

#: (form bound to a value, its whole-number field, a value the field takes, the field's own refusal or None).
FORMS: dict[str, tuple[Callable[[str], forms.Form], str, int, str | None]] = {
    "screens count": (lambda value: ScreensForm({"count": value}), "count", 7, SCREENS_COUNT_ERROR),
    "campaign seed": (lambda value: CampaignImportForm({"name": "n", "mode": "ranking", "seed": value}), "seed",
                      7, None),
    "campaign redundancy": (lambda value: CampaignImportForm({"name": "n", "mode": "ranking", "redundancy": value}),
                            "redundancy", 7, None),
    "campaign max_candidates": (
        lambda value: CampaignImportForm({"name": "n", "mode": "ranking", "max_candidates": value}),
        "max_candidates", 7, None),
    "crowd screens per session": (
        lambda value: CampaignImportForm({"name": "n", "mode": "ranking", "crowd_session_screens": value}),
        "crowd_session_screens", 7, None),
    "invite days": (lambda value: InviteForm({"username": "ann", "valid_days": value}), "valid_days", 7, DAYS_ERROR),
    "attention percent": (lambda value: AttentionChecksForm({"percent": value}), "percent", 7, PERCENT_ERROR),
    "training line": (lambda value: TrainingLineForm({"line": value}), "line", 7,
                      "A line number is a whole number from 0."),
    "ranking active time": (lambda value: RankingForm({"rank_0": "1", "active_ms": value}, count=1, max_rank=5),
                            "active_ms", 7, None),
    "score active time": (lambda value: ScoreForm({"score_0": "60", "moved_0": "1", "active_ms": value}, count=1),
                          "active_ms", 7, None),
    "flag active time": (lambda value: FlagForm({"reason": "garbled", "active_ms": value}), "active_ms", 7, None),
    "analysis bootstrap": (lambda value: AnalysisForm({"bootstrap": value, "confidence": "0.95", "seed": "1"}),
                           "bootstrap", 700, None),
    "analysis seed": (lambda value: AnalysisForm({"bootstrap": "100", "confidence": "0.95", "seed": value}),
                      "seed", 7, None),
    "analysis folds": (lambda value: AnalysisForm({"bootstrap": "100", "confidence": "0.95", "seed": "1",
                                                   "accuracy_folds": value}), "accuracy_folds", 7, None),
}


@pytest.mark.parametrize("name", FORMS)
@pytest.mark.parametrize("text", NOT_PLAIN + HUGE)
def test_every_forms_whole_number_is_plain_ascii_digits(name, text):
    bound, field, _, own_message = FORMS[name]
    form = bound(text)
    assert not form.is_valid()
    if own_message is not None:
        expected = own_message
    elif text in HUGE:
        expected = "is out of range (a whole number is "
    else:
        expected = "is not a whole number"
    assert expected in " ".join(form.errors[field])
    if own_message is None and len(text) < 60:
        assert repr(text) in " ".join(form.errors[field])


@pytest.mark.parametrize("name", FORMS)
def test_a_plain_whole_number_is_taken_the_spaces_around_it_dropped(name):
    bound, field, value, _ = FORMS[name]
    for text in (str(value), f" {value}\t", f"00{value}"):
        form = bound(text)
        form.is_valid()
        assert field not in form.errors and form.cleaned_data[field] == value


@pytest.mark.parametrize(("text", "message"), [
    ("-3", "'-3' is not a whole number from 0 (ASCII digits 0-9, such as 42)."),
    ("-0", "'-0' is not a whole number from 0 (ASCII digits 0-9, such as 42)."),
])
def test_a_minus_only_where_a_negative_number_may_be_given(text, message):
    form = CampaignImportForm({"name": "n", "mode": "ranking", "crowd_session_screens": text, "seed": text})
    form.is_valid()
    assert form.errors["crowd_session_screens"] == [message]
    assert "seed" not in form.errors and form.cleaned_data["seed"] == int(text)


def test_a_seed_beyond_a_bigint_is_refused_with_the_range():
    form = CampaignImportForm({"name": "n", "mode": "ranking", "seed": "-99999999999999999999"})
    assert form.errors["seed"] == ["'-99999999999999999999' is out of range (a whole number is from "
                                   "-9,223,372,036,854,775,808 to 9,223,372,036,854,775,807)."]


#: (form bound to a value, its decimal field, a value the field takes, the field's own refusal or None).
DECIMAL_FORMS: dict[str, tuple[Callable[[str], forms.Form], str, float, str | None]] = {
    "slider score": (lambda value: ScoreForm({"score_0": value, "moved_0": "1"}, count=1), "score_0", 62.5,
                     "Correction 1: the score is not a number from 0 to 100."),
    "slider first value": (lambda value: ScoreForm({"score_0": "60", "moved_0": "1", "first_0": value}, count=1),
                           "first_0", 62.5, "The first value of slider 1 is not a number."),
    "analysis confidence": (lambda value: AnalysisForm({"bootstrap": "100", "confidence": value, "seed": "1"}),
                            "confidence", 0.9, None),
}


@pytest.mark.parametrize("name", DECIMAL_FORMS)
@pytest.mark.parametrize("text", ["٣", "３", "1_0", "0x3", "inf", "nan", "1e-400", "5,5"])
def test_every_forms_decimal_number_is_plain_ascii(name, text):
    """Django's FloatField took ``٣`` as 3 and ``1_0`` as 10, and 1e-400 as 0."""
    bound, field, _, own_message = DECIMAL_FORMS[name]
    form = bound(text)
    assert not form.is_valid()
    if own_message is not None:
        assert form.errors[field] == [own_message]
    else:
        [message] = form.errors[field]
        assert message.startswith(f"{text!r} ") and "%(" not in message


@pytest.mark.parametrize("name", DECIMAL_FORMS)
def test_a_plain_decimal_number_is_taken_the_spaces_around_it_dropped(name):
    bound, field, value, _ = DECIMAL_FORMS[name]
    for text in (str(value), f" {value}\t"):
        form = bound(text)
        form.is_valid()
        assert field not in form.errors and form.cleaned_data[field] == value


@pytest.mark.parametrize("text", [*NOT_PLAIN, " 3", "-3", "99999999999999999999"])
def test_a_rank_is_one_of_the_choices_as_written(text):
    form = RankingForm({"rank_0": text}, count=1, max_rank=5)
    assert form.errors["rank_0"] == ["Correction 1: choose a rank from 1 to 5."]
    assert RankingForm({"rank_0": "3"}, count=1, max_rank=5).is_valid()


@pytest.mark.parametrize("text", NOT_PLAIN + HUGE)
def test_the_api_adds_no_screens_for_a_count_that_is_no_plain_number(organizer_client, organizer, text):
    campaign = small_campaign("api-count")
    campaign.organizers.add(organizer)
    response = organizer_client.post(f"/api/campaigns/{campaign.pk}/screens/", {"count": text})
    assert response.status_code == 400 and response.json() == {"count": [SCREENS_COUNT_ERROR]}
    assert not Screen.objects.exists() and not ScreenJob.objects.exists()
    added = organizer_client.post(f"/api/campaigns/{campaign.pk}/screens/", {"count": " 3 "})
    assert added.status_code == 201 and added.json()["created"] == 3


@pytest.mark.parametrize(("text", "message"), [
    ("1_0", "'1_0' is not a whole number (ASCII digits 0-9, such as 42 or -1)."),
    ("٣", "'٣' is not a whole number (ASCII digits 0-9, such as 42 or -1)."),
    ("99999999999999999999", "'99999999999999999999' is out of range (a whole number is from "
                             "-9,223,372,036,854,775,808 to 9,223,372,036,854,775,807)."),
])
def test_the_api_creates_no_campaign_with_a_seed_that_is_no_plain_number(organizer_client, text, message):
    response = organizer_client.post("/api/campaigns/", form_data(
        seed=text, source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()]))
    assert response.status_code == 400 and response.json() == {"seed": [message]}
    assert not Campaign.objects.exists()


def test_an_api_address_names_a_campaign_by_its_ascii_digits(organizer_client, organizer):
    campaign = small_campaign("api-address")
    campaign.organizers.add(organizer)
    assert organizer_client.get(f"/api/campaigns/{campaign.pk}/").status_code == 200
    arabic_indic = str(campaign.pk).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
    for spelled in (arabic_indic, f"+{campaign.pk}", f"{campaign.pk}.0", "99999999999999999999"):
        response = organizer_client.get(f"/api/campaigns/{spelled}/")
        assert response.status_code == 404 and set(response.json()) == {"detail"}


@pytest.mark.parametrize("text", NOT_PLAIN + HUGE[:1])
def test_a_commands_whole_number_option_is_plain_ascii_digits(text):
    campaign = small_campaign("cli-count")
    users = User.objects.count()
    expected = TOO_LARGE if text in HUGE else "is not a whole number from 0 (ASCII digits 0-9, such as 42)"
    with pytest.raises(CommandError, match=re.escape(f"Error: argument --count: {text!r} {expected}")):
        call_command("active_screens", "--campaign", campaign.name, "--count", text, stdout=StringIO())
    with pytest.raises(CommandError, match=re.escape(f"Error: argument --days: {text!r} {expected}")):
        call_command("invite", "--campaign", campaign.name, "ann", "--days", text, stdout=StringIO())
    assert not Screen.objects.exists() and not Invite.objects.exists() and User.objects.count() == users
    call_command("active_screens", "--campaign", campaign.name, "--count", " 2", stdout=StringIO())
    assert Screen.objects.filter(campaign=campaign).count() == 2
