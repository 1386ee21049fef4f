"""Uploaded files keep the name their client sent (annotation/upload_names.py): a name that Django's parser would
change (``../beta``, ``a/b``, an HTML entity) is refused with the name as sent and what it would have become, on the
pages and in the API, and nothing is written (issue 7, item 8). Django's test client sends only base names, so these
requests are written out by hand."""
from __future__ import annotations

import html
import io

import pytest
from django.contrib.auth.models import Group, User
from django.http.multipartparser import MAX_TOTAL_HEADER_SIZE
from django.test import Client
from django.urls import reverse

from annotation.models import Campaign, Judgment, ReferenceSet
from annotation.permissions import ORGANIZERS_GROUP
from annotation.upload_names import NotUtf8Field, UnreadablePartHeader, _HeaderCheckedStream

from .factories import small_campaign
from .test_appraise_xml import ITEM
from .test_importing import SOURCE, SYSTEMS
from .test_organizer import form_data

pytestmark = pytest.mark.django_db

BOUNDARY = "gecappraise-test-boundary"
FIELDS = {name: str(value) for name, value in form_data().items()}


def multipart(fields: dict[str, str], files: list[tuple[str, str, bytes]]) -> bytes:
    """A multipart/form-data body with ``files`` as (field, file name as sent, bytes)."""
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
             for name, value in fields.items()]
    parts += [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
              f"Content-Type: text/plain\r\n\r\n".encode() + data + b"\r\n" for field, filename, data in files]
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


def post(client: Client, url: str, fields: dict[str, str], files: list[tuple[str, str, bytes]]):
    return client.post(url, multipart(fields, files), content_type=f"multipart/form-data; boundary={BOUNDARY}")


@pytest.fixture
def organizer() -> Client:
    user = User.objects.create_user("olga")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    client = Client()
    client.force_login(user)
    return client


def test_plain_names_name_the_systems_through_the_parser_that_keeps_them(organizer):
    files = [("source", "source", SOURCE)] + [("systems", name, data) for name, data in SYSTEMS.items()]
    response = post(organizer, reverse("campaign-create"), FIELDS, files)
    assert response.status_code == 302
    assert sorted(Campaign.objects.get(name="web").systems.values_list("name", flat=True)) == ["alpha", "beta",
                                                                                               "gamma", "source"]


@pytest.mark.parametrize("sent, became", [("../beta", "beta"), ("systems/beta", "beta"), ("C:\\outputs\\beta", "beta"),
                                          ("be&amp;ta", "be&ta")])
def test_a_system_file_whose_name_would_change_is_refused_on_the_page(organizer, sent, became):
    files = [("source", "source", SOURCE), ("systems", "alpha", SYSTEMS["alpha"]), ("systems", sent, SYSTEMS["beta"])]
    response = post(organizer, reverse("campaign-create"), FIELDS, files)
    page = html.unescape(response.content.decode())
    assert response.status_code == 400
    assert f"{sent!r}: a file is uploaded under a plain name" in page and f"would have become {became!r}" in page
    assert not Campaign.objects.exists()


@pytest.mark.parametrize("sent", ["..", ".", "outputs/", "outputs/.."])
def test_a_system_file_whose_name_would_leave_nothing_is_refused_not_left_out(organizer, sent):
    """Django's parser drops a file whose name it reduces to nothing: the campaign was made without that system."""
    files = [("source", "source", SOURCE), ("systems", "alpha", SYSTEMS["alpha"]), ("systems", sent, SYSTEMS["beta"])]
    page = html.unescape(post(organizer, reverse("campaign-create"), FIELDS, files).content.decode())
    assert f"{sent!r}: a file is uploaded under a plain name" in page and "this one would have been left out" in page
    response = post(organizer, "/api/campaigns/", FIELDS, files)
    assert response.status_code == 400 and f"{sent!r}: a file is uploaded" in str(response.json())
    assert not Campaign.objects.exists()


