"""The Celery application.

Workers run ``celery -A gecappraise worker``. Without a broker configured (the embedded default) tasks run
in-process and synchronously (``task_always_eager``), so the demo needs no Redis.
"""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gecappraise.settings")

app = Celery("gecappraise")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
