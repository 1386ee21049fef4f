"""Settings, read from the environment in this one module.

Environment variables:
  DATABASE_URL        database, e.g. postgres://postgres@127.0.0.1:5432/gecappraise
                      (default: SQLite in db.sqlite3 beside manage.py, the embedded mode)
  CELERY_BROKER_URL   Celery broker, e.g. redis://127.0.0.1:6379/0; REDIS_URL is used when it is unset.
                      With neither, tasks run in-process (eager), the embedded mode.
  ANALYSIS_EXECUTION  where analyses are computed: "celery" (the workers; the default with a broker), "thread"
                      (a background thread of the web process; the default without one) or "inline" (in the
                      request, after it commits; for tests). See ranking/dispatch.py.
  ANALYSIS_DISPATCH_SECONDS  how often Celery beat sends the analyses that requests recorded to the workers
                      (default 2)
  ANALYSIS_EXECUTION  where analyses are computed: "celery" (the workers; the default with a broker), "thread"
                      (a background thread of the web process; the default without one) or "inline" (in the
                      request, after it commits; for tests). See ranking/dispatch.py.
  ANALYSIS_DISPATCH_SECONDS  how often Celery beat sends the analyses that requests recorded to the workers
                      (default 2)
  SECRET_KEY          required when DEBUG is off
  DEBUG               "1"/"true" to enable (default on in the embedded mode, off otherwise)
  ALLOWED_HOSTS       comma-separated (default: localhost,127.0.0.1,[::1] and, with DEBUG, "*")
  MAX_UPLOAD_MB       largest accepted upload, per file and per archive (default 50)
  JUDGE_LEASE_MINUTES how long a served screen stays reserved for its judge before it returns to the pool
                      (default 30)
"""
from pathlib import Path
import os

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DATABASE_URL = os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL") or ""
EMBEDDED = DATABASE_URL.startswith("sqlite") and not CELERY_BROKER_URL

DEBUG = _env_bool("DEBUG", EMBEDDED)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "insecure-development-key-only-for-the-embedded-mode"

ALLOWED_HOSTS = [h for h in os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",") if h]
if DEBUG:
    ALLOWED_HOSTS.append("*")
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "annotation",
    "ranking",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "gecappraise.dropped_connections.RetryReadOnlyOnDroppedConnection",
]

ROOT_URLCONF = "gecappraise.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "gecappraise.wsgi.application"

# Connections live for a minute between requests and are checked before a request uses them; a GET or HEAD whose
# connection drops midway is answered again (gecappraise/dropped_connections.py).
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

MAX_UPLOAD_BYTES = int(float(os.environ.get("MAX_UPLOAD_MB", "50")) * 1024 * 1024)
JUDGE_LEASE_MINUTES = float(os.environ.get("JUDGE_LEASE_MINUTES", "30"))
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_UPLOAD_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = 1000

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.BasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "gecappraise API",
    "DESCRIPTION": "Campaigns, imports, judgments and analyses for human evaluation of GEC systems.",
    "VERSION": "0.1.0",
}

ANALYSIS_EXECUTION = os.environ.get("ANALYSIS_EXECUTION") or ("celery" if CELERY_BROKER_URL else "thread")
if ANALYSIS_EXECUTION not in {"celery", "thread", "inline"}:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"ANALYSIS_EXECUTION must be celery, thread or inline, not {ANALYSIS_EXECUTION!r}.")
ANALYSIS_DISPATCH_SECONDS = float(os.environ.get("ANALYSIS_DISPATCH_SECONDS", "2"))

ANALYSIS_EXECUTION = os.environ.get("ANALYSIS_EXECUTION") or ("celery" if CELERY_BROKER_URL else "thread")
if ANALYSIS_EXECUTION not in {"celery", "thread", "inline"}:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"ANALYSIS_EXECUTION must be celery, thread or inline, not {ANALYSIS_EXECUTION!r}.")
ANALYSIS_DISPATCH_SECONDS = float(os.environ.get("ANALYSIS_DISPATCH_SECONDS", "2"))

CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_URL = CELERY_BROKER_URL or "memory://"
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else "cache+memory://"
)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Requests only record analyses; beat (`celery -A gecappraise beat`) sends them to the workers (ranking/tasks.py).
CELERY_BEAT_SCHEDULE = {
    "send-waiting-analyses": {
        "task": "ranking.tasks.send_waiting_analyses",
        "schedule": ANALYSIS_DISPATCH_SECONDS,
        "options": {"expires": ANALYSIS_DISPATCH_SECONDS},
    },
}
# Requests only record analyses; beat (`celery -A gecappraise beat`) sends them to the workers (ranking/tasks.py).
CELERY_BEAT_SCHEDULE = {
    "send-waiting-analyses": {
        "task": "ranking.tasks.send_waiting_analyses",
        "schedule": ANALYSIS_DISPATCH_SECONDS,
        "options": {"expires": ANALYSIS_DISPATCH_SECONDS},
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
