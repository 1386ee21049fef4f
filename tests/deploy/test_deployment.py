"""The production deployment of docker-compose.yml: what each service runs, health checks, volumes, scaling, and
gunicorn's settings from the environment."""
from __future__ import annotations

import json
import os
import re
import runpy
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
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


#: Settings docker-compose.yml sets itself: the services' database and broker, production mode, and the key file of
#: the embedded mode, which the services never use.
SET_BY_COMPOSE = {"DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "DEBUG", "SECRET_KEY_FILE"}


def test_every_setting_reaches_the_services_from_the_environment_or_env_file():
    """What the compose file's header promises: any setting of settings.py, put in the environment or .env, reaches
    the web, worker and beat containers."""
    if shutil.which("docker-compose") is None:
        pytest.skip("docker-compose is not installed")
    source = (REPO / "gecappraise" / "settings.py").read_text()
    names = set(re.findall(r'_env(?:_bool|_int|_float)?\("([A-Z_]+)"', source)) | {"EMAIL_HOST_PASSWORD"}
    assert {"SECURE_HSTS_PRELOAD", "TRUSTED_PROXY_COUNT", "ANALYSIS_CLAIM_SECONDS"} <= names  # the parse works
    names -= SET_BY_COMPOSE
    env = {**os.environ, **{name: f"set-{name.lower()}" for name in names}}
    result = subprocess.run(["docker-compose", "config"], cwd=REPO, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    for service in ("web", "worker", "beat"):
        environment = services[service]["environment"]
        missing = sorted(name for name in names if environment.get(name) != f"set-{name.lower()}")
        assert missing == [], f"{service} does not get {missing}"


def test_an_unset_setting_reaches_the_services_empty_and_means_its_default(monkeypatch):
    """docker-compose.yml passes a setting nobody set as an empty string; settings.py reads that as its default."""
    if shutil.which("docker-compose") is None:
        pytest.skip("docker-compose is not installed")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("MAX_", "EMAIL_", "ANALYSIS_"))}
    result = subprocess.run(["docker-compose", "config"], cwd=REPO, env={**env, "SECRET_KEY": "x"},
                            capture_output=True, text=True)
    environment = yaml.safe_load(result.stdout)["services"]["web"]["environment"]
    passed = {key: value for key, value in environment.items() if key not in SET_BY_COMPOSE}
    code = ("import django, json; from django.conf import settings as s; django.setup(); print(json.dumps(["
            "s.MAX_UPLOAD_BYTES, s.MAX_REQUEST_BYTES, s.ANALYSIS_DISPATCH_SECONDS, s.EMAIL_PORT, s.SECURE_HSTS_PRELOAD,"
            " s.ANALYSIS_CLAIM_SECONDS, s.DEFAULT_FROM_EMAIL]))")
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
        env={"PATH": os.environ["PATH"], "DJANGO_SETTINGS_MODULE": "gecappraise.settings",
             "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/unused", **passed},
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [50 * 2**20, 200 * 2**20, 2, 25, False, 600, "webmaster@localhost"]


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
    monkeypatch.setenv("GUNICORN_THREADS", "4")
    conf = runpy.run_path(str(REPO / "gecappraise" / "gunicorn_conf.py"))
    assert (conf["workers"], conf["threads"], conf["timeout"], conf["bind"]) == (3, 4, 300, "0.0.0.0:9000")
    assert conf["worker_class"] == "gthread" and conf["graceful_timeout"] == 300
    assert conf["logconfig_dict"]["handlers"]["access"]["formatter"] == "json"
    assert conf["access_log_format"].endswith(" %(M)sms")  # each request's duration
    monkeypatch.delenv("GUNICORN_TIMEOUT")
    assert runpy.run_path(str(REPO / "gecappraise" / "gunicorn_conf.py"))["timeout"] == 120


SLOW_STREAM = """
import time


def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    for _ in range(8):
        time.sleep(0.5)
        yield b"x" * 1000 + b"\\n"
"""


def free_port() -> int:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]


def test_a_response_streamed_for_longer_than_the_timeout_is_sent_whole(tmp_path):
    """gunicorn with the product's settings (GUNICORN_TIMEOUT=1) sends a response that streams for 4 s whole: its
    threaded workers tell gunicorn they are alive while a thread serves. A sync worker was killed mid-stream once a
    request outlasted the timeout, and a large campaign's judgments download ended early after its 200 status."""
    (tmp_path / "slow_stream.py").write_text(SLOW_STREAM)
    port = free_port()
    env = {**os.environ, "GUNICORN_TIMEOUT": "1", "WEB_CONCURRENCY": "1", "PORT": str(port), "LOG_FORMAT": "text"}
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("gunicorn")), "-c", "python:gecappraise.gunicorn_conf",
         "--pythonpath", str(tmp_path), "--bind", f"127.0.0.1:{port}", "slow_stream:app"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as response:
                    body = response.read()
                break
            except (ConnectionError, urllib.error.URLError):
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.2)
        assert len(body) == 8 * 1001
    finally:
        server.terminate()
        server.wait(timeout=30)


def dockerfile_steps() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined, comments left out."""
    text = re.sub(r"\\\n\s*", " ", (REPO / "Dockerfile").read_text())
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.slow
def test_the_images_static_files_are_the_hashed_ones_the_services_serve(tmp_path):
    """The image's collectstatic step, run as the Dockerfile runs it on what it copies, writes the manifest that the
    services' settings (DEBUG off, PostgreSQL) read: every page's static files resolve to their hashed names, and
    the JavaScript modules import each other by them.
    (Before, the step ran in the embedded mode, wrote no manifest, and every page of the image failed.)"""
    copied = [part for step in dockerfile_steps() if step.startswith("COPY ") for part in step.split()[1:-1]]
    for name in copied:
        if name in {"pyproject.toml", "README.md"}:
            continue
        source = REPO / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    step = next(step for step in dockerfile_steps() if "collectstatic" in step)
    assert step.startswith("RUN ")
    bin_dir = str(Path(sys.executable).parent)
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    built = subprocess.run(["sh", "-c", step.removeprefix("RUN ")], cwd=tmp_path, capture_output=True, text=True,
                           env={"PATH": path, "PYTHONPATH": str(tmp_path)})
    assert built.returncode == 0, built.stderr
    manifest = json.loads((tmp_path / "staticfiles" / "staticfiles.json").read_text())["paths"]
    ours = {str(file.relative_to(REPO / "static")) for file in (REPO / "static").rglob("*") if file.is_file()}
    assert ours <= set(manifest)
    code = ("import django; django.setup(); from django.templatetags.static import static; "
            "print(static('favicon.svg'), static('css/site.css'))")
    served = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
        env={"PATH": path, "PYTHONPATH": str(tmp_path), "DJANGO_SETTINGS_MODULE": "gecappraise.settings",
             "SECRET_KEY": "x", "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/unused"},
    )
    assert served.returncode == 0, served.stderr
    assert served.stdout.split() == [f"/static/{manifest['favicon.svg']}", f"/static/{manifest['css/site.css']}"]
    assert (tmp_path / "staticfiles" / f"{manifest['css/site.css']}.gz").is_file()
    for module in ("js/judge.js", "js/prws.js"):  # their import of screen.js names its hashed file
        text = (tmp_path / "staticfiles" / manifest[module]).read_text()
        assert f'from "./{Path(manifest["js/screen.js"]).name}"' in text and 'from "./screen.js"' not in text
