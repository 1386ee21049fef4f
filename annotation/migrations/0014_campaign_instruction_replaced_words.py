from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0013_crowd_campaigns"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="instruction",
            field=models.CharField(
                blank=True,
                help_text="The one-line instruction above the corrections on the judge's screen (blank: the mode's default).",
                max_length=200,
            ),
        ),
        migrations.AddField(
            model_name="campaign",
            name="show_replaced_words",
            field=models.BooleanField(
                default=True,
                help_text="Substitutions show the replaced words struck through before the new ones (off: G15's display).",
            ),
        ),
    ]
