"""Every form field that names a description (Django renders ``aria-describedby="<id>_helptext"`` for a field with
help text) finds it on the page, so a screen reader reads the help with the field; and the password forms show the
password rules before a password is refused by them."""
from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from annotation.permissions import ORGANIZERS_GROUP
from tests.annotation.factories import judge, small_campaign

pytestmark = pytest.mark.django_db


class References(HTMLParser):
    """The page's element ids and the ids each element's aria-describedby names."""

    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.described: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        for target in (attributes.get("aria-describedby") or "").split():
            self.described.append((attributes.get("name") or attributes.get("id") or tag, target))


def dangling(html: str) -> list[str]:
    page = References()
    page.feed(html)
    return [f"{field} -> #{target}" for field, target in page.described if target not in page.ids]


@pytest.fixture
def campaign():
    return small_campaign("described")


@pytest.fixture
def organizer(campaign) -> Client:
    user = User.objects.create_user("olga", password="pw")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    campaign.organizers.add(user)
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("page, of_campaign", [
    ("campaign-create", False), ("campaign-detail", True), ("campaign-analyses", True),
    ("campaign-guidelines", True), ("api-tokens", False),
])
def test_organizer_pages_describe_each_field_with_its_help(organizer, campaign, page, of_campaign):
    response = organizer.get(reverse(page, args=[campaign.pk] if of_campaign else []))
    assert response.status_code == 200
    assert dangling(response.content.decode()) == []


def test_the_password_page_shows_the_password_rules(campaign):
    client = Client()
    client.force_login(judge("jude", campaign))
    html = client.get(reverse("judge-password")).content.decode()
    assert dangling(html) == []
    assert "Your password must contain at least 8 characters." in html
    assert 'id="id_new_password1_helptext"' in html
