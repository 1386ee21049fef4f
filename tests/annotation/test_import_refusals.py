"""Every bad test-set upload, through the organizer's web form and through the REST API: a 400 with the message
naming the file (and line), never a 500, and not one row written (issue 7, items 3, 4, 5 and 8)."""
from __future__ import annotations

import bz2
import html
import json

import pytest
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.urls import reverse

from annotation.campaign_forms import named_file
from annotation.models import MARKDOWN_MAX, Campaign
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services.textfiles import InputFileError

from .test_archive_limits import tar_bomb
from .test_importing import SOURCE, SYSTEMS, _tar, _zip, nothing_written, zip_with_a_nul_in_a_name

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer_client() -> Client:
    user = User.objects.create(username="olga")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="text/plain")


def files(**overrides: bytes) -> dict:
    """The form fields of a good test set, with some system files replaced (or added) by ``overrides``."""
    systems = {**SYSTEMS, **overrides}
    return {"source": upload("source", SOURCE), "systems": [upload(n, d) for n, d in systems.items()]}


def archive(name: str, data: bytes) -> dict:
    return {"archive": SimpleUploadedFile(name, data, content_type="application/octet-stream")}


def fields(**extra) -> dict:
    return {"name": "bad", "mode": "ranking", "max_candidates": 5, "sampling": "diversity", "seed": 1,
            "redundancy": 1, "repeat_rate": 0, "guidelines": "", "source_is_system": "on", **extra}


BAD_UPLOADS = {
    "system name too long": (lambda: files(**{"s" * 101: SYSTEMS["alpha"]}),
                             "system name '" + "s" * 101 + "': 101 characters, over the limit of 100"),
    "document id too long": (
        lambda: {**files(), "documents": upload("docs", b"a\na\n" + (b"d" * 201 + b"\n") * 2)},
        "docs: line 3: the document id has 201 characters, over the limit of 200"),
    "NUL in a line": (lambda: files(beta=b"ok\nbad\x00line\n\nx\n"),
                      "beta: line 2: the control character U+0000 at column 4"),
    "control character in the source": (lambda: {**files(), "source": upload("source", b"a\x1b[31m\nb\nc\nd\n")},
                                        "source: line 1: the control character U+001B at column 2"),
    "space in a system name": (lambda: files(**{"A B": SYSTEMS["alpha"]}), "system name 'A B'"),
    "hidden system file": (lambda: files(**{".alpha": SYSTEMS["alpha"]}), "system name '.alpha'"),
    "space in an archive member": (lambda: archive("run.zip", _zip({"source": SOURCE, "A B": SYSTEMS["alpha"]})),
                                   "system name 'A B'"),
    "archive member outside its folder": (
        lambda: archive("run.tar.gz", _tar({"source": SOURCE, "../alpha": SYSTEMS["alpha"]})),
        "run.tar.gz: the member '../alpha' leaves the archive's folder"),
    "NUL in an archive member": (lambda: archive("run.zip", _zip({"source": SOURCE, "alpha": b"\x00\n" * 4})),
                                 "alpha: line 1: the control character U+0000 at column 1"),
    "NUL in an archive member's name": (lambda: archive("run.zip", zip_with_a_nul_in_a_name()),
                                        "c' would have become 'ab' (a zip reader cuts a name at a NUL character)"),
    "bz2 bomb": (lambda: archive("bomb.tar.bz2", tar_bomb(bz2.compress)),
                 "bomb.tar.bz2 (uncompressed): over the upload limit of 50.0 MB (unpacking stopped there)"),
    "not an archive": (lambda: archive("run.zip", b"PK\x03\x04 broken"), "run.zip: not a zip or tar archive"),
    "a system file named like the source": (
        lambda: files(source=SYSTEMS["alpha"]),
        "source: this system file has the name of the source file (source) but not its content"),
    "system names equal but for letter case": (
        lambda: files(AMU=SYSTEMS["alpha"], amu=SYSTEMS["beta"]),
        "system names 'AMU' and 'amu' are the same name in other letter case"),
    "system names composed and decomposed, in an archive": (
        lambda: archive("run.zip", _zip({"source": SOURCE, "Z\u00fcrich": SYSTEMS["alpha"],
                                         "Zu\u0308rich": SYSTEMS["beta"]})),
        "system names 'Z\u00fcrich' and 'Zu\u0308rich' are the same name with its accents encoded differently"),
    # The archive was imported without the document index sent beside it, as one document.
    "a document index beside an archive": (
        lambda: {**archive("run.zip", _zip({"source": SOURCE, **SYSTEMS})),
                 "documents": upload("docs", b"a\na\nb\nb\n")},
        "An archive holds its own document index (a file named documents); the document index uploaded beside it "
        "would not be read."),
}


