"""Reports of stored analyses: `manage.py export_report` in every format, the downloads on the analyses page and
who may have them, escaping through the product, and the CoNLL-14 reports against G15's tables."""
from __future__ import annotations

import csv
import io
import json
import re
from datetime import timedelta

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from annotation.models import Campaign
from annotation.services.appraise_import import import_appraise_xml
from annotation.services.appraise_xml import AppraiseResults, RankingItem, write_appraise_xml
from annotation.services.importing import import_outputs
from annotation.services.textfiles import NamedFile
from ranking.core.analysis import AnalysisParameters
from ranking.models import AnalysisRun
from ranking.reports.json import render_json
from ranking.runs import create_run, execute_in_process

from .core.test_conll14_reproduction import TABLE_1, TABLE_1_TOTAL, TABLE_2B, TABLE_3B, TABLE_5_PEARSON_NOISE
from .factories import conll14_campaign, synthetic_campaign

pytestmark = pytest.mark.django_db

FAST = AnalysisParameters(bootstrap=200, seed=5)


def done_run(campaign: Campaign, parameters: AnalysisParameters = FAST) -> AnalysisRun:
    """A finished analysis of the campaign, read back from the database (as the command and the views see it)."""
    return AnalysisRun.objects.get(pk=execute_in_process(create_run(campaign, parameters)).pk)


def export(tmp_path, *args: str) -> str:
    out = tmp_path / "report.out"
    call_command("export_report", *args, "--out", str(out), stderr=io.StringIO())
    return out.read_text(encoding="utf-8")


@pytest.fixture
def campaign() -> Campaign:
    return synthetic_campaign("reports", np.random.default_rng(21))


def test_the_command_reports_the_latest_done_analysis_in_every_format(campaign, tmp_path):
    older = done_run(campaign, AnalysisParameters(bootstrap=200, seed=8))
    latest = done_run(campaign, AnalysisParameters(bootstrap=300, seed=9))
    AnalysisRun.objects.create(campaign=campaign, parameters={}, seed=10)  # queued: never reported
    base = ("--campaign", "reports")

    assert json.loads(export(tmp_path, *base, "--format", "json")) == latest.result
    rows = list(csv.DictReader(io.StringIO(export(tmp_path, *base, "--format", "csv"))))
    provenance = {row["key"]: row["value"] for row in rows if row["section"] == "provenance"}
    assert provenance["Random seed"] == "9" and provenance["Bootstrap samples per method"] == "300"
    assert provenance["Judgments (snapshot)"] == str(latest.snapshot["judgments"])
    latex = export(tmp_path, *base, "--format", "latex")
    assert latex.startswith("% gecappraise report") and "% Random seed: 9" in latex and "\\documentclass" not in latex
    standalone = export(tmp_path, *base, "--format", "latex", "--standalone")
    assert standalone.startswith("\\documentclass") and standalone.rstrip().endswith("\\end{document}")
    page = export(tmp_path, *base, "--format", "html")
    assert "<dt>Random seed</dt><dd>9</dd>" in page and page.count('<svg class="plot"') == 3

    chosen = export(tmp_path, *base, "--format", "json", "--analysis", str(older.pk))
    assert json.loads(chosen)["parameters"]["seed"] == 8


def test_the_command_computes_a_fresh_analysis_with_run(campaign, tmp_path):
    assert not AnalysisRun.objects.exists()
    report = export(tmp_path, "--campaign", "reports", "--format", "json", "--run", "--bootstrap", "150",
                    "--confidence", "0.9", "--seed", "4")
    run = AnalysisRun.objects.get()
    assert run.status == AnalysisRun.Status.DONE and run.seed == 4
    result = json.loads(report)
    assert result["parameters"]["bootstrap"] == 150 and result["parameters"]["confidence"] == 0.9
    assert result == run.result


