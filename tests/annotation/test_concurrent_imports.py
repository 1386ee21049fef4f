"""Imports that race each other for one name: the later one is refused with a message, never a database error.

Each test holds the first import's transaction open after it wrote the name, lets the second start (its check
does not see the uncommitted row), then commits the first: the second must wait and answer as if it came later.
"""
from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from annotation.models import Campaign
from annotation.services.importing import create_campaign, read_test_set
from annotation.services.judged_screens import JudgeAccountError, judge_accounts
from annotation.services.textfiles import InputFileError

from .factories import small_campaign
from .test_importing import SOURCE, named, systems

pytestmark = pytest.mark.django_db(transaction=True)


def first_holds_open(write) -> tuple[threading.Event, threading.Thread]:
    """Run ``write`` in a transaction in another thread, which commits 0.5 s after the returned event is set."""
    wrote, started = threading.Event(), threading.Event()

    def run() -> None:
        try:
            with transaction.atomic():
                write()
                wrote.set()
                started.wait(10)
                threading.Event().wait(0.5)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    assert wrote.wait(10)
    return started, thread


def test_two_campaigns_of_one_name_at_once():
    test_set = read_test_set(named("source", SOURCE), systems())
    release, first_thread = first_holds_open(lambda: create_campaign("same", test_set))
    release.set()
    with pytest.raises(InputFileError, match="a campaign named 'same' exists already"):
        create_campaign("same", test_set)
    first_thread.join()
    assert Campaign.objects.filter(name="same").count() == 1


def test_two_imports_making_one_new_judge_at_once():
    first, second = small_campaign("first"), small_campaign("second")
    release, first_thread = first_holds_open(lambda: judge_accounts(first, ["newcomer"]))
    release.set()
    with pytest.raises(JudgeAccountError, match="newcomer"), transaction.atomic():
        judge_accounts(second, ["newcomer"])
    first_thread.join()
    assert list(first.judges.values_list("username", flat=True)) == ["newcomer"]
    assert not second.judges.exists()
