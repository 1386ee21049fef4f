"""Analyses that never break: `manage.py analyze` on whatever judgments a campaign can hold, through PostgreSQL.

Subsets of the CoNLL-14 judgments (the first 1, 10, 50 and 200 rankings; each judge alone) are written to files and
imported with the product's commands, as an organizer would; their analyses leave systems unjudged, pairs of systems
without a decisive comparison, judges without a partner for agreement. Every analysis must succeed, parse as strict
JSON, satisfy the contract's schema with a reason beside every undefined number, and render in every report format.
"""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from django.core.management import call_command
from scipy.stats import pearsonr

from annotation.models import System
from annotation.services.appraise_import import candidate_lookup
from annotation.services.appraise_xml import AppraiseResults, parse_appraise_xml, write_appraise_xml
from annotation.services.importing import import_outputs
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens
from annotation.services.references import import_references
from annotation.services.textfiles import NamedFile
from ranking.contract import (
    IGNORED_JUDGES_ONLY,
    IGNORED_RATINGS_ONLY,
    NEVER_JUDGED,
    NO_RATING_BY_JUDGE,
    NOT_BY_JUDGE,
)

from .contract_checks import assert_contract, assert_reports_render, strict_loads, undefined_head_to_head
from .factories import synthetic_campaign

pytestmark = pytest.mark.django_db

JUDGES = tuple(f"annotator0{n}" for n in range(1, 9))


@pytest.fixture(scope="module")
def conll14_items(conll14_dir: Path) -> list:
    return parse_appraise_xml((conll14_dir / "judgments.xml").read_bytes()).items


def import_subset(conll14_dir: Path, tmp_path: Path, items: list) -> None:
    """Import the CoNLL-14 outputs and ``items`` (written to a file) as the campaign "subset", with the commands."""
    outputs = conll14_dir / "outputs"
    call_command("import_outputs", "--campaign", "subset", "--source", str(outputs / "INPUT"),
                 *sorted(str(p) for p in outputs.iterdir()), stdout=io.StringIO())
    if items:
        xml = tmp_path / "subset.xml"
        xml.write_text(write_appraise_xml(AppraiseResults(items=items)), encoding="utf-8")
        call_command("import_appraise_xml", "--campaign", "subset", str(xml), stdout=io.StringIO())


def analyze(conll14_dir: Path, tmp_path: Path, *options: str) -> dict:
    """``manage.py analyze`` of the campaign "subset" with the metric files (Table 5 on the subset): its JSON,
    parsed strictly, checked against the contract and rendered in every report format."""
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "subset", "--bootstrap", "20", "--seed", "1",
                 "--metrics", str(conll14_dir / "metrics"), *options, "--out", str(out), stderr=io.StringIO())
    analysis = strict_loads(out.read_text(encoding="utf-8"))
    assert_contract(analysis)
    assert_reports_render(analysis)
    return analysis


def analyze_subset(conll14_dir: Path, tmp_path: Path, items: list) -> dict:
    import_subset(conll14_dir, tmp_path, items)
    return analyze(conll14_dir, tmp_path)


@pytest.mark.parametrize("n", [1, 10, 50, 200])
def test_analyze_the_first_rankings_of_judgments_xml(conll14_dir, conll14_items, tmp_path, n):
    analysis = analyze_subset(conll14_dir, tmp_path, conll14_items[:n])
    assert analysis["pairs"]["rankings"] == n
    if n == 50:
        # The case: two systems that only ever tied get neither a share nor a p-value.
        undefined = undefined_head_to_head(analysis)
        assert undefined and {reason for *_, reason in undefined} == {"no decisive comparison"}
        row, column, _ = undefined[0]
        assert analysis["head_to_head"][row][column]["p_value"] is None
        assert analysis["head_to_head"][row][column]["wins"] == analysis["head_to_head"][row][column]["losses"] == 0
    if n == 1:
        agreement = analysis["agreement"]
        assert agreement["inter"] is None and agreement["intra"] is None and agreement["reason"]
        assert analysis["per_judge"]["correlations"] is None and analysis["per_judge"]["reason"]
        unjudged = [row for row in analysis["expected_wins"]["systems"] if row["score"] is None]
        assert unjudged, "one screen shows at most five candidates of 13 systems"
        assert all(row["range"] is None and row["cluster"] is None and row["reason"] for row in unjudged)
        assert analysis["expected_wins"]["systems"][-len(unjudged):] == unjudged, "unjudged systems come last"


