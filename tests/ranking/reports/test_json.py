"""The JSON report: the analysis itself, in the order the analysis wrote it, however the dict arrives."""
from __future__ import annotations

import json

from ranking.reports.json import contract_order, render_json


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
    ew_order = [row["system"] for row in full_analysis["expected_wins"]["systems"]]
    assert list(contract_order(shuffled)["head_to_head"]) == ew_order


def test_the_json_report_holds_the_same_data(plain_analysis):
    assert json.loads(render_json(plain_analysis)) == plain_analysis
