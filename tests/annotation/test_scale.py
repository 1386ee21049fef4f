"""A campaign of 1,000,000 screens on PostgreSQL: what a judge's requests and the organizer's page and dashboard
read does not grow with the campaign (issue 7, item 11); nor does what planning screens reads with the candidates.

The screens are written by SQL (``large_campaigns.large_campaign``), two candidates and one pool slot each, as
``screens.write_screens`` lays them out, with the campaign's kept slot counts (``CampaignSlots``). A judge of it and
a judge of a small campaign then take turns working through screens through Django's request handler (the whole
request, middleware and all, without a network): a *serve* is the GET of the screen page, a *submit* the POST that
stores the ranks and claims the next screen.

What is asserted is the work each request makes PostgreSQL do, not its time: the table and index blocks it reads or
finds in shared buffers (``pg_statio_user_tables``, this backend's counts flushed after the request), which is the
same on a busy machine and a quiet one. A request that scans a large campaign's rows (a sequential scan, or an index
walk past its slots, as a generic plan of the claim once did) reads thousands of blocks more than the same request
on a small campaign; one that finds its rows by index reads a B-tree level or two more. How long these requests take
at scale is ``benchmarks/judge_pages.py`` and ``benchmarks/organizer_pages.py``'s to measure (README, Benchmarks).
"""
from __future__ import annotations

import json
import re
from urllib.parse import urlencode

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.test.client import FakePayload
from django.urls import reverse

from annotation.models import Assignment, Campaign, Judgment, Screen
from annotation.services import queue
from annotation.services.importing import import_outputs
from annotation.services.screens import create_screens, screen_count
from annotation.services.textfiles import NamedFile
from tests.sql import sql_value

from .factories import judge, small_campaign
from .large_campaigns import large_campaign, serve_first

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SCREENS = 1_000_000
LINES = 1_000
SERVES = 30
#: Blocks a judge's request may read beyond what the same request reads on the small campaign: a B-tree level or
#: two more on each index it uses. A scan of the large campaign's slots reads thousands (1,000,000 slots fill about
#: 9,000 table blocks and 2,700 blocks of each index on them).
JUDGE_MARGIN = 100
#: Blocks any judge's request may read, of either campaign: the tables are shared, so a query that scans them slows
#: the small campaign's judges too. The requests read 90-260 here.
JUDGE_MOST = 1_000
#: Blocks the organizer's page and a poll of its dashboard may read on the large campaign beyond their reads on the
#: small one: the slots are counted from the counts kept with them (``kept_slots``) and the indexes of the slots
#: judges took, so nothing they read grows with the campaign's pool. Here the page reads 250 blocks at 1,000,000 slots
#: (the small campaign's: 250) and a poll 353 (550); counting the slots in one aggregate, as both once did, read one
#: pass over the slots' table (11,400 blocks) more.
ORGANIZER_MARGIN = 100
#: Blocks a page of the list of screens, or a screen's page with its way through the list, may read on the large
#: campaign beyond the same page's reads on the small one: a page is read through the index of screen numbers, its
#: screens' own rows only, whatever the filter; nothing counts the campaign's screens or slots.
LIST_MARGIN = 300
#: Screens of the large campaign served before its list of unserved screens is read again, the first ones, as the
#: queue hands them out: the list reads from the first unserved one (``ServedPrefix``), where it once walked these,
#: checking each for a judge (about 800,000 blocks).
SERVED_BEFORE_LIST = 200_000


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


def blocks_read() -> int:
    """The table and index blocks (read from disk or found in shared buffers) of every table of the database that
    this connection's backend has counted so far, its pending counts flushed first (PostgreSQL 15's
    ``pg_stat_force_next_flush`` flushes them when the backend next goes idle, after that statement)."""
    sql_value("SELECT pg_stat_force_next_flush()")
    return int(sql_value(
        "SELECT coalesce(sum(heap_blks_read + heap_blks_hit + coalesce(idx_blks_read, 0)"
        " + coalesce(idx_blks_hit, 0) + coalesce(toast_blks_read, 0) + coalesce(toast_blks_hit, 0)), 0)"
        " FROM pg_statio_user_tables"
    ))


def table_blocks(table: str) -> int:
    """The blocks of ``table``'s rows (its main fork)."""
    return int(sql_value("SELECT pg_relation_size(%s::regclass) / current_setting('block_size')::int", [table]))


def reads(client: Client, method: str, url: str, data: dict | None = None) -> tuple[HttpResponse, int]:
    """The response to ``client``'s request (``handled``) and the blocks PostgreSQL read for it (the request runs
    on this thread's connection, whose backend ``blocks_read`` counts)."""
    before = blocks_read()
    response = handled(client, method, url, data)
    return response, blocks_read() - before


