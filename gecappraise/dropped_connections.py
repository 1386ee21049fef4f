"""Surviving a dropped database connection: a read-only request that loses its connection is answered once more.

Connections are kept between requests (``CONN_MAX_AGE``) and health-checked when a request first uses them
(``CONN_HEALTH_CHECKS``), so a connection that died between requests (a restarted or failed-over PostgreSQL,
``pg_terminate_backend``, a firewall dropping idle connections) is replaced before it is used. One that dies while a
request uses it raises ``OperationalError`` or ``InterfaceError`` in the view; for GET and HEAD, which write nothing,
:class:`RetryReadOnlyOnDroppedConnection` closes the dead connection and runs the view once more on a new one.
Other methods are never retried: their multi-row writes run in one transaction, so a dropped connection rolls the
whole write back and the user sees an error, never half a write or a write done twice.
"""
from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)

READ_ONLY_METHODS = frozenset({"GET", "HEAD"})
_RETRIED = "_gecappraise_retried_after_dropped_connection"


def close_dropped_connections() -> bool:
    """Close this thread's database connections that no longer answer; whether any did (and none is inside a
    transaction, which a retry could not repeat)."""
    opened = list(connections.all(initialized_only=True))
    if any(conn.in_atomic_block for conn in opened):
        return False
    dropped = [conn for conn in opened if conn.connection is not None and not conn.is_usable()]
    for conn in dropped:
        conn.close()
    return bool(dropped)


class RetryReadOnlyOnDroppedConnection:
    """Middleware (at the end of ``MIDDLEWARE``, so that a retry runs little more than the view): a GET or HEAD whose
    view fails with ``OperationalError``/``InterfaceError`` because its connection was dropped is run once more."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if (
            request.method not in READ_ONLY_METHODS
            or not isinstance(exception, (OperationalError, InterfaceError))
            or getattr(request, _RETRIED, False)
            or not close_dropped_connections()
        ):
            return None
        setattr(request, _RETRIED, True)
        logger.warning("database connection dropped during %s %s; answering it again", request.method, request.path)
        return self.get_response(request)
