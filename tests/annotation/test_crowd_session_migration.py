"""Migration 0020 (crowd sessions): each crowd worker's current session, kept on CrowdWorker before, moves into a
CrowdSession with its ids, screens base, completion time, outcome and code; migrating back puts each worker's
current session back on the worker, with the screens base that counts its screens as before."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("annotation", "0019_crowd_worker_created_from")]
AFTER = [("annotation", "0020_crowd_sessions")]


def migrate(targets):
    """Migrate the test database to ``targets``; the historical models there."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


@pytest.fixture
def at_0019():
    """The database at 0019 for the test, and at the latest migrations again after it."""
    apps = migrate(BEFORE)
    yield apps
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def make_worker(apps, campaign, worker_id: str, **fields):
    User = apps.get_model("auth", "User")
    judge = User.objects.create(username=f"crowd-{campaign.pk}-prolific-{worker_id}")
    return apps.get_model("annotation", "CrowdWorker").objects.create(
        campaign=campaign, platform="prolific", worker_id=worker_id, judge=judge, **fields
    )


def test_each_workers_session_moves_into_a_session_record_and_back(at_0019):
    campaign = at_0019.get_model("annotation", "Campaign").objects.create(name="crowd", crowd=True, crowd_key="k1")
    finished_at = timezone.now() - timedelta(minutes=5)
    make_worker(at_0019, campaign, "FIRST", study_id="ST", session_id="S1", session_base=0, completed_at=finished_at,
                outcome="completed", code="ABCDEFGHJKLM")
    make_worker(at_0019, campaign, "LATER", study_id="ST", session_id="S3", session_base=4)

    apps = migrate(AFTER)
    CrowdSession = apps.get_model("annotation", "CrowdSession")
    first = CrowdSession.objects.get(worker__worker_id="FIRST")
    assert (first.session_id, first.study_id, first.current, first.base, first.screens) == ("S1", "ST", True, 0, 0)
    assert (first.completed_at, first.outcome, first.code) == (finished_at, "completed", "ABCDEFGHJKLM")
    assert first.started_at == first.worker.created_at, "a worker's first session began at their first visit"
    later = CrowdSession.objects.get(worker__worker_id="LATER")
    assert (later.session_id, later.current, later.base, later.screens) == ("S3", True, 4, 0)
    assert (later.started_at, later.completed_at, later.outcome, later.code) == (None, None, "", "")
    assert CrowdSession.objects.count() == 2

    # FIRST goes on in S2 after 3 screens of S1 and 2 of S2 earlier (5 submitted when S2 became current again)
    first.current = False
    first.screens = 3
    first.save()
    CrowdSession.objects.create(worker=first.worker, session_id="S2", study_id="ST", current=True, base=5, screens=2)

    apps = migrate(BEFORE)
    workers = {worker.worker_id: worker for worker in apps.get_model("annotation", "CrowdWorker").objects.all()}
    back = workers["FIRST"]
    assert (back.session_id, back.study_id, back.session_base, back.completed_at, back.code) == (
        "S2", "ST", 3, None, "")
    assert (workers["LATER"].session_id, workers["LATER"].session_base) == ("S3", 4)
