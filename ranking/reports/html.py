"""The HTML report: one self-contained page (inline CSS, plots as inline SVG, no script, no external request).

It states the campaign, the data snapshot, the method parameters and the seed, then the Expected Wins and
TrueSkill rankings with a rank-range plot, the head-to-head heat map, the pair statistics, the agreement with its
matrix, the metric correlations with the beta sweep (when the analysis has metrics), the prediction accuracy,
the per-judge rankings and correlations, PRWS scores when the analysis has them (means, and a box plot of
each system's score distribution), and the metrics computed from the campaign's references when it has those
(``metrics_computed``: scores, correlations with the human scores, their F-beta sweep plot after G15 Figure 3 and
the Williams tests between them, N19 section 6). The page is rendered by a Django template engine of its own,
with autoescaping, so every name from the data is escaped. A number the analysis left undefined shows as "–" with
a note letter (to a screen reader: "undefined, see note a"), and the table's notes under it give each letter's
reason as text (:class:`Notes`), for touch screens and screen readers as for a mouse. The page fits a phone's
width: each table scrolls sideways inside its own box (``table-scroll``, as on the product's pages), never the page.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

from django.template import Context, Engine
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from gecappraise.p_values import shown_p_value
from gecappraise.plurals import counted
from ranking.contract import head_to_head_order
from ranking.core.significance import significance_mark

from .computed_metrics import NAMES, significance_tests, table_context
from .formatting import (
    UNDEFINED,
    NoteLetters,
    beta,
    fixed,
    grouped,
    matrix_reason,
    percent,
    rank_range,
    reason_for,
    short,
)
from .plots import (
    agreement_plot,
    beta_sweep_plot,
    cluster_colour,
    head_to_head_plot,
    prws_distribution_plot,
    prws_scores_plot,
    rank_ranges_plot,
)
from .provenance import METHOD_NAMES, provenance
from .tables import (
    TABLE_4_ROWS,
    agreement_degree,
    beta_sweeps,
    clusters,
    judges,
    metric_rows,
    too_few_comparisons,
    undefined_kappa,
    unpredictable_pairs,
)

TEMPLATE = "report.html"
COMPUTED_HUMAN = {**METHOD_NAMES, "prws": "PRWS means"}
"""The human scores of each Williams test of the computed metrics (``computed_metrics.significance_tests``)."""
PAIR_COLUMNS = ("rankings", "unexpanded", "unexpanded_ties", "expanded", "expanded_ties")


@cache
def _engine() -> Engine:
    return Engine(dirs=[str(Path(__file__).with_name("templates"))], autoescape=True)


class Notes(NoteLetters):
    """The notes of one table: an undefined number shows as "–" with its reason's letter, and the table's notes
    (``items``, under the table: ``table_notes.html``) give each letter's reason as visible text."""

    def undefined(self, reason: str) -> SafeString:
        """"–" with the letter of ``reason``; a screen reader reads "undefined, see note" and the letter."""
        letter = self.letter(reason)
        return format_html('<span class="undefined"><span aria-hidden="true">{}<sup>{}</sup></span>'
                           '<span class="visually-hidden">undefined, see note {}</span></span>', UNDEFINED, letter,
                           letter)

    def shown(self, holder: Mapping, field: str, format_number=fixed) -> str:
        """``holder[field]`` formatted by ``format_number``, or "–" with the reason's letter where it is undefined."""
        value = holder.get(field)
        return self.undefined(reason_for(holder, field)) if value is None else format_number(value)

    @property
    def items(self) -> list[tuple[str, str]]:
        """``(letter, reason)`` of each note, in order."""
        return [(letter, reason) for reason, letter in self.reasons.items()]


def render_html(analysis: Mapping) -> str:
    """The self-contained HTML report of ``analysis``."""
    template = _engine().get_template(TEMPLATE)
    return template.render(Context(report_context(analysis)))


