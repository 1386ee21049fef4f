from django.apps import AppConfig
from django.contrib.auth.signals import user_logged_in


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation campaigns"

    def ready(self) -> None:
        """A log-in notes the day in its session (gecappraise/session_renewal.py)."""
        from gecappraise.session_renewal import note_the_day

        user_logged_in.connect(note_the_day, dispatch_uid="gecappraise.session_renewal.note_the_day")
