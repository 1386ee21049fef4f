"""Organizer pages and REST API: creating campaigns from uploads, screens, Appraise XML, and who may do it."""
from __future__ import annotations

import re

import numpy as np
import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.models import Campaign, Candidate, Screen
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services.attention import add_attention_checks

from .factories import add_screen, small_campaign
from .test_appraise_xml import ITEM
from .test_importing import SOURCE, SYSTEMS, _zip

pytestmark = pytest.mark.django_db



@pytest.fixture
def client_for():
    def make(user: User, **kwargs) -> Client:
        client = Client(**kwargs)
        client.force_login(user)
        return client

    return make


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="text/plain")


def form_data(**extra):
    return {"name": "web", "mode": "ranking", "max_candidates": 5, "sampling": "diversity", "seed": 1,
            "redundancy": 1, "repeat_rate": 0, "guidelines": "", "source_is_system": "on", **extra}


def test_create_campaign_from_files_shows_the_histogram(organizer, client_for):
    client = client_for(organizer)
    response = client.post(reverse("campaign-create"), form_data(
        source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()],
    ))
    campaign = Campaign.objects.get(name="web")
    assert response.status_code == 302 and response["Location"] == reverse("campaign-detail", args=[campaign.pk])
    assert campaign.owner == organizer and organizer in campaign.organizers.all()
    page = client.get(response["Location"]).content.decode()
    assert 'id="distinct-histogram"' in page
    assert "On average 2.00 distinct outputs among 4 systems" in page
    assert "<td>3</td><td>1</td>" in page  # one sentence with 3 distinct outputs
    assert "<td>beta</td><td>System</td><td>3 of 4</td>" in page  # sentences left as the source had them
    assert "<td>source</td><td>Input (source)</td><td>4 of 4</td>" in page


def test_the_control_of_attention_checks_is_not_counted_among_the_test_sets_systems(organizer, client_for):
    """Attention checks add the system Source+error (kind control) to the campaign; its page (the test set, the
    distinct outputs of G15 Figure 1, which count the uploaded systems) and the campaign list still count the 4
    systems uploaded, as the analyses rank them. They said 5."""
    campaign = small_campaign()
    campaign.organizers.add(organizer)
    add_screen(campaign, 4)
    add_attention_checks(campaign, 1.0, np.random.default_rng(1))
    assert campaign.systems.count() == 5
    client = client_for(organizer)
    page = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "6 sentences in 2 documents, 4 systems" in page and "distinct outputs among 4 systems" in page
    assert "<td>Source+error</td><td>Control</td>" in page, "listed with its kind"
    listing = client.get(reverse("campaign-list")).content.decode()
    assert "<td>4</td><td>6</td>" in listing


def test_a_source_name_without_an_archive_is_refused_not_ignored(organizer, client_for):
    page = client_for(organizer).post(reverse("campaign-create"), form_data(
        source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()], source_name="INPUT",
    )).content.decode()
    assert "applies to an archive" in page and not Campaign.objects.exists()


def test_create_campaign_from_an_archive(organizer, client_for):
    archive = _zip({"source": SOURCE, **SYSTEMS})
    response = client_for(organizer).post(reverse("campaign-create"), form_data(
        name="zipped", archive=SimpleUploadedFile("run.zip", archive, content_type="application/zip")))
    assert response.status_code == 302
    assert sorted(Campaign.objects.get(name="zipped").systems.values_list("name", flat=True)) == [
        "alpha", "beta", "gamma", "source"]


def test_a_bad_upload_shows_the_message_and_writes_nothing(organizer, client_for):
    response = client_for(organizer).post(reverse("campaign-create"), form_data(
        source=upload("source", SOURCE), systems=[upload("alpha", b"too short\n")]))
    assert response.status_code == 400
    assert "alpha: 1 line, but the source file (source) has 4 lines" in response.content.decode()
    assert not Campaign.objects.exists() and not Candidate.objects.exists()


@pytest.mark.parametrize(("field", "value", "message"), [
    ("max_candidates", 0, "greater than or equal to 2"),
    ("max_candidates", 11, "less than or equal to 10"),
    ("redundancy", 0, "greater than or equal to 1"),
    ("repeat_rate", 5, "less than or equal to 1.0"),
    ("repeat_rate", -0.5, "greater than or equal to 0.0"),
])
def test_a_setting_out_of_range_is_refused_under_its_field(organizer, client_for, field, value, message):
    response = client_for(organizer).post(reverse("campaign-create"), form_data(
        source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()], **{field: value}))
    assert response.status_code == 400
    form = response.context["form"]
    assert list(form.errors) == [field] and message in form.errors[field][0]
    assert "Constraint" not in response.content.decode()
    assert not Campaign.objects.exists()


def test_the_number_inputs_carry_the_models_bounds(organizer, client_for):
    page = client_for(organizer).get(reverse("campaign-create")).content.decode()
    assert 'name="max_candidates" value="5" min="2" max="10"' in page
    assert 'name="repeat_rate" value="0.0" min="0.0" max="1.0"' in page