def test_the_command_refuses_what_it_cannot_report_and_writes_nothing(campaign, tmp_path):
    out = tmp_path / "report.html"

    def refused(*args: str, match: str) -> None:
        with pytest.raises(CommandError, match=match):
            call_command("export_report", "--campaign", "reports", *args, "--out", str(out), stderr=io.StringIO())
        assert not out.exists()

    refused("--format", "html", match="'reports' has no finished analysis; run one with --run")
    failed = AnalysisRun.objects.create(campaign=campaign, parameters={}, seed=1, status=AnalysisRun.Status.FAILED)
    refused("--format", "html", match="no finished analysis")
    refused("--format", "html", "--analysis", str(failed.pk), match=f"analysis {failed.pk} of 'reports' is failed")
    other = done_run(synthetic_campaign("other", np.random.default_rng(22)))
    refused("--format", "html", "--analysis", str(other.pk), match=f"'reports' has no analysis {other.pk}")
    refused("--format", "html", "--seed", "3", match="--seed applies only with --run")
    refused("--format", "html", "--seed", "3", "--bootstrap", "9", match="--bootstrap, --seed apply only with --run")
    refused("--format", "html", "--standalone", "--run", match="--standalone applies to --format latex only")
    refused("--format", "html", "--run", "--bootstrap", "1", match="bootstrap must be from 3 to 100,000")
    runs = AnalysisRun.objects.count()
    with pytest.raises(CommandError, match=r"missing/report.html: cannot write \(no folder .*\); nothing was done"):
        call_command("export_report", "--campaign", "reports", "--format", "html", "--run",
                     "--out", str(tmp_path / "missing" / "report.html"), stderr=io.StringIO())
    assert AnalysisRun.objects.count() == runs  # the fresh analysis was computed and recorded first
    with pytest.raises(CommandError, match="no campaign named 'nope'"):
        call_command("export_report", "--campaign", "nope", "--format", "csv", "--out", str(out))
    with pytest.raises(CommandError, match="invalid choice: 'pdf'"):
        call_command("export_report", "--campaign", "reports", "--format", "pdf", "--out", str(out))


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_organizers_open_the_html_report_and_download_every_report_from_the_analyses_page(campaign):
    organizer = User.objects.create_user("org")
    campaign.organizers.add(organizer)
    run = done_run(campaign)
    client = logged_in(organizer)
    page = client.get(reverse("campaign-analyses", args=[campaign.pk])).content.decode()
    expected = {
        "html": ("text/html; charset=utf-8", "<!doctype html>"),
        "tex": ("application/x-tex; charset=utf-8", "\\documentclass"),
        "csv": ("text/csv; charset=utf-8", "section,method,"),
    }
    for extension, (content_type, start) in expected.items():
        url = reverse("campaign-analysis-report", args=[campaign.pk, run.pk, extension])
        assert f'href="{url}"' in page
        response = client.get(url)
        assert response.status_code == 200 and response["Content-Type"] == content_type
        disposition = "inline" if extension == "html" else "attachment"
        assert (
            response["Content-Disposition"] == f'{disposition}; filename="reports-analysis-{run.pk}-seed5.{extension}"'
        )
        assert response.content.decode().startswith(start)
    download = f'{reverse("campaign-analysis-report", args=[campaign.pk, run.pk, "html"])}?download=1'
    assert f'href="{download}">Download HTML</a>' in page
    assert client.get(download)["Content-Disposition"] == f'attachment; filename="reports-analysis-{run.pk}-seed5.html"'


def test_a_report_is_rendered_once_and_then_served_as_it_was(campaign, monkeypatch):
    organizer = User.objects.create_user("org")
    campaign.organizers.add(organizer)
    run = done_run(campaign)
    client = logged_in(organizer)
    url = reverse("campaign-analysis-report", args=[campaign.pk, run.pk, "html"])
    first = client.get(url).content
    monkeypatch.setattr("ranking.reports.formats.render_report", lambda *args, **kwargs: pytest.fail("rendered again"))
    assert client.get(url).content == first and client.get(f"{url}?download=1").content == first


def test_nobody_else_gets_a_report(campaign):
    run = done_run(campaign)
    queued = AnalysisRun.objects.create(campaign=campaign, parameters={}, seed=1)
    organizer = User.objects.create_user("org")
    campaign.organizers.add(organizer)
    for extension in ("html", "tex", "csv"):
        url = reverse("campaign-analysis-report", args=[campaign.pk, run.pk, extension])
        for user in (User.objects.get(username="ann"), User.objects.create_user(f"stranger-{extension}")):
            assert logged_in(user).get(url).status_code == 404
        anonymous = Client().get(url)
        assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("login"))
        unfinished = reverse("campaign-analysis-report", args=[campaign.pk, queued.pk, extension])
        assert logged_in(organizer).get(unfinished).status_code == 404
    other = synthetic_campaign("other", np.random.default_rng(23))
    wrong_campaign = reverse("campaign-analysis-report", args=[other.pk, run.pk, "html"])
    assert logged_in(organizer).get(wrong_campaign).status_code == 404
    assert logged_in(organizer).get(f"/campaigns/{campaign.pk}/analyses/{run.pk}.pdf").status_code == 404


def test_a_system_named_like_markup_is_escaped_in_every_download(tmp_path):
    source = ["one two three", "four five six", "seven eight nine"]
    outputs = {"A&B_<x>": ["one 2 three", "four 5 six", "seven 8 nine"], "plain": source,
               "third": ["one two 3", "four five 6", "seven eight 9"]}

    def text(lines: list[str]) -> bytes:
        return ("\n".join(lines) + "\n").encode()

    campaign = import_outputs("esc", NamedFile("source", text(source)),
                              [NamedFile(name, text(lines)) for name, lines in outputs.items()])
    items = [
        RankingItem(id=str(i), doc_id=f"hit-{i}", src_id=i % 3, user="ann", duration=timedelta(seconds=5),
                    skipped=False, group="esc",
                    translations=[(("A&B_<x>",), 1 + i % 2), (("plain",), 2 - i % 2), (("third",), 3)])
        for i in range(30)
    ]
    import_appraise_xml(campaign, write_appraise_xml(AppraiseResults(items=items)).encode())
    run = done_run(campaign)
    organizer = User.objects.create_user("org")
    campaign.organizers.add(organizer)
    client = logged_in(organizer)
    page = client.get(reverse("campaign-analysis-report", args=[campaign.pk, run.pk, "html"])).content.decode()
    assert "A&B_<x>" not in page and "A&amp;B_&lt;x&gt;" in page
    latex = client.get(reverse("campaign-analysis-report", args=[campaign.pk, run.pk, "tex"])).content.decode()
    assert "A&B_<x>" not in latex and r"A\&B\_\textless{}x\textgreater{}" in latex
    rows = list(csv.DictReader(io.StringIO(
        client.get(reverse("campaign-analysis-report", args=[campaign.pk, run.pk, "csv"])).content.decode())))
    assert "A&B_<x>" in {row["system"] for row in rows if row["section"] == "ranking"}


