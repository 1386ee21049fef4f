"""Property tests: small, partial and degenerate campaigns that hypothesis makes up, analysed by `manage.py analyze`
and reported by `manage.py export_report` in every format (and, for ranking campaigns, `export_appraise_xml`).

Ranking campaigns: 2-6 systems (the source among them or not, Source+error among them or not), outputs that are
often identical (all of a line's outputs may collapse into one candidate), 0-40 rankings by 1-4 judges (``admin``,
ignored by default, among them or not) with ties, repeats of a judge's screen (intra-annotator agreement), flags,
judges of one screen and systems never shown. PRWS campaigns: 1-6 systems, 1-5 raters, sparse scores, constant
scores, all 0 or all 100, one segment, raters of one score, meaning changed everywhere or nowhere. Both with rater
QC thresholds that may exclude raters (control screens, times), references or not (the computed metrics), a small
bootstrap (3 or 20 samples), confidences 0.5 to 0.99, 0, 2 or 5 accuracy folds, the analysis of one judge or all.

Whatever the data, the analysis completes; its JSON is strict (no NaN or Infinity) and satisfies the contract with a
reason beside every null; every report renders without a 'nan', 'inf' or 'None' where a number belongs and gives a
reason for every "–"; the HTML parses with its elements balanced; the LaTeX is well formed (and compiles with
pdflatex when installed); the Appraise XML export holds every ranking and imports back to the same file; the
bootstrap in chunks of the Celery tasks gives the analysis of one process.
"""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.models import Campaign, System
from annotation.services.appraise_import import candidate_lookup, export_appraise_xml, import_appraise_xml
from annotation.services.appraise_xml import parse_appraise_xml
from annotation.services.importing import import_outputs
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens
from annotation.services.references import import_references
from annotation.services.textfiles import NamedFile
from ranking.core.parameters import AnalysisParameters
from ranking.models import AnalysisRun
from ranking.runs import create_run, execute_in_process
from ranking.tasks import send_waiting

from .contract_checks import assert_contract, strict_loads
from .reports.test_latex import assert_well_formed
from .test_degenerate_properties import metric_folder

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

JUDGES = ("ann", "bob", "cyd", "dan", "admin")
SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
NOT_A_NUMBER = re.compile(r"(?<![\w-])-?(?:nan|NaN|inf|Infinity|None)(?![\w-])")
"""What Python, JavaScript or a template prints for a NaN, an infinity or a missing number (the word "none" is
English: "Ignored judges: none")."""
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@st.composite
def campaigns(draw, mode: str) -> dict:
    """A campaign of 1-4 lines and 2-6 systems (PRWS: 1-6) whose outputs of a line are one of four variants
    (variant 0 is the source; equal variants collapse, and ``identical`` makes every output the source), and its
    judged screens: a line, a judge, flagged or a subset of the line's candidates with ranks 1-5 or scores, some of
    them repeats of an earlier screen by the same judge."""
    prws = mode == Campaign.Mode.PRWS
    lines = draw(st.integers(1, 4))
    n_systems = draw(st.integers(1 if prws else 2, 6))
    identical = draw(st.booleans())
    variants = [[0 if identical else draw(st.integers(0, 3)) for _ in range(lines)] for _ in range(n_systems)]
    judges = draw(st.lists(st.sampled_from(JUDGES), min_size=1, max_size=5 if prws else 4, unique=True))
    score_kind = draw(st.sampled_from(["any", "constant", "zero", "hundred", "extremes"]))
    constant = draw(st.sampled_from([0.0, 37.5, 100.0]))
    scores = {
        "any": st.floats(0, 100, allow_nan=False), "constant": st.just(constant), "zero": st.just(0.0),
        "hundred": st.just(100.0), "extremes": st.sampled_from([0.0, 100.0]),
    }[score_kind]
    meaning = draw(st.sampled_from(["any", "all", "none"]))
    screens = draw(st.lists(st.fixed_dictionaries({
        "line": st.integers(0, lines - 1),
        "judge": st.sampled_from(judges),
        "flagged": st.integers(0, 9).map(lambda n: n == 0),
        "shown": st.lists(st.booleans(), min_size=7, max_size=7),
        "ranks": st.lists(st.integers(1, 5), min_size=7, max_size=7),
        "scores": st.lists(scores, min_size=7, max_size=7),
        "meaning_changed": st.lists(st.booleans() if meaning == "any" else st.just(meaning == "all"),
                                    min_size=7, max_size=7),
        "seconds": st.none() | st.integers(0, 120),
    }), max_size=40 if not prws else 25))
    repeats = draw(st.lists(st.tuples(st.integers(0, 39), st.lists(st.integers(1, 5), min_size=7, max_size=7)),
                            max_size=6)) if screens else []
    return {
        "variants": variants,
        "source_is_system": draw(st.booleans()),
        "control": draw(st.booleans()),
        "screens": screens,
        "repeats": [(index % len(screens), ranks) for index, ranks in repeats],
        "qc": draw(st.fixed_dictionaries({
            "qc_control_threshold": st.sampled_from([0.0, 0.7, 1.0]),
            "qc_p_value": st.sampled_from([0.01, 1.0]),
            "qc_min_total_seconds": st.sampled_from([0.0, 30.0]),
            "qc_min_median_seconds": st.sampled_from([0.0, 10.0]),
        })),
        "judge": draw(st.none() | st.sampled_from(sorted({s["judge"] for s in screens} - {"admin"}) or [None])),
        "bootstrap": draw(st.sampled_from([3, 20])),
        "accuracy_folds": draw(st.sampled_from([0, 2, 5])),
        "decimals": draw(st.sampled_from([-1, 0, 3])),
        "ignored": draw(st.sampled_from(["admin", ""])),
        "confidence": draw(st.sampled_from([0.5, 0.95, 0.99])),
        "metric": draw(st.lists(st.sampled_from([0.1, 0.2, 0.4]), min_size=3, max_size=3)),
        "reference": draw(st.none() | st.lists(st.integers(0, 3), min_size=lines, max_size=lines)),
        "gold": draw(st.none() | st.lists(st.integers(0, 3), min_size=lines, max_size=lines)),
    }


