"""Logging as `./dev demo` runs it (DEBUG, text lines): each Django log line is written once."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO

EMIT = (
    "import django, logging; django.setup(); "
    "logging.getLogger('django.request').warning('Not Found: /favicon-probe'); "
    "logging.getLogger('annotation').warning('an app line'); "
    "logging.getLogger('django.server').info('GET /request-line-probe')"
)


def test_each_django_log_line_is_printed_once_in_the_demo_setup(tmp_path):
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "LOG_FORMAT", "LOG_LEVEL", "DEBUG")}
    env.update(DJANGO_SETTINGS_MODULE="gecappraise.settings", DEBUG="1")
    done = subprocess.run([sys.executable, "-c", EMIT], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=60, check=True)
    lines = done.stderr.splitlines()
    assert sum("Not Found: /favicon-probe" in line for line in lines) == 1, done.stderr
    assert sum("an app line" in line for line in lines) == 1, done.stderr
    assert sum("GET /request-line-probe" in line for line in lines) == 1, "runserver's request lines are kept"
