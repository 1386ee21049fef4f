"""A system keeps how many of its outputs are the source sentence unchanged (``System.unchanged``), counted when the
test set is imported; the campaign page showed it counted over every output of the campaign on each request (620,000
outputs at 31 systems x 20,000 sentences, about half a second). Existing systems are counted here, as the page
counted them: outputs whose candidate's text is the segment's source. Migrating back drops the field."""

from django.db import migrations, models
from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.functions import Coalesce


def count_unchanged(apps, schema_editor):
    System = apps.get_model("annotation", "System")
    Output = apps.get_model("annotation", "Output")
    unchanged = (
        Output.objects.filter(system=OuterRef("pk"), candidate__text=F("segment__source"))
        .order_by().values("system").annotate(n=Count("id")).values("n")
    )
    System.objects.update(unchanged=Coalesce(Subquery(unchanged), 0))


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0025_assignment_judge_rows_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='system',
            name='unchanged',
            field=models.PositiveIntegerField(default=0, editable=False, help_text="Outputs identical to the source sentence, counted when the test set was imported (a control's outputs never are: the corrupter changes a token)."),
        ),
        migrations.RunPython(count_unchanged, migrations.RunPython.noop),
    ]
