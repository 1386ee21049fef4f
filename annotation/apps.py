from django.apps import AppConfig
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_delete


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation campaigns"

    def ready(self) -> None:
        """A log-in notes the day in its session (gecappraise/session_renewal.py); a deleted crowd worker takes
        their judge account with them (``crowd_entry.delete_judge``)."""
        from gecappraise.session_renewal import note_the_day

        from .models import CrowdWorker
        from .services.crowd_entry import delete_judge

        user_logged_in.connect(note_the_day, dispatch_uid="gecappraise.session_renewal.note_the_day")
        post_delete.connect(delete_judge, sender=CrowdWorker, dispatch_uid="annotation.crowd_entry.delete_judge")
