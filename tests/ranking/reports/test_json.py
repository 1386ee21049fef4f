"""The JSON report: the analysis itself, in the order the analysis wrote it, however the dict arrives."""
from __future__ import annotations

import json

import pytest

from ranking.contract import contract_order, head_to_head_order
from ranking.reports.json import render_json
from tests.ranking.contract_checks import assert_contract


def jsonb_order(value):
    """Keys re-sorted the way PostgreSQL's jsonb stores them (shorter keys first, then bytewise)."""
    if isinstance(value, dict):
        return {k: jsonb_order(value[k]) for k in sorted(value, key=lambda k: (len(k.encode()), k.encode()))}
    if isinstance(value, list):
        return [jsonb_order(item) for item in value]
    return value


def test_a_fresh_analysis_comes_out_in_its_own_order(full_analysis):
    assert render_json(full_analysis) == json.dumps(full_analysis, indent=2, ensure_ascii=False) + "\n"


def test_an_analysis_read_back_from_jsonb_gets_its_order_back(full_analysis):
    shuffled = jsonb_order(full_analysis)
    assert list(shuffled)[:3] != ["campaign", "parameters", "snapshot"]
    assert render_json(shuffled) == render_json(full_analysis)
    by_full_data = [row["system"] for row in sorted(full_analysis["expected_wins"]["systems"],
                                                    key=lambda row: -row["full_data_score"])]
    assert list(contract_order(shuffled)["head_to_head"]) == by_full_data == head_to_head_order(full_analysis)


def test_the_json_report_holds_the_same_data(plain_analysis):
    assert json.loads(render_json(plain_analysis)) == plain_analysis


def test_the_analyses_with_computed_metrics_follow_the_contract(computed_analysis, prws_computed_analysis):
    """The fixtures of the ``metrics_computed`` reports are what a run of a campaign with references stores."""
    for analysis in (computed_analysis, prws_computed_analysis):
        assert_contract(analysis)
        assert json.loads(render_json(analysis)) == analysis
    assert computed_analysis["metrics_computed"]["expected_wins"]["beta_sweeps"]["m2"]
    assert prws_computed_analysis["metrics_computed"]["prws"]["p_values"]


def test_a_nan_fails_loudly_instead_of_writing_no_json(plain_analysis):
    broken = json.loads(json.dumps(plain_analysis))
    broken["agreement"]["inter"] = float("nan")
    with pytest.raises(ValueError, match="not JSON compliant"):
        render_json(broken)
