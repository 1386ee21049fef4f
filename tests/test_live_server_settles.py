"""The live server's settling (tests/conftest.py): a browser test's database is emptied only once the live server
handles no request and no other client of the database runs a statement or holds a transaction, e.g. a dashboard
poll its closed page left in flight."""
from __future__ import annotations

import threading
import urllib.error
import urllib.request

import psycopg
import pytest
from django.db import connection
from django.views.generic import RedirectView

from tests.conftest import LIVE_REQUESTS, busy_connections


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


def test_a_request_of_the_live_server_is_waited_for_between_its_statements(live_server, transactional_db,
                                                                            monkeypatch):
    """A request between two statements (or before its first) leaves the database quiet: the settling emptied it
    then, and the request's next statements met the TRUNCATE (a deadlock, the next test finding this one's rows)."""
    entered, release = threading.Event(), threading.Event()
    redirect = RedirectView.get_redirect_url

    def held(self, *args, **kwargs):
        entered.set()
        release.wait(10)
        return redirect(self, *args, **kwargs)

    def fetch() -> None:
        try:
            urllib.request.urlopen(f"{live_server.url}/favicon.ico", timeout=10).close()
        except urllib.error.URLError:
            pass  # only the request's handling matters here

    monkeypatch.setattr(RedirectView, "get_redirect_url", held)
    client = threading.Thread(target=fetch)
    client.start()
    assert entered.wait(10), "the request did not reach its view"
    assert busy_connections(timeout=0) == [], "the database is quiet all the same"
    assert LIVE_REQUESTS.handling() == 1
    threading.Timer(0.3, release.set).start()
    assert LIVE_REQUESTS.settled(timeout=10) == 0, "waits for the request"
    client.join(10)
