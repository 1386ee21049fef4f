"""The two log line formats, shared by Django's LOGGING (settings.py) and gunicorn's (gunicorn_conf.py), and the
filter that writes a request Django refused as suspicious as one warning line.

``json``: one JSON object per line (time, level, logger, process, message), for log collectors; ``text``: a plain
line for a terminal. Chosen with LOG_FORMAT.
"""
import logging

FORMATTERS = {
    "json": {
        "()": "pythonjsonlogger.json.JsonFormatter",
        "format": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s",
        "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
    },
    "text": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
}


class RefusedRequestAsWarning(logging.Filter):
    """Django logs each request it refuses as suspicious (a Host header not in ALLOWED_HOSTS, too many fields or
    files, a malformed multipart body: ``django.security.<exception>``) at ERROR with the exception's traceback.
    The client sent it and got a 400 that says why; the server is not at fault, and every scanner on the internet
    would otherwise fill the error log with tracebacks. Such a record is kept as one WARNING line: its message
    (which names the host or the limit), without the traceback. The CSRF check's lines (``django.security.csrf``)
    are warnings already and pass unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("django.security.") and record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
            record.exc_info = record.exc_text = None
        return True
