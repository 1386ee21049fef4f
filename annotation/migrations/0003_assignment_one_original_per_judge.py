"""One judge has at most one original (non-repeat) assignment per screen.

The queue never gave a judge a second original slot of a screen (a judge's claims are serialized by their
membership row, and claimable slots exclude screens they had), and imports write one screen per judged item, so
existing data satisfies the constraint. ``check_no_duplicates`` makes sure before adding it: it names the first
duplicates instead of failing with the database's bare IntegrityError.
"""
from django.conf import settings
from django.db import migrations, models
from django.db.models import Count


def check_no_duplicates(apps, schema_editor):
    Assignment = apps.get_model("annotation", "Assignment")
    duplicates = list(
        Assignment.objects.filter(repeat_of__isnull=True, judge__isnull=False)
        .values("screen_id", "judge_id")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .order_by("screen_id", "judge_id")[:10]
    )
    if duplicates:
        listed = ", ".join(f"screen {row['screen_id']} / judge {row['judge_id']} ({row['n']})" for row in duplicates)
        raise RuntimeError(
            "Some judges have more than one original assignment of a screen; keep one per judge and screen (or mark "
            f"the others as repeats with repeat_of) and migrate again. First duplicates: {listed}"
        )


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0002_judging'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(check_no_duplicates, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='assignment',
            constraint=models.UniqueConstraint(condition=models.Q(('repeat_of__isnull', True)), fields=('screen', 'judge'), name='assignment_one_original_per_judge'),
        ),
    ]