def report_context(analysis: Mapping) -> dict:
    """Everything the template shows, formatted; plots as SVG markup."""
    per_judge = analysis.get("per_judge") or {}
    parameters = analysis.get("parameters") or {}
    sweeps = beta_sweeps(analysis)
    computed = analysis.get("metrics_computed")
    computed_sweeps = _computed_sweeps(computed)
    prws_systems = (analysis.get("prws") or {}).get("systems")
    agreement_notes, metrics_notes = Notes(), Notes()
    return {
        "campaign": analysis.get("campaign", ""),
        "provenance": provenance(analysis, grouped, worded=True),
        "confidence": parameters.get("confidence"),
        "judge_confidence": parameters.get("judge_confidence"),
        "bootstrap": grouped(parameters.get("bootstrap")),
        "rankings": [
            {"name": METHOD_NAMES[method], **ranking_rows(analysis[method]["systems"], "score")}
            for method in METHOD_NAMES
        ],
        "pairs": [
            (judge, [grouped(analysis["pairs"]["per_judge"][judge][k]) for k in PAIR_COLUMNS])
            for judge in judges(analysis)
        ],
        "pairs_total": [grouped(analysis["pairs"][k]) for k in PAIR_COLUMNS],
        "agreement": [
            {"label": label, "value": agreement_notes.shown(analysis["agreement"], key, lambda x: fixed(x, 2)),
             "degree": agreement_degree(analysis["agreement"][key])}
            for key, label in (("inter", "Inter-annotator"), ("intra", "Intra-annotator"))
        ],
        "agreement_notes": agreement_notes.items,
        "starred": any(
            too_few_comparisons(cell) for row in analysis["agreement"]["matrix"].values() for cell in row.values()
        ),
        "undefined_kappa": sorted({
            reason_for(cell, "kappa") for row in analysis["agreement"]["matrix"].values() for cell in row.values()
            if undefined_kappa(cell)
        }),
        "metrics": [
            {"name": row.metric if row.beta is None else f"M2 F{beta(row.beta)}",
             "official": "official" in row.notes,
             "maxima": [label for note, label in (("max_spearman", "ρ"), ("max_pearson", "r")) if note in row.notes],
             "spearman": metrics_notes.undefined(row.reason) if row.spearman is None else fixed(row.spearman),
             "pearson": metrics_notes.undefined(row.reason) if row.pearson is None else fixed(row.pearson)}
            for row in metric_rows(analysis)
        ],
        "metrics_notes": metrics_notes.items,
        "metric_williams": _metric_williams(analysis.get("metric_significance")),
        "accuracy": _accuracy(analysis.get("accuracy")),
        "judge_rankings": [
            {"judge": judge, **ranking_rows(per_judge["rankings"][judge]["systems"], "full_data_score")}
            for judge in judges(analysis) if judge in per_judge.get("rankings", {})
        ],
        "judge_correlations": _judge_correlations(per_judge.get("correlations")),
        "judge_correlations_reason": None if per_judge.get("correlations") else per_judge.get("reason"),
        "head_to_head": _head_to_head(analysis),
        "prws": _prws(analysis.get("prws")),
        "rater_qc": _rater_qc(analysis.get("rater_qc")),
        "computed": _computed(computed),
        "computed_williams": [
            {"id": f"computed-williams-{human}", "human": COMPUTED_HUMAN[human], "skipped": test.get("skipped"),
             "table": williams_table(test, NAMES) if "p_values" in test else None}
            for human, test in significance_tests(computed or {})
        ],
        "plots": {
            "rank_ranges": mark_safe(rank_ranges_plot({m: analysis[m]["systems"] for m in METHOD_NAMES})),
            "head_to_head": mark_safe(head_to_head_plot(analysis)),
            "agreement": mark_safe(agreement_plot(analysis)),
            "beta_sweep": mark_safe(beta_sweep_plot(sweeps)) if sweeps else None,
            "computed_beta_sweep": mark_safe(beta_sweep_plot(
                computed_sweeps, "computed-beta-sweep",
                "Correlation of the computed metrics' F-beta with the human rankings against beta",
            )) if computed_sweeps else None,
            "prws": mark_safe(prws_scores_plot(prws_systems)) if prws_systems else None,
            # Analyses stored before the score distributions were part of the JSON have none to plot.
            "prws_distribution": mark_safe(prws_distribution_plot(prws_systems))
            if prws_systems and all("distribution" in row for row in prws_systems) else None,
        },
    }


def ranking_rows(systems: Sequence[Mapping], score_key: str) -> dict:
    """A ranking table: its ``rows``, the cluster number and colour on each cluster's first row (``first``); systems
    without a rank range (in too few bootstrap samples, or never judged) last, without a cluster, "–" for what
    they lack, whose reasons are the table's ``notes``."""
    notes = Notes()
    rows = []
    for group in clusters(list(systems)):
        for k, row in enumerate(group):
            judged = row["range"] is not None
            rows.append({
                "first": k == 0 and judged, "cluster": row["cluster"],
                "colour": cluster_colour(row["cluster"]) if judged else None,
                "score": notes.shown(row, score_key), "full_data_score": notes.shown(row, "full_data_score"),
                "range": rank_range(*row["range"], dash="–") if judged else notes.shown(row, "range"),
                "system": row["system"],
            })
    return {"rows": rows, "notes": notes.items}