def work(clients: dict[str, tuple[Client, Campaign]], screens: int) -> dict[str, tuple[list[int], list[int]]]:
    """Serve and submit ``screens`` screens of each campaign, the judges taking turns; the blocks read by each serve
    and each submit per campaign (after one serve each, not counted, that loads the templates and URL patterns, as
    a running server has them)."""
    rng = np.random.default_rng(7)
    counted: dict[str, tuple[list[int], list[int]]] = {name: ([], []) for name in clients}
    urls = {}
    for name, (client, campaign) in clients.items():
        urls[name] = client.get(reverse("judge-campaign", args=[campaign.pk]))["Location"]
        handled(client, "GET", urls[name])
    for _ in range(screens):
        for name, (client, _campaign) in clients.items():
            serves, submits = counted[name]
            page, blocks = reads(client, "GET", urls[name])
            serves.append(blocks)
            assert page.status_code == 200
            keys = KEY.findall(page.content.decode())
            data = {f"rank_{position}": str(rng.integers(1, 3)) for position, _ in keys}
            data.update({f"candidate_{position}": key for position, key in keys})
            posted, blocks = reads(client, "POST", urls[name], data)
            submits.append(blocks)
            assert posted.status_code == 302 and posted["Location"].startswith("/judge/screens/"), posted
            urls[name] = posted["Location"]
    return counted


def organizer_page(client: Client, url: str) -> tuple[str, int]:
    """An organizer's page (the campaign page, its dashboard's JSON, the list of screens, a screen's page) as its
    organizer sees it, and the blocks read for it (the second request: the first fills the caches that every later
    request finds)."""
    handled(client, "GET", url)
    page, blocks = reads(client, "GET", url)
    assert page.status_code == 200
    return page.content.decode(), blocks


def test_a_million_screens_cost_a_judge_and_the_organizer_no_more_reads_than_a_small_campaign(capsys):
    organizer = User.objects.create_user("organizer")
    big = large_campaign("big", organizer, lines=LINES, screens=SCREENS)
    small = small_campaign("small")
    small.organizers.add(organizer)
    create_screens(small, 60)
    assert screen_count(big) == Screen.objects.filter(campaign=big).count() == SCREENS
    clients = {}
    for name, campaign in (("small", small), ("big", big)):
        clients[name] = (Client(), campaign)
        clients[name][0].force_login(judge(f"judge-{name}", campaign))
    counted = work(clients, SERVES)
    assert Judgment.objects.filter(assignment__campaign=big).count() == SERVES
    assert Assignment.objects.filter(campaign=big, judge__isnull=False).count() == SERVES + 1, "one served now"
    progress = queue.progress(big, User.objects.get(username="judge-big"))
    assert progress.more and progress.total == SERVES + 1 + queue.PROGRESS_CAP
    page_client = Client()
    page_client.force_login(organizer)
    _, small_page = organizer_page(page_client, reverse("campaign-detail", args=[small.pk]))
    big_page, big_page_blocks = organizer_page(page_client, reverse("campaign-detail", args=[big.pk]))
    assert f"{SCREENS:,} screens, {SERVES} of {SCREENS:,} assignments submitted" in big_page
    _, small_poll = organizer_page(page_client, reverse("campaign-dashboard", args=[small.pk]))
    big_poll, big_poll_blocks = organizer_page(page_client, reverse("campaign-dashboard", args=[big.pk]))
    plan = json.loads(big_poll)["plan"]
    assert (plan["slots"], plan["submitted"], plan["claimed"]) == (SCREENS, SERVES, SERVES + 1)
    with capsys.disabled():
        print(f"\nblocks read at {SCREENS:,} screens against a small campaign's: organizer page {big_page_blocks} "
              f"against {small_page}, dashboard poll {big_poll_blocks} against {small_poll} (the slots' table has "
              f"{table_blocks('annotation_assignment')})")
        for what, index in (("serve", 0), ("submit", 1)):
            print(f"judge's {what}: median {np.median(counted['big'][index]):.0f}, most {max(counted['big'][index])} "
                  f"against median {np.median(counted['small'][index]):.0f}, most {max(counted['small'][index])}")
    for what, index in (("serve", 0), ("submit", 1)):
        big_most, small_most = max(counted["big"][index]), max(counted["small"][index])
        assert small_most <= JUDGE_MOST, f"a {what} of the small campaign read {small_most} blocks"
        assert big_most <= small_most + JUDGE_MARGIN, (
            f"a {what} at {SCREENS:,} screens read {big_most} blocks, a small campaign's at most {small_most}")
    for what, big_blocks, small_blocks in (("page", big_page_blocks, small_page), ("poll", big_poll_blocks,
                                                                                   small_poll)):
        assert big_blocks <= small_blocks + ORGANIZER_MARGIN, (
            f"the organizer's {what} at {SCREENS:,} screens read {big_blocks} blocks, a small campaign's "
            f"{small_blocks}")
    list_reads = list_pages_read(page_client, small, big)
    serve_first(big, SERVED_BEFORE_LIST, organizer)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE annotation_assignment")
    served = f"after {SERVED_BEFORE_LIST:,} served"
    list_reads[f"the unserved screens {served}"] = (
        list_reads["the unserved screens"][0],
        organizer_page(page_client, reverse("campaign-screens", args=[big.pk]) + "?show=unserved")[1],
    )
    list_reads[f"a screen's page in the unserved screens {served}"] = (
        list_reads["a screen's page in the unserved screens"][0],
        organizer_page(page_client, reverse("campaign-screen", args=[big.pk, SERVED_BEFORE_LIST + 40])
                       + "?show=unserved&from=0")[1],
    )
    with capsys.disabled():
        for what, (small_blocks, big_blocks) in list_reads.items():
            print(f"{what}: {big_blocks} against {small_blocks}")
    for what, (small_blocks, big_blocks) in list_reads.items():
        assert big_blocks <= small_blocks + LIST_MARGIN, (
            f"{what} at {SCREENS:,} screens read {big_blocks} blocks, a small campaign's {small_blocks}")


