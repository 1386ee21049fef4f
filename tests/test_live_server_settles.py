"""The live server's settling (tests/conftest.py): a browser test's database is emptied only once no other client
of it runs a statement or holds a transaction, e.g. a dashboard poll its closed page left in flight."""
from __future__ import annotations

import threading

import psycopg
import pytest
from django.db import connection

from tests.conftest import busy_connections


@pytest.fixture
def other_client(transactional_db):
    """A second client of the test database, as a live server's thread is."""
    settings = connection.settings_dict
    with psycopg.connect(dbname=settings["NAME"], user=settings["USER"], host=settings["HOST"],
                         port=settings["PORT"] or 5432) as client:
        yield client


def test_a_client_in_a_transaction_is_busy_until_it_commits(other_client):
    assert busy_connections(timeout=0) == []
    other_client.execute("SELECT count(*) FROM annotation_assignment")
    busy = busy_connections(timeout=0.2)
    assert [state for state, _ in busy] == ["idle in transaction"]
    assert "annotation_assignment" in busy[0][1]

    threading.Timer(0.3, other_client.commit).start()
    assert busy_connections(timeout=10) == [], "waits for the commit"
