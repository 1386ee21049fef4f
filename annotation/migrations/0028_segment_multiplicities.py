"""A segment keeps how many systems produced each of its candidates (``Segment.multiplicities``), written with the
candidates; screen planning read every candidate of the campaign with its outputs counted on each request for screens
(720,000 candidates of 1,000,000 outputs at 50 systems x 20,000 sentences, about 2 s). Existing segments are counted
here from their outputs, a campaign at a time, as planning counted them. Migrating back drops the field."""

from django.db import migrations, models
from django.db.models import Count

BATCH = 5_000


def count_multiplicities(apps, schema_editor):
    Campaign = apps.get_model("annotation", "Campaign")
    Output = apps.get_model("annotation", "Output")
    Segment = apps.get_model("annotation", "Segment")
    for campaign in Campaign.objects.order_by("pk").values_list("pk", flat=True):
        kept: dict[int, list[int]] = {}
        rows = (
            Output.objects.filter(segment__campaign=campaign).values("segment_id", "candidate_id")
            .annotate(n=Count("id")).order_by("segment_id", "candidate_id").values_list("segment_id", "n")
        )
        for segment_id, n in rows.iterator(chunk_size=BATCH):
            kept.setdefault(segment_id, []).append(n)
        segments = [Segment(pk=pk, multiplicities=multiplicities) for pk, multiplicities in kept.items()]
        Segment.objects.bulk_update(segments, ["multiplicities"], batch_size=BATCH)


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0027_guidelines_limit_wording'),
    ]

    operations = [
        migrations.AddField(
            model_name='segment',
            name='multiplicities',
            field=models.JSONField(blank=True, default=list, editable=False, help_text="How many systems produced each of the segment's candidates, in the candidates' order (by id): what screen planning samples from, written with the candidates (the import, a control candidate)."),
        ),
        migrations.RunPython(count_multiplicities, migrations.RunPython.noop),
    ]