def list_pages_read(client: Client, small: Campaign, big: Campaign) -> dict[str, tuple[int, int]]:
    """The blocks each page of the list of screens (its first page, a full page further on: from screen 5 of the
    small campaign, from the middle of the big one; each filter) and a screen's page opened from a filtered list
    read, on the small campaign and on the big one."""
    reads = {}
    further = {small: 5, big: SCREENS // 2}
    for what, query in (("the list of screens", ""), ("a page further on", "?from={further}"),
                        ("the flagged screens", "?show=flagged"), ("the submitted screens", "?show=submitted"),
                        ("the unserved screens", "?show=unserved")):
        reads[what] = tuple(
            organizer_page(client, reverse("campaign-screens", args=[campaign.pk])
                           + query.format(further=further[campaign]))[1]
            for campaign in (small, big)
        )
    for show in ("flagged", "submitted", "unserved"):
        reads[f"a screen's page in the {show} screens"] = tuple(
            organizer_page(client, reverse("campaign-screen", args=[campaign.pk, 40]) + f"?show={show}&from=0")[1]
            for campaign in (small, big)
        )
    return reads


#: Sentences of the campaigns whose screens are planned (``test_planning_screens_reads_...``), and their systems:
#: every system's output differs, so each sentence has a candidate per system and the source.
PLANNED_LINES = 2_000
NARROW_SYSTEMS = 4
WIDE_SYSTEMS = 60
#: Blocks adding screens to the wide campaign may read beyond adding as many to the narrow one (whose screens show
#: as many candidates, M = 5): its segments' larger rows (their multiplicities), the candidates of the sentences
#: planned and the deeper indexes its writes go through, about 460 blocks more here. Reading every candidate and
#: counting its outputs, as planning once did, read 2,170 more (the candidates' and outputs' tables whole, 2,000).
PLANNING_MARGIN = 700


def test_planning_screens_reads_the_segments_not_every_candidate(capsys):
    """Adding 20 screens to 2,000 sentences of 61 candidates reads about what adding 20 to 2,000 sentences of 5
    does (the plan samples from the segments' kept multiplicities and reads the candidates of the 20 sentences
    planned only), not every candidate."""
    source = NamedFile("source", "".join(f"sentence {i} is here .\n" for i in range(PLANNED_LINES)).encode())
    blocks = {}
    for name, systems in (("narrow", NARROW_SYSTEMS), ("wide", WIDE_SYSTEMS)):
        outputs = [NamedFile(f"sys{k:02d}", "".join(f"sentence {i} is {k} .\n" for i in range(PLANNED_LINES)).encode())
                   for k in range(systems)]
        campaign = import_outputs(name, source, outputs)
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        create_screens(campaign, 1)
        before = blocks_read()
        assert create_screens(campaign, 20) == range(1, 21)
        blocks[name] = blocks_read() - before
    candidates, outputs = table_blocks("annotation_candidate"), table_blocks("annotation_output")
    with capsys.disabled():
        print(f"\nblocks read adding 20 screens to {PLANNED_LINES:,} sentences of {WIDE_SYSTEMS + 1} candidates: "
              f"{blocks['wide']}, of {NARROW_SYSTEMS + 1}: {blocks['narrow']} (the candidates' table has {candidates} "
              f"blocks, the "
              f"outputs' {outputs})")
    assert blocks["wide"] <= blocks["narrow"] + PLANNING_MARGIN, (
        f"adding 20 screens to sentences of {WIDE_SYSTEMS + 1} candidates read {blocks['wide']} blocks, to sentences "
        f"of {NARROW_SYSTEMS + 1} {blocks['narrow']}")
