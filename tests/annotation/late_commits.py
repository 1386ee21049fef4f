"""A submit whose transaction commits late, at a moment a test chooses: for the races of the kept tallies and the
live leaderboard with judgments that commit while a request reads them; and any work committed between two reads of
a request; and work of another thread that waits for what such a submit holds (``transaction=True`` tests only)."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connection, transaction

from annotation.models import Campaign
from annotation.services import queue
from tests.sql import sql_value

#: The longest wait for the other thread (a bound against a hung test, never reached when it works).
WAIT_SECONDS = 60


@contextmanager
def held_submit(campaign: Campaign, judge) -> Iterator[Callable[[], None]]:
    """Serve ``judge`` a screen and submit it (ranked in the order shown) in a transaction of another thread, which
    stays open, its judgment's id taken, until the function yielded is called: that commits it and returns once it
    is committed. Leaving the block commits it too."""
    submitted, release, committed = threading.Event(), threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def submit() -> None:
        try:
            with transaction.atomic():
                assignment = queue.next_assignment(campaign, judge)
                keys = queue.candidate_keys(assignment)
                queue.submit_ranking(assignment.token, judge, list(range(1, len(keys) + 1)), keys)
                submitted.set()
                release.wait(WAIT_SECONDS)
        except BaseException as error:  # reported in the test's thread
            errors.append(error)
        finally:
            submitted.set()
            committed.set()
            connection.close()

    def commit() -> None:
        release.set()
        assert committed.wait(WAIT_SECONDS), "the held submit did not end"
        if errors:
            raise errors[0]

    thread = threading.Thread(target=submit)
    thread.start()
    assert submitted.wait(WAIT_SECONDS), "the held submit did not start"
    try:
        yield commit
    finally:
        commit()
        thread.join()


@contextmanager
def committed_after(marker: str, work: Callable[[], object]) -> Iterator[None]:
    """In the block, right after this thread's connection has run the first query whose SQL holds ``marker`` (and
    before its rows are read), ``work`` runs in another thread, on a connection of its own, and commits: a commit
    at the moment between two reads of one request that a test chooses."""
    done: list[bool] = []

    def run(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if marker in sql and not done:
            done.append(True)
            _in_another_thread(work)
        return result

    with connection.execute_wrapper(run):
        yield
    assert done, f"no query held {marker!r}"


def _in_another_thread(work: Callable[[], object]) -> None:
    with waiting_in_another_thread(work, for_a_lock=False):
        pass


@contextmanager
def waiting_in_another_thread(work: Callable[[], object], for_a_lock: bool = True) -> Iterator[list]:
    """Run ``work`` in another thread, on a connection of its own, and enter the block once it has ended or (with
    ``for_a_lock``) waits for a lock, such as a row that a transaction ``held_submit`` holds open has locked; leaving
    the block waits for it to end and raises what it raised. The list yielded holds what it returned, once it ended."""
    errors: list[BaseException] = []
    returned: list = []

    def run() -> None:
        try:
            returned.append(work())
        except BaseException as error:  # reported in the test's thread
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    waited = 0.0
    while for_a_lock and thread.is_alive() and not _a_backend_waits_for_a_lock():
        assert waited < WAIT_SECONDS, "the other thread neither ended nor waited for a lock"
        time.sleep(0.01)
        waited += 0.01
    yield returned
    thread.join(WAIT_SECONDS)
    assert not thread.is_alive(), "the other thread did not end"
    if errors:
        raise errors[0]


def _a_backend_waits_for_a_lock() -> bool:
    return sql_value("SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() "
                     "AND wait_event_type = 'Lock')")
