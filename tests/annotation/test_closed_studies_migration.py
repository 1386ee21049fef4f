"""Migration 0030: a crowd study closed before closing ended its sessions kept them open until their worker came
back to the study link (which no longer writes); the migration gives each such session with a submitted screen its
code, as the close does now, and leaves one without a submitted screen open."""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone

from annotation.models import Campaign, CrowdSession
from annotation.services import crowd_completion

from .test_crowd import code_on, crowd, open_screen, prolific, submit  # noqa: F401 (crowd: the fixture)

pytestmark = pytest.mark.django_db(transaction=True)


def test_sessions_of_a_study_closed_before_are_ended_with_their_codes(crowd, back_at_the_latest):  # noqa: F811
    worker, idle = Client(), Client()
    submit(worker, open_screen(worker, prolific(crowd, "PID1")))
    open_screen(idle, prolific(crowd, "IDLE"))
    Campaign.objects.filter(pk=crowd.pk).update(closed_at=timezone.now())
    assert not CrowdSession.objects.exclude(code="").exists(), "closed as before: no session ended"
    executor = MigrationExecutor(connection)
    executor.migrate([("annotation", "0029_campaign_slots")])
    executor.loader.build_graph()
    executor.migrate([("annotation", "0030_end_sessions_of_closed_studies")])
    code = crowd_completion.completion_code(crowd, "prolific", "PID1", "S1", "completed")
    assert dict(CrowdSession.objects.values_list("worker__worker_id", "code")) == {"PID1": code, "IDLE": ""}
    assert CrowdSession.objects.get(worker__worker_id="IDLE").completed_at is None
    assert code_on(Client().get(prolific(crowd, "PID1"))) == code
