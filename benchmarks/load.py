"""Benchmark: serving and submitting judge screens under concurrent judges, on gunicorn + PostgreSQL.

Builds a campaign in a throw-away PostgreSQL database (``test_<name>`` of DATABASE_URL, default
``gecappraise_load``): the CoNLL-14 outputs from ../shared/data (or the demo test set), with enough sampled
screens, and ``--judges`` judges with logged-in sessions. Starts gunicorn (``--workers`` worker processes, with the
deployment's settings: threaded workers) on a free local port and runs one client thread per judge: after a random
start delay, each GETs its screen (a *serve*: the page rendered from the database), waits a random think time, and
POSTs random ranks (a *submit*: the judgment stored and the next screen claimed); a share of submits is posted twice
at once, as a double click does. Latencies are measured by the client, from sending the request to reading the
whole response.

Baseline, measured in the same run with the same clients and think times: the login page (a template with a
CSRF token and no database query), so the ratios show what the judge pages cost on top of Django itself.

Afterwards the database is checked: every acknowledged submit must be stored (lost = acknowledged tokens without
a judgment) and none twice (duplicated = judgments beyond one per judge and screen). Also printed: the 99th
percentiles, the requests per second the server answered while the judges worked (serves and submits, over the
wall-clock time of the judges' run), and the CPU time the server side spent per request (gunicorn workers and the
PostgreSQL backends of the benchmark's database, read from /proc): the cost that decides how many judges a core
serves, whatever else runs on the machine.

Run: .venv/bin/python benchmarks/load.py [--judges 100] [--submits 1000] [--workers 5] [--think 2.5] [--port N]
The 1,000-judge run: .venv/bin/python benchmarks/load.py --judges 1000 --submits 5000
Ends with one line: serve p50 X ms p95 X ms; submit p50 X ms p95 X ms; N submits, lost 0, duplicated 0
"""
from __future__ import annotations

import argparse
import functools
import http.client
import os
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_load")

from django.conf import settings  # noqa: E402
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count  # noqa: E402

from annotation.models import Assignment, Campaign, Judgment  # noqa: E402
from annotation.services.importing import import_outputs  # noqa: E402
from annotation.services.screens import create_screens  # noqa: E402
from annotation.services.textfiles import NamedFile  # noqa: E402
from benchmarks.throwaway_database import throwaway_database  # noqa: E402

CONLL14 = Path(os.environ.get("GECAPPRAISE_SHARED_DATA", REPO.parent / "shared" / "data")) / "conll14" / "outputs"
DEMO = REPO / "annotation" / "demo"
SCREEN_PATH = re.compile(r"^/judge/screens/([0-9a-f-]{36})/(?:\?.*)?$")
RANK_FIELD = re.compile(rb'name="rank_(\d+)"')
KEY_FIELD = re.compile(rb'name="(candidate_\d+)" value="([0-9a-f]+)"')
CSRF_COOKIE = "csrftoken"


def test_set() -> tuple[NamedFile, list[NamedFile], str]:
    """The CoNLL-14 outputs (INPUT judged too), or the demo test set where ../shared/data is absent."""
    if CONLL14.is_dir():
        files = [NamedFile(p.name, p.read_bytes()) for p in sorted(CONLL14.iterdir())]
        return NamedFile("INPUT", (CONLL14 / "INPUT").read_bytes()), files, "CoNLL-14 outputs"
    names = ["alpha", "bravo", "charlie", "delta", "echo"]
    files = [NamedFile(n, (DEMO / n).read_bytes()) for n in names]
    return NamedFile("source", (DEMO / "source").read_bytes()), files, "demo test set"


