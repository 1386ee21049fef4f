"""The campaign page's references upload: the same checks and messages as ``manage.py import_references``, all
or nothing, for the campaign's organizers only."""
from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from annotation.models import GoldEdit, ReferenceSet, ReferenceText
from annotation.services.importing import import_outputs
from annotation.services.textfiles import NamedFile

pytestmark = pytest.mark.django_db

SOURCE = b"He go to school .\nShe like apples .\n"
GOLD = (b"S He go to school .\nA 1 2|||Vform|||goes|||REQUIRED|||-NONE-|||0\n\n"
        b"S She like apples .\nA 1 2|||SVA|||likes|||REQUIRED|||-NONE-|||0\n")
REFERENCE = b"He goes to school .\nShe likes apples .\n"


@pytest.fixture
def campaign():
    return import_outputs("refs", NamedFile("source", SOURCE), [NamedFile("alpha", REFERENCE)])


@pytest.fixture
def organizer(campaign):
    user = get_user_model().objects.create_user("olga", password="olga-password-1")
    campaign.organizers.add(user)
    client = Client()
    client.force_login(user)
    return client


def upload(client, campaign, **files):
    return client.post(reverse("campaign-references-import", args=[campaign.pk]), files, follow=True)


def test_the_page_offers_the_form_and_adds_m2_and_texts(campaign, organizer):
    page = organizer.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert 'id="references-title"' in page and 'name="m2"' in page and 'name="references"' in page
    page = upload(organizer, campaign, m2=SimpleUploadedFile("gold.m2", GOLD),
                  references=[SimpleUploadedFile("ref0", REFERENCE), SimpleUploadedFile("ref1", REFERENCE)])
    text = page.content.decode()
    assert "Added &#x27;gold.m2&#x27;: 2 gold edits of annotator 0; &#x27;ref0&#x27;: 2 corrected sentences;" in text
    assert sorted(campaign.reference_sets.values_list("name", "kind")) == [
        ("gold.m2", "m2"), ("ref0", "text"), ("ref1", "text")]
    assert GoldEdit.objects.count() == 2 and ReferenceText.objects.count() == 4
    assert "gold.m2 (M2 gold edits)" in text and "ref1 (Corrected reference text)" in text



def test_one_gold_edit_is_counted_in_the_singular_and_two_annotators_in_the_plural(campaign, organizer):
    """The message said "1 gold edits of annotators 0" of one edit, and "of annotators 0" of one annotator."""
    gold = (b"S He go to school .\nA 1 2|||Vform|||goes|||REQUIRED|||-NONE-|||0\n"
            b"A 1 2|||Vform|||goes|||REQUIRED|||-NONE-|||1\n\n"
            b"S She like apples .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
            b"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n")
    text = upload(organizer, campaign, m2=SimpleUploadedFile("two.m2", gold)).content.decode()
    assert "Added &#x27;two.m2&#x27;: 2 gold edits of annotators 0, 1." in text
    gold = b"S He go to school .\nA 1 2|||Vform|||goes|||REQUIRED|||-NONE-|||0\n\nS She like apples .\n" \
           b"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    campaign.reference_sets.all().delete()
    text = upload(organizer, campaign, m2=SimpleUploadedFile("one.m2", gold)).content.decode()
    assert "Added &#x27;one.m2&#x27;: 1 gold edit of annotator 0." in text


@pytest.mark.parametrize(("files", "cli"), [
    ({"m2": ("gold.m2", GOLD.replace(b"S She like", b"S She liked"))}, ["--m2"]),
    ({"references": ("ref0", b"He goes to school .\n")}, []),
    ({}, []),
])
def test_bad_input_gives_the_commands_message_and_writes_nothing(campaign, organizer, files, cli, tmp_path):
    uploads = {field: SimpleUploadedFile(name, data) for field, (name, data) in files.items()}
    text = upload(organizer, campaign, **uploads).content.decode()
    arguments = []
    for name, data in files.values():
        (tmp_path / name).write_bytes(data)
        arguments += [*cli, str(tmp_path / name)]
    with pytest.raises(CommandError) as refused:
        call_command("import_references", "--campaign", "refs", *arguments, stdout=io.StringIO())
    expected = str(refused.value).replace("'", "&#x27;")
    assert f"{expected}. No reference was added." in text
    assert not ReferenceSet.objects.exists() and not GoldEdit.objects.exists()


def test_only_the_campaigns_organizers_may_upload(campaign):
    other = get_user_model().objects.create_user("oscar", password="oscar-password-1")
    client = Client()
    client.force_login(other)
    response = client.post(reverse("campaign-references-import", args=[campaign.pk]),
                           {"references": SimpleUploadedFile("ref0", REFERENCE)})
    assert response.status_code == 404 and not ReferenceSet.objects.exists()
    # login_required runs before require_POST: an anonymous request is sent to log in whatever its method.
    for method in ("get", "post"):
        anonymous = getattr(Client(), method)(reverse("campaign-references-import", args=[campaign.pk]))
        assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("login")), method
    assert not ReferenceSet.objects.exists()


def test_the_api_takes_one_m2_file_and_refuses_a_second(campaign, organizer):
    """A campaign has one M2: of two ``m2`` parts only the last used to be stored, without a word."""
    response = organizer.post(f"/api/campaigns/{campaign.pk}/references/", {
        "m2": [SimpleUploadedFile("gold1.m2", GOLD), SimpleUploadedFile("gold2.m2", GOLD)]})
    assert response.status_code == 400 and response.json() == {"m2": ["Give 'm2' once, not 2 times."]}
    url = f"/api/campaigns/{campaign.pk}/references/"
    typo = organizer.post(url, {"reference": SimpleUploadedFile("r", REFERENCE)})
    assert typo.status_code == 400 and "takes no part named 'reference'" in typo.json()["reference"][0]
    assert not ReferenceSet.objects.exists()


def test_the_api_refuses_a_reference_sent_as_a_text_field(campaign, organizer):
    """A part without a filename is a text field, which the import does not read: the file uploaded beside it was
    stored (201) and this one left out without a word."""
    response = organizer.post(f"/api/campaigns/{campaign.pk}/references/", {
        "references": [SimpleUploadedFile("ref0", REFERENCE), REFERENCE.decode()]})
    assert response.status_code == 400 and response.json() == {"references": [
        "'references' came as a text field; upload it as a file (a part with a filename, as curl's -F "
        "'references=@FILE' sends it)."]}
    assert not ReferenceSet.objects.exists()
