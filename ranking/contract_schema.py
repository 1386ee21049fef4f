"""The JSON Schema (draft 2020-12) of the analysis JSON (PRODUCT.md "Command line and JSON contract").

Besides validating (the tests check every analysis against it), the schema fixes the order of keys: every object's
``properties`` are listed in the order the analysis writes them, and an object keyed by names (systems, judges,
metrics) says in ``x-key-order`` how its keys are ordered: ``"head_to_head"`` (systems in G15 Table 3d's order,
``ranking.contract.head_to_head_order``) or ``"sorted"``. ``ranking.contract.contract_order`` uses this to restore
the order of a result that PostgreSQL's jsonb stored with its keys re-sorted.

Undefined values: a number the data leave undefined is ``null`` and its object has a ``reason``; in a matrix of
bare numbers (judge correlations, Williams p-values) the reasons sit in the sibling ``reasons``, keyed like the
matrix, and those of the Williams test's correlations by metric in ``correlation_reasons``. Parameters may be
``null`` as settings (no judge filter, no rounding).
"""
from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

STRING: Schema = {"type": "string"}
NAME: Schema = {"type": "string", "minLength": 1}
#: Why a value is undefined: text with something to read in it (not only white space).
REASON: Schema = {"type": "string", "pattern": r"\S"}
INTEGER: Schema = {"type": "integer"}
COUNT: Schema = {"type": "integer", "minimum": 0}
NUMBER: Schema = {"type": "number"}


def nullable(schema: Schema) -> Schema:
    """``schema`` or null."""
    return {"anyOf": [schema, {"type": "null"}]}


def fraction(nullable_value: bool = True) -> Schema:
    """A number in [0, 1] (a share, a p-value, an accuracy), null where undefined."""
    schema = {"type": "number", "minimum": 0, "maximum": 1}
    return nullable(schema) if nullable_value else schema


def correlation() -> Schema:
    """A correlation coefficient in [-1, 1], null where undefined."""
    return nullable({"type": "number", "minimum": -1, "maximum": 1})


def record(properties: dict[str, Schema], optional: tuple[str, ...] = ("reason",)) -> Schema:
    """An object with these properties, in this order; all required but ``optional``; no others."""
    return {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name not in optional],
        "additionalProperties": False,
    }


def by_name(value: Schema, order: str = "sorted") -> Schema:
    """An object keyed by names (systems, judges, metrics), each holding ``value``, keys ordered by ``order``."""
    return {"type": "object", "propertyNames": NAME, "additionalProperties": value, "x-key-order": order}


def array(items: Schema, length: int | None = None) -> Schema:
    schema: Schema = {"type": "array", "items": items}
    if length is not None:
        schema.update(minItems=length, maxItems=length)
    return schema


PARAMETERS = record({
    "bootstrap": {"type": "integer", "minimum": 2},
    "confidence": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "seed": INTEGER,
    "judge_confidence": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "chunk_size": {"type": "integer", "minimum": 1},
    "accuracy_folds": COUNT,
    "accuracy_bootstrap": {"type": "integer", "minimum": 1},
    "correlation_decimals": nullable(COUNT),
    "ignored_judges": array(NAME),
    "judge": nullable(NAME),
    "metrics": record({"uploaded": array(NAME), "computed": array(NAME), "references": array(NAME)}, optional=()),
}, optional=("metrics",))

SNAPSHOT = record({
    "judgments": COUNT,
    "last_judgment_at": nullable(STRING),
    "last_judgment_id": nullable(INTEGER),
    "ignored_judgments": by_name(COUNT),
    "reason": REASON,
})

PAIR_COUNTS = record({name: COUNT for name in ("rankings", "unexpanded", "unexpanded_ties", "expanded",
                                               "expanded_ties")}, optional=())
PAIRS = record({**PAIR_COUNTS["properties"], "per_judge": by_name(PAIR_COUNTS)}, optional=())

KAPPA = nullable({"type": "number", "maximum": 1})
AGREEMENT = record({
    "inter": KAPPA,
    "intra": KAPPA,
    "matrix": by_name(by_name(record({"kappa": KAPPA, "comparisons": COUNT, "reason": REASON}))),
    "reason": REASON,
})

RANKED_SYSTEM = record({
    "system": NAME,
    "score": nullable(NUMBER),
    "full_data_score": nullable(NUMBER),
    "range": nullable(array({"type": "integer", "minimum": 1}, length=2)),
    "cluster": nullable({"type": "integer", "minimum": 1}),
    "reason": REASON,
})
METHOD_RANKING = record({"systems": array(RANKED_SYSTEM), "bootstrap": {"type": "integer", "minimum": 2}},
                        optional=())
JUDGE_RANKING = record({"systems": array(RANKED_SYSTEM)}, optional=())

HEAD_TO_HEAD_CELL = record({"share": fraction(), "p_value": fraction(), "wins": COUNT, "losses": COUNT,
                            "reason": REASON})