def test_the_api_refuses_it_too(organizer):
    files = [("source", "source", SOURCE), ("systems", "alpha", SYSTEMS["alpha"]), ("systems", "a/b", SYSTEMS["beta"])]
    response = post(organizer, "/api/campaigns/", FIELDS, files)
    assert response.status_code == 400
    assert "'a/b': a file is uploaded under a plain name" in str(response.json())
    assert not Campaign.objects.exists()


def test_appraise_xml_and_references_are_refused_as_well(organizer):
    campaign = small_campaign("xml")
    campaign.organizers.add(User.objects.get(username="olga"))
    xml = f"<set>{ITEM}</set>".encode()
    refused = post(organizer, reverse("campaign-appraise-import", args=[campaign.pk]), {"map_users": ""},
                   [("file", "../judgments.xml", xml)])
    shown = html.unescape(organizer.get(refused["Location"]).content.decode())
    assert "'../judgments.xml': a file is uploaded under a plain name" in shown and not Judgment.objects.exists()
    response = post(organizer, reverse("campaign-references-import", args=[campaign.pk]), {},
                    [("references", "refs/gold", b"x\n")])
    assert response.status_code == 302 and not ReferenceSet.objects.exists()
    shown = html.unescape(organizer.get(response["Location"]).content.decode())
    assert "'refs/gold': a file is uploaded under a plain name" in shown


def multipart_bytes(fields: dict[str, str], files: list[tuple[str, bytes, bytes]]) -> bytes:
    """``multipart`` with each file's name as raw bytes, so that a test can send one that is not UTF-8 (and each
    field's value encoded with ``surrogateescape``: "caf\\udce9" sends the byte 0xe9)."""
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode(
             "utf-8", "surrogateescape") for name, value in fields.items()]
    parts += [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{field}"; filename="'.encode() + filename
              + b'"\r\nContent-Type: text/plain\r\n\r\n' + data + b"\r\n" for field, filename, data in files]
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


UNREADABLE = [b"b\xe9ta", b"beta\"; filename*=bogus''beta"]


@pytest.mark.parametrize("filename", UNREADABLE)
def test_a_part_whose_header_the_parser_would_skip_is_refused_not_left_out(organizer, filename):
    """Django's parser skips a header line it cannot read (a Latin-1 file name as curl sends it, a parameter in an
    unknown charset) and drops the part without its Content-Disposition: the campaign was made without beta."""
    files = [(b"source", b"source", SOURCE), (b"systems", b"alpha", SYSTEMS["alpha"]),
             (b"systems", filename, SYSTEMS["beta"]), (b"systems", b"gamma", SYSTEMS["gamma"])]
    files = [(field.decode(), name, data) for field, name, data in files]
    body = multipart_bytes(FIELDS, files)
    content_type = f"multipart/form-data; boundary={BOUNDARY}"
    page = organizer.post(reverse("campaign-create"), body, content_type=content_type)
    assert page.status_code == 400
    assert "A part of the upload has a header line that cannot be read" in html.unescape(page.content.decode())
    api = organizer.post("/api/campaigns/", body, content_type=content_type)
    assert api.status_code == 400 and "A part of the upload has a header line" in api.json()["detail"]
    assert not Campaign.objects.exists()


def test_utf8_names_and_a_large_file_before_them_pass_the_header_check(organizer):
    """The check reads the body as the parser does, in chunks: a delimiter or headers across two chunks are found
    (a system of 200 kB comes first, over three of the parser's 64 kB chunks), and a UTF-8 name that is not ASCII
    names its system."""
    big = b"".join(b"%d " % i + b"x" * 50_000 + b"\n" for i in range(len(SOURCE.splitlines())))
    assert len(big) > 200_000
    files = [("source", b"source", SOURCE), ("systems", b"alpha", big),
             ("systems", "bêta".encode(), SYSTEMS["beta"])]
    response = organizer.post(reverse("campaign-create"), multipart_bytes(FIELDS, files),
                              content_type=f"multipart/form-data; boundary={BOUNDARY}")
    assert response.status_code == 302, html.unescape(response.content.decode())[:2000]
    assert sorted(Campaign.objects.get(name="web").systems.values_list("name", flat=True)) == [
        "alpha", "bêta", "source"]