def _head_to_head(analysis: Mapping) -> dict:
    """G15 Table 3d as numbers: the share the column won with its sign-test mark, "–" where undefined."""
    order = head_to_head_order(analysis)
    table = analysis["head_to_head"]
    notes = Notes()

    def cell(row: str, column: str) -> str:
        if row == column or column not in table.get(row, {}):
            return ""
        value = table[row][column]
        if value["share"] is None:
            return notes.shown(value, "share")
        return short(value["share"]) + significance_mark(value["p_value"])

    rows = [(row, [cell(row, column) for column in order]) for row in order]
    return {"systems": order, "rows": rows, "notes": notes.items}


def _accuracy(accuracy: Mapping | None) -> dict | None:
    if not accuracy:
        return None
    methods = [m for m in METHOD_NAMES if m in accuracy]
    notes = Notes()
    rows = [(label, [notes.shown(accuracy[m], key, percent) for m in methods]) for key, label in TABLE_4_ROWS]
    return {
        "methods": [METHOD_NAMES[m] for m in methods],
        "rows": rows,
        "notes": notes.items,
        "folds": grouped(accuracy[methods[0]].get("n_folds")),
        "unpredictable": unpredictable_pairs(accuracy),
    }


def _judge_correlations(correlations: Mapping | None) -> dict | None:
    """Table 6 cells: Spearman above the diagonal, Pearson below, each judge against the rest."""
    if not correlations:
        return None
    names = sorted(correlations["rest"])
    notes = Notes()

    def cell(i: int, j: int) -> str:
        if i == j:
            return UNDEFINED
        value = correlations["spearman" if i < j else "pearson"][names[i]][names[j]]
        return notes.undefined(matrix_reason(correlations, names[i], names[j])) if value is None else short(value)

    rest, mean = correlations["rest"], correlations["weighted_mean_rest"]
    return {
        "judges": names,
        "rows": [
            (judge, [cell(i, j) for j in range(len(names))], notes.shown(rest[judge], "spearman", short))
            for i, judge in enumerate(names)
        ],
        "rest_pearson": [notes.shown(rest[judge], "pearson", short) for judge in names],
        "mean_spearman": notes.shown(mean, "spearman", short),
        "mean_pearson": notes.shown(mean, "pearson", short),
        "left_out": mean.get("left_out") or [],
        "notes": notes.items,
    }


def _rater_qc(qc: Mapping | None) -> dict | None:
    """Rater quality control: the rule, and the excluded raters with their numbers and why."""
    if not qc:
        return None
    rule = qc["rule"]
    notes = Notes()
    excluded = [
        {"rater": row["rater"], "attempt": grouped(row["attempt"]), "screens": grouped(row["screens"]),
         "controls": (f"{row['control_passed']:,} of {row['control_screens']:,} ({percent(row['control_rate'], 0)}%)"
                      if row["control_rate"] is not None else notes.undefined(reason_for(row, "control_rate"))),
         "p_value": (shown_p_value(row["p_value"])
                     if row["p_value"] is not None else notes.undefined(reason_for(row, "p_value"))),
         "total": fixed(row["total_seconds"], 0) if row["total_seconds"] is not None else UNDEFINED,
         "median": fixed(row["median_seconds"], 1) if row["median_seconds"] is not None else UNDEFINED,
         "why": row["why"]}
        for row in qc["excluded"]
    ]
    return {
        "threshold": percent(rule["control_threshold"], 0),
        "p_value": f"{rule['p_value']:g}",
        "min_total": f"{rule['min_total_seconds']:g}",
        "min_median": f"{rule['min_median_seconds']:g}",
        "excluded": excluded,
        "notes": notes.items,
        "included_by_hand": qc["included_by_hand"],
        "earlier": sorted((name, row["attempts"]) for name, row in qc["earlier_attempts"].items()),
    }


