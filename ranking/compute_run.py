"""``python -m ranking.compute_run RUN_ID``: compute one queued analysis run in this process.

The embedded mode's worker (``ANALYSIS_EXECUTION = "process"``): ``ranking.dispatch`` starts it for each run, so
the web process never imports the numeric stack nor spends its CPU or its interpreter lock on an analysis. The
parent's settings module and database settings come in the environment (``DJANGO_SETTINGS_MODULE``,
``GECAPPRAISE_DATABASES`` as JSON), so the run is computed on the database the parent uses.
"""
from __future__ import annotations

import json
import os
import sys

DATABASES_VARIABLE = "GECAPPRAISE_DATABASES"


def main(argv: list[str]) -> None:
    import django
    from django.conf import settings

    if DATABASES_VARIABLE in os.environ:
        settings.DATABASES = json.loads(os.environ[DATABASES_VARIABLE])
    django.setup()
    from ranking.dispatch import compute_here

    compute_here(int(argv[1]))


if __name__ == "__main__":
    main(sys.argv)
