"""Settings for the test suite: the project's settings, with the machine's real PostgreSQL as default database.

Set DATABASE_URL to use another server or database name (pytest-django creates and drops ``test_<name>``);
give each concurrent test run its own name.
"""
import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gecappraise")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key")

from gecappraise.settings import *  # noqa: E402,F401,F403

# Tests read static files from the source folders; the production manifest needs collectstatic.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