def _prws(prws: Mapping | None) -> dict | None:
    """The PRWS statistics (N19 Tables 6, 7): per-system means, the raters' check, reliability, metrics."""
    if not prws:
        return None
    reliability = prws.get("reliability") or {}
    metrics = prws.get("metrics") or {}
    excluded = {row["rater"] for row in prws.get("excluded_raters", [])}
    notes, reliability_notes, metric_notes = Notes(), Notes(), Notes()
    rows = [
        {"system": row["system"], "mean": notes.shown(row, "mean", lambda x: fixed(x, 2)),
         "z_mean": notes.shown(row, "z_mean"), "sentences": grouped(row.get("sentences")),
         "unchanged": notes.shown(row, "unchanged_pct", lambda x: fixed(x, 1)),
         "meaning_changed": notes.shown(row, "meaning_changed_pct", lambda x: fixed(x, 1)),
         "control": bool(row.get("control"))}
        for row in prws.get("systems", [])
    ]
    return {
        "rows": rows,
        "notes": notes.items,
        "ratings": counted(prws.get("ratings"), "rating"),
        "raters": counted(prws.get("raters"), "rater"),
        "threshold": percent((prws.get("quality") or {}).get("threshold"), 0),
        "checked": [
            {"rater": row["rater"], "screens": grouped(row["screens"]), "rate": percent(row["rate"], 1),
             "excluded": row["rater"] in excluded}
            for row in (prws.get("quality") or {}).get("raters", [])
        ],
        "reliability": [
            {"level": level.capitalize(), "pearson": reliability_notes.shown(reliability[level], "pearson"),
             "spearman": reliability_notes.shown(reliability[level], "spearman"),
             "count": grouped(reliability[level].get(count))}
            for level, count in (("sentence", "candidates"), ("system", "systems")) if level in reliability
        ],
        "reliability_notes": reliability_notes.items,
        "splits": grouped(reliability.get("splits")),
        "metric_skipped": metrics.get("skipped"),
        "metric_correlations": [
            (name, metric_notes.undefined((metrics.get("correlation_reasons") or {}).get(name, "undefined"))
             if r is None else fixed(r))
            for name, r in sorted((metrics.get("correlations") or {}).items())
        ],
        "metric_notes": metric_notes.items,
        "williams": williams_table(metrics),
    }


def _metric_williams(significance: Mapping | None) -> dict | None:
    """The Williams test between the uploaded metrics (the JSON's ``metric_significance``): its p-value matrix, or
    why it was skipped; None without uploaded metrics."""
    if not significance:
        return None
    return {"table": williams_table(significance) if "p_values" in significance else None,
            "skipped": significance.get("skipped")}


def williams_table(significance: Mapping, names: Mapping[str, str] | None = None) -> dict:
    """The p-value matrix of a Williams test between metrics (N19 section 6; the contract's ``SIGNIFICANCE``): the
    one-sided p-value that the row metric correlates better with the human scores than the column metric, metrics
    by name, shown by their ``names`` where those have them."""
    metrics = sorted(significance.get("p_values") or {})
    shown_names = [(names or {}).get(metric, metric) for metric in metrics]
    notes = Notes()
    rows = [(shown, [_p_value(significance, a, b, notes) for b in metrics]) for shown, a in zip(shown_names, metrics)]
    return {"names": shown_names, "rows": rows, "notes": notes.items}


def _computed_sweeps(computed: Mapping | None) -> dict[str, list[Mapping]]:
    """The F-beta sweeps of the computed metrics (G15 Figure 3), one curve per metric and human ranking, named
    ``metric (ranking)``."""
    return {
        f"{metric} ({METHOD_NAMES[method]})": sweep
        for method in METHOD_NAMES
        for metric, sweep in sorted(beta_sweeps((computed or {}).get(method) or {}).items())
    }


def _p_value(significance: Mapping, row: str, column: str, notes: Notes) -> str:
    """A cell of the Williams p-value matrix: "–" on the diagonal, with the reason's letter (``notes``) where
    undefined."""
    if row == column:
        return UNDEFINED
    value = significance["p_values"][row][column]
    return notes.undefined(matrix_reason(significance, row, column)) if value is None else fixed(value)


def _computed(computed: Mapping | None) -> dict | None:
    """``computed_metrics.table_context`` of ``metrics_computed`` with each undefined cell of its meta-evaluation
    table as "–" with its reason's letter (``text``), the reasons in its ``notes``; None without it."""
    context = table_context(computed)
    if context is None:
        return None
    notes = Notes()
    for row in context["meta"]:
        for cells in (row["ew"], row["trueskill"], [row["prws"]], [row["tau"]], row["synthetic"]):
            for cell in cells or ():
                if cell is not None and cell["text"] is None:
                    cell["text"] = notes.undefined(cell["reason"])
    return {**context, "notes": notes.items}
