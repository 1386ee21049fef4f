"""Settings, read from the environment in this one module.

Environment variables:
  DATABASE_URL        database, e.g. postgres://postgres@127.0.0.1:5432/gecappraise
                      (default: SQLite in db.sqlite3 beside manage.py, the embedded mode)
  DISABLE_SERVER_SIDE_CURSORS  "1" behind a connection pooler in transaction mode (PgBouncer's pool_mode =
                      transaction): the exports then read their rows without PostgreSQL's server-side cursors,
                      which live across transactions, so a pooler may hand a cursor's next fetch another connection
  CELERY_BROKER_URL   Celery broker, e.g. redis://127.0.0.1:6379/0; REDIS_URL is used when it is unset.
                      With neither, tasks run in-process (eager), the embedded mode.
  ANALYSIS_EXECUTION  where analyses are computed: "celery" (the workers; the default with a broker), "process"
                      (a new process per analysis, started by the web process; the default without a broker) or
                      "inline" (in the request, after it commits; for tests). See ranking/dispatch.py. Large
                      screen requests, large imports and attention checks on many screens (jobs) go the same
                      way: to the workers, to a new process (annotation/run_job.py) or into the request.
  ANALYSIS_DISPATCH_SECONDS  how often Celery beat sends the analyses and screen jobs that requests recorded to
                      the workers (default 2)
  ANALYSIS_PROCESSES  with "process": how many analyses are computed at once; later ones wait their turn (default 1)
  ANALYSES_PER_CAMPAIGN  how many analyses of one campaign may be queued or running at once (default 5, 0: no
                      limit); the analyses page and the API refuse to start another meanwhile
  ANALYSIS_CLAIM_SECONDS  how long a run claimed by a worker or process may go without a heartbeat (its progress)
                      before the dispatcher puts it back in the queue, e.g. after its worker died (default 600)
  SECRET_KEY          required with PostgreSQL or a broker unless DEBUG is on; otherwise (the embedded mode, or
                      DEBUG) a random key of this installation, made once and kept in SECRET_KEY_FILE
                      (default .secret-key beside manage.py, readable by its owner only)
  DEBUG               "1"/"true" to enable Django's debug pages (default off, in every mode)
  ALLOWED_HOSTS       comma-separated (default: localhost,127.0.0.1,[::1] and, with DEBUG, "*")
  MAX_UPLOAD_MB       largest accepted upload, per file and per archive (default 50)
  MAX_REQUEST_MB      largest request body an organizer may send, all files together (default 200; anyone
                      else may send 1 MB)
  IMPORT_IN_REQUEST_MB  uploads up to this size in all are imported within the request; larger ones by a
                      background job (default 8)
  TRUSTED_PROXY_COUNT how many reverse proxies stand in front of the server (default 0): the login throttling
                      then counts a client by its address in X-Forwarded-For, not the proxy's (client_address.py)
  CROWD_NEW_WORKERS_PER_HOUR  how many new crowd workers one address may open a study as in an hour (default 30,
                      0: no limit); each holds a screen for its lease
  JUDGE_LEASE_MINUTES how long a served screen stays reserved for its judge before it returns to the pool
                      (default 30)
  API_TOKEN_DAYS      how long an API token lives, in days, from its creation (default 90); tokens are not
                      renewed by use (annotation/services/api_tokens.py)
  API_TOKENS_PER_USER how many unexpired API tokens one organizer may hold at once (default 10)

Behind HTTPS (production; each off/0 by default so that plain-HTTP development keeps working):
  SESSION_COOKIE_SECURE, CSRF_COOKIE_SECURE   "1" to send the cookies over HTTPS only
  SECURE_SSL_REDIRECT "1" to redirect plain HTTP to HTTPS
  SECURE_HSTS_SECONDS Strict-Transport-Security max-age (e.g. 31536000); SECURE_HSTS_INCLUDE_SUBDOMAINS and
                      SECURE_HSTS_PRELOAD "1" to add those directives
  SECURE_PROXY_SSL_HEADER  the header by which a TLS-terminating proxy says the request came over HTTPS,
                      "NAME=VALUE", e.g. "X-Forwarded-Proto=https" (set it only behind a proxy that sets that header)
  CSRF_TRUSTED_ORIGINS comma-separated origins (https://host) allowed to POST forms, when they differ from the host
Logins:
  LOGIN_FAILURE_LIMIT failed logins of one username from one address before it is locked out (default 10)
  LOGIN_LOCKOUT_MINUTES how long that lock-out lasts (default 15); django-axes counts the failures in the database
E-mail (password reset by e-mail exists only when EMAIL_HOST or EMAIL_BACKEND is set; without, its link and pages
are hidden):
  EMAIL_HOST          SMTP server; with EMAIL_PORT (25), EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS or
                      EMAIL_USE_SSL ("1"), EMAIL_TIMEOUT (seconds, default 10)
  EMAIL_BACKEND       another Django e-mail backend, e.g. django.core.mail.backends.console.EmailBackend
  DEFAULT_FROM_EMAIL  the sender of the product's e-mails (default webmaster@localhost)
Logs (the web's, the Celery workers' and beat's):
  LOG_LEVEL           WARNING by default; Celery's lines for each task received, done or sent by beat only at DEBUG
  LOG_FORMAT          "json" (one JSON object per line: time, level, logger, message; the default when DEBUG is
                      off) or "text"
"""
import os
import re
import secrets
import warnings
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from gecappraise.log_formats import FORMATTERS

