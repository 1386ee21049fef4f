"""What the report tables show, independent of the format: number formats, agreement degrees, Table 5's rows,
row and column orders."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ranking.contract import head_to_head_order
from ranking.core.correlation import BETA_GRID
from ranking.reports.formatting import beta, fixed, percent, rank_range, short
from ranking.reports.provenance import provenance
from ranking.reports.tables import agreement_degree, clusters, judges, metric_rows


@pytest.mark.parametrize("value, places, expected", [
    (0.62840, 3, "0.628"), (-0.0014, 3, "-0.001"), (-0.0004, 3, "0.000"), (0.3, 3, "0.300"), (None, 3, ""),
    (math.nan, 3, ""), (0.29269, 2, "0.29"),
])
def test_fixed_prints_the_decimals_of_tables_3b_3c_and_5(value, places, expected):
    assert fixed(value, places) == expected


@pytest.mark.parametrize("value, expected", [
    (0.4444, ".44"), (0.5, ".50"), (-0.05, "-.05"), (1.0, "1.00"), (-0.001, ".00"), (None, ""),
])
def test_short_drops_the_leading_zero_as_tables_2_3d_and_6_do(value, expected):
    assert short(value) == expected


def test_ranges_betas_and_percentages_as_printed():
    assert rank_range(1, 1) == "1" and rank_range(2, 4) == "2-4" and rank_range(11, 12, dash="--") == "11--12"
    assert [beta(b) for b in (1.0, 0.5, 0.25, 0.18, 0.1)] == ["1.0", "0.5", "0.25", "0.18", "0.1"]
    assert percent(0.58183) == "58.18" and percent(None) == ""


@pytest.mark.parametrize("kappa, degree", [
    (0.29, "Weak"), (0.46, "Moderate"),  # G15 Table 2a
    (-0.01, "Poor"), (0.0, "Slight"), (0.20, "Slight"), (0.204, "Slight"), (0.21, "Weak"), (0.40, "Weak"),
    (0.41, "Moderate"), (0.60, "Moderate"), (0.61, "Substantial"), (0.80, "Substantial"), (0.81, "Almost perfect"),
    (1.0, "Almost perfect"), (None, ""), (math.nan, ""),
])
def test_agreement_degrees_follow_landis_and_koch_with_g15s_words(kappa, degree):
    assert agreement_degree(kappa) == degree


def test_table_5_rows_pick_the_fixed_betas_and_the_best_of_the_sweep(full_analysis):
    sweep = full_analysis["beta_sweep"]
    assert [point["beta"] for point in sweep] == BETA_GRID.tolist()
    rows = metric_rows(full_analysis)
    swept = [row for row in rows if row.beta is not None]
    spearman = np.array([p["spearman"] for p in sweep])
    pearson = np.array([p["pearson"] for p in sweep])
    best = {float(BETA_GRID[np.argmax(spearman)]), float(BETA_GRID[np.argmax(pearson)])}
    assert [row.beta for row in swept] == sorted({1.0, 0.5, 0.25, 0.1} | best, reverse=True)
    by_beta = {row.beta: row for row in swept}
    assert "official" in by_beta[0.5].notes
    assert "max_spearman" in by_beta[float(BETA_GRID[np.argmax(spearman)])].notes
    assert "max_pearson" in by_beta[float(BETA_GRID[np.argmax(pearson)])].notes
    for row in swept:
        point = sweep[int(round(row.beta * 100)) - 1]
        assert (row.spearman, row.pearson) == (point["spearman"], point["pearson"])
    others = [row for row in rows if row.beta is None]
    assert [row.metric for row in others] == ["bleu"]  # m2 is shown through its sweep
    assert others[0].spearman == full_analysis["metrics"]["bleu"]["spearman"]


def test_without_metrics_there_are_no_table_5_rows(plain_analysis):
    assert metric_rows(plain_analysis) == []


def test_orders_come_from_the_rankings_not_from_dict_order(full_analysis):
    reversed_dicts = {
        **full_analysis,
        "pairs": {**full_analysis["pairs"], "per_judge": dict(reversed(full_analysis["pairs"]["per_judge"].items()))},
    }
    assert judges(reversed_dicts) == sorted(full_analysis["pairs"]["per_judge"])
    systems = full_analysis["expected_wins"]["systems"]
    by_full_data = sorted(systems, key=lambda row: -row["full_data_score"])
    assert head_to_head_order({"expected_wins": {"systems": systems[::-1]}}) == [row["system"] for row in by_full_data]
    groups = clusters(systems)
    assert [row for group in groups for row in group] == systems
    assert [group[0]["cluster"] for group in groups] == list(range(1, len(groups) + 1))
    assert all(len({row["cluster"] for row in group}) == 1 for group in groups)


def test_provenance_names_campaign_snapshot_parameters_and_seed(full_analysis):
    lines = dict(provenance(full_analysis))
    assert lines["Campaign"] == "synthetic"
    assert lines["Judgments (snapshot)"] == str(full_analysis["snapshot"]["judgments"])
    assert lines["Last judgment"] == "2025-03-04 05:06:07 UTC"
    assert lines["Last judgment id"] == "4321"
    assert lines["Random seed"] == "3"
    assert lines["Bootstrap samples per method"] == "200" and lines["Rank range confidence"] == "0.95"
    assert lines["Judge"] == "all judges"


def test_provenance_words_the_parameters_that_are_not_plain_numbers(full_analysis):
    """A correlation without rounding read "Decimals of the human scores correlated with metrics: none", as if
    rounded to no decimals, and a skipped Table 4 "Accuracy folds: 0"."""
    analysis = {**full_analysis, "parameters": {**full_analysis["parameters"], "correlation_decimals": None,
                                                 "accuracy_folds": 0}}
    assert dict(provenance(analysis))["Decimals of the human scores correlated with metrics"] == "none", "as stored"
    lines = dict(provenance(analysis, worded=True))
    assert lines["Decimals of the human scores correlated with metrics"] == "not rounded"
    assert lines["Accuracy folds"] == "0 (prediction accuracy not computed)"
    rounded = dict(provenance({**full_analysis, "parameters": {**full_analysis["parameters"], "correlation_decimals": 3,
                                                                "accuracy_folds": 100}}, worded=True))
    assert rounded["Decimals of the human scores correlated with metrics"] == "3" and rounded["Accuracy folds"] == "100"
