"""The two log line formats, shared by Django's LOGGING (settings.py) and gunicorn's (gunicorn_conf.py).

``json``: one JSON object per line (time, level, logger, process, message), for log collectors; ``text``: a plain
line for a terminal. Chosen with LOG_FORMAT.
"""
FORMATTERS = {
    "json": {
        "()": "pythonjsonlogger.json.JsonFormatter",
        "format": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s",
        "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
    },
    "text": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
}