BASE_DIR = Path(__file__).resolve().parent.parent


def _env(name: str, default: str = "") -> str:
    """The variable's value, or ``default`` when it is unset or blank: docker-compose.yml passes every setting it
    does not give a value of its own as an empty string, which means "the default" here."""
    return os.environ.get(name, "").strip() or default


def _env_bool(name: str, default: bool) -> bool:
    value = _env(name)
    return value.lower() in {"1", "true", "yes", "on"} if value else default


def _env_number(name: str, default: float, kind: type) -> float:
    value = _env(name)
    if not value:
        return default
    try:
        return kind(value)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise ImproperlyConfigured(f"{name} must be {what}, not {value!r}.") from None


def _env_int(name: str, default: int) -> int:
    return _env_number(name, default, int)


def _env_float(name: str, default: float) -> float:
    return _env_number(name, default, float)


def _proxy_ssl_header(value: str) -> tuple[str, str] | None:
    """``"X-Forwarded-Proto=https"`` as Django's ``("HTTP_X_FORWARDED_PROTO", "https")``; empty: None."""
    if not value.strip():
        return None
    name, separator, expected = value.partition("=")
    if not separator or not name.strip() or not expected.strip():
        raise ImproperlyConfigured(f"SECURE_PROXY_SSL_HEADER must be NAME=VALUE, e.g. X-Forwarded-Proto=https, "
                                   f"not {value!r}.")
    meta = name.strip().upper().replace("-", "_")
    return (meta if meta.startswith("HTTP_") else f"HTTP_{meta}"), expected.strip()


