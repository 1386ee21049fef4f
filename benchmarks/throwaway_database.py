"""The throw-away database a benchmark builds its data in: Django's test database (``test_`` + the name of
DATABASE_URL's database, made afresh, as pytest-django makes it) and Django's test environment (the test client's
host, e-mail kept in memory), both undone at the end whatever happened. Import it after ``django.setup()``."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from django.test.utils import setup_test_environment, teardown_test_environment


@contextmanager
def throwaway_database() -> Iterator[str]:
    """A new test database, the connection's for the block, whose name it gives; at the block's end the connection
    is closed and the database dropped."""
    setup_test_environment()
    test_db = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield test_db
    finally:
        connection.close()
        connection.creation.destroy_test_db(test_db, verbosity=0)
        teardown_test_environment()