def test_screens_and_appraise_xml_from_the_campaign_page(organizer, client_for):
    client = client_for(organizer)
    client.post(reverse("campaign-create"), form_data(
        source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()]))
    campaign = Campaign.objects.get()
    client.post(reverse("campaign-screens", args=[campaign.pk]), {"count": 7})
    assert Screen.objects.filter(campaign=campaign).count() == 7
    xml = ITEM.format(src=0, group="alpha beta")
    response = client.post(reverse("campaign-appraise-import", args=[campaign.pk]),
                           {"file": SimpleUploadedFile("j.xml", xml.encode())}, follow=True)
    assert "Imported 2 rankings (1 skipped) by 2 judges." in response.content.decode()
    bad = client.post(reverse("campaign-appraise-import", args=[campaign.pk]),
                      {"file": SimpleUploadedFile("bad.xml", b"<oops")}, follow=True)
    assert "bad.xml: not well-formed XML" in bad.content.decode() and "Nothing was imported." in bad.content.decode()
    export = client.get(reverse("campaign-appraise-export", args=[campaign.pk]))
    assert re.fullmatch(r'attachment; filename="web-judgments-2-judgments-to-\d{8}T\d{6}Z\.xml"',
                        export["Content-Disposition"])
    assert export.streaming and export.getvalue().decode() == xml


def test_only_organizers_of_a_campaign_see_it(organizer, client_for):
    judge = User.objects.create_user("jim", password="pw")
    other = User.objects.create_user("otto", password="pw")
    other.groups.add(Group.objects.get(name=ORGANIZERS_GROUP))
    client_for(organizer).post(reverse("campaign-create"), form_data(
        source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()]))
    campaign = Campaign.objects.get()
    # The API refuses a user who organizes nothing outright (403, IsOrganizer.has_permission) and hides a campaign
    # from an organizer who does not manage it (404, outside managed_campaigns); the pages answer 404 to both.
    for user, api_status in ((judge, 403), (other, 404)):
        client = client_for(user)
        assert client.get(reverse("campaign-detail", args=[campaign.pk])).status_code == 404
        assert client.get(reverse("campaign-appraise-export", args=[campaign.pk])).status_code == 404
        assert client.get(f"/api/campaigns/{campaign.pk}/").status_code == api_status, user.username
    assert client_for(judge).get(reverse("campaign-create")).status_code == 403
    assert Client().get(reverse("campaign-list")).status_code == 302  # to the login page


def test_forms_enforce_csrf(organizer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    response = client.post(reverse("campaign-create"), form_data(
        source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()]))
    assert response.status_code == 403
    assert not Campaign.objects.exists()


def test_rest_api_fields_left_out_take_the_schemas_defaults(organizer, client_for):
    """The schema gives defaults (the source judged, M = 5, ...): a request with the files alone gets them, as a
    form's unticked box or empty field would not."""
    response = client_for(organizer).post("/api/campaigns/", {
        "name": "minimal", "source": upload("source", SOURCE), "systems": [upload(n, d) for n, d in SYSTEMS.items()]})
    assert response.status_code == 201, response.content
    campaign = Campaign.objects.get(name="minimal")
    assert (campaign.mode, campaign.max_candidates, campaign.sampling, campaign.seed, campaign.redundancy,
            campaign.repeat_rate, campaign.show_replaced_words) == ("ranking", 5, "diversity", 1, 1, 0.0, True)
    assert "source" in {system["name"] for system in response.json()["systems"]}
    unticked = client_for(organizer).post("/api/campaigns/", form_data(
        name="not-judged", source_is_system="false", source=upload("source", SOURCE),
        systems=[upload(n, d) for n, d in SYSTEMS.items()]))
    assert "source" not in {system["name"] for system in unticked.json()["systems"]}


@pytest.mark.parametrize(("extra", "field", "message"), [
    ({"system": [upload("delta", b"d\n" * 4)]}, "system", "takes no part named 'system'"),
    ({"source": [upload("source", SOURCE), upload("other", SOURCE)]}, "source", "Give 'source' once, not 2 times"),
    ({"seed": ["1", "2"]}, "seed", "Give 'seed' once"),
])
def test_rest_api_refuses_unknown_and_repeated_parts(organizer, client_for, extra, field, message):
    data = form_data(name="parts", source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()])
    response = client_for(organizer).post("/api/campaigns/", {**data, **extra})
    assert response.status_code == 400 and message in response.json()[field][0]
    assert not Campaign.objects.exists()


@pytest.mark.parametrize(("extra", "field"), [
    ({"systems": [upload("alpha", SYSTEMS["alpha"]), "d\n" * 4]}, "systems"),
    ({"documents": "doc1\n" * 4}, "documents"),
])
def test_rest_api_refuses_a_file_sent_as_a_text_field(organizer, client_for, extra, field):
    # A part without a filename (curl -F 'systems=<beta.txt') is a text field, which the form does not read: the
    # campaign was made without that system (201) or without its documents.
    data = form_data(name="text", source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()])
    response = client_for(organizer).post("/api/campaigns/", {**data, **extra})
    assert response.status_code == 400 and response.json() == {field: [
        f"'{field}' came as a text field; upload it as a file (a part with a filename, as curl's -F '{field}=@FILE' "
        "sends it)."]}
    assert not Campaign.objects.exists()


