"""manage.py requeue_analyses: hand on the analyses that are queued and not yet sent (e.g. after a Redis outage)."""
from django.conf import settings
from django.core.management.base import BaseCommand

from ranking.dispatch import requeue


class Command(BaseCommand):
    help = (
        "Send the queued analyses that no one has sent to the Celery workers yet (Celery beat does this every "
        "ANALYSIS_DISPATCH_SECONDS; run this without beat or after a broker outage). Without Celery "
        "(ANALYSIS_EXECUTION thread or inline) the queued analyses are computed here, one after another."
    )

    def handle(self, *args, **options):
        if settings.ANALYSIS_EXECUTION == "celery":
            self.stdout.write(f"Sent {requeue()} waiting analyses to the workers.")
        else:
            self.stdout.write(f"Computed {requeue()} waiting analyses.")
