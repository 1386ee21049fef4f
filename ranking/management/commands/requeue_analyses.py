"""Put back in the queue the analyses whose worker or process stopped reporting for ANALYSIS_CLAIM_SECONDS (killed,
crashed), then send the queued analyses that no one has sent to the Celery workers yet (Celery beat does both every
ANALYSIS_DISPATCH_SECONDS; run this without beat or after a broker outage). Without Celery (ANALYSIS_EXECUTION process
or inline) the queued analyses are computed here, one after another."""
from django.conf import settings
from django.core.management.base import BaseCommand

from ranking.dispatch import requeue
from ranking.runs import put_back_stalled


class Command(BaseCommand):
    help = __doc__

    def handle(self, *args, **options):
        stalled = put_back_stalled()
        if stalled:
            self.stdout.write(
                f"Put back {_analyses(stalled)} whose worker stopped reporting for "
                f"{settings.ANALYSIS_CLAIM_SECONDS} s in the queue."
            )
        if settings.ANALYSIS_EXECUTION == "celery":
            self.stdout.write(f"Sent {_analyses(requeue(), 'waiting ')} to the workers.")
        else:
            self.stdout.write(f"Computed {_analyses(requeue(), 'waiting ')}.")


def _analyses(count: int, kind: str = "") -> str:
    return f"{count} {kind}{'analysis' if count == 1 else 'analyses'}"
