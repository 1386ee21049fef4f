"""A campaign of which no screen can ever be made: a screen compares at least two different corrections, so judges
need two systems (the source counting when it is judged) whose outputs differ on some sentence. Such a campaign is
imported (its outputs can be scored against references); its page, the screens page, the API and the commands say
why no screen can be made and refuse to make any. They made nothing and said "no sentence can be sampled: none has
at least 2 candidates" (the page and the API) or "nothing added" (``manage.py active_screens``, which succeeded).
A campaign added in the admin, with no system at all, was a 500 on its page, its screens page and the API's
screens."""
from __future__ import annotations

import html
import re
from io import StringIO

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotation.models import Campaign, Screen
from annotation.services.importing import import_outputs
from annotation.services.references import import_references
from annotation.services.screens import no_screen_reason
from annotation.services.textfiles import NamedFile

from .factories import small_campaign

pytestmark = pytest.mark.django_db

SOURCE = b"He go .\nShe like it .\n"
FIXED = b"He goes .\nShe likes it .\n"
NEED = "judges compare the corrections of at least two systems (the source counts when it is judged), and this campaign"
#: Each campaign of which no screen can be made: how it is imported, and why no screen can be made of it.
CAMPAIGNS = {
    "the source alone": (
        lambda: import_outputs("alone", NamedFile("INPUT", SOURCE), [], source_is_system=True),
        f"{NEED} has one, its source INPUT; import the test set again with a system",
    ),
    "one system": (
        lambda: import_outputs("one", NamedFile("INPUT", SOURCE), [NamedFile("AMU", FIXED)]),
        f"{NEED} has one, AMU, and does not judge its source; import the test set again with another system or "
        "with the source judged too",
    ),
    "no system (a campaign added in the admin)": (
        lambda: Campaign.objects.create(name="bare"),
        f"{NEED} has none: it was made without a test set (in the admin); import the test set as a new campaign",
    ),
    "two systems alike": (
        lambda: import_outputs("alike", NamedFile("INPUT", SOURCE),
                               [NamedFile("AMU", FIXED), NamedFile("CUUI", FIXED)]),
        "its 2 systems (AMU, CUUI) give the same output on every sentence, so a screen would show one correction and "
        "nothing to compare",
    ),
    "a system as the source": (
        lambda: import_outputs("unchanged", NamedFile("INPUT", SOURCE), [NamedFile("AMU", SOURCE)],
                               source_is_system=True),
        "its 2 systems (AMU, INPUT) give the same output on every sentence, so a screen would show one correction "
        "and nothing to compare",
    ),
}


@pytest.fixture(params=list(CAMPAIGNS))
def unjudgeable(request, organizer) -> tuple[Campaign, str]:
    """A campaign of which no screen can be made (each of ``CAMPAIGNS``), organized by olga, and why."""
    make, reason = CAMPAIGNS[request.param]
    campaign = make()
    campaign.organizers.add(organizer)
    return campaign, reason


def test_the_reason_names_the_systems_a_campaign_lacks(unjudgeable):
    campaign, reason = unjudgeable
    assert no_screen_reason(campaign) == reason


def test_a_campaign_of_two_systems_that_differ_somewhere_can_have_screens():
    assert no_screen_reason(small_campaign()) is None
    partly = import_outputs("partly", NamedFile("INPUT", SOURCE), [NamedFile("AMU", FIXED), NamedFile("CUUI", SOURCE)])
    assert no_screen_reason(partly) is None, "they differ on one sentence at least"


def test_the_campaign_page_says_why_and_refuses_to_sample(unjudgeable, organizer_client):
    campaign, reason = unjudgeable
    page = organizer_client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    said = html.unescape(re.search(r'<p class="notice" id="no-screens">(.*?)</p>', page).group(1))
    scored = " The outputs can still be scored against references." if campaign.systems.exists() else ""
    assert said == f"No screen can be made: {reason}.{scored}"
    assert "Sample screens" not in page, "no form to sample screens"
    assert 'id="dashboard-no-screens"' in page, "the dashboard says there is nothing to judge"

    response = organizer_client.post(reverse("campaign-screens", args=[campaign.pk]), {"count": "3"})
    assert response.status_code == 302
    shown = [str(message) for message in get_messages(response.wsgi_request)]
    assert shown == [f"No screen can be made: {reason}. No screen was added."]
    assert not Screen.objects.filter(campaign=campaign).exists()


