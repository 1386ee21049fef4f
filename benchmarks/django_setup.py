"""Django for a benchmark script: the test suite's settings (tests/settings.py: the machine's PostgreSQL and Redis)
with a database of the benchmark's own unless DATABASE_URL names one. A script puts the checkout on ``sys.path``
and calls ``set_up`` before it imports anything of Django's or the project's."""
from __future__ import annotations

import os

import django


def set_up(database: str | None = None) -> None:
    """Configure Django for the benchmark: DATABASE_URL defaults to ``database`` on the local PostgreSQL (none: the
    test settings' default), DJANGO_SETTINGS_MODULE to ``tests.settings``."""
    if database is not None:
        os.environ.setdefault("DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{database}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    django.setup()