def build_campaign(judges: int, screens: int) -> tuple[Campaign, list[str], str]:
    """The campaign with ``screens`` sampled screens (one pool slot each) and a session key per judge."""
    source, systems, label = test_set()
    campaign = import_outputs("load benchmark", source, systems, source_is_system=True)
    create_screens(campaign, screens)
    User = get_user_model()
    users = User.objects.bulk_create(User(username=f"load-judge-{i:03d}", password="!") for i in range(judges))
    campaign.judges.add(*users)
    sessions = []
    for user in users:
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        sessions.append(session.session_key)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # planner statistics, as autovacuum keeps them on a live database
    return campaign, sessions, label


@dataclass
class Site:
    """A benchmark's throw-away database ``test_db`` and, once ``serve`` has started it, the gunicorn serving the
    project against it."""

    test_db: str
    server: subprocess.Popen | None = None

    def serve(self, port: int, workers: int) -> subprocess.Popen:
        """Start gunicorn on ``port`` with ``workers`` workers against the database (this process's connection,
        which built the data, is closed first); returns it once it answers."""
        connection.close()
        default = settings.DATABASES["default"]
        database = f"postgres://{default['USER']}@{default['HOST']}:{default['PORT']}/{self.test_db}"
        self.server = start_gunicorn(port, workers, database)
        return self.server


@contextmanager
def throwaway_site() -> Iterator[Site]:
    """A new test database (``test_`` + DATABASE_URL's name, made afresh) for the block; at its end gunicorn stops
    (if the block started it) and the database is dropped, whatever happened."""
    with throwaway_database() as test_db:
        site = Site(test_db)
        try:
            yield site
        finally:
            if site.server is not None:
                site.server.terminate()
                site.server.wait(timeout=30)


def add_load_test_arguments(parser: argparse.ArgumentParser, *, gunicorn_workers: str, think: float, think_help: str,
                            seed: int, port: int, port_help: str) -> None:
    """Add the options of a load test on gunicorn, with the test's defaults and help texts: the option named
    ``gunicorn_workers`` (gunicorn's worker count, default 2 per core + 1), ``--think`` (the clients' mean think time
    in seconds), ``--seed`` (of the run's random draws) and ``--port`` (gunicorn's). They parse to the attributes
    ``gunicorn_workers``, ``think``, ``seed`` and ``port``."""
    parser.add_argument(gunicorn_workers, dest="gunicorn_workers", type=int, metavar="N",
                        default=2 * (os.cpu_count() or 1) + 1, help="gunicorn workers (default: 2 per core + 1)")
    parser.add_argument("--think", type=float, default=think, help=think_help)
    parser.add_argument("--seed", type=int, default=seed, help="seed of the run's random draws (default %(default)s)")
    parser.add_argument("--port", type=int, default=port, help=port_help)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_gunicorn(port: int, workers: int, database: str) -> subprocess.Popen:
    """gunicorn serving the project on ``port`` against ``database`` with the deployment's settings
    (``gecappraise/gunicorn_conf.py``: threaded workers, GUNICORN_THREADS each) and ``workers`` processes; returns
    once it answers."""
    env = {**os.environ, "DATABASE_URL": database, "DJANGO_SETTINGS_MODULE": "tests.settings",
           "WEB_CONCURRENCY": str(workers), "LOG_FORMAT": "text"}
    server = subprocess.Popen(
        [str(REPO / ".venv" / "bin" / "gunicorn"), "-c", "python:gecappraise.gunicorn_conf", "gecappraise.wsgi",
         "--bind", f"127.0.0.1:{port}", "--log-level", "warning"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL,  # the access log; errors go to standard error
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            status, _, _, _ = request(port, "GET", "/accounts/login/", {})
            if status == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError("gunicorn did not start within 60 s")


def request(port: int, method: str, path: str, cookies: dict, form: dict | None = None):
    """One HTTP request; returns (status, Location header, body, seconds)."""
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()), "Host": "localhost"}
    body = None
    if form is not None:
        body = urlencode(form)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        content = response.read()
    finally:
        conn.close()
    return response.status, response.getheader("Location", ""), content, time.perf_counter() - start