DATABASE_URL = _env("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
CELERY_BROKER_URL = _env("CELERY_BROKER_URL") or _env("REDIS_URL")
EMBEDDED = DATABASE_URL.startswith("sqlite") and not CELERY_BROKER_URL



def _install_secret_key(path: Path) -> str:
    """This installation's own random key, made on first use and kept in ``path`` (readable by its owner only):
    a key written in the source would let anyone forge sessions and crowd completion codes."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_text(encoding="ascii").strip()
        if not key:
            raise ImproperlyConfigured(f"{path} is empty: delete it to make a new key, or set SECRET_KEY.") from None
        return key
    except OSError as error:
        raise ImproperlyConfigured(f"Set SECRET_KEY: no key file could be made at {path} ({error.strerror}).") from None
    key = secrets.token_urlsafe(50)
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write(key + "\n")
    return key


DEBUG = _env_bool("DEBUG", False)
SECRET_KEY = _env("SECRET_KEY")
if not SECRET_KEY:
    if not (DEBUG or EMBEDDED):
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = _install_secret_key(Path(_env("SECRET_KEY_FILE") or BASE_DIR / ".secret-key"))

ALLOWED_HOSTS = [h for h in _env("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",") if h]
if DEBUG:
    ALLOWED_HOSTS.append("*")
CSRF_TRUSTED_ORIGINS = [o for o in _env("CSRF_TRUSTED_ORIGINS").split(",") if o]
SESSION_COOKIE_SECURE = _env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = _env_bool("CSRF_COOKIE_SECURE", False)
SECURE_SSL_REDIRECT = _env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = _env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = _env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_PROXY_SSL_HEADER = _proxy_ssl_header(_env("SECURE_PROXY_SSL_HEADER"))

INSTALLED_APPS = [
    "gecappraise.apps.AdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "knox",
    "axes",
    "annotation",
    "ranking",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "gecappraise.security_headers.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "annotation.upload_names.SentNamesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "gecappraise.session_renewal.SessionRenewalMiddleware",
    "annotation.request_limits.RequestSizeLimitMiddleware",
    "annotation.upload_names.FormEncodingMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "gecappraise.dropped_connections.RetryReadOnlyOnDroppedConnection",
    "axes.middleware.AxesMiddleware",
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
                "annotation.navigation.role_links",
            ],
        },
    },
]

WSGI_APPLICATION = "gecappraise.wsgi.application"
CSRF_FAILURE_VIEW = "gecappraise.error_pages.csrf_failure"

# Connections live for a minute between requests and are checked before a request uses them; a GET or HEAD whose
# connection drops midway is answered again (gecappraise/dropped_connections.py).
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Server-side parameter binding, and prepared statements: psycopg prepares a statement a connection runs for
    # the fifth time (Django turns this off unless prepare_threshold is given), so the judges' few hot queries are
    # parsed and planned once per connection. That halves PostgreSQL's CPU per judge request (benchmarks/load.py).
    # Behind a pooler in transaction mode, give it prepared statements (PgBouncer's max_prepared_statements).
    DATABASES["default"].setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=5)
    # The exports stream their rows through server-side cursors (QuerySet.iterator()), held open across the
    # transactions of a streamed response; behind a pooler in transaction mode, Django must not use them.
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = _env_bool("DISABLE_SERVER_SIDE_CURSORS", False)
# The embedded mode's SQLite ignores the covering indexes' INCLUDE columns (a PostgreSQL speed-up of the judges'
# queue); ``./dev demo``'s migrate warned of it (models.W040) to a first-time user as if something were wrong.
SILENCED_SYSTEM_CHECKS = ["models.W040"] if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3" else []

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes first: it refuses a locked-out username and address before the password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = _env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=_env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
TRUSTED_PROXY_COUNT = _env_int("TRUSTED_PROXY_COUNT", 0)
CROWD_NEW_WORKERS_PER_HOUR = _env_int("CROWD_NEW_WORKERS_PER_HOUR", 30)
AXES_CLIENT_IP_CALLABLE = "gecappraise.client_address.client_address"
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"

EMAIL_HOST = _env("EMAIL_HOST")
EMAIL_PORT = _env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = _env("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = _env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = _env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = _env("DEFAULT_FROM_EMAIL", "webmaster@localhost")
EMAIL_BACKEND = _env("EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.dummy.EmailBackend"
)
#: Password reset by e-mail is offered only when e-mail can be sent (gecappraise/accounts.py).
PASSWORD_RESET_ENABLED = bool(_env("EMAIL_BACKEND") or EMAIL_HOST)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Deployments serve the collected, hashed and compressed files (collectstatic); DEBUG and the embedded mode (./dev
# demo, with DEBUG off by default) serve the apps' static folders as they are, through whitenoise's finders.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG or EMBEDDED
        else "gecappraise.static_storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG or EMBEDDED
if WHITENOISE_USE_FINDERS:
    # Served from the finders, so no collected folder is expected: whitenoise's warning that STATIC_ROOT is missing
    # would only puzzle a new user of ./dev demo.
    warnings.filterwarnings("ignore", message=re.escape(f"No directory at: {STATIC_ROOT}"), category=UserWarning)

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

MAX_UPLOAD_BYTES = int(_env_float("MAX_UPLOAD_MB", 50) * 1024 * 1024)
IMPORT_IN_REQUEST_BYTES = int(_env_float("IMPORT_IN_REQUEST_MB", 8) * 1024 * 1024)
JUDGE_LEASE_MINUTES = _env_float("JUDGE_LEASE_MINUTES", 30)
# The largest request body an organizer may send (annotation/request_limits.py; anyone else: 1 MB), and, as
# Django's default, at most 2.5 MB of it outside files.
MAX_REQUEST_BYTES = int(_env_float("MAX_REQUEST_MB", 200) * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = 1000

# The API's authentication, tried in this order: an API token (django-rest-knox: only a digest of each token is
# stored; annotation/api_auth.py), the browser's session, and HTTP Basic (kept for old scripts; each call costs a
# password hash). The token comes first because DRF answers a failed authentication with the first class's
# challenge: a wrong, expired or revoked token is a 401 (WWW-Authenticate: Token), while a request that sent no
# token is refused as before (403).
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "annotation.api_auth.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
        "annotation.api_auth.BasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # Every JSON body is read by the API's own parser (annotation/api_parsers.py: a clear 400 naming where a body
    # cannot be taken); multipart bodies by the one that keeps the names of the files sent (annotation/upload_names.py).
    "DEFAULT_PARSER_CLASSES": ["annotation.api_parsers.JSONParser", "annotation.upload_names.SentNamesParser",
                               "rest_framework.parsers.FormParser"],
    # OPTIONS: refused as the endpoint's other methods are, and no request body but in the schema.
    "DEFAULT_METADATA_CLASS": "annotation.api_metadata.EndpointMetadata",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # A 404 says "Not found.", naming no model (gecappraise/error_pages.py).
    "EXCEPTION_HANDLER": "gecappraise.error_pages.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "gecappraise API",
    "DESCRIPTION": "Campaigns, imports, judgments and analyses for human evaluation of GEC systems.",
    "VERSION": "0.1.0",
    # Request bodies get their own components, so uploads are described as files (format: binary).
    "COMPONENT_SPLIT_REQUEST": True,
    # /api/docs/ serves Swagger UI's files itself (drf-spectacular-sidecar): it works without internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Describes the token scheme (annotation/api_schema.py), imported with the generator, not with the URLs.
    "DEFAULT_GENERATOR_CLASS": "annotation.api_schema.SchemaGenerator",
    # Request bodies take no property they do not name, as the endpoints refuse any other (annotation/api_schema.py).
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "annotation.api_schema.closed_request_bodies"],
}
# API tokens: the product's own token model (knox's, with a name the organizer gives it), the lifetime from their
# creation, never extended by use, and a cap per user, which annotation/services/api_tokens.py enforces.
# A token in use is not renewed (AUTO_REFRESH off): a script polling every minute would otherwise keep a leaked
# token alive for ever; its owner makes a new one when the old one ends.
API_TOKEN_DAYS = _env_float("API_TOKEN_DAYS", 90)
API_TOKENS_PER_USER = _env_int("API_TOKENS_PER_USER", 10)
if not API_TOKEN_DAYS > 0 or API_TOKENS_PER_USER < 1:
    raise ImproperlyConfigured(f"API_TOKEN_DAYS must be above 0 and API_TOKENS_PER_USER at least 1, not "
                               f"{API_TOKEN_DAYS} and {API_TOKENS_PER_USER}.")
KNOX_TOKEN_MODEL = "annotation.ApiToken"
# knox's own migrations would make its table of the model swapped out above, unused and with a foreign key to the
# users that stops Django's flush (TRUNCATE) of the users' table: they are not run.
MIGRATION_MODULES = {"knox": None}
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=API_TOKEN_DAYS),
    "TOKEN_LIMIT_PER_USER": API_TOKENS_PER_USER,
    "AUTO_REFRESH": False,
}

ANALYSIS_EXECUTION = _env("ANALYSIS_EXECUTION") or ("celery" if CELERY_BROKER_URL else "process")
if ANALYSIS_EXECUTION not in {"celery", "process", "inline"}:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"ANALYSIS_EXECUTION must be celery, process or inline, not {ANALYSIS_EXECUTION!r}.")
ANALYSIS_DISPATCH_SECONDS = _env_float("ANALYSIS_DISPATCH_SECONDS", 2)
ANALYSIS_CLAIM_SECONDS = _env_int("ANALYSIS_CLAIM_SECONDS", 600)
ANALYSIS_PROCESSES = max(1, _env_int("ANALYSIS_PROCESSES", 1))
ANALYSES_PER_CAMPAIGN = max(0, _env_int("ANALYSES_PER_CAMPAIGN", 5))

CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_URL = CELERY_BROKER_URL or "memory://"
CELERY_RESULT_BACKEND = _env("CELERY_RESULT_BACKEND") or (
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
    "send-waiting-jobs": {
        "task": "annotation.tasks.send_waiting_jobs",
        "schedule": ANALYSIS_DISPATCH_SECONDS,
        "options": {"expires": ANALYSIS_DISPATCH_SECONDS},
    },
}

LOG_FORMAT = _env("LOG_FORMAT") or ("text" if DEBUG else "json")
if LOG_FORMAT not in {"json", "text"}:
    raise ImproperlyConfigured(f"LOG_FORMAT must be json or text, not {LOG_FORMAT!r}.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": FORMATTERS,
    "filters": {"refused_request": {"()": "gecappraise.log_formats.RefusedRequestAsWarning"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT,
                             "filters": ["refused_request"]}},
    "root": {"handlers": ["console"], "level": _env("LOG_LEVEL", "WARNING")},
    # Django's own configuration gives "django" a console handler of its own; without it here, every Django line
    # went to both that handler and the root's (printed twice). runserver's request lines (django.server, INFO)
    # are printed once, by the root's handler's format.
    "loggers": {
        "django": {"handlers": [], "level": _env("LOG_LEVEL", "WARNING"), "propagate": True},
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # A line per task received and done, and per task beat sends, is a line every second with the dispatch
        # every ANALYSIS_DISPATCH_SECONDS: shown at DEBUG only.
        **{name: {"level": "DEBUG" if _env("LOG_LEVEL") == "DEBUG" else "WARNING"}
           for name in ("celery.app.trace", "celery.worker.strategy", "celery.beat")},
    },
}
