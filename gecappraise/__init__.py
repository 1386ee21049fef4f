"""gecappraise: human evaluation of grammatical error correction systems.

The Celery application is ``gecappraise.celery.app``; ``celery -A gecappraise`` finds it there, and the task modules
import it, so that loading the project (settings, URLs, ``manage.py check``) does not import Celery.
"""
