"""gunicorn's settings for the web service (``gunicorn -c python:gecappraise.gunicorn_conf gecappraise.wsgi``, as the
Dockerfile and docker-compose.yml run it), from the environment:

  PORT              port to listen on, all interfaces (default 8000)
  WEB_CONCURRENCY   worker processes (default 2 per core, plus one)
  GUNICORN_TIMEOUT  seconds one request may take before its worker is replaced (default 120). The longest request
                    is an upload of up to IMPORT_IN_REQUEST_MB parsed and imported in one transaction (a larger one
                    is only stored, and imported by a background job); analyses, reports' computations and other
                    long jobs run on the Celery workers.
  LOG_FORMAT        "json" (default) or "text", as in gecappraise/settings.py: gunicorn's access and error lines
                    go to standard output and error as one JSON object per line; an access line ends with the
                    request's duration ("... 12ms").
"""
import multiprocessing
import os

from gecappraise.log_formats import FORMATTERS

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * multiprocessing.cpu_count() + 1)
timeout = int(os.environ.get("GUNICORN_TIMEOUT") or 120)
graceful_timeout = 30
max_requests = 2000
max_requests_jitter = 200
accesslog = "-"
# gunicorn's default line with the request's duration in milliseconds at the end (%(M)s).
access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(M)sms'
errorlog = "-"
control_socket_disable = True  # gunicorn 27's control socket wants a home directory; the image's user has none

_formatter = os.environ.get("LOG_FORMAT") or "json"
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": FORMATTERS,
    "handlers": {
        "access": {"class": "logging.StreamHandler", "formatter": _formatter, "stream": "ext://sys.stdout"},
        "error": {"class": "logging.StreamHandler", "formatter": _formatter, "stream": "ext://sys.stderr"},
    },
    "root": {"handlers": ["error"], "level": "WARNING"},
    "loggers": {
        "gunicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
        "gunicorn.error": {"handlers": ["error"], "level": "INFO", "propagate": False},
    },
}