@pytest.mark.slow
def test_analyze_each_judge_alone(conll14_dir, conll14_items, tmp_path):
    import_subset(conll14_dir, tmp_path, conll14_items)
    for judge in JUDGES:
        analysis = analyze(conll14_dir, tmp_path, "--judge", judge)
        assert list(analysis["pairs"]["per_judge"]) == [judge] and analysis["parameters"]["judge"] == judge
        assert analysis["agreement"]["inter"] is None, "one judge: no inter-annotator agreement"
        assert "reason" in analysis["agreement"]
        assert analysis["per_judge"]["correlations"] is None


def test_analyze_a_campaign_without_judgments(conll14_dir, tmp_path):
    analysis = analyze_subset(conll14_dir, tmp_path, [])
    assert analysis["pairs"]["rankings"] == 0
    assert analysis["snapshot"]["judgments"] == 0 and analysis["snapshot"]["reason"]
    assert all(row["score"] is None for row in analysis["expected_wins"]["systems"])
    assert all(cell["share"] is None for row in analysis["head_to_head"].values() for cell in row.values())
    assert all(value["spearman"] is None and value["reason"] for value in analysis["metrics"].values())


def test_analyze_only_flagged_screens(conll14_dir, conll14_items, tmp_path):
    flagged = [item for item in conll14_items if item.skipped][:5]
    assert len(flagged) == 5
    analysis = analyze_subset(conll14_dir, tmp_path, flagged)
    assert analysis["pairs"]["rankings"] == 5 and analysis["pairs"]["expanded"] == 0
    assert all(row["score"] is None for row in analysis["trueskill"]["systems"])


def test_table_5_from_the_bootstrap_means_and_table_3d_in_full_data_order(conll14_dir, conll14_items, tmp_path):
    """G15's pipeline: Table 5 correlates the metrics with Table 3b's scores (the bootstrap means, as printed to three
    decimals) and head2head.pl orders Table 3d by the full-data Expected Wins scores. On the first 200 rankings the
    two readings differ, so using the other one fails here."""
    analysis = analyze_subset(conll14_dir, tmp_path, conll14_items[:200])
    rows = analysis["expected_wins"]["systems"]
    systems = sorted(row["system"] for row in rows)
    means = {row["system"]: round(row["score"], 3) for row in rows}
    full = {row["system"]: round(row["full_data_score"], 3) for row in rows}
    bleu = {line.split()[0]: float(line.split()[1])
            for line in (conll14_dir / "metrics" / "scores.bleu").read_text().splitlines() if line.strip()}
    from_means = pearsonr([means[s] for s in systems], [bleu[s] for s in systems]).statistic
    from_full = pearsonr([full[s] for s in systems], [bleu[s] for s in systems]).statistic
    assert abs(from_means - from_full) > 0.01, "the subset tells the readings apart"
    assert analysis["metrics"]["bleu"]["pearson"] == pytest.approx(from_means, abs=1e-12)
    assert analysis["parameters"]["correlation_decimals"] == 3

    by_full_data = [row["system"] for row in sorted(rows, key=lambda row: -row["full_data_score"])]
    assert by_full_data != [row["system"] for row in rows], "the subset tells the orders apart"
    assert list(analysis["head_to_head"]) == by_full_data
    assert all(list(cells) == [s for s in by_full_data if s != row] for row, cells in analysis["head_to_head"].items())


