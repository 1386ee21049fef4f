"""``./dev demo`` runs the product on SQLite, which the rest of the suite (on PostgreSQL) never touches. Its set-up,
``migrate`` and then the ``demo`` command, whose judges claim and submit screens through the queue's plain SQL,
must work there too."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_demo_sets_up_on_sqlite(tmp_path):
    database = tmp_path / "demo.sqlite3"
    unset = {"DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    env = {key: value for key, value in os.environ.items() if key not in unset}
    env.update(DATABASE_URL=f"sqlite:///{database}", SECRET_KEY="demo-on-sqlite", DEBUG="0")
    for args in (["migrate", "--verbosity", "0"], ["demo", "--url", "http://127.0.0.1:8000/"]):
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=240
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert "System check identified some issues" not in done.stderr + done.stdout, (
            f"{args[0]} warned a first-time user of a PostgreSQL-only index option: {done.stderr[-3000:]}")
    assert "demo judge ann / ann" in done.stdout
    with sqlite3.connect(database) as connection:
        (judgments,) = connection.execute("SELECT COUNT(*) FROM annotation_judgment").fetchone()
    assert judgments > 0, "the demo's judges submitted screens"
