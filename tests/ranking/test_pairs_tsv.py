"""The pairwise judgments as TSV (unexpanded and expanded), downloaded by organizers: streamed a batch of rankings
at a time, with the bytes they had when they were written whole."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.downloads import download_name
from annotation.models import Judgment, Screen, System
from annotation.services.importing import import_outputs
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens
from annotation.services.score_import import import_scores
from annotation.services.textfiles import NamedFile
from ranking import loading
from ranking.loading import load_rankings
from ranking.reports.pairs_tsv import expanded_tsv, unexpanded_tsv
from tests.annotation.factories import candidate_of

pytestmark = pytest.mark.django_db

SOURCE = ["He go to school .", "She like apples .", "They is here .", "It rain ."]
#: Line 0: amu, camb and the control system ctl wrote the same correction, ipn left the source as it was; line 1:
#: amu and ipn agree and ctl alone wrote one (a candidate of no contestant); line 2: every system but the source wrote
#: the same. "Zeta" sorts first, as pairs order names by code point.
OUTPUTS = {
    "amu": ["He goes to school .", "She likes apples .", "They are here .", "It rains ."],
    "camb": ["He goes to school .", "She liked apples .", "They are here .", "It rained ."],
    "ctl": ["He goes to school .", "She like apples !!", "They are here .", "It rain !!"],
    "ipn": ["He go to school .", "She likes apples .", "They are here .", "It is raining ."],
    "Zeta": ["He went to school .", "She like apple .", "They are here .", "It rain ."],
}
#: (judge, line, [(a system of the candidate, rank), ...]; None: flagged): ties, collapsed candidates, a candidate
#: of the control system alone, a screen of one candidate, a flagged screen, the ignored judge admin, and the
#: screen of the last line, which the organizer excludes.
JUDGED = [
    ("j1", 0, [("amu", 1), ("Zeta", 2), ("ipn", 2)]),
    ("j2", 1, [("ctl", 1), ("Zeta", 3), ("amu", 1), ("camb", 2)]),
    ("admin", 0, [("Zeta", 1), ("amu", 2)]),
    ("j1", 2, None),
    ("j2", 3, [("amu", 1), ("camb", 2), ("ipn", 3)]),
    ("Ann", 2, [("amu", 2), ("source", 1)]),
    ("j1", 1, [("camb", 1)]),
    ("j2", 0, [("ipn", 1), ("amu", 1), ("Zeta", 1)]),
    ("Ann", 1, [("Zeta", 1), ("camb", 2), ("source", 3), ("ipn", 4)]),
]

#: The downloads of ``awkward`` as they were when they were built whole from ``load_rankings`` (before they
#: streamed), kept beside this file.
BEFORE = {kind: Path(__file__).with_name(f"pairs_awkward_{kind}.tsv").read_text()
          for kind in ("unexpanded", "expanded")}


def judged_screens(campaign, judged: list[tuple]) -> list[JudgedScreen]:
    """``judged`` (as ``JUDGED``) as screens of ``campaign`` to write."""
    return [
        JudgedScreen(line, judge, [JudgedCandidate(candidate_of(campaign, line, system).pk, rank)
                                   for system, rank in shown or []],
                     timedelta(seconds=9), flag_reason=None if shown else "unreadable")
        for judge, line, shown in judged
    ]


@pytest.fixture
def awkward():
    """A campaign with every kind of screen the pairs leave out or tie (``JUDGED``)."""
    lines = lambda texts: ("\n".join(texts) + "\n").encode()
    campaign = import_outputs("Pairs: awkward", NamedFile("source", lines(SOURCE)),
                              [NamedFile(name, lines(texts)) for name, texts in OUTPUTS.items()],
                              source_is_system=True)
    System.objects.filter(campaign=campaign, name="ctl").update(kind=System.Kind.CONTROL)
    write_judged_screens(campaign, judged_screens(campaign, JUDGED))
    Screen.objects.filter(campaign=campaign, segment__line=3).update(excluded=True)
    return campaign


def streamed(campaign, kind: str) -> tuple[list[bytes], int]:
    """The download of ``kind`` by an organizer of ``campaign``: its chunks, and the queries reading them took (the
    savepoint the test's transaction makes of the read's transaction left out)."""
    organizer, _ = User.objects.get_or_create(username="organizer")
    campaign.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    response = client.get(reverse("campaign-pairs", args=[campaign.pk, kind]))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "text/tab-separated-values; charset=utf-8"
    named = download_name(campaign.name, f"{kind}-pairs.tsv", Judgment.objects.of_campaign(campaign).snapshot())
    assert named.startswith(f"pairs-awkward-{kind}-pairs-")
    assert response["Content-Disposition"] == f'attachment; filename="{named}"'
    with CaptureQueriesContext(connection) as queries:
        chunks = list(response.streaming_content)
    return chunks, sum(not query["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT")) for query in queries)


def test_the_downloads_stream_the_bytes_they_had_in_chunks_with_the_same_queries(awkward, monkeypatch):
    rankings = load_rankings(awkward)
    whole = {"unexpanded": unexpanded_tsv(rankings), "expanded": expanded_tsv(rankings)}
    assert whole == BEFORE
    monkeypatch.setattr(loading, "RANKING_BATCH", 2)
    queries = {}
    for kind, text in whole.items():
        chunks, queries[kind] = streamed(awkward, kind)
        assert b"".join(chunks).decode() == text
        assert len(chunks) >= 3, f"{kind}: 7 rankings in batches of 2 come in chunks, not as one text"
    write_judged_screens(awkward, judged_screens(awkward, JUDGED * 3))
    for kind in whole:
        chunks, more = streamed(awkward, kind)
        assert more == queries[kind] <= 4, f"{kind}: the same queries whatever the judgments"
        assert b"".join(chunks).decode().startswith(whole[kind])


def test_a_campaign_without_judgments_downloads_the_header_alone(awkward):
    Screen.objects.filter(campaign=awkward).update(excluded=True)
    assert b"".join(streamed(awkward, "unexpanded")[0]) == b"judge\tsegment\tfirst\tsecond\trelation\n"
    assert b"".join(streamed(awkward, "expanded")[0]) == b"judge\tfirst\tsecond\trelation\n"


def test_a_prws_campaign_downloads_the_relative_judgments_of_its_scores(client_for_prws):
    """A PRWS campaign's pairs are those of its scores, as its analyses compare them (a higher score is better,
    equal scores a tie); the downloads held the header alone, beside an analysis counting the pairs."""
    client, campaign = client_for_prws
    unexpanded = client.get(reverse("campaign-pairs", args=[campaign.pk, "unexpanded"])).getvalue().decode()
    assert unexpanded == ("judge\tsegment\tfirst\tsecond\trelation\n"
                          "rita\t0\talpha\tbeta\t<\n"
                          "rita\t1\talpha\tbeta\t=\n")
    expanded = client.get(reverse("campaign-pairs", args=[campaign.pk, "expanded"])).getvalue().decode()
    assert expanded == "judge\tfirst\tsecond\trelation\nrita\talpha\tbeta\t<\nrita\talpha\tbeta\t=\n"


@pytest.fixture
def client_for_prws():
    text = lambda lines: ("\n".join(lines) + "\n").encode()
    campaign = import_outputs("scored", NamedFile("source", text(["He go .", "It rain ."])), [
        NamedFile("alpha", text(["He goes .", "It rains ."])), NamedFile("beta", text(["He went .", "It rained ."])),
    ], mode="prws")
    import_scores(campaign, b"rater,segment,system,score\nrita,0,alpha,80\nrita,0,beta,40\n"
                            b"rita,1,alpha,50\nrita,1,beta,50\n")
    organizer = User.objects.create_user("organizer")
    campaign.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    return client, campaign
