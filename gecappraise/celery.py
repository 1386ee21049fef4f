"""The Celery application.

Workers run ``celery -A gecappraise worker``; one ``celery -A gecappraise beat`` runs the periodic tasks of
``CELERY_BEAT_SCHEDULE`` (settings), among them sending the analyses that requests recorded to the workers. Without a
broker configured (the embedded default) tasks run in-process and synchronously (``task_always_eager``) and analyses
run in processes of their own (``ranking.dispatch``), so the demo needs no Redis.
"""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gecappraise.settings")

app = Celery("gecappraise")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
