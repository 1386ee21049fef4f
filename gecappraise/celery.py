"""The Celery application.

Workers run ``celery -A gecappraise worker``; one ``celery -A gecappraise beat`` runs the periodic tasks of
``CELERY_BEAT_SCHEDULE`` (settings), among them sending the analyses that requests recorded to the workers. Without a
broker configured (the embedded default) tasks run in-process and synchronously (``task_always_eager``) and analyses
run in processes of their own (``ranking.dispatch``), so the demo needs no Redis.

Workers and beat log as the web does (``settings.LOGGING``: ``LOG_FORMAT``, ``LOG_LEVEL``), not in Celery's own
format: ``use_the_sites_logging`` answers Celery's ``setup_logging`` signal, so Celery leaves logging alone (their
``--loglevel`` no longer applies; ``LOG_LEVEL`` does).
"""
import os

from celery import Celery
from celery.signals import setup_logging

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gecappraise.settings")

app = Celery("gecappraise")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def use_the_sites_logging(**kwargs) -> None:
    """Configure the worker's or beat's logging from ``settings.LOGGING`` (one JSON object per line in production)."""
    from logging.config import dictConfig

    from django.conf import settings

    dictConfig(settings.LOGGING)
