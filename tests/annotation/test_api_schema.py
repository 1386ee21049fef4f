"""``/api/schema/`` describes the API as it behaves: every request body, and every status a request really gets
(201, 400, 403, 404) with a body that validates against the schema of that status."""
from __future__ import annotations

import json

import jsonschema
import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from annotation.campaign_forms import AppraiseUploadForm, CampaignImportForm, ScreensForm
from annotation.models import Campaign
from annotation.permissions import ORGANIZERS_GROUP

from .factories import small_campaign
from .test_appraise_xml import ITEM
from .test_importing import SOURCE, SYSTEMS

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        response = Client().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return json.loads(response.content)


def resolved(node, document: dict):
    """``node`` with every ``$ref`` replaced by what it points to, and OpenAPI's ``nullable`` as JSON Schema says it."""
    if isinstance(node, list):
        return [resolved(item, document) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = document
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return resolved(target, document)
    out = {key: resolved(value, document) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def check(schema: dict, path: str, method: str, response) -> None:
    """The response's status is documented for the operation, and its JSON body validates against that schema."""
    operation = schema["paths"][path][method]
    assert str(response.status_code) in operation["responses"], (path, method, response.status_code)
    content = operation["responses"][str(response.status_code)].get("content", {})
    media = response["Content-Type"].split(";")[0]
    assert media in content, (path, method, response.status_code, media)
    if media == "application/json":
        jsonschema.validate(response.json(), resolved(content[media]["schema"], schema))


def request_fields(schema: dict, path: str, method: str) -> set[str]:
    body = schema["paths"][path][method]["requestBody"]["content"]["multipart/form-data"]["schema"]
    return set(resolved(body, schema)["properties"])


def test_the_schema_is_generated_without_warnings():
    call_command("spectacular", "--fail-on-warn", "--file", "/dev/null")


def test_request_bodies_name_every_field_the_forms_read(schema):
    assert request_fields(schema, "/api/campaigns/", "post") == set(CampaignImportForm.base_fields)
    assert request_fields(schema, "/api/campaigns/{id}/appraise-xml/", "post") == set(AppraiseUploadForm.base_fields)
    assert request_fields(schema, "/api/campaigns/{id}/screens/", "post") == set(ScreensForm.base_fields)
    body = schema["paths"]["/api/campaigns/"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    properties = resolved(body, schema)["properties"]
    assert properties["source"]["format"] == "binary" and properties["systems"]["items"]["format"] == "binary"


def users():
    organizers = Group.objects.create(name=ORGANIZERS_GROUP)
    organizer, other = User.objects.create_user("org"), User.objects.create_user("other-org")
    for user in (organizer, other):
        user.groups.add(organizers)
    judge = User.objects.create_user("a-judge")
    return organizer, other, judge


def client_of(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def files(**extra):
    return {"name": "api", "mode": "ranking", "max_candidates": 5, "sampling": "diversity", "seed": 1,
            "redundancy": 1, "repeat_rate": 0, "guidelines": "", "source_is_system": "on",
            "source": SimpleUploadedFile("source", SOURCE),
            "systems": [SimpleUploadedFile(name, data) for name, data in SYSTEMS.items()], **extra}


def test_real_responses_match_the_documented_statuses_and_bodies(schema):
    organizer, other, judge = users()
    owner, stranger, judging, anonymous = client_of(organizer), client_of(other), client_of(judge), client_of(None)
    created = owner.post("/api/campaigns/", files())
    check(schema, "/api/campaigns/", "post", created)
    assert created.status_code == 201
    pk = created.json()["id"]
    # Bad input from an organizer is a 400; a user who organizes nothing and an anonymous one (session
    # authentication first: no WWW-Authenticate challenge, so not 401) are refused with 403.
    for response, status in ((owner.post("/api/campaigns/", files(name="api", seed="x")), 400),
                             (owner.post("/api/campaigns/", files(
                                 name="bad", systems=[SimpleUploadedFile("alpha", b"\xff\n")])), 400),
                             (judging.post("/api/campaigns/", files(name="judge's")), 403),
                             (anonymous.post("/api/campaigns/", files()), 403)):
        check(schema, "/api/campaigns/", "post", response)
        assert response.status_code == status, response.content
    for client in (owner, judging, anonymous):
        check(schema, "/api/campaigns/", "get", client.get("/api/campaigns/"))
    item = "/api/campaigns/{id}/"
    for client, status in ((owner, 200), (stranger, 404), (judging, 403), (anonymous, 403)):
        response = client.get(f"/api/campaigns/{pk}/")
        assert response.status_code == status
        check(schema, item, "get", response)
    screens = "/api/campaigns/{id}/screens/"
    for client, data, status in ((owner, {"count": 2}, 201), (owner, {"count": 0}, 400), (owner, {"count": "x"}, 400),
                                 (stranger, {"count": 2}, 404), (judging, {"count": 2}, 403)):
        response = client.post(f"/api/campaigns/{pk}/screens/", data)
        assert response.status_code == status
        check(schema, screens, "post", response)
    xml = "/api/campaigns/{id}/appraise-xml/"
    good = ITEM.format(src=0, group="alpha beta").encode()
    for client, data, status in ((owner, {"file": SimpleUploadedFile("j.xml", good)}, 201),
                                 (owner, {"file": SimpleUploadedFile("j.xml", b"<not-xml")}, 400),
                                 (owner, {}, 400),
                                 (owner, {"file": SimpleUploadedFile("j.xml", good), "map_users": "x"}, 400),
                                 (stranger, {"file": SimpleUploadedFile("j.xml", good)}, 404)):
        response = client.post(f"/api/campaigns/{pk}/appraise-xml/", data)
        assert response.status_code == status, response.content
        check(schema, xml, "post", response)
    for client, status in ((owner, 200), (stranger, 404), (anonymous, 403)):
        response = client.get(f"/api/campaigns/{pk}/appraise-xml/")
        assert response.status_code == status
        check(schema, xml, "get", response)
    raters = "/api/campaigns/{id}/raters/"
    for client, status in ((owner, 200), (stranger, 404), (judging, 403), (anonymous, 403)):
        response = client.get(f"/api/campaigns/{pk}/raters/")
        assert response.status_code == status
        check(schema, raters, "get", response)
    rater = response_rater_names(owner.get(f"/api/campaigns/{pk}/raters/"))[0]
    for client, data, status in ((owner, {"judge": rater, "action": "exclude"}, 200),
                                 (owner, {"judge": rater, "action": "maybe"}, 400),
                                 (owner, {"judge": "nobody", "action": "include"}, 400),
                                 (stranger, {"judge": rater, "action": "include"}, 404)):
        response = client.post(f"/api/campaigns/{pk}/raters/", data, content_type="application/json")
        assert response.status_code == status, response.content
        check(schema, raters, "post", response)
    for action, outcomes in (("close", ((stranger, 404), (judging, 403), (anonymous, 403), (owner, 200), (owner, 400))),
                             ("reopen", ((stranger, 404), (owner, 200), (owner, 400)))):
        for client, status in outcomes:
            response = client.post(f"/api/campaigns/{pk}/{action}/")
            assert response.status_code == status, response.content
            check(schema, f"/api/campaigns/{{id}}/{action}/", "post", response)


def response_rater_names(response) -> list[str]:
    return [row["rater"] for row in response.json()["raters"]]


def test_the_appraise_xml_of_a_prws_campaign_is_a_documented_409(schema):
    """The export's refusal of a PRWS campaign (409) was missing from the operation's statuses."""
    organizer, _, _ = users()
    created = client_of(organizer).post("/api/campaigns/", files(name="scored", mode="prws"))
    assert created.status_code == 201, created.content
    response = client_of(organizer).get(f"/api/campaigns/{created.json()['id']}/appraise-xml/")
    assert response.status_code == 409
    check(schema, "/api/campaigns/{id}/appraise-xml/", "get", response)


def test_the_appraise_xml_comes_to_a_client_that_asks_for_xml(schema):
    """A client asking for the media type the schema gives the export (Accept: application/xml) got a 406 "Could not
    satisfy the request Accept header.": DRF's renderers, JSON and the browsable page, make no XML. The file comes
    whatever the header, and a refusal (409) in JSON."""
    organizer, _, _ = users()
    client = client_of(organizer)
    ranked = client.post("/api/campaigns/", files(name="ranked")).json()["id"]
    scored = client.post("/api/campaigns/", files(name="scored", mode="prws")).json()["id"]
    for pk, status in ((ranked, 200), (scored, 409)):
        response = client.get(f"/api/campaigns/{pk}/appraise-xml/", HTTP_ACCEPT="application/xml")
        assert response.status_code == status, response.content
        check(schema, "/api/campaigns/{id}/appraise-xml/", "get", response)


def test_a_body_that_cannot_be_read_is_a_documented_400(schema, organizer_client, organizer):
    """A JSON or multipart parse error is a 400 ``{"detail": ...}``, which the 400's schema (fields with lists of
    messages) did not describe."""
    campaign = small_campaign("unreadable")
    campaign.organizers.add(organizer)
    raters = organizer_client.post(f"/api/campaigns/{campaign.pk}/raters/", "\x00", content_type="application/json")
    screens = organizer_client.post(f"/api/campaigns/{campaign.pk}/screens/", "--x\r\nbroken",
                                    content_type="multipart/form-data; boundary=")
    for path, response in (("/api/campaigns/{id}/raters/", raters), ("/api/campaigns/{id}/screens/", screens)):
        assert response.status_code == 400 and set(response.json()) == {"detail"}, response.content
        check(schema, path, "post", response)
    field_errors = organizer_client.post(f"/api/campaigns/{campaign.pk}/screens/", {"count": "x"})
    check(schema, "/api/campaigns/{id}/screens/", "post", field_errors)


def test_request_bodies_take_no_property_they_do_not_name(schema, organizer_client, organizer):
    """The endpoints refuse a field they do not take, so the schema says so (``additionalProperties: false``); it
    said nothing, and a client read from it that any other field was welcome."""
    bodies = {name: component for name, component in schema["components"]["schemas"].items()
              if name.endswith("Request")}
    assert {"CampaignCreateRequest", "ScreensRequest", "RaterDecisionRequest", "ScoresUploadRequest",
            "AppraiseUploadRequest", "ReferencesUploadRequest"} <= set(bodies)
    assert all(component["additionalProperties"] is False for component in bodies.values())
    campaign = small_campaign("closed")
    campaign.organizers.add(organizer)
    extra = organizer_client.post(f"/api/campaigns/{campaign.pk}/raters/", {"judge": "x", "action": "auto", "note": 1},
                                  content_type="application/json")
    assert extra.status_code == 400 and list(extra.json()) == ["note"]


def test_the_schema_states_the_defaults_a_new_campaign_takes(schema, organizer_client):
    """A field left out of ``POST /api/campaigns/`` takes a default (``CampaignImportForm.with_defaults``), which
    the README said the schema gives and it did not; a campaign made without them has the defaults it states."""
    properties = resolved(schema["components"]["schemas"]["CampaignCreateRequest"], schema)["properties"]
    defaults = {name: spec["default"] for name, spec in properties.items() if "default" in spec}
    assert {"mode", "max_candidates", "sampling", "seed", "redundancy", "crowd", "qc_p_value",
            "source_is_system"} <= set(defaults)
    created = organizer_client.post("/api/campaigns/", {
        "name": "defaults", "source": SimpleUploadedFile("source", SOURCE),
        "systems": [SimpleUploadedFile(name, data) for name, data in SYSTEMS.items()]})
    assert created.status_code == 201, created.content
    campaign = Campaign.objects.get(pk=created.json()["id"])
    for name, default in defaults.items():
        if name == "show_replaced_words":
            assert campaign.show_replaced_words is (default == "yes")
        elif name == "source_is_system":
            assert campaign.systems.filter(kind="input").exists() is default
        else:
            assert getattr(campaign, name) == default, name


def test_the_schema_states_that_the_p_value_threshold_is_above_zero(schema, organizer_client):
    p_value = schema["components"]["schemas"]["CampaignCreateRequest"]["properties"]["qc_p_value"]
    assert (p_value["minimum"], p_value["exclusiveMinimum"], p_value["maximum"]) == (0, True, 1)
    refused = organizer_client.post("/api/campaigns/", {
        "name": "p", "qc_p_value": "0", "source": SimpleUploadedFile("source", SOURCE),
        "systems": [SimpleUploadedFile(name, data) for name, data in SYSTEMS.items()]})
    assert refused.status_code == 400 and list(refused.json()) == ["qc_p_value"]


def test_the_screen_count_is_left_out_not_null(schema, organizer_client, organizer):
    """A form body carries no null: the schema's ``nullable`` count was sent as the text ``null``, which is refused;
    every sentence once is asked by leaving the count out."""
    count = schema["components"]["schemas"]["ScreensRequest"]["properties"]["count"]
    assert "nullable" not in count and count["type"] == "integer"
    campaign = small_campaign("full", sampling=Campaign.Sampling.FULL)
    campaign.organizers.add(organizer)
    refused = organizer_client.post(f"/api/campaigns/{campaign.pk}/screens/", {"count": "null"})
    assert refused.status_code == 400 and list(refused.json()) == ["count"]
    every_sentence = organizer_client.post(f"/api/campaigns/{campaign.pk}/screens/", {})
    assert every_sentence.status_code == 201 and every_sentence.json()["created"] == campaign.segments.count()
    check(schema, "/api/campaigns/{id}/screens/", "post", every_sentence)
