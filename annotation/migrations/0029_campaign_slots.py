"""A campaign keeps the count and id sum of its original assignment slots (``CampaignSlots``), written with the
slots; the organizer's campaign page and each 5-s poll of its dashboard counted every slot of the campaign in one
aggregate (11,400 blocks read at 1,000,000 slots). The index of the slots judges took includes ``repeat_of``, so that
their counts, originals and repeats apart, come from the index alone. Existing campaigns are counted here.
Migrating back drops the table and the index's extra column."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Count, Sum


def count_slots(apps, schema_editor):
    Assignment = apps.get_model("annotation", "Assignment")
    CampaignSlots = apps.get_model("annotation", "CampaignSlots")
    rows = (
        Assignment.objects.filter(repeat_of__isnull=True).values("campaign").annotate(n=Count("id"), ids=Sum("id"))
        .order_by().values_list("campaign", "n", "ids")
    )
    CampaignSlots.objects.bulk_create(
        CampaignSlots(campaign_id=campaign, originals=n, original_ids=ids) for campaign, n, ids in rows
    )


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0028_segment_multiplicities'),
    ]

    operations = [
        migrations.CreateModel(
            name='CampaignSlots',
            fields=[
                ('campaign', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='annotation.campaign')),
                ('originals', models.BigIntegerField(default=0)),
                ('original_ids', models.BigIntegerField(default=0, help_text="The sum of the original slots' ids.")),
            ],
        ),
        migrations.RemoveIndex(
            model_name='assignment',
            name='assignment_taken',
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(condition=models.Q(('judge__isnull', False)), fields=['campaign', 'status', 'screen'], include=('repeat_of',), name='assignment_taken'),
        ),
        migrations.RunPython(count_slots, migrations.RunPython.noop),
    ]