def test_ignored_judges_and_the_rounding_are_recorded_parameters(tmp_path):
    """METHODS 3 leaves out a judge named admin (the demo's superuser too): by default, but never silently."""
    synthetic_campaign("with-admin", np.random.default_rng(8), n_rankings=60, judges=("ann", "bob", "admin"))
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    (metrics / "scores.bleu").write_text("".join(f"sys{k} {0.1 * k + 0.013 * k * k}\n" for k in range(6)))

    def run(*options: str) -> dict:
        out = tmp_path / "analysis.json"
        call_command("analyze", "--campaign", "with-admin", "--bootstrap", "20", "--metrics", str(metrics),
                     *options, "--out", str(out), stderr=io.StringIO())
        analysis = strict_loads(out.read_text(encoding="utf-8"))
        assert_contract(analysis)
        return analysis

    default = run()
    admin = default["snapshot"]["ignored_judgments"]["admin"]
    assert admin > 0 and default["parameters"]["ignored_judges"] == ["admin"]
    assert "admin" not in default["pairs"]["per_judge"] and default["pairs"]["rankings"] == 60 - admin
    html = assert_reports_render(default)["html"]
    assert f"admin: {admin}" in html and "Ignored judges" in html

    everyone = run("--ignored-judges", "", "--correlation-decimals", "-1")
    assert everyone["parameters"]["ignored_judges"] == [] and everyone["snapshot"]["ignored_judgments"] == {}
    assert everyone["pairs"]["rankings"] == 60 and "admin" in everyone["pairs"]["per_judge"]
    assert everyone["parameters"]["correlation_decimals"] is None
    rows = sorted(everyone["expected_wins"]["systems"], key=lambda row: row["system"])
    bleu = [0.1 * k + 0.013 * k * k for k in range(6)]
    assert everyone["metrics"]["bleu"]["pearson"] == pytest.approx(
        pearsonr([row["score"] for row in rows], bleu).statistic, abs=1e-12)


def checked_analysis(tmp_path, campaign: str, *options: str) -> dict:
    """``manage.py analyze`` of ``campaign`` (20 bootstrap samples, ``options``): its strict JSON, checked against
    the contract, with every report format rendered from it."""
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", campaign, "--bootstrap", "20", *options, "--out", str(out),
                 stderr=io.StringIO())
    analysis = strict_loads(out.read_text(encoding="utf-8"))
    assert_contract(analysis)
    assert_reports_render(analysis)
    return analysis


def test_a_system_judged_only_by_ignored_judges_or_other_judges_says_so(tmp_path):
    """C was judged by admin alone, whom the analysis ignores by default (METHODS 3), D by bob alone, E by nobody;
    C's reason said "no judgment of this system" while the snapshot counted admin's judgments, and so did D's in the
    analysis of ann's judgments alone (--judge ann). C says that only ignored judges judged it, D (and C and E) in
    ann's analysis that ann did not, E in the others that nobody did. Without ignoring admin, C is ranked."""
    sources = tmp_path / "outputs"
    sources.mkdir()
    (sources / "source").write_text("a b .\nc d .\ne f .\ng h .\n")
    for name in "ABCDE":
        (sources / name).write_text(f"a {name} .\nc {name} .\ne {name} .\ng {name} .\n")
    call_command("import_outputs", "--campaign", "ignored", "--source", str(sources / "source"),
                 *(str(sources / name) for name in "ABCDE"), stdout=io.StringIO())
    items = [("ann", 0, ("A", "B")), ("ann", 1, ("B", "A")), ("admin", 2, ("A", "C")), ("bob", 3, ("B", "D"))]
    xml = tmp_path / "judgments.xml"
    xml.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<appraise-results>\n<error-correction-ranking-result '
        'source-language="err" id="r" target-language="cor">\n'
        + "".join(f'<ranking-item doc-id="d" duration="00:00:05.000000" id="{i}" src-id="{line}" user="{user}">\n'
                  f'<translation rank="1" system="{first}"/>\n<translation rank="2" system="{second}"/>\n'
                  "</ranking-item>\n" for i, (user, line, (first, second)) in enumerate(items))
        + "</error-correction-ranking-result>\n</appraise-results>\n", encoding="utf-8")
    call_command("import_appraise_xml", "--campaign", "ignored", str(xml), stdout=io.StringIO())

    def reasons(*options: str) -> dict:
        analysis = checked_analysis(tmp_path, "ignored", *options)
        return {method: {row["system"]: row.get("reason") for row in analysis[method]["systems"]}
                for method in ("expected_wins", "trueskill")}

    scored = dict.fromkeys("ABD")
    for by_system in reasons().values():
        assert by_system == {**scored, "C": IGNORED_JUDGES_ONLY, "E": NEVER_JUDGED}
    for by_system in reasons("--ignored-judges", "").values():
        assert by_system == {**scored, "C": None, "E": NEVER_JUDGED}
    for by_system in reasons("--judge", "ann").values():
        assert by_system == {"A": None, "B": None, **dict.fromkeys("CDE", NOT_BY_JUDGE)}