def test_a_campaign_with_screens_to_make_has_the_form_and_no_notice(organizer, organizer_client):
    campaign = small_campaign()
    campaign.organizers.add(organizer)
    page = organizer_client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "Sample screens" in page
    assert "no-screens" not in page
    screens = organizer_client.get(reverse("campaign-screens", args=[campaign.pk])).content.decode()
    assert "No screens yet: add them on the" in screens


def test_the_screens_page_says_why_there_are_none(unjudgeable, organizer_client):
    campaign, reason = unjudgeable
    page = organizer_client.get(reverse("campaign-screens", args=[campaign.pk])).content.decode()
    said = html.unescape(re.search(r'<span id="no-screens">(.*?)</span>', page).group(1))
    assert said == f"No screen can be made: {reason}."
    assert "No screens yet: add them" not in page


def test_the_api_says_why_and_refuses_to_add_screens(unjudgeable, organizer_client):
    campaign, reason = unjudgeable
    url = f"/api/campaigns/{campaign.pk}/screens/"
    assert organizer_client.get(url).json() == {"total": 0, "jobs": [], "refused": reason}
    for body in ({"count": 3}, {}):
        response = organizer_client.post(url, body)
        assert response.status_code == 400
        assert response.json() == {"__all__": [f"No screen can be made: {reason}. No screen was added."]}
    assert not Screen.objects.filter(campaign=campaign).exists()


def test_the_api_of_a_campaign_with_screens_to_make_refuses_nothing(organizer, organizer_client):
    campaign = small_campaign()
    campaign.organizers.add(organizer)
    assert organizer_client.get(f"/api/campaigns/{campaign.pk}/screens/").json()["refused"] is None


def test_the_active_screens_command_says_why_and_fails(unjudgeable):
    campaign, reason = unjudgeable
    out = StringIO()
    with pytest.raises(CommandError) as refused:
        call_command("active_screens", "--campaign", campaign.name, "--count", "2", stdout=out)
    assert str(refused.value) == f"{campaign.name}: no screen can be made: {reason}"
    assert out.getvalue() == ""
    assert not Screen.objects.filter(campaign=campaign).exists()


def test_the_import_command_imports_one_system_and_says_it_cannot_be_judged(tmp_path):
    (tmp_path / "INPUT").write_bytes(SOURCE)
    (tmp_path / "AMU").write_bytes(FIXED)
    out, err = StringIO(), StringIO()
    call_command("import_outputs", "--campaign", "one", "--source", str(tmp_path / "INPUT"), str(tmp_path / "AMU"),
                 stdout=out, stderr=err)
    assert out.getvalue().startswith("Created campaign 'one': 1 system, 2 sentences")
    assert err.getvalue().strip() == (
        f"No screen can be made of it for judges: {CAMPAIGNS['one system'][1]}. Its outputs can still be scored "
        "against references (import_references, score_metrics)."
    )
    err = StringIO()
    call_command("import_outputs", "--campaign", "two", "--source", str(tmp_path / "INPUT"), str(tmp_path / "INPUT"),
                 str(tmp_path / "AMU"), stdout=StringIO(), stderr=err)
    assert err.getvalue() == "", "the source judged beside a system: screens can be made"


def test_the_metrics_of_one_system_are_still_scored():
    make, _ = CAMPAIGNS["one system"]
    import_references(make(), None, [NamedFile("ref0", FIXED)])
    out = StringIO()
    call_command("score_metrics", "--campaign", "one", "--metric", "gleu", "--out", "-", stdout=out)
    assert out.getvalue() == "gleu\terr-cor\tone\tAMU\t1.000000\n"
