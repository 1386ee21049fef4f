"""Fixtures for analysis tests: a real Celery worker on Redis, working on the test database."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from gecappraise.celery import app as celery_app

REPO = Path(__file__).resolve().parents[2]


class Worker:
    """A `celery worker` subprocess with its log."""

    def __init__(self, process: subprocess.Popen, log: Path) -> None:
        self.process = process
        self.log = log

    def children(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return [int(pid) for pid in out.split()]

    def kill_children(self) -> None:
        """SIGKILL the pool processes (the worker starts new ones; a task they were running goes back to the queue).
        A process that ended between listing and killing is already gone, as wanted."""
        for pid in self.children():
            with suppress(ProcessLookupError):
                os.kill(pid, 9)

    def lost_tasks(self) -> int:
        """How many tasks the worker has reported lost with their process so far."""
        return self.log.read_text().count("WorkerLostError(")


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, django_db_blocker, artifacts):
    """A real Celery worker (prefork, 2 processes) against Redis and the test database, for the session."""
    log = artifacts / "celery-worker.log"
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "TEST_CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "TEST_CELERY_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
        "NUMBA_NUM_THREADS": "1",
        "LOG_LEVEL": "INFO",  # the worker logs through settings.LOGGING: its "ready." line is at INFO
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "gecappraise", "worker", "--pool", "prefork", "--concurrency", "2",
         "--queues", settings.CELERY_TASK_DEFAULT_QUEUE, "--hostname", f"test-{os.getpid()}@%h",
         "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=REPO, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
    )
    worker = Worker(process, log)
    deadline = time.monotonic() + 60
    while "ready." not in log.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the Celery worker did not start; see {log}:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    celery_app.conf.task_always_eager = False
    try:
        yield worker
    finally:
        celery_app.conf.task_always_eager = True
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        connection.close()
