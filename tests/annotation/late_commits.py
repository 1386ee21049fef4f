"""A submit whose transaction commits late, at a moment a test chooses: for the races of the kept tallies and the
live leaderboard with judgments that commit while a request reads them (``transaction=True`` tests only)."""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connection, transaction

from annotation.models import Campaign
from annotation.services import queue

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
