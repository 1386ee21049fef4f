"""Crowd studies closed before closing ended their sessions (``campaign_closing.close``) had sessions left open,
ended only when their worker came back to the study link, which no longer writes: each such session in which the
worker submitted a screen gets its outcome and code now, as the close gives them, so the crowd-workers CSV is
complete and a worker who comes back sees their code. Sessions are found with the historical models; only when a
closed study has such a session is it ended by ``crowd_completion.end_sessions_at_close`` (the one rule, rater QC's
verdicts for a code that encodes them). Nothing to undo: migrating back keeps the codes."""

from django.db import migrations
from django.db.models import Count


def end_sessions_of_closed_studies(apps, schema_editor):
    Campaign = apps.get_model("annotation", "Campaign")
    Assignment = apps.get_model("annotation", "Assignment")
    CrowdSession = apps.get_model("annotation", "CrowdSession")
    pending = []
    for campaign in Campaign.objects.filter(crowd=True, closed_at__isnull=False).order_by("pk"):
        submitted = dict(
            Assignment.objects.filter(campaign=campaign, status="submitted").order_by().values_list("judge")
            .annotate(n=Count("id")).values_list("judge", "n")
        )
        sessions = CrowdSession.objects.filter(worker__campaign=campaign, completed_at__isnull=True).select_related(
            "worker"
        )
        if any(
            session.screens + (submitted.get(session.worker.judge_id, 0) - session.base if session.current else 0) > 0
            for session in sessions
        ):
            pending.append(campaign.pk)
    if not pending:
        return
    from annotation.models import Campaign as CurrentCampaign
    from annotation.services.crowd_completion import end_sessions_at_close

    for campaign in CurrentCampaign.objects.filter(pk__in=pending).order_by("pk"):
        end_sessions_at_close(campaign)


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0029_campaign_slots"),
    ]

    operations = [
        migrations.RunPython(end_sessions_of_closed_studies, migrations.RunPython.noop),
    ]
