"""A background job may import a PRWS scores CSV (the campaign page's and the API's scores upload over
``IMPORT_IN_REQUEST_MB``): a choice of ``BackgroundJob.kind`` more, nothing else changes."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0030_end_sessions_of_closed_studies'),
    ]

    operations = [
        migrations.AlterField(
            model_name='backgroundjob',
            name='kind',
            field=models.CharField(choices=[('test_set', 'Test set import (a new campaign)'), ('appraise_xml', 'Appraise XML import'), ('attention', 'Attention checks'), ('scores', 'PRWS scores import')], max_length=16),
        ),
    ]