def text(rows: list[str]) -> bytes:
    return ("\n".join(rows) + "\n").encode()


def import_systems(case: dict, mode: str, name: str = "prop") -> Campaign:
    """The campaign of ``case`` without judgments: its imported outputs, ``s0`` made Source+error when
    ``control``."""
    lines = len(case["variants"][0])
    files = [NamedFile(f"s{k}", text([f"line {i} variant {v}" for i, v in enumerate(variants)]))
             for k, variants in enumerate(case["variants"])]
    campaign = import_outputs(name, NamedFile("source", text([f"line {i} variant 0" for i in range(lines)])), files,
                              source_is_system=case["source_is_system"], mode=mode)
    if case["control"]:
        System.objects.filter(campaign=campaign, name="s0").update(kind=System.Kind.CONTROL)
    return campaign


def build_campaign(case: dict, mode: str) -> Campaign:
    """The campaign of ``case``: its systems, rater QC thresholds, references and judged screens."""
    campaign = import_systems(case, mode)
    Campaign.objects.filter(pk=campaign.pk).update(**case["qc"])
    source = list(campaign.segments.order_by("line").values_list("source", flat=True))
    if case["reference"] is not None or case["gold"] is not None:
        import_references(campaign, None if case["gold"] is None else NamedFile("gold.m2", "".join(
            f"S {line}\n" + ("A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n" if v == 0 else
                             f"A 3 4|||Wci|||{v}|||REQUIRED|||-NONE-|||0\n") + "\n"
            for line, v in zip(source, case["gold"])).encode()),
            [] if case["reference"] is None else [NamedFile("ref0", text([f"line {i} variant {v}"
                                                                           for i, v in enumerate(case["reference"])]))])
    lookup = candidate_lookup(campaign)
    judged = [judged_screen(screen, sorted(lookup[screen["line"]].values()), screen["ranks"], mode)
              for screen in case["screens"]]
    judged += [judged_screen(case["screens"][index], sorted(lookup[case["screens"][index]["line"]].values()), ranks,
                             mode) for index, ranks in case["repeats"]]
    if judged:
        write_judged_screens(campaign, judged)
    return campaign