def test_a_field_that_is_not_utf8_is_refused_not_read_with_its_bytes_replaced(organizer):
    """curl -F 'name=<file' sends a file's bytes as they are: a Latin-1 'café' became the campaign 'caf\ufffd'."""
    files = [("source", b"source", SOURCE), ("systems", b"alpha", SYSTEMS["alpha"])]
    body = multipart_bytes({**FIELDS, "name": "caf\udce9"}, files)
    content_type = f"multipart/form-data; boundary={BOUNDARY}"
    message = ("The field 'name' is not UTF-8 text (the byte 0xe9), the encoding of the request (browsers send "
               "UTF-8); it would have been read with that byte replaced, so nothing was read.")
    page = organizer.post(reverse("campaign-create"), body, content_type=content_type)
    assert page.status_code == 400 and message in html.unescape(page.content.decode())
    api = organizer.post("/api/campaigns/", body, content_type=content_type)
    assert api.status_code == 400 and api.json() == {"detail": f"Multipart form parse error - {message}"}
    assert not Campaign.objects.exists()
    latin = organizer.generic("POST", "/api/campaigns/", body, content_type=f"{content_type}; charset=latin-1")
    assert latin.status_code == 201 and Campaign.objects.get().name == "café", "the charset the request names"


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 1000, -1])
def test_the_header_check_finds_every_part_whatever_the_read_size(size):
    good = multipart_bytes({"name": "wéb 中"}, [("systems", b"alpha", b"a\n" * 500),
                                                ("systems", "bêta".encode(), b"b\xe9\n")])
    bad = multipart_bytes({"name": "web"}, [("systems", b"alpha", b"a\n" * 500), ("systems", b"b\xe9ta", b"b\n")])
    bad_field = multipart_bytes({"name": "web", "guidelines": "a" * 100 + "caf\udce9"}, [("systems", b"alpha", b"a\n")])

    def read_all(body: bytes) -> bytes:
        stream = _HeaderCheckedStream(io.BytesIO(body), BOUNDARY.encode(), MAX_TOTAL_HEADER_SIZE)
        chunks = []
        while chunk := stream.read(size):
            chunks.append(chunk)
            if size == -1:
                break
        return b"".join(chunks)

    assert read_all(good) == good
    epilogue = good + b"\r\nan epilogue after the close delimiter is no part: caf\xe9\r\n\r\n"
    assert read_all(epilogue) == epilogue
    with pytest.raises(UnreadablePartHeader, match=r"filename=\"b\\\\xe9ta\""):
        read_all(bad)
    with pytest.raises(NotUtf8Field, match=r"The field 'guidelines' is not UTF-8 text \(the byte 0xe9\)"):
        read_all(bad_field)


def test_a_form_field_that_is_not_utf8_is_refused_in_a_urlencoded_post_too(organizer):
    """A page's form posted by a script in Latin-1: Django read 'caf%E9' as 'caf\ufffd' and the guidelines were saved
    so; the API's form posts the same."""
    campaign = small_campaign("encoded", owner=User.objects.get(username="olga"))
    body = b"guidelines=Read+this%2C+caf%E9&instruction=Rank+them."
    page = organizer.post(reverse("campaign-guidelines", args=[campaign.pk]), body,
                          content_type="application/x-www-form-urlencoded")
    assert page.status_code == 400
    assert ("The field 'guidelines' is not UTF-8 text (the byte 0xe9), the encoding of the request"
            in html.unescape(page.content.decode()))
    campaign.refresh_from_db()
    assert campaign.guidelines == ""
    api = organizer.post(f"/api/campaigns/{campaign.pk}/screens/", b"count=1&x%FF=2",
                         content_type="application/x-www-form-urlencoded")
    assert api.status_code == 400 and api.json()["detail"].startswith("The field 'x\ufffd' is not UTF-8 text")
    assert organizer.post(reverse("campaign-guidelines", args=[campaign.pk]),
                          b"guidelines=caf%C3%A9+%E2%80%94+ok&instruction=",
                          content_type="application/x-www-form-urlencoded").status_code == 302
    campaign.refresh_from_db()
    assert campaign.guidelines == "café — ok"
