"""A campaign of 1,000,000 screens on PostgreSQL: judges of it and of a small campaign are served fast, and its
organizer's page answers within a second (issue 7, item 11).

The screens are written by SQL (``INSERT ... SELECT generate_series``), two candidates and one pool slot each, as
``screens.write_screens`` lays them out, in one transaction with the foreign-key triggers off (``SET LOCAL
session_replication_role = replica``, as a restore of a dump does: the rows refer to rows of the same statements,
and Django's deferred foreign-key checks of 4,000,000 rows took more than half of the 60 s the load took with them);
then the tables are vacuumed and analyzed as autovacuum would. Each judge
then works through screens through Django's request handler (the whole request, middleware and all, without a
network, and without the test client's recording of every template context, which a server does not do): a
*serve* is the GET of the screen page, a *submit* the POST that stores the ranks and claims the next screen.
"""
from __future__ import annotations

import re
import sys
import time
from urllib.parse import urlencode

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.http import HttpResponse
from django.test import Client
from django.test.client import FakePayload
from django.urls import reverse

from annotation.models import Assignment, Campaign, Judgment, Screen
from annotation.services import queue
from annotation.services.importing import import_outputs
from annotation.services.screens import create_screens, screen_count
from annotation.services.textfiles import NamedFile

from .factories import judge, small_campaign

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SCREENS = 1_000_000
LINES = 1_000
SERVES = 40
#: The targets of issue 7: a judge's screen within 50 ms (95th percentile), the organizer's page within 1 s.
SERVE_P95 = 0.050
ORGANIZER_PAGE = 1.0


def big_campaign(owner: User) -> Campaign:
    """A test set of ``LINES`` sentences with two distinct outputs each, and ``SCREENS`` screens written by SQL."""
    source = NamedFile("source", "".join(f"sentence {i} is here .\n" for i in range(LINES)).encode())
    systems = [NamedFile(name, "".join(f"sentence {i} is {name} .\n" for i in range(LINES)).encode())
               for name in ("alpha", "beta")]
    campaign = import_outputs("big", source, systems, owner=owner)
    campaign.organizers.add(owner)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(
            """
            INSERT INTO annotation_screen (campaign_id, segment_id, number, created_at, excluded)
            SELECT %(campaign)s, segments.ids[1 + n %% cardinality(segments.ids)], n, now(), false
            FROM generate_series(0, %(screens)s - 1) AS n,
                 (SELECT array_agg(id ORDER BY line) AS ids FROM annotation_segment
                  WHERE campaign_id = %(campaign)s) AS segments
            """,
            {"campaign": campaign.pk, "screens": SCREENS},
        )
        cursor.execute(
            """
            INSERT INTO annotation_screencandidate (screen_id, candidate_id, position)
            SELECT s.id, c.id, row_number() OVER (PARTITION BY s.id ORDER BY c.id) - 1
            FROM annotation_screen s JOIN annotation_candidate c ON c.segment_id = s.segment_id
            WHERE s.campaign_id = %(campaign)s
            """,
            {"campaign": campaign.pk},
        )
        cursor.execute(
            """
            INSERT INTO annotation_assignment (screen_id, campaign_id, position, due_after, status, token)
            SELECT id, campaign_id, number, 0, 'pending', gen_random_uuid()
            FROM annotation_screen WHERE campaign_id = %(campaign)s
            """,
            {"campaign": campaign.pk},
        )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return campaign


KEY = re.compile(r'name="candidate_(\d+)" value="([0-9a-f]+)"')


def handled(client: Client, method: str, url: str, data: dict | None = None) -> HttpResponse:
    """``client``'s request (its session) as a server handles it: through the test client's handler only."""
    path, _, query = url.partition("?")
    body = urlencode(data or {}).encode()
    environ = client._base_environ(
        PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD=method, CONTENT_TYPE="application/x-www-form-urlencoded",
        CONTENT_LENGTH=str(len(body)), **{"wsgi.input": FakePayload(body)},
    )
    return client.handler(environ)


