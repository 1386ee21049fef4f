"""Load test of a crowd campaign's study link: many workers open it and submit at once, on gunicorn + PostgreSQL.

Builds a crowd campaign in a throw-away PostgreSQL database (``test_<name>`` of DATABASE_URL, default
``gecappraise_crowd_load``) with the demo test set (or CoNLL-14 from ../shared/data), ``--screens`` screens per
session and enough pool screens for every worker. Starts gunicorn on ``--port`` (8720 by default) and runs one
client thread per worker, each with its own cookies: the worker opens the Prolific-style link, whose GET shows the
start page and stores nothing, and presses Start (a share of them in two tabs at once, whose POSTs race to create the
judge), follows it to a screen, submits random ranks until the session is full (the last submit gives the code), and
reads the completion code on the done page; then reopens the link, whose GET must show the same code. Latencies are
measured by the client; "open link" is the Start button's POST, which does the work.

Baseline, measured in the same run with the same threads: the login page (no database query), so the ratios show
what opening the link and submitting cost on top of Django itself.

Checked afterwards in the database, and the run fails (exit 1) if any does not hold: exactly one CrowdWorker and
one judge account per worker id (no worker got two judges), every screen a worker was shown was served to that
worker's own judge (no worker got another's screen), no screen judged twice by one judge, every acknowledged
submit stored, and every worker's code is the HMAC of its worker id.

Run: .venv/bin/python benchmarks/crowd_load.py [--workers 200] [--screens 3] [--gunicorn-workers 5] [--port 8720]
Ends with one line: N workers: N judges, 0 with two judges, 0 foreign screens, 0 duplicated, 0 lost, codes ok
"""
from __future__ import annotations

import argparse
import http.client
import os
import re
import secrets
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
# Every simulated worker comes from 127.0.0.1: the limit of new workers per address would refuse all but 30.
os.environ.setdefault("CROWD_NEW_WORKERS_PER_HOUR", "0")
from benchmarks.django_setup import set_up  # noqa: E402

set_up("gecappraise_crowd_load")

from django.db import connection  # noqa: E402
from django.db.models import Count  # noqa: E402
from django.urls import reverse  # noqa: E402

# the judges' benchmark beside this file
from load import add_load_test_arguments, ms, run_threads, throwaway_site  # noqa: E402

from annotation.models import Assignment, Campaign, CrowdWorker, Judgment  # noqa: E402
from annotation.services.crowd_completion import completion_code  # noqa: E402
from annotation.services.importing import import_outputs  # noqa: E402
from annotation.services.screens import create_screens  # noqa: E402
from annotation.services.textfiles import NamedFile  # noqa: E402

DEMO = REPO / "annotation" / "demo"
SCREEN_PATH = re.compile(r"^/judge/screens/([0-9a-f-]{36})/(?:\?.*)?$")
RANK_FIELD = re.compile(rb'name="rank_(\d+)"')
KEY_FIELD = re.compile(rb'name="(candidate_\d+)" value="([0-9a-f]+)"')
CODE = re.compile(rb'id="completion-code">([A-Z2-7]+)<')
START_BUTTON = re.compile(rb'id="study-start">Start<')
COOKIE = re.compile(r"^([^=;]+)=([^;]*)")


def build_campaign(screens_per_session: int, screens: int) -> Campaign:
    """A crowd campaign of the demo test set with ``screens`` pool screens."""
    names = ["alpha", "bravo", "charlie", "delta", "echo"]
    systems = [NamedFile(n, (DEMO / n).read_bytes()) for n in names]
    campaign = import_outputs(
        "crowd load benchmark", NamedFile("source", (DEMO / "source").read_bytes()), systems, source_is_system=True,
        crowd=True, crowd_session_screens=screens_per_session, sampling=Campaign.Sampling.UNIFORM,
    )
    create_screens(campaign, screens)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return campaign


class Browser:
    """One worker's browser: its own cookies, requests to the local server."""

    def __init__(self, port: int):
        self.port = port
        self.cookies: dict[str, str] = {"csrftoken": secrets.token_hex(16)}

    def request(self, method: str, path: str, form: dict | None = None) -> tuple[int, str, bytes, float]:
        """(status, Location, body, seconds); cookies the server sets are kept."""
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()), "Host": "localhost"}
        body = None
        if form is not None:
            body = urlencode({**form, "csrfmiddlewaretoken": self.cookies["csrftoken"]})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        start = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            content = response.read()
            for header in response.headers.get_all("Set-Cookie") or []:
                name, value = COOKIE.match(header).groups()
                self.cookies[name] = value
        finally:
            conn.close()
        return response.status, response.getheader("Location", ""), content, time.perf_counter() - start


