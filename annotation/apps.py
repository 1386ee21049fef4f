from django.apps import AppConfig
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_delete, pre_delete


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation campaigns"

    def ready(self) -> None:
        """A log-in notes the day in its session (gecappraise/session_renewal.py); a deleted crowd worker takes
        their judge account with them (``crowd_entry.delete_judge``); deleting an account takes its slots off their
        campaigns' kept counts (services/kept_slots.py) and moves back where their unserved screens start
        (services/served_prefix.py)."""
        from gecappraise.session_renewal import note_the_day

        from .models import CrowdWorker
        from .services.crowd_entry import delete_judge
        from .services.kept_slots import forget_judge_slots
        from .services.served_prefix import forget_judge_screens

        user_logged_in.connect(note_the_day, dispatch_uid="gecappraise.session_renewal.note_the_day")
        post_delete.connect(delete_judge, sender=CrowdWorker, dispatch_uid="annotation.crowd_entry.delete_judge")
        pre_delete.connect(forget_judge_slots, sender=get_user_model(), dispatch_uid="annotation.forget_judge_slots")
        pre_delete.connect(
            forget_judge_screens, sender=get_user_model(), dispatch_uid="annotation.forget_judge_screens"
        )