def test_rest_api_refuses_a_text_field_sent_as_a_file(organizer, client_for):
    # curl -F 'count=@100' sends a file named 100: the form read its name as the count (100 screens were added, the
    # file's content unread), as the campaign import read a file named "demo" as the campaign's name.
    campaign = small_campaign()
    campaign.organizers.add(organizer)
    client = client_for(organizer)
    response = client.post(f"/api/campaigns/{campaign.pk}/screens/", {"count": upload("3", b"junk\n")})
    assert response.status_code == 400 and response.json() == {"count": [
        "'count' came as a file; give it as a text field (a part without a filename, as curl's -F 'count=VALUE' "
        "sends it)."]}
    assert not campaign.screens.exists()
    data = form_data(name=upload("demo", b""), source=upload("source", SOURCE),
                     systems=[upload(n, d) for n, d in SYSTEMS.items()])
    response = client.post("/api/campaigns/", data)
    assert response.status_code == 400 and list(response.json()) == ["name"]
    assert Campaign.objects.count() == 1


@pytest.mark.parametrize(("data", "field", "message"), [
    ("count=1&count=40", "count", "Give 'count' once, not 2 times."),
    ("cuont=3", "cuont", "This endpoint takes no part named 'cuont'; it takes: count."),
])
def test_rest_api_screens_refuse_unknown_and_repeated_fields_and_add_nothing(organizer, client_for, data, field,
                                                                           message):
    # "count=1&count=40" added 40 screens (the last value), and a misspelt count added a screen per sentence.
    campaign = small_campaign("parts", owner=organizer)
    response = client_for(organizer).post(f"/api/campaigns/{campaign.pk}/screens/", data,
                                          content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400 and response.json() == {field: [message]}
    assert not Screen.objects.exists()


def test_rest_api_creates_campaigns_screens_and_imports_judgments(organizer, client_for):
    client = client_for(organizer)
    response = client.post("/api/campaigns/", form_data(
        name="api", source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()]))
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["segments"] == 4 and {s["name"] for s in body["systems"]} == {"alpha", "beta", "gamma", "source"}
    pk = body["id"]
    bad = client.post("/api/campaigns/", form_data(
        name="api2", source=upload("source", SOURCE), systems=[upload("alpha", b"\xff\n")]))
    assert bad.status_code == 400 and "alpha: not UTF-8 text" in bad.content.decode()
    assert not Campaign.objects.filter(name="api2").exists()
    assert client.post(f"/api/campaigns/{pk}/screens/", {"count": 3}).json() == {"created": 3, "total": 3}
    xml = ITEM.format(src=0, group="alpha beta")
    imported = client.post(f"/api/campaigns/{pk}/appraise-xml/", {"file": SimpleUploadedFile("j.xml", xml.encode())})
    assert imported.json() == {"rankings": 2, "skipped": 1, "judges": 2, "already_imported": 0}
    assert client.get(f"/api/campaigns/{pk}/appraise-xml/").getvalue().decode() == xml
    assert [c["name"] for c in client.get("/api/campaigns/").json()] == ["api"]
    assert client.get("/api/schema/").status_code == 200


@pytest.mark.parametrize(("files", "said"), [
    ({"systems": [upload(n, d) for n, d in SYSTEMS.items()]},
     "Choose the files again: a browser does not keep them after an error."),
    ({"archive": upload("test-set.zip", b"not a zip")},
     "Choose the file again: a browser does not keep it after an error."),
])
def test_a_refused_new_campaign_says_to_choose_its_files_again(organizer, client_for, files, said):
    """The form came back with every typed field but with its file inputs empty (a browser cannot fill them) and
    nothing said so."""
    response = client_for(organizer).post(reverse("campaign-create"), form_data(name="kept", **files))
    page = response.content.decode()
    assert response.status_code == 400 and not Campaign.objects.exists()
    assert response.context["form"]["name"].value() == "kept"
    assert f'<p id="choose-files-again">{said}</p>' in page


def test_a_refused_new_campaign_without_files_says_nothing_of_them(organizer, client_for):
    response = client_for(organizer).post(reverse("campaign-create"), form_data())
    assert response.status_code == 400 and "Choose the file" not in response.content.decode()


def test_the_messages_are_a_list_inside_a_status_region(organizer, client_for):
    """``role="status"`` on the list itself took its list semantics away, leaving its items outside any list (axe:
    'listitem', serious): the status region now holds the list."""
    campaign = small_campaign("listed", owner=organizer)
    page = client_for(organizer).post(reverse("campaign-screens", args=[campaign.pk]), {"count": 2},
                                      follow=True).content.decode()
    assert '<div role="status"><ul class="messages"><li class="success">Added 2 screens.</li></ul></div>' in page
    assert '<ul class="messages" role="status">' not in page