def test_a_prws_system_rated_only_by_ignored_judges_says_so(tmp_path):
    """D was rated by admin alone, whom the analysis ignores by default: its PRWS row said "no rating of this
    system" beside an Expected Wins row that says only ignored judges judged it. Both say so now; in the analysis
    of ann alone (--judge ann), D has no rating by ann."""
    sources = tmp_path / "outputs"
    sources.mkdir()
    (sources / "source").write_text("a b .\nc d .\n")
    for name in "ABCD":
        (sources / name).write_text(f"a {name} .\nc {name} .\n")
    call_command("import_outputs", "--campaign", "prws-ignored", "--mode", "prws", "--source",
                 str(sources / "source"), *(str(sources / name) for name in "ABCD"), stdout=io.StringIO())
    rows = ["rater,segment,system,score"]
    rows += [f"ann,{line},{name},{score}" for line in (0, 1) for name, score in zip("ABC", (80, 50, 20))]
    rows += ["admin,0,A,60", "admin,0,D,40"]
    (tmp_path / "scores.csv").write_text("\n".join(rows) + "\n")
    call_command("import_scores", "--campaign", "prws-ignored", str(tmp_path / "scores.csv"), stdout=io.StringIO())

    def reasons(*options: str) -> tuple[dict, dict]:
        analysis = checked_analysis(tmp_path, "prws-ignored", *options)
        return ({row["system"]: row.get("reason") for row in analysis["prws"]["systems"]},
                {row["system"]: row.get("reason") for row in analysis["expected_wins"]["systems"]})

    assert reasons() == ({"A": None, "B": None, "C": None, "D": IGNORED_RATINGS_ONLY},
                         {"A": None, "B": None, "C": None, "D": IGNORED_JUDGES_ONLY})
    assert reasons("--judge", "ann") == ({"A": None, "B": None, "C": None, "D": NO_RATING_BY_JUDGE},
                                         {"A": None, "B": None, "C": None, "D": NOT_BY_JUDGE})


@pytest.mark.parametrize("mode", ["ranking", "prws"])
def test_a_campaign_whose_systems_are_all_controls_is_analysed(tmp_path, mode):
    """A campaign without a contestant (its one system is Source+error, which is never ranked nor scored) and with
    references stopped the analysis: the ranking campaign's loader queried the outputs of no system (Django's
    EmptyResultSet), the metric scores of no system could not be stored (an empty reshape) nor correlated (no
    first score to count the columns by). It is analysed, with no system in its rankings and metric scores."""
    campaign = import_outputs("controls-only", NamedFile("source", b"a b c d\n"), [NamedFile("s0", b"a b c e\n")],
                              mode=mode)
    System.objects.filter(campaign=campaign).update(kind=System.Kind.CONTROL)
    lookup = candidate_lookup(campaign)
    (candidate,) = lookup[0].values()
    judged = JudgedCandidate(candidate, **({"score": 40.0} if mode == "prws" else {"rank": 1}))
    write_judged_screens(campaign, [JudgedScreen(0, "ann", [judged])])
    import_references(campaign, NamedFile("gold.m2", b"S a b c d\nA 3 4|||Wci|||e|||REQUIRED|||-NONE-|||0\n"),
                      [NamedFile("ref0", b"a b c e\n")])
    for _ in range(2):  # the metric scores computed and stored, then read back
        analysis = checked_analysis(tmp_path, "controls-only")
        assert analysis["expected_wins"]["systems"] == [] and analysis["trueskill"]["systems"] == []
        assert {name: scores for name, scores in analysis["metrics_computed"]["scores"].items()
                if name != "errant"} == {"chrf": {}, "gleu": {}, "m2": {}}
