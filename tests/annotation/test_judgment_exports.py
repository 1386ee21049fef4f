"""Judgments as CSV and JSON, and pairwise judgments as TSV, downloaded by organizers."""
from __future__ import annotations

import csv
import io
import json
from datetime import UTC

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Assignment, CandidateJudgment, Judgment
from annotation.services import appraise_import, judgment_exports
from annotation.services.appraise_import import export_appraise_xml, import_appraise_xml
from annotation.services.importing import import_outputs
from annotation.services.judgment_exports import judgment_records, judgments_csv, judgments_json
from tests.sql import sql_value

from .factories import add_screen
from .test_appraise_xml import ITEM
from .test_importing import SOURCE, named, systems

pytestmark = pytest.mark.django_db


def utc(campaign) -> str:
    """The time of the campaign's last judgment as the downloads' file names give it (UTC, ISO 8601 basic form)."""
    last = Judgment.objects.filter(assignment__campaign=campaign).latest("id")
    return f"{last.created_at.astimezone(UTC):%Y%m%dT%H%M%SZ}"


@pytest.fixture
def campaign():
    campaign = import_outputs("toy", named("source", SOURCE), systems(), source_is_system=True)
    import_appraise_xml(campaign, ITEM.format(src=0, group="alpha beta").encode())
    return campaign


def test_csv_has_one_row_per_judged_candidate_and_one_per_flagged_screen(campaign):
    rows = list(csv.DictReader(io.StringIO(judgments_csv(campaign))))
    assert [(r["judge"], r["line"], r["systems"], r["rank"], r["flagged"]) for r in rows] == [
        ("judge1", "0", "alpha beta", "1", "False"),
        ("judge1", "0", "gamma", "2", "False"),
        ("judge2", "1", "", "", "True"),
    ]
    assert rows[0]["duration_seconds"] == "67.524" and rows[0]["text"] == "He goes to school ."
    assert rows[2]["flag_reason"] == "skipped in Appraise" and rows[0]["item"] == "0"


def test_json_nests_candidates_in_judgments(campaign):
    data = json.loads(judgments_json(campaign))
    assert data["campaign"] == "toy"
    first, flagged = data["judgments"]
    assert [c["systems"] for c in first["candidates"]] == ["alpha beta", "gamma"]
    assert flagged["flagged"] and flagged["candidates"] == []


def test_downloads_for_organizers_only(campaign):
    organizer, judge = User.objects.create_user("org"), User.objects.get(username="judge1")
    campaign.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    response = client.get(reverse("campaign-judgments-export", args=[campaign.pk, "csv"]))
    assert response["Content-Disposition"] == f'attachment; filename="toy-judgments-2-judgments-to-{utc(campaign)}.csv"'
    assert response.streaming and response.getvalue().decode() == judgments_csv(campaign)
    unexpanded = client.get(reverse("campaign-pairs", args=[campaign.pk, "unexpanded"])).getvalue().decode()
    assert unexpanded.splitlines() == ["judge\tsegment\tfirst\tsecond\trelation", "judge1\t0\talpha beta\tgamma\t<"]
    expanded = client.get(reverse("campaign-pairs", args=[campaign.pk, "expanded"])).getvalue().decode()
    assert expanded.splitlines()[1:] == ["judge1\talpha\tbeta\t=", "judge1\talpha\tgamma\t<", "judge1\tbeta\tgamma\t<"]
    client.force_login(judge)
    for url in (reverse("campaign-judgments-export", args=[campaign.pk, "json"]),
                reverse("campaign-pairs", args=[campaign.pk, "expanded"])):
        assert client.get(url).status_code == 404


def test_conll14_pairs_as_tsv_match_table_1(conll14_dir):
    from ranking.loading import load_rankings
    from ranking.reports.pairs_tsv import expanded_tsv, unexpanded_tsv
    from tests.ranking.factories import conll14_campaign

    rankings = load_rankings(conll14_campaign(conll14_dir))
    unexpanded = unexpanded_tsv(rankings).splitlines()[1:]
    expanded = expanded_tsv(rankings).splitlines()[1:]
    assert (len(unexpanded), sum(line.endswith("\t=") for line in unexpanded)) == (20516, 5694)
    assert (len(expanded), sum(line.endswith("\t=") for line in expanded)) == (109098, 59117)


def judged_here(campaign, line: int, judge: User) -> Judgment:
    """A judgment of the screen of ``line`` made on this site (no Appraise group): every candidate ranked."""
    screen = add_screen(campaign, line, judges=[judge])
    screen.assignments.update(status=Assignment.Status.SUBMITTED)
    judgment = Judgment.objects.create(assignment=screen.assignments.get())
    CandidateJudgment.objects.bulk_create(
        CandidateJudgment(judgment=judgment, candidate=slot.candidate, position=slot.position, rank=slot.position + 1)
        for slot in screen.slots.order_by("position")
    )
    return judgment


