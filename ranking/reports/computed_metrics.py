"""The report's part for ``metrics_computed`` (``ranking.metric_evaluation``): the metrics computed from the
campaign's references, per system, and their meta-evaluation against the human judgments.

``table_context`` gives the HTML report's rows (strings, an undefined number as ``None`` with its reason);
``csv_rows`` the CSV report's sections:

- ``computed_score``: metric, system, key (score, precision, recall), value
- ``computed_type`` (ERRANT): metric, system, key (error type and tp, fp or fn), value
- ``computed_correlation``: metric, method (expected_wins, trueskill), spearman, pearson (G15 Table 5);
  ``computed_beta_sweep``: method, metric, beta, spearman, pearson (the F-beta sweep from the metric's precision
  and recall, G15 Figure 3, as the ``beta_sweep`` rows); ``computed_prws``: metric, pearson (with the PRWS means,
  N19 section 6)
- ``computed_williams``: method (expected_wins, trueskill, prws: the human scores), metric, other_metric, p_value
  (the Williams test between the metrics, N19 section 6, as the ``prws_williams`` rows); a test that was skipped
  gives one row with its method and the reason
- ``computed_sentence_tau``: metric, key (tau, concordant, discordant, metric_ties), value (WMT relative ranking)
- ``computed_synthetic``: metric, key (real, with_synthetic), pearson, value (systems correlated; N19 section 5.2)
- ``computed_skipped``: metric, reason
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping

from .formatting import fixed, reason_for
from .metric_csv import beta_sweep_rows, williams_rows

Row = dict[str, object]
METHODS = ("expected_wins", "trueskill")
"""The human rankings the computed metrics are correlated with (``metrics_computed``'s keys)."""
NAMES = {"m2": "M2 F0.5", "gleu": "GLEU", "chrf": "chrF++", "errant": "ERRANT F0.5"}
"""How the report names the computed metrics."""


def _reason(holder: Mapping, field: str) -> dict:
    return {"reason": reason_for(holder, field)} if holder.get(field) is None else {}


def csv_rows(computed: Mapping) -> Iterator[Row]:
    """The CSV rows of ``metrics_computed`` (module docstring)."""
    for metric, systems in computed["scores"].items():
        for system, values in systems.items():
            for key, value in values.items():
                if key != "types":
                    yield {"section": "computed_score", "metric": metric, "system": system, "key": key,
                           "value": value}
            for error_type, counts in values.get("types", {}).items():
                for key, value in zip(("tp", "fp", "fn"), counts):
                    yield {"section": "computed_type", "metric": metric, "system": system,
                           "key": f"{error_type} {key}", "value": value}
    for method in METHODS:
        for metric, values in (computed.get(method) or {}).get("metrics", {}).items():
            yield {"section": "computed_correlation", "metric": metric, "method": method,
                   "spearman": values["spearman"], "pearson": values["pearson"], **_reason(values, "pearson")}
    for method in METHODS:
        yield from beta_sweep_rows("computed_beta_sweep", computed.get(method) or {}, method=method)
    prws = computed.get("prws") or {}
    for metric, r in (prws.get("correlations") or {}).items():
        reason = {"reason": (prws.get("correlation_reasons") or {}).get(metric)} if r is None else {}
        yield {"section": "computed_prws", "metric": metric, "pearson": r, **reason}
    for method, significance in significance_tests(computed):
        yield from williams_rows("computed_williams", significance, method=method)
        if significance.get("skipped"):
            yield {"section": "computed_williams", "method": method, "reason": significance["skipped"]}
    for metric, tau in computed["sentence_tau"].items():
        for key in ("tau", "concordant", "discordant", "metric_ties"):
            yield {"section": "computed_sentence_tau", "metric": metric, "key": key, "value": tau[key],
                   **_reason(tau, key)}
    for metric, row in (computed.get("synthetic") or {}).get("correlations", {}).items():
        for key in ("real", "with_synthetic"):
            yield {"section": "computed_synthetic", "metric": metric, "key": key, "pearson": row[key]["pearson"],
                   "value": row[key]["systems"], **_reason(row[key], "pearson")}
    for metric, reason in (computed.get("skipped") or {}).items():
        yield {"section": "computed_skipped", "metric": metric, "reason": reason}


def significance_tests(computed: Mapping) -> list[tuple[str, Mapping]]:
    """The Williams tests between the computed metrics (N19 section 6) that ``computed`` holds, each with the
    human scores it is on: ``expected_wins`` and ``trueskill`` (their ``metric_significance``), then ``prws``."""
    tests = [(method, (computed.get(method) or {}).get("metric_significance")) for method in METHODS]
    return [(method, test) for method, test in [*tests, ("prws", computed.get("prws"))] if test]


def _number(holder: Mapping, field: str, places: int = 3) -> dict:
    """``{"text": ..., "reason": ...}`` of one number: the text when defined, else the reason."""
    value = holder.get(field)
    return {"text": None, "reason": reason_for(holder, field)} if value is None else {"text": fixed(value, places)}


def table_context(computed: Mapping | None) -> dict | None:
    """The HTML report's rows for ``metrics_computed`` (None without it): the scores per system and metric, then
    per metric the correlations with the human rankings, the sentence-level tau and the synthetic systems."""
    if not computed:
        return None
    metrics = list(computed["scores"])
    systems = sorted({system for scores in computed["scores"].values() for system in scores})
    synthetic = computed.get("synthetic") or {}
    prws = (computed.get("prws") or {}).get("correlations") or {}
    prws_reasons = (computed.get("prws") or {}).get("correlation_reasons") or {}
    meta = []
    for metric in metrics:
        ew = (computed.get("expected_wins") or {}).get("metrics", {}).get(metric)
        trueskill = (computed.get("trueskill") or {}).get("metrics", {}).get(metric)
        row = synthetic.get("correlations", {}).get(metric)
        meta.append({
            "name": NAMES.get(metric, metric),
            "ew": [_number(ew, "spearman"), _number(ew, "pearson")] if ew else None,
            "trueskill": [_number(trueskill, "spearman"), _number(trueskill, "pearson")] if trueskill else None,
            "prws": None if metric not in prws else (
                {"text": None, "reason": prws_reasons.get(metric, "undefined")} if prws[metric] is None
                else {"text": fixed(prws[metric])}
            ),
            "tau": _number(computed["sentence_tau"][metric], "tau"),
            "synthetic": [_number(row["real"], "pearson"), _number(row["with_synthetic"], "pearson")] if row else None,
        })
    return {
        "metrics": [NAMES.get(metric, metric) for metric in metrics],
        "scores": [
            (system, [_score(computed["scores"][metric].get(system)) for metric in metrics]) for system in systems
        ],
        "meta": meta,
        "ranking": any(row["ew"] for row in meta),
        "prws": bool(prws),
        "synthetic": synthetic.get("systems"),
        "synthetic_reason": synthetic.get("reason"),
        "skipped": [(NAMES.get(metric, metric), reason) for metric, reason in (computed.get("skipped") or {}).items()],
    }


def _score(values: Mapping | None) -> str:
    """A system's score as the report prints it: four decimals, M2's with precision and recall."""
    if values is None:
        return ""
    if "precision" in values:
        return f"{values['score']:.4f} (P {values['precision']:.4f}, R {values['recall']:.4f})"
    return f"{values['score']:.4f}"
