"""The CSV report: one table, a section column, every number of the analysis in full precision."""
from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

from ranking.contract_schema import DISTRIBUTION_KEYS
from ranking.reports.csv import COLUMNS, render_csv

PUBLISHED_HEADER = Path(__file__).with_name("published_csv_header.csv")
"""The header as released, which users' scripts read: a new column is added at its end, here and in the report."""


def read(analysis: dict) -> list[dict]:
    return list(csv.DictReader(io.StringIO(render_csv(analysis))))


def test_every_section_with_its_rows(full_analysis):
    rows = read(full_analysis)
    assert tuple(rows[0]) == COLUMNS
    systems = full_analysis["expected_wins"]["systems"]
    judges = sorted(full_analysis["pairs"]["per_judge"])
    n, j = len(systems), len(judges)
    counts = Counter(row["section"] for row in rows)
    assert counts["pairs"] == j and counts["pairs_total"] == 1
    assert counts["agreement"] == j * (j + 1) // 2 and counts["agreement_overall"] == 2
    assert counts["ranking"] == 2 * n and counts["head_to_head"] == n * (n - 1)
    assert counts["judge_ranking"] == n * len(full_analysis["per_judge"]["rankings"])
    assert counts["judge_correlation"] == j * (j - 1) // 2 and counts["judge_correlation_rest"] == j
    assert counts["metric"] == len(full_analysis["metrics"])
    assert counts["beta_sweep"] == sum(len(s) for s in full_analysis["beta_sweeps"].values())
    assert counts["accuracy"] == sum(len(a) for a in full_analysis["accuracy"].values())


def test_rankings_round_trip_exactly(full_analysis):
    rows = read(full_analysis)
    for method in ("expected_wins", "trueskill"):
        written = [row for row in rows if row["section"] == "ranking" and row["method"] == method]
        assert [int(row["rank"]) for row in written] == list(range(1, len(written) + 1))
        for row, expected in zip(written, full_analysis[method]["systems"]):
            assert row["system"] == expected["system"]
            assert float(row["score"]) == expected["score"]
            assert float(row["full_data_score"]) == expected["full_data_score"]
            assert [int(row["range_lo"]), int(row["range_hi"])] == expected["range"]
            assert int(row["cluster"]) == expected["cluster"]
    cells = {(r["system"], r["opponent"]): r for r in rows if r["section"] == "head_to_head"}
    for row_system, cells_of_row in full_analysis["head_to_head"].items():
        for column, cell in cells_of_row.items():
            assert float(cells[row_system, column]["share"]) == cell["share"]
            assert int(cells[row_system, column]["wins"]) == cell["wins"]


def test_provenance_rows_name_campaign_snapshot_and_seed(full_analysis):
    provenance = {row["key"]: row["value"] for row in read(full_analysis) if row["section"] == "provenance"}
    assert provenance["Campaign"] == "synthetic" and provenance["Random seed"] == "3"
    assert provenance["Judgments (snapshot)"] == str(full_analysis["snapshot"]["judgments"])


def test_names_with_commas_quotes_and_newlines_stay_one_cell(plain_analysis):
    odd = 'sys, "quoted"\nline'
    renamed = {**plain_analysis, "campaign": odd}
    rows = read(renamed)
    assert next(r["value"] for r in rows if r["key"] == "Campaign") == odd


def test_undefined_values_are_dashes_with_their_reason(plain_analysis):
    undefined = {**plain_analysis, "agreement": {**plain_analysis["agreement"], "inter": None, "reason": "why not"}}
    overall = {r["key"]: r for r in read(undefined) if r["section"] == "agreement_overall"}
    assert (overall["inter"]["kappa"], overall["inter"]["reason"]) == ("–", "why not")
    assert float(overall["intra"]["kappa"]) == plain_analysis["agreement"]["intra"] and overall["intra"]["reason"] == ""


def test_the_header_only_grows_at_its_end():
    """Every released column keeps its place; a new one is appended to the report and to the released header."""
    assert COLUMNS == tuple(next(csv.reader(PUBLISHED_HEADER.open(encoding="utf-8"))))


def test_prws_rows_carry_each_systems_score_distribution(prws_unrated_analysis, prws_undistributed_analysis):
    systems = prws_unrated_analysis["prws"]["systems"]
    rows = [row for row in read(prws_unrated_analysis) if row["section"] == "prws"]
    assert [row["system"] for row in rows] == [s["system"] for s in systems]
    for row, expected in zip(rows[:-1], systems):
        assert [float(row[f"distribution_{key}"]) for key in DISTRIBUTION_KEYS] == [
            expected["distribution"][key] for key in DISTRIBUTION_KEYS]
        assert float(row["mean"]) == expected["mean"]
    assert [rows[-1][f"distribution_{key}"] for key in DISTRIBUTION_KEYS] == [""] * len(DISTRIBUTION_KEYS)
    assert (rows[-1]["mean"], rows[-1]["reason"]) == ("–", "no rating of this system")

    stored_before = [row for row in read(prws_undistributed_analysis) if row["section"] == "prws"]
    assert all(row[f"distribution_{key}"] == "" for row in stored_before for key in DISTRIBUTION_KEYS)
    assert [row["mean"] for row in stored_before] == [row["mean"] for row in rows]


