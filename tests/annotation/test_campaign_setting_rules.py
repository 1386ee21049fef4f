"""Each campaign setting is declared once, on the model (label, help, default, bounds, validators): the New campaign
form, the API's schema and the admin's campaign page all take it from there and refuse the same values."""
from __future__ import annotations

import json

import pytest
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.forms.models import model_to_dict
from django.test import Client, RequestFactory
from django.utils.text import capfirst

from annotation.campaign_forms import CampaignImportForm
from annotation.models import Campaign
from tests.annotation.factories import small_campaign

pytestmark = pytest.mark.django_db

#: The form's own fields: uploads, import options, and the Replaced words radio buttons (a yes/no choice where the
#: model holds a boolean).
FORM_ONLY = {"source", "systems", "documents", "archive", "source_name", "source_is_system", "show_replaced_words"}


def bounds(name: str) -> tuple[float | None, float | None]:
    """The lower and upper limit of the model field's MinValueValidator and MaxValueValidator (None: none)."""
    validators = Campaign._meta.get_field(name).validators
    low = [v.limit_value for v in validators if isinstance(v, MinValueValidator)]
    high = [v.limit_value for v in validators if isinstance(v, MaxValueValidator)]
    return (max(low) if low else None, min(high) if high else None)


@pytest.mark.parametrize("name", sorted(set(CampaignImportForm.base_fields) - FORM_ONLY))
def test_the_form_takes_label_help_default_and_bounds_from_the_model(name):
    model_field = Campaign._meta.get_field(name)
    form_field = CampaignImportForm.base_fields[name]
    assert form_field.label == capfirst(model_field.verbose_name)
    assert form_field.help_text == model_field.help_text
    assert form_field.required == (not model_field.has_default() and not model_field.blank)
    if model_field.has_default() and not callable(model_field.default):
        assert form_field.initial == model_field.default
    low, high = bounds(name)
    if high is not None:
        assert form_field.max_value == high
    if low is not None:
        assert form_field.min_value >= low


def test_every_settings_range_is_on_the_model():
    assert bounds("control_share") == (0.0, 1.0)
    assert bounds("qc_control_threshold") == (0.0, 1.0)
    assert bounds("qc_min_total_seconds") == (0.0, 10**7)
    assert bounds("crowd_session_screens") == (1, 10**5)
    assert bounds("crowd_campaign_screens")[1] == 10**7


@pytest.mark.parametrize("field, value, message", [
    ("qc_p_value", 0.0, "The p-value must be above 0."),
    ("qc_p_value", 1.5, "less than or equal to 1"),
    ("crowd_session_screens", 10**5 + 1, "less than or equal to 100000"),
    ("qc_min_median_seconds", -1.0, "greater than or equal to 0"),
    ("repeat_rate", "1e-400", "'1e-400' is too close to 0"),
    ("control_share", "1e-320", "'1e-320' is too close to 0"),
    ("redundancy", "1_0", "'1_0' is not a whole number from 0"),
    ("seed", "٣", "'٣' is not a whole number"),
    ("crowd_campaign_screens", "99999999999999999999", "is out of range"),
    ("instruction", "Rank them\nall", "one line of text"),
    ("crowd_completion_url", "javascript:alert(1)//{code}", "http:// or https://"),
    ("crowd_completion_url", "https://example.org/{code}/{study}", "no other braces"),
])
def test_the_admins_campaign_page_refuses_what_the_form_refuses(admin_user, field, value, message):
    campaign = small_campaign("admin-edited")
    request = RequestFactory().post("/")
    request.user = admin_user
    model_admin = admin.site._registry[Campaign]
    unchanged = {**model_to_dict(campaign), "owner": ""}
    form_class = model_admin.get_form(request, campaign)
    assert form_class(unchanged, instance=campaign).is_valid()
    form = form_class({**unchanged, field: value}, instance=campaign)
    assert not form.is_valid()
    assert message in " ".join(form.errors[field])
    campaign.refresh_from_db()
    assert getattr(campaign, field) == Campaign._meta.get_field(field).get_default()


@pytest.mark.parametrize("field, value, message", [
    ("repeat_rate", "1e-400", "'1e-400' is too close to 0 (a number other than 0 is at least 2.2e-308 in size"),
    ("qc_min_total_seconds", "1e400", "'1e400' is too large"),
    ("control_share", " 0.5", None),
    ("qc_p_value", "5e-2", None),
])
def test_the_forms_numbers_are_taken_as_written_or_refused(field, value, message):
    """A setting of 1e-400 was stored as 0 (the New campaign form and the API: a repeat rate of none)."""
    form = CampaignImportForm({"name": "numbers", "mode": "ranking", field: value})
    form.is_valid()
    if message is None:
        assert field not in form.errors and form.cleaned_data[field] == float(value)
    else:
        assert message in " ".join(form.errors[field])


def test_a_valid_completion_url_and_instruction_pass_the_model():
    campaign = small_campaign("valid-settings")
    campaign.crowd_completion_url = "https://app.prolific.com/submissions/complete?cc={code}"
    campaign.instruction = "Rank each correction; ties are allowed."
    campaign.full_clean()
    campaign.crowd_completion_url = "https://example.org/{code}}"
    with pytest.raises(ValidationError, match="no other braces"):
        campaign.full_clean()


def test_the_api_schema_states_the_models_bounds():
    schema = json.loads(Client().get("/api/schema/", {"format": "json"}).content)
    body = schema["paths"]["/api/campaigns/"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    properties = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]["properties"]
    assert (properties["crowd_session_screens"]["minimum"], properties["crowd_session_screens"]["maximum"]) == (
        1, 10**5)
    assert properties["qc_p_value"]["maximum"] == 1.0
    assert properties["control_share"]["description"] == Campaign._meta.get_field("control_share").help_text
