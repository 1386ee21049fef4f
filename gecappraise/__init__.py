"""gecappraise: human evaluation of grammatical error correction systems."""
from .celery import app as celery_app

__all__ = ("celery_app",)
