"""A segment's candidates are indexed by (segment, id), which replaces the index of the segment alone: active PRWS
selection numbers each rated candidate by its place among its segment's candidates, counted from this index alone
(ranking.active_screens), where it read every candidate of the campaign."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0032_served_prefix'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='candidate',
            index=models.Index(fields=['segment', 'id'], name='candidate_segment_order'),
        ),
        migrations.AlterField(
            model_name='candidate',
            name='segment',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='candidates', to='annotation.segment'),
        ),
    ]