@dataclass
class Tally:
    """What all client threads measured and saw, guarded by ``lock``."""

    target: int
    issued: int = 0
    serve: list[float] = field(default_factory=list)
    submit: list[float] = field(default_factory=list)
    baseline: list[float] = field(default_factory=list)
    acknowledged: set[str] = field(default_factory=set)
    double_posts: int = 0
    requests: int = 0
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self) -> bool:
        """Reserve one of the ``target`` submits; False when all are taken."""
        with self.lock:
            if self.issued >= self.target:
                return False
            self.issued += 1
            return True


def judge_loop(port: int, campaign_id: int, session_key: str, tally: Tally, rng: np.random.Generator,
               think: float, max_rank: int, double_share: float) -> None:
    """One judge: serve, think, submit (sometimes twice at once), until the submits are used up."""
    csrf = secrets.token_hex(16)
    cookies = {"sessionid": session_key, CSRF_COOKIE: csrf}
    time.sleep(rng.exponential(think))
    status, location, _, _ = request(port, "GET", f"/judge/campaigns/{campaign_id}/", cookies)
    while SCREEN_PATH.match(location) and tally.take():
        status, _, page, served = request(port, "GET", location, cookies)
        if status != 200:
            tally.errors.append(f"serve {location}: HTTP {status}")
            return
        count = len(set(RANK_FIELD.findall(page)))
        form = {f"rank_{i}": str(int(r)) for i, r in enumerate(rng.integers(1, max_rank + 1, size=count))}
        form.update({name.decode(): key.decode() for name, key in KEY_FIELD.findall(page)})
        form.update(csrfmiddlewaretoken=csrf, active_ms=str(int(think * 1000)))
        time.sleep(rng.exponential(think))
        token = SCREEN_PATH.match(location).group(1)
        posts = 2 if rng.random() < double_share else 1
        if posts == 2:
            results = []
            post = functools.partial(request, port, "POST", location, cookies, form)
            twice = [threading.Thread(target=lambda post=post, results=results: results.append(post()))
                     for _ in range(2)]
            for thread in twice:
                thread.start()
            for thread in twice:
                thread.join()
            status, next_location, _, submitted = max(results, key=lambda r: r[3])
            with tally.lock:
                tally.double_posts += 1
        else:
            status, next_location, _, submitted = request(port, "POST", location, cookies, form)
        if status != 302:
            tally.errors.append(f"submit {location}: HTTP {status}")
            return
        with tally.lock:
            tally.serve.append(served)
            tally.submit.append(submitted)
            tally.acknowledged.add(token)
            tally.requests += 1 + posts
        location = next_location
        time.sleep(rng.exponential(think))


def baseline_loop(port: int, tally: Tally, rng: np.random.Generator, think: float) -> None:
    """The baseline client: the login page, with the same think times."""
    time.sleep(rng.exponential(think))
    while tally.take():
        status, _, _, seconds = request(port, "GET", "/accounts/login/", {})
        if status != 200:
            tally.errors.append(f"baseline: HTTP {status}")
            return
        with tally.lock:
            tally.baseline.append(seconds)
        time.sleep(rng.exponential(think))


def run_threads(target, arguments: list[tuple]) -> None:
    threads = [threading.Thread(target=target, args=args) for args in arguments]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def check_database(campaign: Campaign, acknowledged: set[str]) -> tuple[int, int]:
    """(lost, duplicated): acknowledged submits without a judgment, and judgments beyond one per judge and screen."""
    stored = {
        str(token)
        for token in Assignment.objects.filter(screen__campaign=campaign, judgment__isnull=False).values_list(
            "token", flat=True
        )
    }
    judgments = Judgment.objects.filter(assignment__screen__campaign=campaign)
    per_pair = judgments.values("assignment__judge", "assignment__screen").annotate(n=Count("id"))
    duplicated = sum(row["n"] - 1 for row in per_pair)
    return len(acknowledged - stored), duplicated


