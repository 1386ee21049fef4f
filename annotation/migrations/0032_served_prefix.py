"""A campaign keeps where its unserved screens start (``ServedPrefix``): the organizer's list of the screens not served
yet walked every served screen before the first unserved one (0.25 s at 200,000 served screens). Nothing is
backfilled: a campaign without a row starts at 0, and its list moves it forward the first time it is read."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0031_background_job_scores'),
    ]

    operations = [
        migrations.CreateModel(
            name='ServedPrefix',
            fields=[
                ('campaign', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='annotation.campaign')),
                ('below', models.PositiveIntegerField(default=0)),
            ],
        ),
    ]
