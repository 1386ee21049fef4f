"""Logging as `./dev demo` runs it (DEBUG, text lines): each Django log line is written once; and a Celery worker
logs as the web does (JSON lines in production), not in Celery's own format."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

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


def test_a_celery_worker_logs_one_json_object_per_line(tmp_path):
    """Before: the worker's first line was JSON and every later one Celery's "[date: INFO/MainProcess] ..." text."""
    env = {key: value for key, value in os.environ.items() if key not in ("DEBUG", "LOG_LEVEL")}
    env.update(DJANGO_SETTINGS_MODULE="gecappraise.settings", LOG_FORMAT="json", LOG_LEVEL="INFO", SECRET_KEY="x",
               CELERY_BROKER_URL="redis://127.0.0.1:6379/13",
               DATABASE_URL=env.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/unused")
    log = tmp_path / "worker.err"
    with log.open("w") as err:
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "gecappraise", "worker", "--concurrency", "1", "--queues",
             f"log-test-{os.getpid()}", "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + 60
            while "ready." not in log.read_text() and time.monotonic() < deadline and worker.poll() is None:
                time.sleep(0.2)
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    lines = log.read_text().splitlines()
    ready = [json.loads(line) for line in lines if "ready." in line]
    assert ready and ready[0]["logger"] == "celery.apps.worker" and ready[0]["level"] == "INFO", lines
    assert not [line for line in lines if line.startswith("[20")], "lines in Celery's own format"


REFUSED_HOST = (
    "import django; django.setup(); "
    "from django.test import Client; "
    "print(Client().get('/', HTTP_HOST='scanner.example').status_code)"
)


def test_a_refused_host_is_one_warning_line_without_a_traceback():
    """Before: Django's ERROR line with the DisallowedHost traceback, a dozen lines per scanner's request."""
    unset = ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "DEBUG", "LOG_LEVEL", "ALLOWED_HOSTS")
    env = {key: value for key, value in os.environ.items() if key not in unset}
    env.update(DJANGO_SETTINGS_MODULE="gecappraise.settings", LOG_FORMAT="json", SECRET_KEY="x")
    done = subprocess.run([sys.executable, "-c", REFUSED_HOST], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "400"
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert len(lines) == 1, done.stderr
    assert lines[0]["logger"] == "django.security.DisallowedHost" and lines[0]["level"] == "WARNING"
    assert "scanner.example" in lines[0]["message"] and "exc_info" not in lines[0], lines[0]
