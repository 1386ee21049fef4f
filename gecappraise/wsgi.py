"""WSGI entry point (gunicorn gecappraise.wsgi)."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gecappraise.settings")
application = get_wsgi_application()
