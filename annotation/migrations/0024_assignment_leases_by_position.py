"""The leases' index (``assignment_leases``) by campaign and position, as the claim orders expired leases, in place of
(campaign, lease_expires_at): once a connection's prepared claim had a generic plan (with the time unknown), the
planner took the campaign's positions (``assignment_campaign_position``) and read every assignment of the campaign
for the first expired lease, 250 ms a claim among 350,000 assignments; leases are few, and read in order from their
own index every plan is a few index entries."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0023_judgment_crowd_session'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='assignment',
            name='assignment_leases',
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(condition=models.Q(('lease_expires_at__isnull', False)), fields=['campaign', 'position', 'id'], name='assignment_leases'),
        ),
    ]