def server_processes(server_pid: int, database: str) -> list[int]:
    """The gunicorn workers of ``server_pid`` and the PostgreSQL backends connected to ``database`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == server_pid or (command.startswith("postgres:") and f" {database} " in command):
            found.append(int(entry.name))
    return found


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User + system CPU seconds each of ``pids`` has used so far (processes that ended are left out)."""
    tick = os.sysconf("SC_CLK_TCK")
    used = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / tick
    return used


def ms(values: list[float], q: float) -> float:
    return 1000 * float(np.percentile(values, q))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judges", type=int, default=100, help="concurrent judges (client threads)")
    parser.add_argument("--submits", type=int, default=1000, help="screens served and submitted in all")
    parser.add_argument("--double", type=float, default=0.05, help="share of submits posted twice at once")
    add_load_test_arguments(
        parser, gunicorn_workers="--workers", seed=2015, port=0, port_help="gunicorn's port (default: a free one)",
        think=2.5,
        think_help="mean think time before a submit and after it, seconds (default 2.5: a screen every ~5 s, ten "
                   "times the pace of G15's judges, whose median time on a screen is 48.5 s)",
    )
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    with throwaway_site() as site:
        campaign, sessions, label = build_campaign(args.judges, args.submits + args.judges)
        port = args.port or free_port()
        server = site.serve(port, args.gunicorn_workers)
        print(f"{label}; {args.judges} concurrent judges, gunicorn with {args.gunicorn_workers} workers on "
              f"{os.cpu_count()} cores, PostgreSQL ({site.test_db}), mean think time {args.think} s")
        baseline = Tally(target=args.submits)
        run_threads(baseline_loop, [(port, baseline, rng.spawn(1)[0], args.think) for _ in range(args.judges)])
        tally = Tally(target=args.submits)
        cpu_before = cpu_seconds(server_processes(server.pid, site.test_db))
        started = time.perf_counter()
        run_threads(judge_loop, [
            (port, campaign.pk, key, tally, rng.spawn(1)[0], args.think, campaign.max_candidates, args.double)
            for key in sessions
        ])
        seconds = time.perf_counter() - started
        # Backends opened during the run count whole.
        cpu_after = cpu_seconds(server_processes(server.pid, site.test_db))
        server_cpu = sum(used - cpu_before.get(pid, 0.0) for pid, used in cpu_after.items())
        if tally.errors or baseline.errors:
            raise SystemExit("errors: " + "; ".join((tally.errors + baseline.errors)[:5]))
        lost, duplicated = check_database(campaign, tally.acknowledged)
        serve50, serve95 = ms(tally.serve, 50), ms(tally.serve, 95)
        submit50, submit95 = ms(tally.submit, 50), ms(tally.submit, 95)
        base50, base95 = ms(baseline.baseline, 50), ms(baseline.baseline, 95)
        print(f"baseline (login page, {len(baseline.baseline)} requests): p50 {base50:.1f} ms p95 {base95:.1f} ms")
        print(f"serve/baseline p50 {serve50 / base50:.2f}x; submit/baseline p50 {submit50 / base50:.2f}x; "
              f"{tally.double_posts} submits posted twice at once")
        print(f"p99: serve {ms(tally.serve, 99):.1f} ms, submit {ms(tally.submit, 99):.1f} ms; "
              f"{tally.requests / seconds:.1f} requests per second ({tally.requests} serves and submits in "
              f"{seconds:.1f} s)")
        print(f"server CPU (gunicorn workers and PostgreSQL backends): {1000 * server_cpu / tally.requests:.1f} ms "
              f"per serve or submit, {server_cpu / seconds:.2f} of the {os.cpu_count()} cores")
        print(f"serve p50 {serve50:.1f} ms p95 {serve95:.1f} ms; submit p50 {submit50:.1f} ms p95 {submit95:.1f} ms; "
              f"{len(tally.acknowledged)} submits, lost {lost}, duplicated {duplicated}")


if __name__ == "__main__":
    main()
