"""Writing many plain rows at once: PostgreSQL's COPY where available, ``bulk_create`` elsewhere.

A large test set is millions of Output rows (20 systems x 100,000 sentences: 2 million). ``bulk_create`` builds a
model instance and compiles an INSERT for each of them, about 50 us a row; COPY streams the values, several times
faster (``benchmarks/import_outputs.py``). Ids are taken from the table's sequence first, so that rows that refer
to the new rows can be written the same way.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connection
from django.db.models import JSONField, Model
from psycopg.types.json import Jsonb

BATCH = 10_000


def reserve_ids(model: type[Model], count: int) -> list[int] | None:
    """``count`` new primary keys of ``model`` from its PostgreSQL sequence, or None on other databases."""
    if connection.vendor != "postgresql" or count == 0:
        return [] if count == 0 else None
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [table, count]
        )
        return [row[0] for row in cursor.fetchall()]


def insert_rows(model: type[Model], fields: Sequence[str], rows: Iterable[tuple]) -> list[int]:
    """Insert ``rows`` (values of ``fields``, in order) into ``model``'s table; returns the new ids.

    With ``id`` among ``fields`` the rows carry their ids (from ``reserve_ids``) and those are returned. A JSONField's
    values are Python values, as the model takes them.
    """
    if connection.vendor == "postgresql":
        columns = ", ".join(connection.ops.quote_name(model._meta.get_field(f).column) for f in fields)
        table = connection.ops.quote_name(model._meta.db_table)
        ids = []
        has_id = "id" in fields
        position = list(fields).index("id") if has_id else -1
        json = [i for i, f in enumerate(fields) if isinstance(model._meta.get_field(f), JSONField)]
        with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for row in rows:
                if json:
                    row = tuple(Jsonb(value) if i in json else value for i, value in enumerate(row))
                copy.write_row(row)
                if has_id:
                    ids.append(row[position])
        return ids
    attnames = [model._meta.get_field(f).attname for f in fields]
    created = model.objects.bulk_create((model(**dict(zip(attnames, row))) for row in rows), batch_size=BATCH)
    return [obj.pk for obj in created]


def insert_rows_with_ids(model: type[Model], fields: Sequence[str], rows: list[tuple]) -> list[int]:
    """Insert ``rows`` (values of ``fields``) and return their new ids in row order, so that rows referring to them
    can be written the same way (ids from the sequence on PostgreSQL, from ``bulk_create`` elsewhere)."""
    ids = reserve_ids(model, len(rows))
    if ids is None:
        return insert_rows(model, fields, rows)
    return insert_rows(model, ("id", *fields), [(pk, *row) for pk, row in zip(ids, rows)])