HEAD_TO_HEAD = by_name(by_name(HEAD_TO_HEAD_CELL, "head_to_head"), "head_to_head")

CORRELATION_PAIR = record({"spearman": correlation(), "pearson": correlation(), "reason": REASON})
BARE_MATRIX = by_name(by_name(correlation()))
REASONS = by_name(by_name(REASON))
JUDGE_REST = record({"spearman": correlation(), "pearson": correlation(), "shared_systems": COUNT, "reason": REASON},
                    optional=("shared_systems", "reason"))
"""A judge's correlation with the rest of the judges; ``shared_systems``: how many systems it is computed over (those
both this judge and the others judged). Optional: analyses stored before it was added lack it."""
JUDGE_MEAN = record({"spearman": correlation(), "pearson": correlation(), "left_out": array(NAME), "reason": REASON})
"""The weighted means of the judges' correlations with the rest; ``left_out``: the judges whose correlation with the
rest is undefined (their ``rest`` entry says why), not in the means."""
JUDGE_CORRELATIONS = record({
    "spearman": BARE_MATRIX,
    "pearson": BARE_MATRIX,
    "shared_systems": by_name(by_name(COUNT)),
    "rest": by_name(JUDGE_REST),
    "weighted_mean_rest": JUDGE_MEAN,
    "reasons": REASONS,
}, optional=("shared_systems", "reasons"))
"""G15 Table 6: ``spearman`` and ``pearson`` of every two judges (diagonal left out, undefined cells' reasons in
``reasons``), each over the systems both judged, ``shared_systems`` of them (keyed like the matrices; optional:
analyses stored before it was added lack it); each judge against the ``rest``; the ``weighted_mean_rest``."""
PER_JUDGE = record({"rankings": by_name(JUDGE_RANKING), "correlations": nullable(JUDGE_CORRELATIONS),
                    "reason": REASON})

SWEEP_POINT = record({"beta": NUMBER, "spearman": correlation(), "pearson": correlation(), "reason": REASON})
SIGNIFICANCE = record({
    "systems": array(NAME),
    "correlations": by_name(correlation()),
    "p_values": by_name(by_name(fraction())),
    "df": COUNT,
    "correlation_reasons": by_name(REASON),
    "reasons": REASONS,
    "skipped": REASON,
}, optional=("correlations", "p_values", "df", "correlation_reasons", "reasons", "skipped"))
"""The Williams test between every two metrics: each metric's Pearson r with the human scores (null, with its
reason in ``correlation_reasons``, for a constant metric) and the p-value matrix (null cells' reasons in
``reasons``), or only why it was ``skipped``."""

ACCURACY = record({
    "total_order": fraction(),
    "clusters": fraction(),
    "n_folds": COUNT,
    "n_boot": {"type": "integer", "minimum": 1},
    "confidence": NUMBER,
    "training": {"enum": ["other_folds", "g15_makefile"]},
    "unpredictable_pairs": COUNT,
    "reason": REASON,
}, optional=("unpredictable_pairs", "reason"))
"""G15 Table 4 of one method; ``unpredictable_pairs``: the held-out pairs not scored because a system of the pair has
no pair in its fold's training data, or pairs in too few of its training runs for a rank range (absent when the
cross-validation was skipped)."""

RATER = record({"rater": NAME, "screens": COUNT, "rate": fraction(nullable_value=False)}, optional=())
EXCLUDED_RATER = record({"rater": NAME, "screens": COUNT, "rate": fraction(), "reason": REASON})
"""A rater the analysis left out: every rater rater QC excluded (by a check or by hand), with the Source+error
check's screens and rate, null with the reason for a rater who had no screen showing both."""
SCORE: Schema = {"type": "number", "minimum": 0, "maximum": 100}
DISTRIBUTION_KEYS = ("min", "q1", "median", "q3", "max")
"""A PRWS system's score distribution: the lowest, the quartiles and the highest of its sentence scores."""
PRWS_SYSTEM = record({
    "system": NAME,
    "mean": nullable({"type": "number", "minimum": 0, "maximum": 100}),
    "z_mean": nullable(NUMBER),
    "sentences": COUNT,
    "ratings": COUNT,
    "unchanged_pct": nullable({"type": "number", "minimum": 0, "maximum": 100}),
    "meaning_changed_pct": nullable({"type": "number", "minimum": 0, "maximum": 100}),
    "control": {"type": "boolean"},
    "distribution": record(dict.fromkeys(DISTRIBUTION_KEYS, SCORE), optional=()),
    "reason": REASON,
}, optional=("distribution", "reason"))  # distribution: not in analyses stored before it was added
"""A system's PRWS statistics; a system without a rating (from a rater the quality check kept) comes after the
rated ones, its numbers null with the reason and without a distribution."""
PRWS = record({
    "systems": array(PRWS_SYSTEM),
    "ratings": COUNT,
    "raters": COUNT,
    "excluded_raters": array(EXCLUDED_RATER),
    "quality": record({"threshold": fraction(nullable_value=False), "raters": array(RATER)}, optional=()),
    "reliability": record({
        "splits": {"type": "integer", "minimum": 1},
        "sentence": record({"pearson": correlation(), "spearman": correlation(), "candidates": COUNT,
                            "reason": REASON}),
        "system": record({"pearson": correlation(), "spearman": correlation(), "systems": COUNT, "reason": REASON}),
    }, optional=()),
    "metrics": SIGNIFICANCE,
}, optional=("metrics",))

