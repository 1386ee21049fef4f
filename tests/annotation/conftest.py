"""Fixtures the annotation tests share."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from annotation.permissions import ORGANIZERS_GROUP


@pytest.fixture
def organizer_client(db) -> Client:
    """A client logged in as ``olga``, a member of the organizers group (she may create campaigns)."""
    user = User.objects.create_user("olga", password="pw")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    client = Client()
    client.force_login(user)
    return client