def test_judge_correlation_rows_say_how_many_systems_they_cover(full_analysis):
    table = full_analysis["per_judge"]["correlations"]
    rows = read(full_analysis)
    pairs = [row for row in rows if row["section"] == "judge_correlation"]
    assert pairs and all(int(row["shared_systems"]) == table["shared_systems"][row["judge"]][row["other_judge"]]
                         for row in pairs)
    rest = [row for row in rows if row["section"] == "judge_correlation_rest"]
    assert rest and all(int(row["shared_systems"]) == table["rest"][row["judge"]]["shared_systems"] for row in rest)

    stored_before = {key: value for key, value in table.items() if key != "shared_systems"}
    stored_before["rest"] = {judge: {key: value for key, value in entry.items() if key != "shared_systems"}
                             for judge, entry in table["rest"].items()}
    analysis = {**full_analysis, "per_judge": {**full_analysis["per_judge"], "correlations": stored_before}}
    rows = [row for row in read(analysis) if row["section"] in ("judge_correlation", "judge_correlation_rest")]
    assert len(rows) == len(pairs) + len(rest) and all(row["shared_systems"] == "" for row in rows)


def test_computed_metrics_have_their_beta_sweeps_and_williams_tests(computed_analysis, prws_computed_analysis):
    """``metrics_computed``'s F-beta sweeps (G15 Figure 3) and Williams tests (N19 section 6) against each human
    ranking, as the uploaded metrics' ``beta_sweep`` and ``prws_williams`` rows."""
    computed = computed_analysis["metrics_computed"]
    rows = read(computed_analysis)
    for method in ("expected_wins", "trueskill"):
        sweeps = computed[method]["beta_sweeps"]
        written = [row for row in rows if row["section"] == "computed_beta_sweep" and row["method"] == method]
        assert [(row["metric"], float(row["beta"]), float(row["spearman"]), float(row["pearson"]))
                for row in written] == [(name, point["beta"], point["spearman"], point["pearson"])
                                        for name, sweep in sorted(sweeps.items()) for point in sweep]
        p_values = computed[method]["metric_significance"]["p_values"]
        tests = {(row["metric"], row["other_metric"]): row for row in rows
                 if row["section"] == "computed_williams" and row["method"] == method}
        assert {pair: float(row["p_value"]) for pair, row in tests.items()} == {
            (name, other): p for name, row in p_values.items() for other, p in row.items()}
    prws = prws_computed_analysis["metrics_computed"]["prws"]["p_values"]
    tests = [row for row in read(prws_computed_analysis)
             if row["section"] == "computed_williams" and row["method"] == "prws"]
    assert {(row["metric"], row["other_metric"]): float(row["p_value"]) for row in tests} == {
        (name, other): p for name, row in prws.items() for other, p in row.items()}


def test_undefined_computed_sweeps_and_williams_tests_give_their_reason(computed_analysis):
    computed = computed_analysis["metrics_computed"]
    ew = computed["expected_wins"]
    point = {"beta": 0.5, "spearman": None, "pearson": None, "reason": "fewer than 3 systems"}
    significance = {**ew["metric_significance"], "p_values": {"gleu": {"m2": None}, "m2": {"gleu": 0.25}},
                    "reasons": {"gleu": {"m2": "the metrics correlate perfectly"}}}
    skipped = {"systems": ["a", "b"], "skipped": "the Williams test needs more than 3 systems with metric scores"}
    analysis = {**computed_analysis, "metrics_computed": {
        **computed,
        "expected_wins": {**ew, "beta_sweeps": {"m2": [point]}, "metric_significance": significance},
        "trueskill": {**computed["trueskill"], "metric_significance": skipped},
    }}
    rows = read(analysis)
    (sweep,) = [row for row in rows if row["section"] == "computed_beta_sweep" and row["method"] == "expected_wins"]
    assert (sweep["spearman"], sweep["pearson"], sweep["reason"]) == ("–", "–", "fewer than 3 systems")
    ew_tests = {(row["metric"], row["other_metric"]): (row["p_value"], row["reason"]) for row in rows
                if row["section"] == "computed_williams" and row["method"] == "expected_wins"}
    assert ew_tests == {("gleu", "m2"): ("–", "the metrics correlate perfectly"), ("m2", "gleu"): ("0.25", "")}
    (ts_test,) = [row for row in rows if row["section"] == "computed_williams" and row["method"] == "trueskill"]
    assert (ts_test["metric"], ts_test["p_value"], ts_test["reason"]) == ("", "", skipped["skipped"])


def test_the_uploaded_metrics_williams_test_has_its_rows_or_its_reason(full_analysis):
    """``metric_williams``: the JSON's ``metric_significance`` (N19 section 6), a row per ordered pair of metrics, as
    ``prws_williams`` and ``computed_williams``; a skipped test is one row with its reason."""
    p_values = full_analysis["metric_significance"]["p_values"]
    tests = [row for row in read(full_analysis) if row["section"] == "metric_williams"]
    assert {(row["metric"], row["other_metric"]): float(row["p_value"]) for row in tests} == {
        (name, other): p for name, row in p_values.items() for other, p in row.items() if other != name}
    skipped = "the Williams test needs more than 3 systems with metric scores"
    analysis = {**full_analysis, "metric_significance": {"systems": ["a", "b"], "skipped": skipped}}
    (row,) = [row for row in read(analysis) if row["section"] == "metric_williams"]
    assert (row["metric"], row["p_value"], row["reason"]) == ("", "", skipped)


def test_judge_correlations_skipped_give_their_reason(full_analysis):
    """An analysis without judge correlations (one judge) has the JSON's reason in the CSV report too, as a
    ``judge_correlation_mean`` row; the CSV said nothing of Table 6."""
    reason = "judge correlations need two judges with pairwise judgments"
    analysis = {**full_analysis, "per_judge": {"rankings": full_analysis["per_judge"]["rankings"],
                                                "correlations": None, "reason": reason}}
    rows = [row for row in read(analysis) if row["section"].startswith("judge_correlation")]
    assert [(row["section"], row["spearman"], row["pearson"], row["reason"]) for row in rows] == [
        ("judge_correlation_mean", "–", "–", reason)]
