"""The JSON report: the analysis JSON, pretty-printed, in the order of the contract (PRODUCT.md).

A result read back from PostgreSQL's jsonb has its keys re-sorted (shortest first); :func:`contract_order` restores
the order the analysis wrote them in, so the file reads campaign, parameters, snapshot, pairs, ... and a freshly
computed result comes out unchanged.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from .tables import ew_order, judges

FIELD_ORDER = (
    "splits", "sentence", "system", "mean", "z_mean", "sentences", "systems",
    "campaign", "parameters", "snapshot",
    "rankings", "unexpanded", "unexpanded_ties", "expanded", "expanded_ties",
    "pairs", "agreement", "expected_wins", "trueskill", "head_to_head", "per_judge",
    "ratings", "threshold", "raters", "excluded_raters", "quality", "reliability",
    "metrics", "beta_sweeps", "metric_significance", "beta_sweep", "accuracy", "prws",
    "total_order", "clusters", "n_folds", "n_boot",
    "bootstrap", "confidence", "seed", "judge_confidence", "chunk_size", "accuracy_folds", "accuracy_bootstrap",
    "judge", "training",
    "judgments", "last_judgment_at", "last_judgment_id",
    "inter", "intra", "matrix", "kappa", "comparisons",
    "score", "full_data_score", "range", "cluster", "share", "p_value", "wins", "losses",
    "correlations", "p_values", "df", "skipped", "beta", "spearman", "pearson", "rest", "weighted_mean_rest",
    "candidates", "unchanged_pct", "meaning_changed_pct", "control", "rater", "screens", "rate",
)
"""Every key the analysis writes, in one order that is the analysis' own within every object but the two levels of
the PRWS reliability (they come out count, spearman, pearson instead of pearson, spearman, count)."""


def contract_order(analysis: Mapping) -> dict:
    """A copy of ``analysis`` with every object's keys in the analysis' own order: known fields by
    ``FIELD_ORDER``, system names by the Expected Wins ranking, judge names sorted, other keys (metric names, new
    fields) sorted after them."""
    fields = {name: i for i, name in enumerate(FIELD_ORDER)}
    systems = {name: i for i, name in enumerate(ew_order(analysis))}
    judge_index = {name: i for i, name in enumerate(judges(analysis))}

    def key(name: str) -> tuple:
        for group, index in enumerate((fields, systems, judge_index)):
            if name in index:
                return group, index[name], ""
        return 3, 0, name

    def order(value: Any) -> Any:
        if isinstance(value, Mapping):
            return {k: order(value[k]) for k in sorted(value, key=key)}
        if isinstance(value, list):
            return [order(item) for item in value]
        return value

    return order(analysis)


def render_json(analysis: Mapping) -> str:
    """The analysis as indented UTF-8 JSON in contract order (:func:`contract_order`), ending with a newline."""
    return json.dumps(contract_order(analysis), indent=2, ensure_ascii=False) + "\n"
