"""manage.py requeue_analyses: send the analyses that waited for the task queue (e.g. during a Redis outage)."""
from django.core.management.base import BaseCommand

from ranking.tasks import resend_waiting


class Command(BaseCommand):
    help = "Send queued analyses that the task queue did not take when they were requested (a broker outage)."

    def handle(self, *args, **options):
        self.stdout.write(f"Sent {resend_waiting()} waiting analyses.")
