"""A dropped database connection (a restarted or failed-over PostgreSQL, an idle-connection killer) costs no 500:
connections are health-checked at the start of a request, and a read-only request that loses its connection
midway is answered once more on a new one. Writes are never retried."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test import Client

from annotation.models import Campaign
from annotation.permissions import ORGANIZERS_GROUP
from tests.sql import sql_value

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def reconnect_for_teardown(transactional_db):
    """The test's own connection may be the one ended: replace it before the database is flushed."""
    yield
    if connection.connection is not None and not connection.is_usable():
        connection.close()


def terminate_other_connections() -> int:
    """``pg_terminate_backend`` every other connection to the test database; returns how many were ended."""
    return sql_value("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                     "WHERE datname = current_database() AND pid <> pg_backend_pid()")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def gunicorn_url(artifacts):
    """gunicorn (one sync worker, so one persistent database connection) on the test database."""
    db = settings.DATABASES["default"]
    port = free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "DEBUG": "0",
           "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"}
    log = artifacts / "gunicorn-dropped-connection.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "gecappraise.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        cwd=REPO, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"gunicorn did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=20)


def organizer_session() -> str:
    """The session cookie of a logged-in organizer with one campaign."""
    user = User.objects.create_user("org")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    Campaign.objects.create(name="kept", owner=user)
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def get(url: str, session: str) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={session}"})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.mark.slow
def test_a_page_after_pg_terminate_backend_of_the_servers_connections_succeeds(gunicorn_url):
    session = organizer_session()
    assert get(gunicorn_url + "/campaigns/", session)[0] == 200
    assert terminate_other_connections() >= 1
    status, page = get(gunicorn_url + "/campaigns/", session)
    assert status == 200 and "kept" in page


def terminate(pid: int) -> None:
    """End backend ``pid`` from a connection of its own."""
    db = settings.DATABASES["default"]
    with psycopg.connect(
        host=db["HOST"], port=db["PORT"], user=db["USER"], dbname=db["NAME"], autocommit=True
    ) as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0]


def logged_in_organizer() -> tuple[Client, Campaign]:
    user = User.objects.create_user("org")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    campaign = Campaign.objects.create(name="kept", owner=user)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client, campaign


def test_a_read_only_request_whose_connection_drops_midway_is_answered_on_a_new_one():
    client, _ = logged_in_organizer()
    assert client.get("/campaigns/").status_code == 200
    # The test client skips Django's start-of-request connection check, so the view meets the dead connection.
    terminate(connection.connection.info.backend_pid)
    response = client.get("/campaigns/")
    assert response.status_code == 200 and "kept" in response.content.decode()


def test_a_write_whose_connection_drops_is_not_repeated():
    client, campaign = logged_in_organizer()
    assert client.get("/campaigns/").status_code == 200
    terminate(connection.connection.info.backend_pid)
    response = client.post(f"/campaigns/{campaign.pk}/screens/", {"count": "1"})
    assert response.status_code == 500
    connection.close()
    assert campaign.screens.count() == 0
