"""The CSV report: one file, one header, a ``section`` column saying what each row holds.

Sections, in file order, and the columns each fills (the others stay empty):

- ``provenance``: key, value (campaign, snapshot, method parameters, seed)
- ``pairs`` (per judge) and ``pairs_total``: judge, rankings, unexpanded, unexpanded_ties, expanded, expanded_ties
  (G15 Table 1)
- ``agreement_overall``: key (inter, intra), kappa; ``agreement``: judge, other_judge, kappa, comparisons (Table 2)
- ``ranking``: method (expected_wins, trueskill), rank, system, score, full_data_score, range_lo, range_hi, cluster
  (Tables 3b, 3c); ``judge_ranking``: the same per judge, with judge (Table 7)
- ``head_to_head``: system (row), opponent (column), share (of the decided judgments the opponent won), p_value,
  wins (of the opponent), losses (of the opponent) (Table 3d)
- ``judge_correlation``: judge, other_judge, spearman, pearson; ``judge_correlation_rest``: judge against the other
  judges; both with shared_systems, the number of systems the correlation is computed over (empty in analyses stored
  before it was part of the JSON); ``judge_correlation_mean``: the weighted means (Table 6), or, when the analysis
  has no judge correlations, only the reason;
  ``judge_correlation_mean_left_out``: judge, reason (a judge the means leave out: its correlation with the rest is
  undefined)
- ``metric``: metric, spearman, pearson; ``beta_sweep``: metric, beta, spearman, pearson (Table 5, Figure 3);
  ``metric_williams``: metric, other_metric, p_value (the Williams test between the uploaded metrics' correlations
  with the Expected Wins scores, N19 section 6), or only the reason it was skipped
- ``accuracy``: method, key (total_order, clusters, n_folds, ...), value (Table 4)
- ``prws``: system, mean, z_mean, sentences, ratings, unchanged_pct, meaning_changed_pct, control, and the
  distribution of the system's sentence scores (the JSON's ``distribution``): distribution_min, distribution_q1,
  distribution_median, distribution_q3, distribution_max, empty for a system without a rating and in analyses
  stored before distributions were computed (PRWS campaigns, N19); ``prws_rater``: judge (the rater), screens, rate
  (of screens showing Source+error scored below Source), excluded; ``prws_reliability``: key (sentence, system),
  value (candidates or systems compared), spearman, pearson; ``prws_metric``: metric, pearson (with the mean
  scores); ``prws_williams``: metric, other_metric, p_value
- ``rater_qc_rule``: key, value (the thresholds of rater QC); ``rater_qc_excluded``: judge, key (attempt, screens,
  control_screens, control_passed, control_rate, controls, p_value, total_seconds, median_seconds, decision, why),
  value; ``rater_qc_included_by_hand``: judge; ``rater_qc_earlier_attempts``: judge, key (attempts), value
- ``computed_score``, ``computed_type``, ``computed_correlation``, ``computed_beta_sweep``, ``computed_prws``,
  ``computed_williams``, ``computed_sentence_tau``, ``computed_synthetic``, ``computed_skipped``: the metrics
  computed from the campaign's references and their meta-evaluation (``computed_metrics.py``)

Numbers are written in full precision (Python's ``repr``); a number the analysis left undefined is "–" and the row's
``reason`` column says why; cells a section does not fill are empty; text that a spreadsheet would take for a
formula gets a leading ``'`` (``gecappraise.safe_csv``). Head-to-head rows follow G15 Table 3d's order (the
full-data Expected Wins scores).
"""
from __future__ import annotations

import io
from collections.abc import Iterator, Mapping

from gecappraise.safe_csv import SafeDictWriter
from ranking.contract import head_to_head_order
from ranking.contract_schema import DISTRIBUTION_KEYS

from .computed_metrics import csv_rows as computed_metric_rows
from .formatting import UNDEFINED, is_missing, matrix_reason, reason_for
from .metric_csv import beta_sweep_rows, williams_rows
from .provenance import METHOD_NAMES, provenance
from .tables import judges

