"""Browser tests: real headless Chromium (the system's /usr/bin/chromium) driven by Playwright's sync API against
pytest-django's live server on PostgreSQL. The ``chromium`` and ``artifacts`` fixtures live in tests/conftest.py.

Playwright's sync API runs an event loop in the test's thread, so Django's guard against ORM calls from async
code is switched off for these tests (the ORM calls are in plain synchronous test code).
"""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

DESKTOP = {"width": 1280, "height": 800}
TABLET = {"width": 768, "height": 1024}
PHONE = {"width": 375, "height": 667}
#: A phone's browser: with ``is_mobile`` Chromium honours the page's viewport meta tag and zooms out to show a page
#: wider than the window, as a phone does.
MOBILE = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}


@pytest.fixture
def new_page(chromium):
    """A factory of pages, each in its own browser context (own cookies) at ``viewport`` (1280x800 default), with
    further context ``options`` (e.g. ``MOBILE``).

    Every page's Content-Security-Policy violations are collected: a test whose pages had any fails at its end
    (the policy must never break a page, gecappraise/security_headers.py)."""
    contexts, violations = [], []

    def make(viewport: dict | None = None, **options):
        context = chromium.new_context(viewport=viewport or DESKTOP, **options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.dialogs = []
        page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
        page.on("console", lambda message: "Content Security Policy" in message.text
                and violations.append(f"{page.url}: {message.text}"))
        return page

    yield make
    for context in contexts:
        context.close()
    assert violations == [], "\n".join(violations)
