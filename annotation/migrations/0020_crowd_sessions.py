"""Crowd sessions get records of their own (CrowdSession): a worker's current session moves out of CrowdWorker, with
its session and study ids, screens base, completion time, outcome and code, as the worker's current session."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

#: The CrowdWorker fields that were the worker's current session (CrowdSession's fields of the same names; the
#: screens base is CrowdSession.base).
SESSION_FIELDS = ("session_id", "study_id", "completed_at", "outcome", "code")


def move_sessions_out_of_workers(apps, schema_editor):
    """Each worker's current session as their current CrowdSession. It started at the worker's first visit when
    the worker had submitted no screen before it; otherwise when is not known (``started_at`` empty)."""
    CrowdWorker = apps.get_model("annotation", "CrowdWorker")
    CrowdSession = apps.get_model("annotation", "CrowdSession")
    CrowdSession.objects.bulk_create(
        [
            CrowdSession(
                worker=worker, current=True, base=worker.session_base, screens=0,
                started_at=worker.created_at if worker.session_base == 0 else None,
                **{name: getattr(worker, name) for name in SESSION_FIELDS},
            )
            for worker in CrowdWorker.objects.order_by("pk")
        ],
        batch_size=1000,
    )


def move_current_sessions_into_workers(apps, schema_editor):
    """Back: each worker keeps their current session (their other sessions are dropped with the table); the screens
    it held while current before count from its base, as the single session did."""
    CrowdSession = apps.get_model("annotation", "CrowdSession")
    for session in CrowdSession.objects.filter(current=True).select_related("worker"):
        worker = session.worker
        for name in SESSION_FIELDS:
            setattr(worker, name, getattr(session, name))
        worker.session_base = session.base - session.screens
        worker.save(update_fields=[*SESSION_FIELDS, "session_base"])


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0019_crowd_worker_created_from'),
    ]

    operations = [
        migrations.CreateModel(
            name='CrowdSession',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('session_id', models.CharField(blank=True, max_length=64)),
                ('study_id', models.CharField(blank=True, help_text='Prolific STUDY_ID or MTurk hitId.', max_length=64)),
                ('current', models.BooleanField(default=True)),
                ('base', models.PositiveIntegerField(default=0)),
                ('screens', models.PositiveIntegerField(default=0)),
                ('started_at', models.DateTimeField(blank=True, default=django.utils.timezone.now, null=True)),
                ('completed_at', models.DateTimeField(blank=True, null=True)),
                ('outcome', models.CharField(blank=True, max_length=16)),
                ('code', models.CharField(blank=True, max_length=32)),
                ('worker', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sessions', to='annotation.crowdworker')),
            ],
            options={
                'ordering': ['worker_id', 'id'],
                'constraints': [models.UniqueConstraint(fields=('worker', 'session_id'), name='crowd_session_once_per_worker'), models.UniqueConstraint(condition=models.Q(('current', True)), fields=('worker',), name='crowd_session_one_current_per_worker')],
            },
        ),
        migrations.RunPython(move_sessions_out_of_workers, move_current_sessions_into_workers),
        migrations.RemoveField(
            model_name='crowdworker',
            name='code',
        ),
        migrations.RemoveField(
            model_name='crowdworker',
            name='completed_at',
        ),
        migrations.RemoveField(
            model_name='crowdworker',
            name='outcome',
        ),
        migrations.RemoveField(
            model_name='crowdworker',
            name='session_base',
        ),
        migrations.RemoveField(
            model_name='crowdworker',
            name='session_id',
        ),
        migrations.RemoveField(
            model_name='crowdworker',
            name='study_id',
        ),
    ]
