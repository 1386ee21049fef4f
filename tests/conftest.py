"""Test configuration: the suite runs against the machine's real PostgreSQL (tests/settings.py) and Redis.

The CoNLL-14 and GMEG data are read from ``../shared/data`` beside the checkout; tests that need them skip without
them.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("GECAPPRAISE_SHARED_DATA", REPO.parent / "shared" / "data"))
CONLL14 = SHARED_DATA / "conll14"
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
GMEG = SHARED_DATA / "gmeg"


@pytest.fixture(scope="session")
def conll14_dir() -> Path:
    """The CoNLL-14 human evaluation data (G15); skips the test where ../shared/data is absent."""
    if not (CONLL14 / "judgments.xml").is_file():
        pytest.skip(f"CoNLL-14 data not found at {CONLL14} (set GECAPPRAISE_SHARED_DATA to the shared/data folder)")
    return CONLL14


@pytest.fixture(scope="session")
def gmeg_dir() -> Path:
    """The GMEG-Data dev split (N19): system outputs and PRWS scores; skips the test where it is absent."""
    if not (GMEG / "dev" / "fce-segment-scores.csv").is_file():
        pytest.skip(f"GMEG data not found at {GMEG} (set GECAPPRAISE_SHARED_DATA to the shared/data folder)")
    return GMEG


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
