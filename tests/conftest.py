"""Test configuration: the suite runs against the machine's real PostgreSQL (tests/settings.py) and Redis.

The CoNLL-14 and GMEG data are read from ``../shared/data`` beside the checkout (or ``GECAPPRAISE_SHARED_DATA``);
tests that need them skip without them on a developer's machine, and fail under CI (``CI=true``), where a missing
data folder must not pass as a green run with the reproductions skipped.
"""
from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import pytest
from django.core.signals import request_finished, request_started

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("GECAPPRAISE_SHARED_DATA", REPO.parent / "shared" / "data"))
CONLL14 = SHARED_DATA / "conll14"
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
GMEG = SHARED_DATA / "gmeg"


def in_ci(environ: Mapping[str, str] = os.environ) -> bool:
    """Running under CI: the CI variable is "true" (as GitHub Actions and GitLab CI set it), in any case."""
    return environ.get("CI", "").strip().lower() == "true"


class LiveRequests:
    """The requests the live server's threads are handling, from Django's ``request_started`` to its
    ``request_finished`` signal (sent once the response is closed, also when the browser went away). The test
    client's, in the test's own thread, are not counted, nor those of a thread that has ended."""

    def __init__(self) -> None:
        self._threads: set[threading.Thread] = set()
        self._lock = threading.Lock()
        request_started.connect(self._started, weak=False)
        request_finished.connect(self._finished, weak=False)

    def _started(self, **kwargs) -> None:
        if threading.current_thread() is not threading.main_thread():
            with self._lock:
                self._threads.add(threading.current_thread())

    def _finished(self, **kwargs) -> None:
        with self._lock:
            self._threads.discard(threading.current_thread())

    def handling(self) -> int:
        """How many requests are being handled now."""
        with self._lock:
            return sum(thread.is_alive() for thread in self._threads)

    def settled(self, timeout: float) -> int:
        """Wait up to ``timeout`` seconds until no request is being handled; how many still are."""
        deadline = time.monotonic() + timeout
        while self.handling() and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.handling()


LIVE_REQUESTS = LiveRequests()


def busy_connections(timeout: float) -> list[tuple[str, str]]:
    """Wait up to ``timeout`` seconds until no other client of this PostgreSQL database runs a statement or holds a
    transaction open; return the (state, query) of those still busy then (none: the database is quiet)."""
    from django.db import connection

    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while True:
            cursor.execute(
                "SELECT state, query FROM pg_stat_activity WHERE datname = current_database() "
                "AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND state <> 'idle'"
            )
            busy = cursor.fetchall()
            if not busy or time.monotonic() >= deadline:
                return busy
            time.sleep(0.05)


def missing_data(name: str, folder: Path, required: Path, environ: Mapping[str, str] = os.environ
                 ) -> tuple[str, str] | None:
    """None where ``required`` (a file of ``folder``) exists; otherwise what to do and why: ("fail", message) under
    CI, ("skip", message) elsewhere. The message says where the data was looked for and how to point to it."""
    if required.is_file():
        return None
    message = (f"{name} data not found at {folder} (no {required.name}); set GECAPPRAISE_SHARED_DATA to the "
               "shared/data folder")
    if in_ci(environ):
        return "fail", f"{message}. CI=true, so missing data fails the test instead of skipping it."
    return "skip", message


def require_data(name: str, folder: Path, required: Path) -> Path:
    """``folder``, or the test fails (under CI) or is skipped (elsewhere) as ``missing_data`` decides."""
    decision = missing_data(name, folder, required)
    if decision is not None:
        action, message = decision
        if action == "fail":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return folder


def conll14_data() -> Path:
    return require_data("CoNLL-14", CONLL14, CONLL14 / "judgments.xml")


def gmeg_data() -> Path:
    return require_data("GMEG", GMEG, GMEG / "dev" / "fce-segment-scores.csv")


@pytest.fixture(autouse=True)
def _live_server_settles(request: pytest.FixtureRequest, django_db_blocker):
    """After a test with the live server, its database is emptied (pytest-django's flush: one TRUNCATE of every
    table) only once the server has finished the requests a browser left in flight, e.g. a dashboard poll closed
    with its page: the poll's snapshot (kept_tallies.one_snapshot) holds a lock on one table and waits for the next,
    which the TRUNCATE may hold, and PostgreSQL ends such a deadlock by failing one of the two.

    The requests the server is handling are waited for first (``LIVE_REQUESTS``): between two statements outside a
    transaction, a poll's connection is idle, as it is before the poll's first statement, and the TRUNCATE then met
    the poll's snapshot begun just after (a deadlock in CI under load, the test's teardown failing and the next test
    finding the last one's rows).

    A request still running 10 s after its test fails the test, naming the query."""
    yield
    if "live_server" in request.fixturenames:
        handling = LIVE_REQUESTS.settled(timeout=10)
        assert not handling, f"the live server still handles {handling} requests, 10 s after the test"
        with django_db_blocker.unblock():
            busy = busy_connections(timeout=10)
        assert not busy, f"the live server still runs, 10 s after the test: {busy}"


@pytest.fixture(scope="session")
def conll14_dir() -> Path:
    """The CoNLL-14 human evaluation data (G15); without it the test skips, or fails under CI."""
    return conll14_data()


@pytest.fixture(scope="session")
def gmeg_dir() -> Path:
    """The GMEG-Data dev split (N19): system outputs and PRWS scores; without it the test skips, or fails under CI."""
    return gmeg_data()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """The folder for screenshots and logs of the tests (git-ignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium (Playwright, the system's browser) for the session; skips where it is not installed."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} not found (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