def judged_screen(screen: dict, candidates: list[int], ranks: list[int], mode: str) -> JudgedScreen:
    shown = [candidate for candidate, keep in zip(candidates, screen["shown"]) if keep][:5]
    duration = None if screen["seconds"] is None else timedelta(seconds=screen["seconds"])
    if screen["flagged"] or not shown:
        return JudgedScreen(screen["line"], screen["judge"], [], duration=duration, flag_reason="unreadable")
    if mode == Campaign.Mode.PRWS:
        return JudgedScreen(screen["line"], screen["judge"], [
            JudgedCandidate(c, score=score, meaning_changed=changed)
            for c, score, changed in zip(shown, screen["scores"], screen["meaning_changed"])
        ], duration=duration)
    return JudgedScreen(screen["line"], screen["judge"],
                        [JudgedCandidate(c, rank=rank) for c, rank in zip(shown, ranks)], duration=duration)


class BalancedHTML(HTMLParser):
    """Parses a page and records elements closed out of order or never closed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.open[-1:]}")
        else:
            self.open.pop()


def assert_html_balanced(page: str) -> None:
    parser = BalancedHTML()
    parser.feed(page)
    parser.close()
    assert not parser.problems and not parser.open, (parser.problems[:5], parser.open)


def assert_numbers_shown(reports: dict[str, str]) -> None:
    """No report prints a NaN, an infinity or None: CSV in no cell, LaTeX and HTML (its text, attributes and inline
    SVG plots) nowhere."""
    for row in csv.reader(io.StringIO(reports["csv"])):
        assert not [cell for cell in row if NOT_A_NUMBER.fullmatch(cell.strip())], row
    for name in ("latex", "standalone", "html"):
        assert not NOT_A_NUMBER.findall(reports[name]), (name, NOT_A_NUMBER.findall(reports[name])[:5])


def assert_undefined_numbers_have_reasons(reports: dict[str, str]) -> None:
    """Every "–" of the HTML report has a note in its section, every note and every CSV ``reason`` says why (not
    the renderers' fallback "undefined", which means the analysis gave no reason)."""
    page = reports["html"]
    for section in page.split("<section")[1:]:
        notes = dict(re.findall(r"<span><sup>(\w+)</sup> (.*?)\.</span>", section))
        assert "undefined" not in notes.values(), notes
        assert set(re.findall(r"undefined, see note (\w+)", section)) <= set(notes), notes
    for name in ("latex", "standalone"):
        assert not re.search(r"\$\^\{\w+\}\$ undefined\.", reports[name]), name
    rows = list(csv.DictReader(io.StringIO(reports["csv"])))
    assert not [row for row in rows if row.get("reason") == "undefined"]


def analyze_and_report(case: dict, mode: str, folder: Path) -> tuple[dict, dict[str, str]]:
    """Build the campaign, analyse it and write every report with the commands, and check them; rolled back after."""
    with transaction.atomic():
        campaign = build_campaign(case, mode)
        metrics = metric_folder(case, campaign, folder)
        out = folder / "analysis.json"
        call_command("analyze", "--campaign", campaign.name, "--bootstrap", str(case["bootstrap"]), "--confidence",
                     str(case["confidence"]), "--seed", "3", "--accuracy-folds", str(case["accuracy_folds"]),
                     "--correlation-decimals", str(case["decimals"]), "--ignored-judges", case["ignored"],
                     "--metrics", str(metrics),
                     *(("--judge", case["judge"]) if case["judge"] else ()),
                     "--out", str(out), stderr=io.StringIO())
        analysis = strict_loads(out.read_text(encoding="utf-8"))
        json.dumps(analysis, allow_nan=False)
        assert_contract(analysis)
        run = AnalysisRun.objects.filter(campaign=campaign).latest("pk")
        reports = {}
        for name, options in (("html", ()), ("latex", ()), ("standalone", ("--standalone",)), ("csv", ()),
                              ("json", ())):
            path = folder / f"report.{name}"
            call_command("export_report", "--campaign", campaign.name, "--analysis", str(run.pk), "--format",
                         "latex" if name == "standalone" else name, *options, "--out", str(path),
                         stderr=io.StringIO())
            reports[name] = path.read_text(encoding="utf-8")
        if mode == Campaign.Mode.RANKING:
            xml = folder / "judgments.xml"
            call_command("export_appraise_xml", "--campaign", campaign.name, "--out", str(xml), stderr=io.StringIO())
            items = parse_appraise_xml(xml.read_bytes()).items
            assert len(items) == len(case["screens"]) + len(case["repeats"])
            copy = import_systems(case, mode, "copy")
            import_appraise_xml(copy, xml.read_bytes(), users={item.user: item.user for item in items})
            assert export_appraise_xml(copy) == xml.read_text(encoding="utf-8"), "the export imports back as it was"
        transaction.set_rollback(True)
    assert strict_loads(reports["json"]) == analysis
    assert_numbers_shown(reports)
    assert_html_balanced(reports["html"])
    assert_undefined_numbers_have_reasons(reports)
    for name in ("latex", "standalone"):
        assert_well_formed(reports[name])
    return analysis, reports


def assert_systems_ranked_or_null_with_reason(systems: list[dict], confidence: float) -> None:
    ranked = [row for row in systems if row["range"] is not None]
    assert systems[:len(ranked)] == ranked, "ranked systems first"
    assert all(1 <= row["range"][0] <= row["range"][1] <= len(ranked) for row in ranked)
    assert all(row["cluster"] is None and row["reason"] for row in systems[len(ranked):])


@SETTINGS
@given(case=campaigns(Campaign.Mode.RANKING))
def test_small_ranking_campaigns_analyse_and_report(tmp_path_factory, case):
    analysis, _ = analyze_and_report(case, Campaign.Mode.RANKING, tmp_path_factory.mktemp("ranking"))
    assert analysis["parameters"]["confidence"] == case["confidence"]
    for ranking in (analysis["expected_wins"], analysis["trueskill"], *analysis["per_judge"]["rankings"].values()):
        assert_systems_ranked_or_null_with_reason(ranking["systems"], case["confidence"])


@SETTINGS
@given(case=campaigns(Campaign.Mode.PRWS))
def test_small_prws_campaigns_analyse_and_report(tmp_path_factory, case):
    analysis, _ = analyze_and_report(case, Campaign.Mode.PRWS, tmp_path_factory.mktemp("prws"))
    rated = [row for row in analysis["prws"]["systems"] if row["mean"] is not None]
    assert all(row["mean"] is None and row["reason"] for row in analysis["prws"]["systems"][len(rated):])
    assert all(0 <= row["mean"] <= 100 for row in rated)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow])
