"""A crowd session's platform id is unique within its worker under the name every such constraint has
(``models.unique_within``: ``crowd_session_unique_session_id``, was ``crowd_session_once_per_worker``). The new
constraint is made before the old one goes, in the one transaction, so the rule holds throughout."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0033_candidate_segment_order'),
    ]

    operations = [
        migrations.AddConstraint(
            model_name='crowdsession',
            constraint=models.UniqueConstraint(fields=('worker', 'session_id'), name='crowd_session_unique_session_id'),
        ),
        migrations.RemoveConstraint(
            model_name='crowdsession',
            name='crowd_session_once_per_worker',
        ),
    ]