@pytest.mark.slow
def test_conll14_reports_show_g15s_tables(conll14_dir, tmp_path):
    conll14_campaign(conll14_dir)
    call_command("analyze", "--campaign", "conll14", "--bootstrap", "1000", "--seed", "1",
                 "--metrics", str(conll14_dir / "metrics"), "--out", str(tmp_path / "analysis.json"),
                 stderr=io.StringIO())
    written = (tmp_path / "analysis.json").read_text(encoding="utf-8")
    base = ("--campaign", "conll14")

    # JSON: the stored result (keys re-sorted by jsonb) comes out as the analysis wrote it.
    assert export(tmp_path, *base, "--format", "json") == render_json(json.loads(written)) == written

    latex = export(tmp_path, *base, "--format", "latex")
    for judge, counts in enumerate(TABLE_1, start=1):
        assert "annotator0{} & {} & {} ({}) & {} ({}) \\\\".format(judge, *counts) in latex
    assert "Total & {} & {} ({}) & {} ({}) \\\\".format(*TABLE_1_TOTAL) in latex
    assert "Inter-annotator & 0.29 & Weak \\\\" in latex and "Intra-annotator & 0.46 & Moderate \\\\" in latex
    assert "annotator07 & -- & -- & -- & -- & -- & -- & * & * \\\\" in latex
    row_1 = " & ".join(f"{k:.2f}".lstrip("0") for k in TABLE_2B[0])
    assert f"annotator01 & {row_1} \\\\" in latex

    table_3b = latex.split("% Table 3b:")[1].split("% Table 3c:")[0]
    rows = [line for line in table_3b.splitlines() if line.count(" & ") == 3][1:]
    assert rows[0] == "1 & 0.628 & 1 & AMU \\\\"
    assert [row.split(" & ")[3].removesuffix(" \\\\") for row in rows] == [system for system, *_ in TABLE_3B]
    clusters = table_3b.split("\\midrule")[1:]
    assert len(clusters) == 4  # G15: four clusters
    assert [len([row for row in c.splitlines() if " & " in row]) for c in clusters] == [1, 4, 7, 1]
    assert "2 & 0.566 & 2--3 & RAC \\\\" in table_3b and "4 & 0.300 & 13 & IPN \\\\" in table_3b

    table_3d = latex.split("% Table 3d:")[1]
    amu = next(line for line in table_3d.splitlines() if line.startswith("AMU & "))
    assert amu.startswith("AMU & -- & .44$^{\\ddagger}$ & .47$^{\\star}$ & .46$^{\\dagger}$ & .44$^{\\ddagger}$")
    # Table 5 from this run's bootstrap means (G15's pipeline): rho as published, r within the bootstrap's noise.
    table_5 = {line.split(" & ")[0]: line.removesuffix(" \\\\").split(" & ")[1:]
               for line in latex.split("% Table 5:")[1].splitlines() if line.startswith("M$^2$")}
    for row, (rho, r) in (("M$^2$ F$_{0.5}^{*}$", (0.692, 0.627)), ("M$^2$ F$_{1.0}$", (0.648, 0.610)),
                          ("M$^2$ F$_{0.18}$ (max.\\ $\\rho$)", (0.758, 0.700))):
        assert float(table_5[row][0]) == rho and abs(float(table_5[row][1]) - r) <= TABLE_5_PEARSON_NOISE, row
    assert "\\multicolumn{4}{c}{annotator01}" in latex

    page = export(tmp_path, *base, "--format", "html")
    assert "http://" not in page and "https://" not in page
    assert page.count('<svg class="plot"') == 4
    assert '<td class="system">AMU</td><td class="num">0.628</td>' in page

    rows = list(csv.DictReader(io.StringIO(export(tmp_path, *base, "--format", "csv"))))
    ew = [row for row in rows if row["section"] == "ranking" and row["method"] == "expected_wins"]
    assert [row["system"] for row in ew] == [system for system, *_ in TABLE_3B]
    assert [int(row["cluster"]) for row in ew] == [cluster for *_, cluster in TABLE_3B]
    assert re.fullmatch(r"0\.628\d+", ew[0]["score"])
