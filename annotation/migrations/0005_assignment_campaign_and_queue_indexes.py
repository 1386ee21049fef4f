"""Assignment.campaign (its screen's campaign) and the indexes of the judge's queue and the organizer's counts.

The queue asks per campaign for the first open pool slot, the screens a judge can still reach, the leases that
ran out, and the organizer's page for the slots taken; with the campaign on the assignment each is a scan of a
small partial index instead of a join over all of the campaign's screens (a campaign may have a million). The
new column is filled from the screens; on PostgreSQL a foreign key on (screen, campaign) keeps it equal to the
screen's campaign from then on. The (status, position) index served the old claim query only.
"""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import OuterRef, Subquery

COMPOSITE_FK = "assignment_campaign_of_screen"


def fill_campaigns(apps, schema_editor):
    Assignment = apps.get_model("annotation", "Assignment")
    Screen = apps.get_model("annotation", "Screen")
    Assignment.objects.filter(campaign__isnull=True).update(
        campaign=Subquery(Screen.objects.filter(pk=OuterRef("screen_id")).values("campaign_id")[:1])
    )


def add_composite_key(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"ALTER TABLE annotation_assignment ADD CONSTRAINT {COMPOSITE_FK} FOREIGN KEY (screen_id, campaign_id) "
            "REFERENCES annotation_screen (id, campaign_id) DEFERRABLE INITIALLY DEFERRED"
        )


def drop_composite_key(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE annotation_assignment DROP CONSTRAINT {COMPOSITE_FK}")


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0004_screen_excluded'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='assignment',
            name='annotation__status_2d269c_idx',
        ),
        migrations.AddField(
            model_name='assignment',
            name='campaign',
            field=models.ForeignKey(editable=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='annotation.campaign'),
        ),
        migrations.RunPython(fill_campaigns, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='assignment',
            name='campaign',
            field=models.ForeignKey(editable=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='annotation.campaign'),
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(condition=models.Q(('judge__isnull', True), ('repeat_of__isnull', True), ('status', 'pending')), fields=['campaign', 'position', 'id'], name='assignment_pool_order'),
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(condition=models.Q(('judge__isnull', True), ('repeat_of__isnull', True), ('status', 'pending')), fields=['campaign', 'screen'], name='assignment_pool_screens'),
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(condition=models.Q(('judge__isnull', False)), fields=['campaign', 'status', 'screen'], name='assignment_taken'),
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(condition=models.Q(('lease_expires_at__isnull', False)), fields=['campaign', 'lease_expires_at'], name='assignment_leases'),
        ),
        migrations.AddConstraint(
            model_name='screen',
            constraint=models.UniqueConstraint(fields=('id', 'campaign'), name='screen_unique_id_campaign'),
        ),
        migrations.RunPython(add_composite_key, drop_composite_key),
    ]
