"""gunicorn's settings for the web service (``gunicorn -c python:gecappraise.gunicorn_conf gecappraise.wsgi``, as the
Dockerfile and docker-compose.yml run it), from the environment:

  PORT              port to listen on, all interfaces (default 8000)
  WEB_CONCURRENCY   worker processes (default 2 per core, plus one)
  GUNICORN_THREADS  threads per worker process (default 2): each serves one request at a time and holds a
                    database connection of its own (WEB_CONCURRENCY x GUNICORN_THREADS of them, within
                    PostgreSQL's max_connections, 100 by default, beside the Celery workers')
  GUNICORN_TIMEOUT  seconds a worker process may stop answering gunicorn before it is replaced, and that a worker
                    being stopped or replaced (after max_requests) gives its requests in flight (default 120).

Workers are gunicorn's threaded ones (gthread), which tell gunicorn they are alive while their threads serve: a
sync worker is replaced when one request outlasts the timeout, and the streamed downloads of a large campaign (its
judgments as CSV, JSON or Appraise XML, the pairwise TSVs: about a minute at 200,000 judgments) were cut off
midway, after their 200 status was sent, as if complete. The longest requests besides are uploads of up to
IMPORT_IN_REQUEST_MB parsed and imported in one transaction (a larger one is only stored, and imported by a
background job); analyses, reports' computations and other long jobs run on the Celery workers.
  LOG_FORMAT        "json" (default) or "text", as in gecappraise/settings.py: gunicorn's access and error lines
                    go to standard output and error as one JSON object per line; an access line ends with the
                    request's duration ("... 12ms").
"""
import multiprocessing
import os

from gecappraise.log_formats import FORMATTERS

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * multiprocessing.cpu_count() + 1)
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS") or 2)
timeout = int(os.environ.get("GUNICORN_TIMEOUT") or 120)
graceful_timeout = timeout
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
