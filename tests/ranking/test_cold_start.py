"""A fresh process stays light until it analyses: loading the URLs, the Celery task modules and the request path of
starting an analysis import no SciPy, matplotlib or numba (and the URLs alone no Celery nor the API schema
generator); the compiled TrueSkill kernels come from numba's cache in a new process."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("numba", "scipy", "matplotlib")
DEFERRED = ("celery", "kombu")
"""Imported by the task modules and the workers, not by loading the project and its URLs (``manage.py check``)."""

LOAD_URLS_AND_TASKS = f"""
import json, sys
import django
django.setup()
from django.urls import get_resolver
from django.urls.resolvers import URLResolver

def walk(patterns):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            walk(pattern.url_patterns)

walk(get_resolver().url_patterns)
deferred = sorted(m for m in sys.modules if m.split(".")[0] in {DEFERRED!r} or m == "drf_spectacular.generators")
from gecappraise.celery import app
app.loader.import_default_modules()
from ranking.forms import AnalysisForm
assert AnalysisForm({{"bootstrap": 1000, "confidence": 0.95, "seed": 1}}).is_valid()
print(json.dumps({{
    "heavy": sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r}),
    "deferred": deferred,
    "loaded": [m for m in ("ranking.views", "ranking.dispatch", "ranking.tasks", "ranking.runs") if m in sys.modules],
}}))
"""

TRUESKILL_TWICE = """
import json
import numpy as np
from numba.core.registry import CPUDispatcher
from ranking.core import trueskill
trueskill.trueskill_scores(np.array([0, 1]), np.array([1, 2]), np.array([-1, 0]), 3, np.random.default_rng(0), 2)
kernels = {name: f for name, f in vars(trueskill).items() if isinstance(f, CPUDispatcher)}
print(json.dumps({name: [sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values())]
                  for name, f in kernels.items()}))
"""


def run_python(code: str) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_urls_task_modules_and_starting_an_analysis_import_no_numeric_stack():
    seen = run_python(LOAD_URLS_AND_TASKS)
    assert seen["loaded"] == ["ranking.views", "ranking.dispatch", "ranking.tasks", "ranking.runs"]
    assert seen["heavy"] == []
    assert seen["deferred"] == []  # nor Celery or the API schema generator before a task module is loaded


def test_a_new_process_loads_the_compiled_trueskill_kernels_from_the_cache():
    run_python(TRUESKILL_TWICE)  # compiles and stores, unless an earlier process did
    kernels = run_python(TRUESKILL_TWICE)
    assert kernels["_run_chains"][0] >= 1, kernels  # the kernel the analysis calls came from the cache
    assert all(misses == 0 for _, misses in kernels.values()), kernels  # and nothing was compiled again