@pytest.fixture
def grouped(campaign):
    """The toy campaign's two Appraise items of group hit-1, two of group hit-2, then one made here (the campaign's
    own group) and two more of hit-1: seven judgments in three result groups, interleaved."""
    second = ITEM.replace('id="hit-1"', 'id="hit-2"').replace(' id="0" ', ' id="10" ').replace(' id="1" ', ' id="11" ')
    import_appraise_xml(campaign, second.format(src=0, group="alpha beta").encode())
    judged_here(campaign, 0, User.objects.get(username="judge1"))
    third = ITEM.replace(' id="0" ', ' id="20" ').replace(' id="1" ', ' id="21" ')
    import_appraise_xml(campaign, third.format(src=0, group="alpha beta").encode())
    return campaign


def test_exports_are_streamed_a_batch_at_a_time_with_the_same_bytes(grouped, monkeypatch):
    whole = (judgments_csv(grouped), judgments_json(grouped), export_appraise_xml(grouped))
    snapshot = judgment_exports.snapshot_json(Judgment.objects.of_campaign(grouped).snapshot())
    assert whole[1] == json.dumps({"campaign": "toy", "snapshot": snapshot, "judgments": judgment_records(grouped)},
                                  indent=2, ensure_ascii=False) + "\n", "json.dumps's text of the whole"
    assert [i.group for i in appraise_import.parse_appraise_xml(whole[2].encode()).items] == [
        "hit-1"] * 4 + ["hit-2"] * 2 + ["toy"], "result groups in the order of their first item"
    monkeypatch.setattr(judgment_exports, "EXPORT_BATCH", 2)
    monkeypatch.setattr(appraise_import, "EXPORT_BATCH", 2)
    assert (judgments_csv(grouped), judgments_json(grouped), export_appraise_xml(grouped)) == whole
    organizer = User.objects.create_user("org")
    grouped.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    for url, text in ((reverse("campaign-judgments-export", args=[grouped.pk, "csv"]), whole[0]),
                      (reverse("campaign-judgments-export", args=[grouped.pk, "json"]), whole[1]),
                      (reverse("campaign-appraise-export", args=[grouped.pk]), whole[2]),
                      (f"/api/campaigns/{grouped.pk}/appraise-xml/", whole[2])):
        response = client.get(url)
        assert response.status_code == 200 and response.streaming, url
        with CaptureQueriesContext(connection) as queries:
            chunks = list(response.streaming_content)
        assert b"".join(chunks).decode() == text
        assert len(chunks) >= 4, f"{url}: 7 judgments in batches of 2 come in chunks, not as one text"
        reads = [query for query in queries if not query["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
        assert len(reads) <= (9 if "xml" in url else 3), f"{url}: the same queries whatever the judgments"
        assert all(len(chunk) < 2_000 for chunk in chunks), f"{url}: a chunk holds one batch"


def test_export_command_writes_the_downloads_chunks_as_they_stream(grouped, monkeypatch, tmp_path):
    """manage.py export_appraise_xml built the whole text before writing it: it writes the download's chunks."""
    from annotation.management.commands import export_appraise_xml as command

    whole = export_appraise_xml(grouped)
    monkeypatch.setattr(appraise_import, "EXPORT_BATCH", 2)
    stdout, stderr, written = io.StringIO(), io.StringIO(), []

    def watched(campaign, snapshot):
        for chunk in appraise_import.export_appraise_xml_chunks(campaign, snapshot):
            written.append(len(stdout.getvalue()))
            yield chunk

    call_command("export_appraise_xml", "--campaign", "toy", "--out", str(tmp_path / "out.xml"), stderr=stderr)
    assert (tmp_path / "out.xml").read_bytes() == whole.encode()
    last = Judgment.objects.of_campaign(grouped).latest("id")
    snapshot = f"the snapshot of 7 judgments up to id {last.pk}, the last stored at {last.created_at.isoformat()}"
    assert stderr.getvalue() == f"Wrote 7 rankings to {tmp_path / 'out.xml'}: {snapshot}.\n", "one line, on stderr"
    monkeypatch.setattr(command, "export_appraise_xml_chunks", watched)
    stderr = io.StringIO()
    call_command("export_appraise_xml", "--campaign", "toy", "--out", "-", stdout=stdout, stderr=stderr)
    assert stdout.getvalue() == whole and stderr.getvalue() == f"Wrote 7 rankings to standard output: {snapshot}.\n"
    assert len(written) >= 6 and written == sorted(set(written)), "each chunk is written before the next is made"


def test_a_campaign_without_judgments_exports_empty_files():
    campaign = import_outputs("toy", named("source", SOURCE), systems(), source_is_system=True)
    assert judgments_json(campaign) == ('{\n  "campaign": "toy",\n  "snapshot": {\n    "judgments": 0,\n'
                                        '    "last_judgment_at": null,\n    "last_judgment_id": null\n  },\n'
                                        '  "judgments": []\n}\n')
    assert judgments_csv(campaign).splitlines() == [",".join(judgment_exports.JUDGMENT_FIELDS
                                                             + judgment_exports.CANDIDATE_FIELDS)]
    assert export_appraise_xml(campaign) == '<?xml version="1.0" encoding="UTF-8"?>\n<appraise-results>\n\n' \
                                            "</appraise-results>\n"


@pytest.mark.django_db(transaction=True)
def test_the_streamed_downloads_read_through_cursors_postgresql_fills_as_it_goes():
    """The judgments and their candidates (CSV and JSON, and so Appraise XML and the pairwise TSV, which read them
    the same way) come from cursors that are not WITH HOLD, which PostgreSQL would fill with the whole result before
    the first row (on 200,000 judgments, 6.6 s before a download's first bytes); they are closed at the end."""
    toy = import_outputs("toy", named("source", SOURCE), systems(), source_is_system=True)
    import_appraise_xml(toy, ITEM.format(src=0, group="alpha beta").encode())
    judged_here(toy, 0, User.objects.get(username="judge1"))
    records = judgment_exports.streamed_records(toy, chunk_size=1)
    first = next(records)
    with connection.cursor() as cursor:
        cursor.execute("SELECT is_holdable FROM pg_cursors ORDER BY creation_time")
        assert [holdable for holdable, in cursor.fetchall()] == [False, False]
    assert [first, *records] == judgment_records(toy) and len(judgment_records(toy)) == 3
    assert sql_value("SELECT count(*) FROM pg_cursors") == 0


def crowd_organizer(campaign) -> Client:
    """A client logged in as a new organizer ``org`` of ``campaign``, made a crowd campaign (it has every download)."""
    campaign.crowd = True
    campaign.save()
    organizer = User.objects.create_user("org")
    campaign.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    return client


def test_downloads_of_a_campaign_named_in_another_script_keep_its_letters(campaign):
    """A campaign named 'שלום עולם' (Hebrew): every download is saved under the name's own letters, sent as
    RFC 6266's filename* (UTF-8); the ASCII slug left no letter, and every download was 'campaign-...'."""
    from urllib.parse import quote

    from ranking.core.analysis import AnalysisParameters
    from ranking.runs import create_run, execute_in_process

    campaign.name = "שלום עולם"
    client = crowd_organizer(campaign)
    run = execute_in_process(create_run(campaign, AnalysisParameters(bootstrap=10, seed=3)))
    downloads = {
        "judgments.csv": reverse("campaign-judgments-export", args=[campaign.pk, "csv"]),
        "judgments.xml": reverse("campaign-appraise-export", args=[campaign.pk]),
        "unexpanded-pairs.tsv": reverse("campaign-pairs", args=[campaign.pk, "unexpanded"]),
        "crowd-workers.csv": reverse("campaign-crowd-workers", args=[campaign.pk]),
        f"analysis-{run.pk}-seed3.json": reverse("campaign-analysis-report", args=[campaign.pk, run.pk, "json"]),
    }
    for what, url in downloads.items():
        response = client.get(url)
        assert response.status_code == 200, url
        named = what if what.startswith("analysis") else what.replace(".", f"-2-judgments-to-{utc(campaign)}.")
        assert response["Content-Disposition"] == f"attachment; filename*=utf-8''{quote(f'שלום-עולם-{named}')}"
    campaign.name = "Ünïcode"
    campaign.save()
    response = client.get(downloads["judgments.csv"])
    named = f"ünïcode-judgments-2-judgments-to-{utc(campaign)}.csv"
    assert response["Content-Disposition"] == f"attachment; filename*=utf-8''{quote(named)}"


def test_each_raw_download_names_its_snapshot_in_its_file_name_and_headers(campaign):
    """PRODUCT.md: every download names the data's snapshot. The analyses did; the judgments CSV and JSON, the
    Appraise XML (page and API), the pairwise TSVs and the crowd workers' CSV named only the campaign. Each names
    the snapshot an analysis started now records (judgments, last judgment's time and id), in its file name and
    headers; the JSON in its body too."""
    from ranking.loading import campaign_snapshot

    client = crowd_organizer(campaign)
    analysed = campaign_snapshot(campaign)
    held = f"2-judgments-to-{utc(campaign)}"
    downloads = [
        (f"toy-judgments-{held}.csv", reverse("campaign-judgments-export", args=[campaign.pk, "csv"])),
        (f"toy-judgments-{held}.csv", f"/api/campaigns/{campaign.pk}/judgments/csv/"),
        (f"toy-judgments-{held}.json", reverse("campaign-judgments-export", args=[campaign.pk, "json"])),
        (f"toy-judgments-{held}.json", f"/api/campaigns/{campaign.pk}/judgments/json/"),
        (f"toy-judgments-{held}.xml", reverse("campaign-appraise-export", args=[campaign.pk])),
        (f"toy-judgments-{held}.xml", f"/api/campaigns/{campaign.pk}/appraise-xml/"),
        (f"toy-unexpanded-pairs-{held}.tsv", reverse("campaign-pairs", args=[campaign.pk, "unexpanded"])),
        (f"toy-expanded-pairs-{held}.tsv", reverse("campaign-pairs", args=[campaign.pk, "expanded"])),
        (f"toy-crowd-workers-{held}.csv", reverse("campaign-crowd-workers", args=[campaign.pk])),
    ]
    bodies: dict[str, set[bytes]] = {}
    for name, url in downloads:
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Disposition"] == f'attachment; filename="{name}"', url
        assert (response["X-Snapshot-Judgments"], response["X-Snapshot-Last-Judgment-At"],
                response["X-Snapshot-Last-Judgment-Id"]) == (
            str(analysed.judgments), analysed.last_judgment_at, str(analysed.last_judgment_id)), url
        bodies.setdefault(name, set()).add(response.getvalue())
    assert all(len(given) == 1 for given in bodies.values()), "the API gives the bytes the page gives"
    body = json.loads(bodies[f"toy-judgments-{held}.json"].pop())
    assert body["snapshot"] == {"judgments": 2, "last_judgment_at": analysed.last_judgment_at,
                                "last_judgment_id": analysed.last_judgment_id}
    empty = import_outputs("empty", named("source", SOURCE), systems(), source_is_system=True)
    empty.organizers.add(User.objects.get(username="org"))
    response = client.get(reverse("campaign-judgments-export", args=[empty.pk, "csv"]))
    assert response["Content-Disposition"] == 'attachment; filename="empty-judgments-0-judgments.csv"'
    assert response["X-Snapshot-Judgments"] == "0" and "X-Snapshot-Last-Judgment-Id" not in response


@pytest.mark.django_db(transaction=True)
def test_a_judgment_stored_while_a_download_streams_is_not_in_it(monkeypatch):
    """The downloads stream, a batch at a time, and read their judgments as they go: a judgment stored after the
    download started could be in it or not (in the JSON and the pairwise TSVs, and in Appraise XML's later result
    groups, it was), so the file was of no one snapshot. Each holds the judgments of the snapshot it names, those
    with an id up to its last, as an analysis of that snapshot reads them."""
    from ranking import loading

    toy = import_outputs("toy", named("source", SOURCE), systems(), source_is_system=True)
    import_appraise_xml(toy, ITEM.format(src=0, group="alpha beta").encode())
    judged_here(toy, 1, User.objects.get(username="judge1"))
    organizer = User.objects.create_user("org")
    toy.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    monkeypatch.setattr(judgment_exports, "EXPORT_BATCH", 1)
    monkeypatch.setattr(appraise_import, "EXPORT_BATCH", 1)
    monkeypatch.setattr(loading, "RANKING_BATCH", 1)
    urls = [reverse("campaign-judgments-export", args=[toy.pk, "json"]),
            reverse("campaign-appraise-export", args=[toy.pk]),
            reverse("campaign-pairs", args=[toy.pk, "unexpanded"]),
            reverse("campaign-judgments-export", args=[toy.pk, "csv"])]
    for number, url in enumerate(urls):
        held = set(Judgment.objects.filter(assignment__campaign=toy).values_list("id", flat=True))
        response = client.get(url)
        chunks = iter(response.streaming_content)
        first = next(chunks)
        late = f"late{number}"
        stored = in_another_thread(lambda name=late: judged_here(toy, 0, User.objects.create_user(name)).pk)
        text = (first + b"".join(chunks)).decode()
        assert stored > max(held) and late not in text, f"{url}: judgment {stored} stored while it streamed"
        assert response["X-Snapshot-Judgments"] == str(len(held)), url
        assert response["X-Snapshot-Last-Judgment-Id"] == str(max(held)), url
        if url.endswith(".csv"):
            assert {int(row["judgment"]) for row in csv.DictReader(io.StringIO(text))} == held
        elif url.endswith(".json"):
            assert {record["judgment"] for record in json.loads(text)["judgments"]} == held
        elif url.endswith(".xml"):
            assert len(appraise_import.parse_appraise_xml(text.encode()).items) == len(held)


def in_another_thread(work):
    """``work()`` run and committed on a connection of another thread; what it returns."""
    import threading

    results = []

    def run():
        try:
            results.append(work())
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    assert results, "the other thread failed"
    return results[0]