def work(clients: dict[str, tuple[Client, Campaign]], screens: int) -> dict[str, tuple[list[float], list[float]]]:
    """Serve and submit ``screens`` screens of each campaign, the judges taking turns (so that whatever else the
    machine does weighs on both alike); the seconds of each serve and each submit per campaign (after one serve
    each that warms the process up)."""
    rng = np.random.default_rng(7)
    timings: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in clients}
    urls = {}
    for name, (client, campaign) in clients.items():
        urls[name] = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
        handled(client, "GET", urls[name])  # a running server has its templates and URL patterns loaded: not timed
    for _ in range(screens):
        for name, (client, _campaign) in clients.items():
            serves, submits = timings[name]
            start = time.perf_counter()
            page = handled(client, "GET", urls[name])
            serves.append(time.perf_counter() - start)
            assert page.status_code == 200
            keys = KEY.findall(page.content.decode())
            data = {f"rank_{position}": str(rng.integers(1, 3)) for position, _ in keys}
            data.update({f"candidate_{position}": key for position, key in keys})
            start = time.perf_counter()
            posted = handled(client, "POST", urls[name], data)
            submits.append(time.perf_counter() - start)
            assert posted.status_code == 302 and posted["Location"].startswith("/judge/screens/"), posted
            urls[name] = posted["Location"]
    return timings


def p95(seconds: list[float]) -> float:
    return float(np.percentile(seconds, 95))


def test_a_million_screens_serve_judges_fast_and_the_organizer_page_within_a_second(capsys):
    organizer = User.objects.create_user("organizer")
    start = time.perf_counter()
    big = big_campaign(organizer)
    built = time.perf_counter() - start
    small = small_campaign("small")
    create_screens(small, 60)
    assert screen_count(big) == Screen.objects.filter(campaign=big).count() == SCREENS
    clients = {}
    for name, campaign in (("small", small), ("big", big)):
        clients[name] = (Client(), campaign)
        clients[name][0].force_login(judge(f"judge-{name}", campaign))
    timings = work(clients, SERVES)
    assert Judgment.objects.filter(assignment__campaign=big).count() == SERVES
    page_client = Client()
    page_client.force_login(organizer)
    handled(page_client, "GET", reverse("campaign-detail", args=[big.pk]))
    start = time.perf_counter()
    page = handled(page_client, "GET", reverse("campaign-detail", args=[big.pk]))
    page_seconds = time.perf_counter() - start
    assert page.status_code == 200
    assert f"{SCREENS} screens, {SERVES} of {SCREENS} assignments submitted" in page.content.decode()
    assert Assignment.objects.filter(campaign=big, judge__isnull=False).count() == SERVES + 1, "one served now"
    with capsys.disabled():
        print(f"\n1,000,000 screens written in {built:.1f} s; organizer page {1000 * page_seconds:.0f} ms")
        for name, (serves, submits) in timings.items():
            print(f"judge of the {name} campaign: serve p50 {1000 * np.median(serves):.1f} ms p95 "
                  f"{1000 * p95(serves):.1f} ms; submit p50 {1000 * np.median(submits):.1f} ms p95 "
                  f"{1000 * p95(submits):.1f} ms")
    progress = queue.progress(big, User.objects.get(username="judge-big"))
    assert progress.more and progress.total == SERVES + 1 + queue.PROGRESS_CAP
    small_median, big_median = np.median(timings["small"][0]), np.median(timings["big"][0])
    assert big_median < 1.5 * small_median, f"serving from 1,000,000 screens: median {1000 * big_median:.1f} ms " \
                                            f"against {1000 * small_median:.1f} ms from a small campaign, in turns"
    if sys.gettrace() is None:  # absolute times only without a tracer (coverage slows every request by about a third)
        for name, (serves, _) in timings.items():
            assert p95(serves) < SERVE_P95, f"the {name} campaign's judge: serve p95 {1000 * p95(serves):.1f} ms"
    assert page_seconds < ORGANIZER_PAGE, f"organizer page {page_seconds:.2f} s"
