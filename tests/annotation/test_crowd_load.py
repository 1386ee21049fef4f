"""The crowd link under load (issue 10): ``benchmarks/crowd_load.py`` with 30 concurrent workers on gunicorn +
PostgreSQL (some opening the link in two tabs at once) must make exactly one judge per worker, show no worker
another's screen, store every acknowledged submit once and hand out the right completion codes. The benchmark
checks these in the database and exits 1 when one fails; the 200-worker run is the benchmark's default."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

REPO = Path(__file__).resolve().parents[2]
PORT = 8722


@pytest.mark.slow
def test_thirty_workers_opening_the_link_and_submitting_at_once_get_one_judge_each():
    if shutil.which(str(REPO / ".venv" / "bin" / "gunicorn")) is None:
        pytest.skip("gunicorn is not installed in .venv")
    database = settings.DATABASES["default"]
    name = database["NAME"].removeprefix("test_") + "_crowd_load"
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{name}"
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "crowd_load.py"), "--workers", "30", "--screens", "2",
         "--gunicorn-workers", "3", "--tabs-share", "0.5", "--think", "0.2", "--port", str(PORT)],
        env={**os.environ, "DATABASE_URL": url}, capture_output=True, text=True, timeout=600, cwd=REPO,
    )
    last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert last == "30 workers: 30 judges, 0 with two judges, 0 foreign screens, 0 duplicated, 0 lost, codes ok"
