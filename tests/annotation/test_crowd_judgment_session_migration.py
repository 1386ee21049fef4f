"""Migration 0023 (a judgment's crowd session): existing crowd judgments are attributed to the sessions their
records prove they were stored in (the current session's last turn; the rest when every session's count comes out
exactly), and left empty otherwise."""
from __future__ import annotations

import importlib
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from annotation.models import CrowdSession, Judgment

from .factories import add_screen
from .test_crowd import crowd, open_screen, prolific, submit  # noqa: F401 (the fixture)

BEFORE = [("annotation", "0022_api_tokens")]
AFTER = [("annotation", "0023_judgment_crowd_session")]
attribution = importlib.import_module("annotation.migrations.0023_judgment_crowd_session").attribution


def migrate(targets) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)


@pytest.mark.django_db(transaction=True)
def test_migrating_attributes_what_the_sessions_prove_and_leaves_the_rest_empty(crowd, back_at_the_latest):  # noqa: F811
    """STRAIGHT goes S1, S2 (never back); BACK goes S1, S2, then S1 again: both are attributed as the live code
    stored them. AGAIN goes S1, S2, S1 again (a screen), then S3: only S3's screen is known, the rest stays empty."""
    for line in range(6):
        add_screen(crowd, line, slots=3)
    client = {worker: Client() for worker in ("STRAIGHT", "BACK", "AGAIN")}

    def turn(worker: str, session: str, screens: int) -> None:
        url = open_screen(client[worker], prolific(crowd, worker, session=session))
        for _ in range(screens):
            url = submit(client[worker], url)

    turn("STRAIGHT", "S1", 2)
    turn("STRAIGHT", "S2", 1)
    turn("BACK", "S1", 1)
    turn("BACK", "S2", 1)
    turn("BACK", "S1", 1)
    turn("AGAIN", "S1", 1)
    turn("AGAIN", "S2", 1)
    turn("AGAIN", "S1", 1)
    turn("AGAIN", "S3", 1)
    live = dict(Judgment.objects.values_list("pk", "crowd_session_id"))
    assert None not in live.values() and len(live) == 10

    migrate(BEFORE)
    migrate(AFTER)
    migrated = dict(Judgment.objects.values_list("pk", "crowd_session_id"))
    again = set(
        Judgment.objects.filter(assignment__judge__crowd_worker__worker_id="AGAIN").values_list("pk", flat=True)
    )
    s3 = CrowdSession.objects.get(worker__worker_id="AGAIN", session_id="S3").pk
    assert migrated == {pk: session if pk not in again or session == s3 else None for pk, session in live.items()}
    assert list(migrated.values()).count(None) == 3


def at(minute: int) -> datetime:
    return datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=minute)


def session(pk: int, started: int | None, screens: int = 0, current: bool = False, base: int = 0):
    return SimpleNamespace(pk=pk, started_at=None if started is None else at(started), screens=screens,
                           current=current, base=base)


def test_a_session_carried_over_from_before_session_records_gets_its_own_screens_only():
    """Migration 0020 made LATER's current session with base 2 (two screens in earlier, unrecorded sessions) and no
    start: its own two screens are the last two; the first two belong to no recorded session."""
    judgments = [(pk, at(pk)) for pk in range(1, 5)]
    assert attribution([session(7, None, current=True, base=2)], judgments) == {3: 7, 4: 7}


def test_a_carried_session_left_for_another_is_attributed_only_when_it_held_every_earlier_screen():
    """The carried session (no start) was left for S2 at minute 10 and holds its 2 screens: attributed when the
    worker had no screens before it; with one more earlier screen (from an unrecorded session) the counts cannot
    come out and only S2's last turn is known."""
    sessions = [session(1, None, screens=2), session(2, 10, current=True, base=2)]
    assert attribution(sessions, [(11, at(1)), (12, at(2)), (13, at(11))]) == {11: 1, 12: 1, 13: 2}
    sessions = [session(1, None, screens=2), session(2, 10, current=True, base=3)]
    assert attribution(sessions, [(11, at(1)), (12, at(2)), (13, at(3)), (14, at(11))]) == {14: 2}


def test_judgments_before_every_known_start_are_not_attributed():
    sessions = [session(1, 5, screens=1), session(2, 10, current=True, base=1)]
    assert attribution(sessions, [(11, at(1)), (12, at(11))]) == {12: 2}