@dataclass
class Tally:
    """What the client threads measured and saw, guarded by ``lock``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    opened: list[float] = field(default_factory=list)
    submit: list[float] = field(default_factory=list)
    baseline: list[float] = field(default_factory=list)
    seen: dict[str, set[str]] = field(default_factory=dict)
    acknowledged: set[str] = field(default_factory=set)
    codes: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def open_link(browser: Browser, link: str, tabs: int) -> tuple[int, str]:
    """Open the study link (its start page, which must offer Start) and press Start in ``tabs`` concurrent
    requests; the browser keeps the session of the last answer."""
    status, _, page, _ = browser.request("GET", link)
    if status != 200 or START_BUTTON.search(page) is None:
        raise RuntimeError(f"the link's start page: HTTP {status} without its Start button")
    results: list[tuple[int, str, bytes, float]] = []
    threads = [threading.Thread(target=lambda: results.append(browser.request("POST", link, {})))
               for _ in range(tabs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    status, location, _, seconds = max(results, key=lambda result: result[3])
    return status, location, seconds


def follow(browser: Browser, location: str) -> str:
    """Follow redirects from ``location`` until a screen or the done page."""
    for _ in range(5):
        if SCREEN_PATH.match(location) or location.split("?")[0].endswith("/done/"):
            return location
        status, location, _, _ = browser.request("GET", location)
        if status != 302:
            raise RuntimeError(f"HTTP {status} while following the link")
    raise RuntimeError("too many redirects")


def worker_loop(port: int, link: str, worker_id: str, tally: Tally, rng: np.random.Generator, tabs: int,
                think: float) -> None:
    """One worker: open the link, judge screens until the session is full, read the code, reopen the link."""
    browser = Browser(port)
    seen: set[str] = set()
    try:
        time.sleep(rng.exponential(think))
        status, location, seconds = open_link(browser, link, tabs)
        if status != 302:
            raise RuntimeError(f"the link answered HTTP {status}")
        location = follow(browser, location)
        with tally.lock:
            tally.opened.append(seconds)
        while SCREEN_PATH.match(location):
            token = SCREEN_PATH.match(location).group(1)
            seen.add(token)
            status, _, page, _ = browser.request("GET", location)
            if status != 200:
                raise RuntimeError(f"screen {location}: HTTP {status}")
            count = len(set(RANK_FIELD.findall(page)))
            form = {f"rank_{i}": str(int(r)) for i, r in enumerate(rng.integers(1, 6, size=count))}
            form.update({name.decode(): key.decode() for name, key in KEY_FIELD.findall(page)})
            form["active_ms"] = str(int(1000 * think))
            time.sleep(rng.exponential(think))
            status, location, _, seconds = browser.request("POST", location, form)
            if status != 302:
                raise RuntimeError(f"submit: HTTP {status}")
            with tally.lock:
                tally.submit.append(seconds)
                tally.acknowledged.add(token)
        status, _, page, _ = browser.request("GET", location.split("?")[0])
        code = CODE.search(page)
        if status != 200 or code is None:
            raise RuntimeError(f"done page: HTTP {status} without a completion code")
        status, _, page, _ = browser.request("GET", link)
        again = CODE.search(page)
        if status != 200 or again is None or again.group(1) != code.group(1):
            raise RuntimeError("reopening the link after the session did not show its code")
        with tally.lock:
            tally.seen[worker_id] = seen
            tally.codes[worker_id] = code.group(1).decode()
    except (RuntimeError, OSError) as error:
        with tally.lock:
            tally.errors.append(f"{worker_id}: {error}")


def baseline_loop(port: int, tally: Tally, rng: np.random.Generator, requests: int, think: float) -> None:
    """The baseline client: the login page, with the same think times."""
    browser = Browser(port)
    for _ in range(requests):
        time.sleep(rng.exponential(think))
        status, _, _, seconds = browser.request("GET", "/accounts/login/")
        with tally.lock:
            if status == 200:
                tally.baseline.append(seconds)
            else:
                tally.errors.append(f"baseline: HTTP {status}")


def check_database(campaign: Campaign, tally: Tally, workers: list[str]) -> dict[str, int]:
    """The invariants (counts of what went wrong; all 0 in a good run) and the number of judges."""
    crowd = CrowdWorker.objects.filter(campaign=campaign)
    judge_of = dict(crowd.values_list("worker_id", "judge_id"))
    per_worker = crowd.values("worker_id").annotate(n=Count("id")).filter(n__gt=1).count()
    usernames = {f"crowd-{campaign.pk}-prolific-{worker}" for worker in workers}
    accounts = campaign.judges.filter(username__in=usernames).count()
    owner = dict(Assignment.objects.filter(campaign=campaign).values_list("token", "judge_id"))
    foreign = sum(
        1 for worker, tokens in tally.seen.items() for token in tokens
        if owner.get(uuid.UUID(token)) != judge_of.get(worker)
    )
    per_pair = Judgment.objects.filter(assignment__campaign=campaign).values(
        "assignment__judge", "assignment__screen").annotate(n=Count("id"))
    stored = {str(token) for token in Assignment.objects.filter(
        campaign=campaign, judgment__isnull=False).values_list("token", flat=True)}
    wrong_codes = sum(
        1 for worker, code in tally.codes.items()
        if code != completion_code(campaign, "prolific", worker, f"s-{worker}", "completed")
    )
    return {
        "judges": len(judge_of), "accounts": accounts, "two_judges": per_worker + (len(workers) - accounts),
        "foreign": foreign, "duplicated": sum(row["n"] - 1 for row in per_pair),
        "lost": len(tally.acknowledged - stored), "wrong_codes": wrong_codes + len(workers) - len(tally.codes),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=200, help="concurrent crowd workers (client threads)")
    parser.add_argument("--screens", type=int, default=3, help="screens per session (each worker judges them all)")
    parser.add_argument("--tabs-share", type=float, default=0.25,
                        help="share of workers who open the link in two tabs at once")
    add_load_test_arguments(parser, gunicorn_workers="--gunicorn-workers", seed=2019,
                            think=0.5, think_help="mean think time before a submit, seconds",
                            port=8720, port_help="gunicorn's port (the project's 8720-8739)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    with throwaway_site() as site:
        campaign = build_campaign(args.screens, args.workers * args.screens + args.workers)
        link = reverse("crowd-study-link", args=[campaign.crowd_key])
        site.serve(args.port, args.gunicorn_workers)
        print(f"{args.workers} concurrent crowd workers, {args.screens} screens each, gunicorn with "
              f"{args.gunicorn_workers} workers on {os.cpu_count()} cores, PostgreSQL ({site.test_db})")
        tally = Tally()
        run_threads(baseline_loop, [(args.port, tally, rng.spawn(1)[0], args.screens + 1, args.think)
                                    for _ in range(args.workers)])
        workers = [f"{i:04d}{secrets.token_hex(10)}" for i in range(args.workers)]
        started = time.perf_counter()
        run_threads(worker_loop, [
            (args.port, f"{link}?PROLIFIC_PID={worker}&STUDY_ID=load&SESSION_ID=s-{worker}", worker, tally,
             rng.spawn(1)[0], 2 if rng.random() < args.tabs_share else 1, args.think)
            for worker in workers
        ])
        seconds = time.perf_counter() - started
        found = check_database(campaign, tally, workers)
        base50 = ms(tally.baseline, 50)
        if tally.opened and tally.submit:
            print(f"baseline (login page, {len(tally.baseline)} requests): p50 {base50:.1f} ms; "
                  f"open link p50 {ms(tally.opened, 50):.1f} ms ({ms(tally.opened, 50) / base50:.2f}x) "
                  f"p95 {ms(tally.opened, 95):.1f} ms; submit p50 {ms(tally.submit, 50):.1f} ms "
                  f"({ms(tally.submit, 50) / base50:.2f}x) p95 {ms(tally.submit, 95):.1f} ms; {seconds:.1f} s")
        for error in tally.errors[:10]:
            print("error:", error)
        print(f"{args.workers} workers: {found['judges']} judges, {found['two_judges']} with two judges, "
              f"{found['foreign']} foreign screens, {found['duplicated']} duplicated, {found['lost']} lost, "
              f"codes {'ok' if not found['wrong_codes'] else str(found['wrong_codes']) + ' wrong'}")
        good = not tally.errors and found["judges"] == args.workers and found["accounts"] == args.workers and not any(
            found[key] for key in ("two_judges", "foreign", "duplicated", "lost", "wrong_codes"))
        return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