@given(mode=st.sampled_from([Campaign.Mode.RANKING, Campaign.Mode.PRWS]), data=st.data())
def test_small_campaigns_standalone_latex_compiles(tmp_path_factory, mode, data):
    folder = tmp_path_factory.mktemp("latex")
    _, reports = analyze_and_report(data.draw(campaigns(mode)), mode, folder)
    (folder / "report.tex").write_text(reports["standalone"], encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"], cwd=folder,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]


def without_run_details(result: dict) -> dict:
    """The analysis without what differs between two runs of the same data: their timings."""
    return {key: value for key, value in result.items() if key not in {"timings"}}


@SETTINGS
@given(mode=st.sampled_from([Campaign.Mode.RANKING, Campaign.Mode.PRWS]), data=st.data(),
       chunk_size=st.integers(1, 8))
def test_small_campaigns_give_the_same_analysis_from_chunked_tasks_as_in_one_process(mode, data, chunk_size):
    """The bootstrap split into chunks of 1-8 samples, computed by the (eager) Celery tasks and combined, gives the
    analysis one process computes, also where a system is missing from some chunks' samples."""
    case = data.draw(campaigns(mode))
    parameters = AnalysisParameters(bootstrap=case["bootstrap"], confidence=case["confidence"], seed=3,
                                    chunk_size=chunk_size, accuracy_folds=case["accuracy_folds"],
                                    correlation_decimals=None if case["decimals"] < 0 else case["decimals"],
                                    ignored_judges=tuple(filter(None, [case["ignored"]])))
    with transaction.atomic():
        campaign = build_campaign(case, mode)
        direct = execute_in_process(create_run(campaign, parameters)).result
        run = create_run(campaign, parameters)
        assert send_waiting() == 1
        run.refresh_from_db()
        assert run.status == AnalysisRun.Status.DONE, run.error
        assert without_run_details(run.result) == without_run_details(direct)
        transaction.set_rollback(True)