METRIC_CORRELATIONS: Schema = record({
    "metrics": by_name(CORRELATION_PAIR),
    "beta_sweeps": by_name(array(SWEEP_POINT)),
    "metric_significance": SIGNIFICANCE,
    "beta_sweep": array(SWEEP_POINT),
}, optional=("beta_sweep",))
"""Metric correlations with one human ranking (as the top-level ``metrics``, ``beta_sweeps``, ... keys)."""

METRICS_COMPUTED: Schema = record({
    "scores": by_name(by_name(record({"score": NUMBER, "precision": NUMBER, "recall": NUMBER,
                                      "types": by_name(array(COUNT, 3))},
                                     optional=("precision", "recall", "types")))),
    "expected_wins": METRIC_CORRELATIONS,
    "trueskill": METRIC_CORRELATIONS,
    "prws": SIGNIFICANCE,
    "sentence_tau": by_name(record({"tau": correlation(), "concordant": COUNT, "discordant": COUNT,
                                    "metric_ties": COUNT, "reason": REASON})),
    "skipped": by_name(REASON),
    "synthetic": record({
        "systems": COUNT,
        "seed": INTEGER,
        "correlations": by_name(record({
            "real": record({"pearson": correlation(), "systems": COUNT, "reason": REASON}),
            "with_synthetic": record({"pearson": correlation(), "systems": COUNT, "reason": REASON}),
        }, optional=())),
        "reason": REASON,
    }, optional=("systems", "seed", "correlations", "reason")),
}, optional=("expected_wins", "trueskill", "prws", "skipped", "synthetic"))
"""Metrics computed from the campaign's references and their meta-evaluation (``ranking.metric_evaluation``)."""

SECONDS: Schema = nullable({"type": "number", "minimum": 0})
QC_RATER = record({
    "rater": NAME,
    "attempt": {"type": "integer", "minimum": 1},
    "screens": COUNT,
    "control_screens": COUNT,
    "control_passed": COUNT,
    "control_rate": fraction(),
    "controls": COUNT,
    "p_value": fraction(),
    "total_seconds": SECONDS,
    "median_seconds": SECONDS,
    "passed": {"type": "boolean"},
    "decision": {"enum": ["auto", "include", "exclude"]},
    "excluded": {"type": "boolean"},
    "why": NAME,
    "reason": REASON,
})
RATER_QC = record({
    "rule": record({
        "control_threshold": fraction(nullable_value=False),
        "p_value": fraction(nullable_value=False),
        "min_total_seconds": {"type": "number", "minimum": 0},
        "min_median_seconds": {"type": "number", "minimum": 0},
        "test": NAME,
    }, optional=()),
    "excluded": array(QC_RATER),
    "included_by_hand": array(NAME),
    "earlier_attempts": by_name(record({"attempts": {"type": "integer", "minimum": 1}, "up_to_judgment": INTEGER},
                                       optional=())),
}, optional=())
"""Rater quality control (``annotation.services.rater_qc``): the rule, the raters excluded with their numbers,
those included by hand, and the earlier attempts whose judgments are left out."""

SCHEMA: Schema = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "gecappraise analysis",
    **record({
        "campaign": STRING,
        "parameters": PARAMETERS,
        "snapshot": SNAPSHOT,
        "pairs": PAIRS,
        "agreement": AGREEMENT,
        "expected_wins": METHOD_RANKING,
        "trueskill": METHOD_RANKING,
        "head_to_head": HEAD_TO_HEAD,
        "per_judge": PER_JUDGE,
        "metrics": nullable(by_name(CORRELATION_PAIR)),
        "beta_sweeps": by_name(array(SWEEP_POINT)),
        "metric_significance": SIGNIFICANCE,
        "beta_sweep": nullable(array(SWEEP_POINT)),
        "accuracy": by_name(ACCURACY),
        "prws": nullable(PRWS),
        "reason": REASON,
        "rater_qc": RATER_QC,
        "metrics_computed": METRICS_COMPUTED,
    }, optional=("beta_sweeps", "metric_significance", "accuracy", "reason", "rater_qc", "metrics_computed")),
}
"""The analysis JSON's schema. The contract's keys are always there: ``metrics`` and ``beta_sweep`` are null
without metric scores (``beta_sweep`` also without M2's), ``prws`` in a relative-ranking campaign, and the root's
``reason`` says why. (Analyses stored before 7 December 2026 leave such keys out instead.)"""
