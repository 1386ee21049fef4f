"""Browser tests: real headless Chromium (the system's /usr/bin/chromium) driven by Playwright's sync API against
pytest-django's live server on PostgreSQL. Screenshots go to ``test-artifacts/`` at the repository root.

Playwright's sync API runs an event loop in the test's thread, so Django's guard against ORM calls from async
code is switched off for these tests (the ORM calls are in plain synchronous test code).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
DESKTOP = {"width": 1280, "height": 800}
TABLET = {"width": 768, "height": 1024}


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the session; the tests skip where it is not installed."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} not found (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def new_page(chromium):
    """A factory of pages, each in its own browser context (own cookies) at ``viewport`` (1280x800 default)."""
    contexts = []

    def make(viewport: dict | None = None):
        context = chromium.new_context(viewport=viewport or DESKTOP)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.dialogs = []
        page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
        return page

    yield make
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """The folder for screenshots (git-ignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
