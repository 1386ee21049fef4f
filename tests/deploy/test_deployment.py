"""The production deployment of docker-compose.yml: what each service runs, health checks, volumes, scaling, and
gunicorn's settings from the environment."""
from __future__ import annotations

import os
import runpy
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict:
    if shutil.which("docker-compose") is None:
        pytest.skip("docker-compose is not installed")
    env = {**os.environ, "SECRET_KEY": "compose-check", "WORKER_CONCURRENCY": "3"}
    result = subprocess.run(["docker-compose", "config"], cwd=REPO, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return yaml.safe_load(result.stdout)


def test_compose_refuses_to_start_without_secret_key():
    if shutil.which("docker-compose") is None:
        pytest.skip("docker-compose is not installed")
    env = {key: value for key, value in os.environ.items() if key != "SECRET_KEY"}
    result = subprocess.run(["docker-compose", "config", "-q"], cwd=REPO, env=env, capture_output=True, text=True)
    assert result.returncode != 0 and "set SECRET_KEY" in result.stderr


def test_services_run_the_product_in_production_mode(compose):
    services = compose["services"]
    assert "gecappraise.gunicorn_conf" in services["web"]["command"] and "migrate" in services["web"]["command"]
    worker, beat = services["worker"]["command"].split(), services["beat"]["command"].split()
    assert worker[:4] == ["celery", "-A", "gecappraise", "worker"] and worker[worker.index("--concurrency") + 1] == "3"
    assert beat[:4] == ["celery", "-A", "gecappraise", "beat"]
    for name in ("web", "worker", "beat"):
        environment = services[name]["environment"]
        assert environment["DEBUG"] == "0" and environment["SECRET_KEY"] == "compose-check"
        assert environment["DATABASE_URL"].startswith("postgres://") and environment["CELERY_BROKER_URL"].startswith("redis://")
        assert {dependency: rule["condition"] for dependency, rule in services[name]["depends_on"].items()} == {
            "postgres": "service_healthy", "redis": "service_healthy"}


def test_workers_scale_and_data_services_are_checked_and_kept(compose):
    services = compose["services"]
    assert "ports" not in services["worker"] and "container_name" not in services["worker"]  # --scale worker=N
    for name in ("postgres", "redis"):
        assert services[name]["healthcheck"]["test"] and services[name]["volumes"]
    assert set(compose["volumes"]) == {"pgdata", "redisdata", "numbacache"}
    assert [v.split(":")[:2] for v in services["worker"]["volumes"]] == [["numbacache", "/var/cache/numba"]]


def test_gunicorn_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    monkeypatch.setenv("GUNICORN_TIMEOUT", "300")
    monkeypatch.setenv("PORT", "9000")
    conf = runpy.run_path(str(REPO / "gecappraise" / "gunicorn_conf.py"))
    assert (conf["workers"], conf["timeout"], conf["bind"]) == (3, 300, "0.0.0.0:9000")
    assert conf["logconfig_dict"]["handlers"]["access"]["formatter"] == "json"
    monkeypatch.delenv("GUNICORN_TIMEOUT")
    assert runpy.run_path(str(REPO / "gecappraise" / "gunicorn_conf.py"))["timeout"] == 120
