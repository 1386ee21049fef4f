"""Settings for the test suite: the project's settings, with the machine's real PostgreSQL as default database.

Set DATABASE_URL to use another server or database name (pytest-django creates and drops ``test_<name>``);
give each concurrent test run its own name.
"""
import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gecappraise")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key")

from gecappraise.settings import *  # noqa: E402,F401,F403

# Django's test client logs in without a request, which django-axes refuses; the login throttling tests turn it on.
AXES_ENABLED = False

# Tests read static files from the source folders; the production manifest needs collectstatic.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405

# Tasks run in-process (eagerly) except in tests that start a real worker (the `celery_worker` fixture), which
# turns eager mode off; both use Redis as broker and result backend, on a queue of the test run's own.
CELERY_BROKER_URL = os.environ.get("TEST_CELERY_BROKER_URL", "redis://127.0.0.1:6379/14")
CELERY_RESULT_BACKEND = CELERY_BROKER_URL
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("TEST_CELERY_QUEUE", f"gecappraise-test-{os.getpid()}")

# Analyses are computed in the request that starts them, once it commits (tests of the embedded mode's process or
# of the workers set ANALYSIS_EXECUTION themselves).
ANALYSIS_EXECUTION = "inline"
