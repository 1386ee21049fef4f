"""G15 Table 4 on judgments a fold's training data cannot predict, from the analysis to every report.

Two rankings compare A with B and C with D: with two folds, each fold's one held-out pair compares two systems its
training pair never shows, so neither accuracy is defined (``ranking.core.accuracy``); the JSON has null with the
reason and counts the pairs, and each report says the same.
"""
from __future__ import annotations

import csv
import html
import io

from ranking.contract import NO_PREDICTABLE, NO_PREDICTABLE_DECISIVE, analysis_json
from ranking.core.analysis import analyze
from ranking.core.parameters import AnalysisParameters
from ranking.core.rankings import Rankings
from tests.ranking.contract_checks import assert_contract, assert_reports_render

SAID = ("Held-out pairs not predicted, because a system of the pair has no pair in its fold's training data, or "
        "pairs in too few of its training runs for a rank range (left out of both accuracies): Expected Wins 2, "
        "TrueSkill 2.")


def test_no_held_out_pair_can_be_predicted():
    rankings = Rankings.from_items([("ann", 0, [("A", 1), ("B", 2)]), ("ann", 1, [("C", 2), ("D", 1)])])
    parameters = AnalysisParameters(bootstrap=20, seed=1, accuracy_folds=2, accuracy_bootstrap=10)
    analysis = analysis_json(analyze(rankings, parameters), campaign="disjoint",
                             snapshot={"judgments": 2, "last_judgment_at": "2025-03-04T05:06:07+00:00",
                                       "last_judgment_id": 2, "ignored_judgments": {}})
    assert_contract(analysis)
    for method in ("expected_wins", "trueskill"):
        accuracy = analysis["accuracy"][method]
        assert accuracy["total_order"] is None and accuracy["clusters"] is None
        assert accuracy["unpredictable_pairs"] == 2
        assert accuracy["reason"] == f"total_order: {NO_PREDICTABLE_DECISIVE}; clusters: {NO_PREDICTABLE}"
    reports = assert_reports_render(analysis)
    assert SAID in html.unescape(" ".join(reports["html"].split()))
    assert SAID in " ".join(reports["latex"].split())
    rows = [row for row in csv.DictReader(io.StringIO(reports["csv"])) if row["section"] == "accuracy"]
    assert {(row["method"], row["value"]) for row in rows if row["key"] == "unpredictable_pairs"} == {
        ("expected_wins", "2"), ("trueskill", "2")}


def test_every_held_out_pair_predicted_says_nothing_of_it(full_analysis):
    """The reports' analysis with Table 4 (every system in every fold's training data): 0 pairs left out, no note."""
    assert {accuracy["unpredictable_pairs"] for accuracy in full_analysis["accuracy"].values()} == {0}
    reports = assert_reports_render(full_analysis)
    assert "not predicted" not in reports["html"] and "not predicted" not in reports["latex"]