COLUMNS = (
    "section", "method", "judge", "other_judge", "system", "opponent", "metric", "key", "value",
    "rank", "score", "full_data_score", "range_lo", "range_hi", "cluster",
    "share", "p_value", "wins", "losses", "kappa", "comparisons",
    "rankings", "unexpanded", "unexpanded_ties", "expanded", "expanded_ties",
    "beta", "spearman", "pearson", "other_metric",
    "mean", "z_mean", "sentences", "ratings", "unchanged_pct", "meaning_changed_pct", "control",
    "screens", "rate", "excluded", "reason",
    *(f"distribution_{key}" for key in DISTRIBUTION_KEYS), "shared_systems",
)
"""The header. Users' scripts read it: new columns go at the end, none is renamed, removed or moved."""
PRWS_COLUMNS = ("system", "mean", "z_mean", "sentences", "ratings", "unchanged_pct", "meaning_changed_pct", "control")
#: The numbers of an excluded rater, one ``rater_qc_excluded`` row each.
QC_KEYS = ("attempt", "screens", "control_screens", "control_passed", "control_rate", "controls", "p_value",
           "total_seconds", "median_seconds", "decision", "why")
PAIR_COLUMNS = ("rankings", "unexpanded", "unexpanded_ties", "expanded", "expanded_ties")

Row = dict[str, object]


def render_csv(analysis: Mapping) -> str:
    """The analysis as one CSV table with a ``section`` column (see the module docstring)."""
    buffer = io.StringIO()
    writer = SafeDictWriter(buffer, COLUMNS)
    writer.writeheader()
    for row in csv_rows(analysis):
        writer.writerow({name: _cell(value) for name, value in row.items()})
    return buffer.getvalue()


def csv_rows(analysis: Mapping) -> Iterator[Row]:
    """The rows of every section, in file order."""
    for label, value in provenance(analysis):
        yield {"section": "provenance", "key": label, "value": value}
    yield from _pairs(analysis)
    yield from _agreement(analysis)
    for method in METHOD_NAMES:
        yield from _ranking("ranking", analysis[method]["systems"], method=method)
    order = head_to_head_order(analysis)
    for row in order:
        for column in order:
            if column != row and column in analysis["head_to_head"].get(row, {}):
                cell = analysis["head_to_head"][row][column]
                yield {"section": "head_to_head", "system": row, "opponent": column,
                       **{k: cell[k] for k in ("share", "p_value", "wins", "losses")}, **_reason(cell)}
    per_judge = analysis.get("per_judge") or {}
    for judge in judges(analysis):
        if judge in per_judge.get("rankings", {}):
            yield from _ranking("judge_ranking", per_judge["rankings"][judge]["systems"], judge=judge)
    yield from _judge_correlations(per_judge.get("correlations"), per_judge.get("reason"))
    yield from _metrics(analysis)
    for method, accuracy in (analysis.get("accuracy") or {}).items():
        for key, value in accuracy.items():
            if key != "reason":
                reason = {"reason": reason_for(accuracy, key)} if value is None else {}
                yield {"section": "accuracy", "method": method, "key": key, "value": value, **reason}
    if analysis.get("prws"):
        yield from _prws(analysis["prws"])
    if analysis.get("rater_qc"):
        yield from _rater_qc(analysis["rater_qc"])
    if analysis.get("metrics_computed"):
        yield from computed_metric_rows(analysis["metrics_computed"])


def _rater_qc(qc: Mapping) -> Iterator[Row]:
    for key, value in qc["rule"].items():
        yield {"section": "rater_qc_rule", "key": key, "value": value}
    for row in qc["excluded"]:
        for key in QC_KEYS:
            reason = {"reason": reason_for(row, key)} if row[key] is None else {}
            yield {"section": "rater_qc_excluded", "judge": row["rater"], "key": key, "value": row[key], **reason}
    for judge in qc["included_by_hand"]:
        yield {"section": "rater_qc_included_by_hand", "judge": judge}
    for judge, row in sorted(qc["earlier_attempts"].items()):
        yield {"section": "rater_qc_earlier_attempts", "judge": judge, "key": "attempts", "value": row["attempts"]}


def _pairs(analysis: Mapping) -> Iterator[Row]:
    per_judge = analysis["pairs"]["per_judge"]
    for judge in judges(analysis):
        yield {"section": "pairs", "judge": judge, **{k: per_judge[judge][k] for k in PAIR_COLUMNS}}
    yield {"section": "pairs_total", **{k: analysis["pairs"][k] for k in PAIR_COLUMNS}}


