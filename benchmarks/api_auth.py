"""Benchmark: what authenticating an API call costs, HTTP Basic against an API token, on gunicorn + PostgreSQL.

Builds an organizer with a password (Django's default hasher, PBKDF2-SHA256 at Django's iterations), an API token
of theirs (django-rest-knox: a SHA-512 of the token, ``annotation/services/api_tokens.py``) and a login session, and
one campaign (the demo test set) for ``GET /api/campaigns/`` to list, in a throw-away PostgreSQL database
(``test_`` + DATABASE_URL's name, default ``gecappraise_api_auth``), and starts gunicorn (one sync worker) as
load.py does. Then ``--calls`` sequential calls of ``GET /api/campaigns/`` per way of authenticating, a new
connection each (as a polling script with curl makes them), in ``--rounds`` rounds that alternate the ways so that
each sees the same machine: Basic (the baseline: the password hashed on every call), the token, and the browser's
session cookie (what the request costs without any hashing worth the name). Every call must answer 200 with the
same body. django-axes is off (the test settings), which spares Basic the database queries of its login checks:
in production Basic costs a little more than measured here.

Prints, per way: the median and 95th percentile of the client's wall time per call, and the server's CPU time
per call (the gunicorn worker and the database's backend, from /proc); then the ratios Basic/token.

Run: .venv/bin/python benchmarks/api_auth.py [--calls 30] [--rounds 3] [--port N]
Ends with one line: Basic X ms per call, token X ms per call: token Nx faster (server CPU Nx less)
"""
from __future__ import annotations

import argparse
import base64
import http.client
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_api_auth")

from django.conf import settings  # noqa: E402
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model  # noqa: E402
from django.contrib.auth.hashers import get_hasher  # noqa: E402
from django.contrib.auth.models import Group  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from load import cpu_seconds, free_port, server_processes, throwaway_site  # noqa: E402  (the judges' benchmark)

from annotation.permissions import ORGANIZERS_GROUP  # noqa: E402
from annotation.services import api_tokens  # noqa: E402
from annotation.services.importing import import_outputs  # noqa: E402
from annotation.services.textfiles import NamedFile  # noqa: E402

DEMO = REPO / "annotation" / "demo"
PATH = "/api/campaigns/"
USERNAME, PASSWORD = "api-bench", "a-long-benchmark-password"


def build() -> dict[str, dict[str, str]]:
    """The organizer, their campaign, and the request headers of each way of authenticating as them."""
    user = get_user_model().objects.create_user(USERNAME, password=PASSWORD)
    user.groups.add(Group.objects.create(name=ORGANIZERS_GROUP))
    systems = [NamedFile(name, (DEMO / name).read_bytes()) for name in ("alpha", "bravo", "charlie", "delta", "echo")]
    campaign = import_outputs("api benchmark", NamedFile("source", (DEMO / "source").read_bytes()), systems,
                              source_is_system=True)
    campaign.organizers.add(user)
    _, key = api_tokens.create_token(user, "benchmark")
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    basic = base64.b64encode(f"{USERNAME}:{PASSWORD}".encode()).decode()
    return {
        "Basic": {"Authorization": f"Basic {basic}"},
        "token": {"Authorization": f"Token {key}"},
        "session": {"Cookie": f"{settings.SESSION_COOKIE_NAME}={session.session_key}"},
    }


def call(port: int, headers: dict[str, str]) -> tuple[int, bytes, float]:
    """One GET of PATH on a new connection: status, body and the client's wall seconds."""
    start = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", PATH, headers={"Host": "localhost", **headers})
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    return response.status, body, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30, help="sequential calls per way and round (default 30)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds alternating the ways (default 3)")
    parser.add_argument("--port", type=int, default=0, help="gunicorn's port (default: a free one)")
    args = parser.parse_args()
    with throwaway_site() as site:
        ways = build()
        port = args.port or free_port()
        server = site.serve(port, 1)
        hasher = get_hasher()
        print(f"GET {PATH} on gunicorn (1 sync worker) and PostgreSQL ({site.test_db}), {os.cpu_count()} cores; "
              f"{args.calls} sequential calls per way in each of {args.rounds} rounds; passwords: {hasher.algorithm}, "
              f"{hasher.iterations:,} iterations")
        walls: dict[str, list[float]] = {way: [] for way in ways}
        cpu: dict[str, float] = dict.fromkeys(ways, 0.0)
        bodies: set[bytes] = set()
        for headers in ways.values():  # warm the worker's imports, caches and connection
            for _ in range(3):
                call(port, headers)
        for _ in range(args.rounds):
            for way, headers in ways.items():
                before = cpu_seconds(server_processes(server.pid, site.test_db))
                for _ in range(args.calls):
                    status, body, seconds = call(port, headers)
                    if status != 200:
                        raise SystemExit(f"{way}: status {status}: {body[:200]!r}")
                    bodies.add(body)
                    walls[way].append(seconds)
                after = cpu_seconds(server_processes(server.pid, site.test_db))
                cpu[way] += sum(used - before.get(pid, 0.0) for pid, used in after.items())
        if len(bodies) != 1:
            raise SystemExit("the ways of authenticating got different answers")
        per_call = {way: 1000 * cpu[way] / len(walls[way]) for way in ways}
        median = {way: 1000 * statistics.median(values) for way, values in walls.items()}
        for way, values in walls.items():
            p95 = 1000 * statistics.quantiles(values, n=20)[-1]
            print(f"{way:8} wall per call: median {median[way]:7.1f} ms, p95 {p95:7.1f} ms; server CPU per call "
                  f"{per_call[way]:6.1f} ms")
        print(f"token/session (the browser's cookie, no hashing): wall {median['token'] / median['session']:.2f}x, "
              f"server CPU {per_call['token'] / per_call['session']:.2f}x")
        wall_ratio, cpu_ratio = median["Basic"] / median["token"], per_call["Basic"] / per_call["token"]
        print(f"Basic {median['Basic']:.1f} ms per call, token {median['token']:.1f} ms per call: token "
              f"{wall_ratio:.1f}x faster (server CPU {cpu_ratio:.1f}x less)")


if __name__ == "__main__":
    main()
