"""A judgment records the crowd session it was stored in (``Judgment.crowd_session``), so that the organizer's CSV can
give each session its own active time; existing crowd judgments are attributed where their sessions' records
prove where they belong, and left empty where they do not.

Before this migration a session kept only counts: ``screens``, those submitted in its earlier turns as the
worker's current session, and for the current one ``base``, how many the worker had submitted when it last became
current. Which judgment was whose was not stored. Per worker, with their judgments in the order they were stored:

- The current session's last turn is known: the judgments after the first ``base`` (since it became current no
  earlier screen can be undone, and every new one is its own).
- The judgments before them are attributed each to the session that had begun last before it was stored, and kept
  only when that gives every session exactly its ``screens``. That holds when the worker never went back to an
  earlier session in that time, and then it is exact: a judgment of a turn taken up again would go to a session
  begun later than its own, and those moves cannot make every count come out right. Otherwise (the worker went
  back, or screens were submitted in sessions from before sessions had records) these judgments stay empty.

A session whose judgments are not all attributed shows no session active time in the CSV (``crowd_exports``).
Migrating back drops the field.
"""

from bisect import bisect_right
from collections import Counter

import django.db.models.deletion
from django.db import migrations, models


def _by_start(sessions, judgments) -> dict[int, int]:
    """``judgments`` ((id, created_at), in order) each to the session begun last before it (a session whose start
    is not known counts as begun first), when that gives each session exactly its ``screens``; else none."""
    begun = sorted(sessions, key=lambda session: (session.started_at is not None, session.started_at or 0, session.pk))
    starts = [session.started_at for session in begun if session.started_at is not None]
    unknown = len(begun) - len(starts)
    found = {}
    for pk, created_at in judgments:
        index = bisect_right(starts, created_at) + unknown - 1
        if index < 0:
            return {}
        found[pk] = begun[index].pk
    expected = Counter({session.pk: session.screens for session in sessions if session.screens})
    return found if Counter(found.values()) == expected else {}


def attribution(sessions, judgments) -> dict[int, int]:
    """The session id of each judgment id that the worker's ``sessions`` prove (see the module's docstring);
    ``judgments`` are the worker's (id, created_at) in the order they were stored."""
    current = next((session for session in sessions if session.current), None)
    if current is None:
        return {}
    found = _by_start(sessions, judgments[:current.base])
    found.update({pk: current.pk for pk, _ in judgments[current.base:]})
    return found


def attribute_judgments(apps, schema_editor):
    CrowdWorker = apps.get_model("annotation", "CrowdWorker")
    CrowdSession = apps.get_model("annotation", "CrowdSession")
    Judgment = apps.get_model("annotation", "Judgment")
    for worker in CrowdWorker.objects.order_by("pk").iterator():
        sessions = list(CrowdSession.objects.filter(worker=worker))
        judgments = list(
            Judgment.objects.filter(
                assignment__campaign_id=worker.campaign_id, assignment__judge_id=worker.judge_id,
                assignment__status="submitted",
            ).order_by("created_at", "pk").values_list("pk", "created_at")
        )
        by_session = {}
        for judgment, session in attribution(sessions, judgments).items():
            by_session.setdefault(session, []).append(judgment)
        for session, pks in by_session.items():
            Judgment.objects.filter(pk__in=pks).update(crowd_session_id=session)


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0022_api_tokens'),
    ]

    operations = [
        migrations.AddField(
            model_name='judgment',
            name='crowd_session',
            field=models.ForeignKey(blank=True, help_text='The crowd session current when the judgment was stored (empty: none, or not known).', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='judgments', to='annotation.crowdsession'),
        ),
        migrations.RunPython(attribute_judgments, migrations.RunPython.noop),
    ]
