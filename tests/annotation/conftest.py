"""Fixtures the annotation tests share."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from annotation.permissions import ORGANIZERS_GROUP
from gecappraise import child_process


@pytest.fixture
def organizer(db) -> User:
    """``olga`` (password ``pw``), a member of the organizers group (she may create campaigns)."""
    user = User.objects.create_user("olga", password="pw")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    return user


@pytest.fixture
def organizer_client(organizer) -> Client:
    """A client logged in as ``organizer``."""
    client = Client()
    client.force_login(organizer)
    return client


@pytest.fixture
def no_child_process(settings, monkeypatch) -> None:
    """The embedded mode (``process``) on a machine where no new process can start."""
    settings.ANALYSIS_EXECUTION = "process"

    def refused(*args):
        raise OSError("no more processes")

    monkeypatch.setattr(child_process, "start", refused)


@pytest.fixture
def back_at_the_latest():
    """For a test that migrates the database back and forth (``MigrationExecutor``): the database at the latest
    migrations again after it."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
