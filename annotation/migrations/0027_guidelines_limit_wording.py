"""The guidelines' length refusal says the limit is reached at 50,000 characters ("to 50,000 characters at most"):
"under 50,000" refused 50,001 and took 50,000. Only the validator's message changes; nothing in the database."""

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0026_system_unchanged'),
    ]

    operations = [
        migrations.AlterField(
            model_name='campaign',
            name='guidelines',
            field=models.TextField(blank=True, help_text='Guidelines for judges, in Markdown (at most 50,000 characters).', max_length=50000, validators=[django.core.validators.MaxLengthValidator(50000, message='Keep the guidelines to 50,000 characters at most.')]),
        ),
    ]
