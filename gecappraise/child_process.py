"""Work that the embedded mode (``ANALYSIS_EXECUTION = "process"``, ``./dev demo``) hands to a new Python process, so
that a request returns at once and the web process lends the work neither its time nor its interpreter lock:
analyses (``python -m ranking.compute_run``), screen jobs and background jobs (``python -m annotation.run_job``).

The child gets the parent's environment (its settings module) and database settings (``GECAPPRAISE_DATABASES``, as
JSON), so it works on the database the parent uses; it runs in its own session, so it finishes its work when the web
process stops or reloads, and its errors go to the parent's stderr.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

DATABASES_VARIABLE = "GECAPPRAISE_DATABASES"


def start(module: str, *args: str) -> None:
    """Start ``python -m MODULE ARGS`` as such a child and leave it. Raises OSError when it cannot start."""
    from django.conf import settings

    env = {**os.environ, DATABASES_VARIABLE: json.dumps(settings.DATABASES, default=str)}
    subprocess.Popen([sys.executable, "-m", module, *args], cwd=settings.BASE_DIR, env=env,
                     stdin=subprocess.DEVNULL, start_new_session=True)


def setup() -> None:
    """Set Django up in the child, on the parent's databases."""
    import django
    from django.conf import settings

    if DATABASES_VARIABLE in os.environ:
        settings.DATABASES = json.loads(os.environ[DATABASES_VARIABLE])
    django.setup()
