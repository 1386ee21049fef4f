"""SQL the tests send on this thread's database connection, beside the ORM's."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection


def sql_value(sql: str, params: Sequence = ()) -> Any:
    """The first column of the first row ``sql`` (with ``params``) gives."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]
