"""Production settings come from the environment: they refuse to start without SECRET_KEY, and HTTPS, e-mail and
log settings are set there (the settings module is imported under a chosen environment, in this process or a new
one, as a deployment imports it)."""
from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

REPO = Path(__file__).resolve().parents[2]
SETTINGS = REPO / "gecappraise" / "settings.py"
PRODUCTION = {"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/postgres", "CELERY_BROKER_URL": "redis://x:6379/0"}
HTTPS = {
    "SECRET_KEY": "k" * 20 + "-a-long-and-varied-production-secret-key-0123456789",
    "ALLOWED_HOSTS": "eval.example.org",
    "SESSION_COOKIE_SECURE": "1", "CSRF_COOKIE_SECURE": "1", "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000", "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1", "SECURE_HSTS_PRELOAD": "1",
    "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto=https",
}


def run(environment: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """``args`` run by Python in the checkout with only ``environment`` (and PATH) set."""
    env = {"PATH": os.environ["PATH"], "DJANGO_SETTINGS_MODULE": "gecappraise.settings", **environment}
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def settings_under(environment: dict[str, str]) -> dict:
    """The settings module's values when it is imported with only ``environment`` set."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environment)
    try:
        return runpy.run_path(str(SETTINGS))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_production_refuses_to_start_without_secret_key():
    result = run(PRODUCTION, "manage.py", "check")
    assert (result.returncode, result.stderr) == (1, "manage.py: SECRET_KEY must be set when DEBUG is off.\n")
    assert run({**PRODUCTION, "SECRET_KEY": "s", "LOG_FORMAT": "xml"}, "manage.py", "help").stderr == (
        "manage.py: LOG_FORMAT must be json or text, not 'xml'.\n")
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY"):
        settings_under({**PRODUCTION, "DEBUG": "0"})


def test_the_embedded_mode_makes_a_key_of_its_own_and_keeps_debug_off(tmp_path):
    """No key written in the source: anyone could forge sessions and crowd completion codes with it."""
    key_file = tmp_path / "key"
    first = settings_under({"SECRET_KEY_FILE": str(key_file)})
    assert first["EMBEDDED"] and first["DEBUG"] is False and "*" not in first["ALLOWED_HOSTS"]
    assert len(first["SECRET_KEY"]) >= 50 and key_file.stat().st_mode & 0o777 == 0o600
    assert settings_under({"SECRET_KEY_FILE": str(key_file)})["SECRET_KEY"] == first["SECRET_KEY"], "kept"
    other = settings_under({"SECRET_KEY_FILE": str(tmp_path / "other"), "DEBUG": "1"})
    assert other["DEBUG"] is True and other["SECRET_KEY"] != first["SECRET_KEY"]
    assert settings_under({"SECRET_KEY_FILE": str(key_file), "SECRET_KEY": "set"})["SECRET_KEY"] == "set"


@pytest.mark.parametrize(("content", "message"), [("", "is empty"), (None, "no key file could be made")])
def test_an_unusable_key_file_stops_the_start_with_the_reason(tmp_path, content, message):
    key_file = tmp_path / "key" if content is not None else tmp_path / "missing-folder" / "key"
    if content is not None:
        key_file.write_text(content)
    with pytest.raises(ImproperlyConfigured, match=message):
        settings_under({"SECRET_KEY_FILE": str(key_file)})


def test_production_defaults_debug_off_json_logs_and_no_password_reset():
    values = settings_under({**PRODUCTION, "SECRET_KEY": "s"})
    assert values["DEBUG"] is False and values["LOG_FORMAT"] == "json"
    assert values["ALLOWED_HOSTS"] == ["localhost", "127.0.0.1", "[::1]"]
    assert values["PASSWORD_RESET_ENABLED"] is False
    assert values["EMAIL_BACKEND"] == "django.core.mail.backends.dummy.EmailBackend"
    assert values["AXES_FAILURE_LIMIT"] == 10


def test_https_email_and_login_settings_from_the_environment():
    values = settings_under({**PRODUCTION, **HTTPS, "EMAIL_HOST": "smtp.example.org", "EMAIL_PORT": "587",
                             "EMAIL_USE_TLS": "1", "LOGIN_FAILURE_LIMIT": "5"})
    assert values["SESSION_COOKIE_SECURE"] and values["CSRF_COOKIE_SECURE"]
    assert values["SECURE_HSTS_SECONDS"] == 31536000
    assert values["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert values["PASSWORD_RESET_ENABLED"] and values["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (values["EMAIL_HOST"], values["EMAIL_PORT"], values["EMAIL_USE_TLS"]) == ("smtp.example.org", 587, True)
    assert values["AXES_FAILURE_LIMIT"] == 5 and values["ALLOWED_HOSTS"] == ["eval.example.org"]


def test_server_side_cursors_are_on_unless_a_pooler_needs_them_off():
    """The exports stream through server-side cursors; behind PgBouncer in transaction mode they must be off, and
    DATABASE_URL cannot say so (dj-database-url puts its query into OPTIONS, the driver's)."""
    cursors_off = lambda environment: settings_under({**PRODUCTION, "SECRET_KEY": "s", **environment})["DATABASES"][
        "default"]["DISABLE_SERVER_SIDE_CURSORS"]
    assert cursors_off({}) is False and cursors_off({"DISABLE_SERVER_SIDE_CURSORS": ""}) is False
    assert cursors_off({"DISABLE_SERVER_SIDE_CURSORS": "1"}) is True


def test_the_documented_https_settings_pass_djangos_deployment_check():
    https = run({**PRODUCTION, **HTTPS}, "manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert https.returncode == 0, https.stderr


@pytest.mark.parametrize("name, value", [("SECURE_HSTS_SECONDS", "a year"), ("SECURE_PROXY_SSL_HEADER", "https"),
                                         ("LOG_FORMAT", "xml"), ("LOGIN_FAILURE_LIMIT", "ten")])
def test_bad_values_are_refused_with_the_variable_named(name, value):
    with pytest.raises(ImproperlyConfigured, match=f"{name} must be"):
        settings_under({**PRODUCTION, "SECRET_KEY": "s", name: value})


def test_json_logs_are_one_object_per_line():
    code = ("import logging, logging.config, runpy; logging.config.dictConfig(runpy.run_path("
            f"{str(SETTINGS)!r})['LOGGING']); logging.getLogger('gecappraise.x').warning('dropped %s', 1)")
    result = run({**PRODUCTION, "SECRET_KEY": "s"}, "-c", code)
    record = json.loads(result.stderr.strip().splitlines()[-1])
    assert (record["level"], record["logger"], record["message"]) == ("WARNING", "gecappraise.x", "dropped 1")