def _agreement(analysis: Mapping) -> Iterator[Row]:
    agreement = analysis["agreement"]
    for key in ("inter", "intra"):
        reason = {"reason": reason_for(agreement, key)} if agreement[key] is None else {}
        yield {"section": "agreement_overall", "key": key, "kappa": agreement[key], **reason}
    names = judges(analysis)
    for i, judge in enumerate(names):
        for other in names[i:]:
            cell = agreement["matrix"][judge][other]
            yield {"section": "agreement", "judge": judge, "other_judge": other, **cell}


def _ranking(section: str, systems: list[Mapping], **labels: str) -> Iterator[Row]:
    for rank, row in enumerate(systems, start=1):
        yield {
            "section": section, **labels, "rank": rank, "system": row["system"], "score": row["score"],
            "full_data_score": row["full_data_score"], "range_lo": row["range"] and row["range"][0],
            "range_hi": row["range"] and row["range"][1], "cluster": row["cluster"], **_reason(row),
        }


def _judge_correlations(correlations: Mapping | None, skipped: str | None) -> Iterator[Row]:
    if not correlations:
        if skipped:
            yield {"section": "judge_correlation_mean", "spearman": None, "pearson": None, "reason": skipped}
        return
    names = sorted(correlations["rest"])
    shared_systems = correlations.get("shared_systems")
    for i, judge in enumerate(names):
        for other in names[i + 1:]:
            spearman, pearson = correlations["spearman"][judge][other], correlations["pearson"][judge][other]
            reason = {"reason": matrix_reason(correlations, judge, other)} if None in (spearman, pearson) else {}
            shared = {"shared_systems": shared_systems[judge][other]} if shared_systems else {}
            yield {"section": "judge_correlation", "judge": judge, "other_judge": other,
                   "spearman": spearman, "pearson": pearson, **shared, **reason}
    for judge in names:
        yield {"section": "judge_correlation_rest", "judge": judge, **correlations["rest"][judge]}
    mean = correlations["weighted_mean_rest"]
    yield {"section": "judge_correlation_mean", "spearman": mean["spearman"], "pearson": mean["pearson"],
           **_reason(mean)}
    for judge in mean.get("left_out") or []:
        yield {"section": "judge_correlation_mean_left_out", "judge": judge,
               "reason": correlations["rest"][judge].get("reason")}


def _metrics(analysis: Mapping) -> Iterator[Row]:
    for name, values in sorted((analysis.get("metrics") or {}).items()):
        yield {"section": "metric", "metric": name, "spearman": values["spearman"], "pearson": values["pearson"],
               **_reason(values)}
    yield from beta_sweep_rows("beta_sweep", analysis)
    significance = analysis.get("metric_significance") or {}
    yield from williams_rows("metric_williams", significance)
    if significance.get("skipped"):
        yield {"section": "metric_williams", "reason": significance["skipped"]}


def _prws(prws: Mapping) -> Iterator[Row]:
    for row in prws["systems"]:
        points = row.get("distribution")
        distribution = {f"distribution_{key}": points[key] for key in DISTRIBUTION_KEYS} if points else {}
        yield {"section": "prws", **{k: row.get(k) for k in PRWS_COLUMNS}, **distribution, **_reason(row)}
    excluded = {row["rater"] for row in prws.get("excluded_raters", [])}
    for row in (prws.get("quality") or {}).get("raters", []):
        yield {"section": "prws_rater", "judge": row["rater"], "screens": row["screens"], "rate": row["rate"],
               "excluded": row["rater"] in excluded}
    reliability = prws.get("reliability") or {}
    for level, count in (("sentence", "candidates"), ("system", "systems")):
        if level in reliability:
            values = reliability[level]
            yield {"section": "prws_reliability", "key": level, "value": values.get(count),
                   "spearman": values.get("spearman"), "pearson": values.get("pearson"), **_reason(values)}
    metrics = prws.get("metrics") or {}
    for name, r in sorted((metrics.get("correlations") or {}).items()):
        reason = {"reason": (metrics.get("correlation_reasons") or {}).get(name)} if r is None else {}
        yield {"section": "prws_metric", "metric": name, "pearson": r, **reason}
    yield from williams_rows("prws_williams", metrics)


def _reason(holder: Mapping) -> Row:
    """The ``reason`` column of a row made from ``holder``: its reason, if it has undefined values."""
    return {"reason": holder["reason"]} if holder.get("reason") else {}


def _cell(value: object) -> object:
    """Undefined numbers (None, NaN) as "–"; everything else as ``csv`` writes it."""
    return UNDEFINED if isinstance(value, (float, type(None))) and is_missing(value) else value