def post(client: Client, endpoint: str, data: dict):
    return client.post(reverse("campaign-create") if endpoint == "form" else "/api/campaigns/", data)


def shown_message(response) -> str:
    """The response's text as a user reads it: HTML unescaped, or the API's JSON decoded."""
    if response["Content-Type"].startswith("application/json"):
        return json.dumps(response.json(), ensure_ascii=False)
    return html.unescape(response.content.decode())


@pytest.mark.parametrize("endpoint", ["form", "api"])
@pytest.mark.parametrize("case", sorted(BAD_UPLOADS))
def test_a_bad_upload_is_a_400_with_its_message_and_writes_nothing(organizer_client, endpoint, case):
    build, message = BAD_UPLOADS[case]
    response = post(organizer_client, endpoint, fields(**build()))
    assert response.status_code == 400
    assert message in shown_message(response)
    assert nothing_written()


@pytest.mark.parametrize("endpoint", ["form", "api"])
@pytest.mark.parametrize(
    ("name", "message"),
    [("bad\x00name", "Null characters are not allowed."),
     ("c" * 201, "Ensure this value has at most 200 characters (it has 201).")],
)
def test_a_bad_campaign_name_is_a_form_error(organizer_client, endpoint, name, message):
    response = post(organizer_client, endpoint, fields(name=name, **files()))
    assert response.status_code == 400
    assert message in shown_message(response)
    assert nothing_written()


@pytest.mark.parametrize("endpoint", ["form", "api"])
def test_guidelines_over_the_limit_are_a_form_error(organizer_client, endpoint):
    response = post(organizer_client, endpoint, fields(guidelines="x" * (MARKDOWN_MAX + 1), **files()))
    assert response.status_code == 400
    assert "Keep the guidelines to 50,000 characters at most." in shown_message(response)
    assert nothing_written()
    response = post(organizer_client, endpoint, fields(name=endpoint, guidelines="x" * MARKDOWN_MAX, **files()))
    assert response.status_code in (201, 302), response.content[:300]
    assert len(Campaign.objects.get(name=endpoint).guidelines) == MARKDOWN_MAX


def test_the_model_refuses_guidelines_over_the_limit():
    campaign = Campaign(name="long", guidelines="x" * (MARKDOWN_MAX + 1))
    with pytest.raises(ValidationError) as error:
        campaign.full_clean(exclude=["owner"])
    assert error.value.message_dict == {"guidelines": ["Keep the guidelines to 50,000 characters at most."]}


@override_settings(MAX_UPLOAD_BYTES=100)
@pytest.mark.parametrize("endpoint", ["form", "api"])
def test_each_uploaded_file_and_archive_is_held_to_the_upload_limit(organizer_client, endpoint):
    response = post(organizer_client, endpoint, fields(**files(alpha=b"x\n" * 60)))
    assert response.status_code == 400
    assert "alpha: 120 bytes is over the upload limit of 100 bytes" in shown_message(response)
    big = _zip({"source": SOURCE, **{name: data * 3 for name, data in SYSTEMS.items()}})
    response = post(organizer_client, endpoint, fields(**archive("run.zip", big)))
    assert response.status_code == 400
    assert "run.zip" in shown_message(response) and "over the upload limit of 100 bytes" in shown_message(response)
    assert nothing_written()


@override_settings(MAX_UPLOAD_BYTES=100)
def test_an_upload_over_the_limit_is_refused_without_reading_it():
    class Unreadable:
        name, size = "alpha", 101

        def read(self, *args):
            pytest.fail("a file over the limit was read")

    with pytest.raises(InputFileError, match="alpha: 101 bytes is over the upload limit of 100 bytes"):
        named_file(Unreadable())


def test_the_same_upload_with_good_names_is_accepted(organizer_client):
    response = post(organizer_client, "api", fields(name="good", **files(**{"lstm-r": SYSTEMS["alpha"]})))
    assert response.status_code == 201, response.content
    assert Campaign.objects.get(name="good").systems.filter(name="lstm-r").exists()
