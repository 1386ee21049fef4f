"""Checks of an analysis JSON against its contract, shared by the analysis tests.

- :func:`strict_loads`: JSON parsed strictly (``NaN``, ``Infinity`` and ``-Infinity`` refused).
- :func:`assert_contract`: valid under the JSON Schema of the contract (``ranking.contract_schema``), and every
  ``null`` outside the parameters has a reason beside it (the object's ``reason``, for a matrix of bare numbers
  the sibling ``reasons``, for the Williams tests' correlations ``correlation_reasons``).
- :func:`assert_reports_render`: the HTML, LaTeX, CSV and JSON reports render, and show every undefined number of
  the head-to-head table as "–" with its reason.
"""
from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Iterator
from typing import Any

import jsonschema

from ranking.contract_schema import SCHEMA
from ranking.reports.formats import render_report

BARE_MATRICES = {("per_judge", "correlations", "spearman"), ("per_judge", "correlations", "pearson"),
                 ("metric_significance", "p_values"), ("prws", "metrics", "p_values"),
                 ("metrics_computed", "expected_wins", "metric_significance", "p_values"),
                 ("metrics_computed", "trueskill", "metric_significance", "p_values"),
                 ("metrics_computed", "prws", "p_values")}
"""Matrices of bare numbers (name -> name -> number): their reasons sit in the sibling object ``reasons``."""
BARE_VECTORS = {(*matrix[:-1], "correlations") for matrix in BARE_MATRICES if matrix[-1] == "p_values"}
"""The Williams tests' correlations by metric (name -> number): their reasons sit in ``correlation_reasons``."""


def strict_loads(text: str) -> Any:
    """``json.loads`` that refuses the non-standard constants Python's ``json`` writes for NaN and infinities."""

    def refuse(constant: str) -> None:
        raise ValueError(f"the JSON holds {constant}")

    return json.loads(text, parse_constant=refuse)


def nulls_without_reason(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """Paths of the nulls that have no ``reason`` beside them. Parameters are settings (null there means none);
    the rows of a bare matrix are checked against its ``reasons`` by :func:`assert_contract`."""
    if isinstance(value, dict):
        in_matrix = path[:-1] in BARE_MATRICES or path in BARE_VECTORS
        for key, item in value.items():
            here = (*path, key)
            if item is None:
                if not in_matrix and "reason" not in value:
                    yield here
            elif here != ("parameters",):
                yield from nulls_without_reason(item, here)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if item is None:
                yield (*path, index)
            else:
                yield from nulls_without_reason(item, (*path, index))


def assert_contract(analysis: dict) -> None:
    """The analysis is valid under the contract's JSON Schema and every null has its reason."""
    jsonschema.Draft202012Validator(SCHEMA).validate(analysis)
    missing = list(nulls_without_reason(analysis))
    assert not missing, f"nulls without a reason: {missing[:5]}"
    for matrix, holder, rows in _present(analysis, BARE_MATRICES):
        reasons = holder.get("reasons", {})
        for row, cells in rows.items():
            for column, cell in cells.items():
                assert (cell is None) == (column in reasons.get(row, {})), (matrix, row, column)
    for vector, holder, values in _present(analysis, BARE_VECTORS):
        reasons = holder.get("correlation_reasons", {})
        for name, value in values.items():
            assert (value is None) == (name in reasons), (vector, name)


def _present(analysis: dict, paths: set[tuple]) -> Iterator[tuple[tuple, dict, Any]]:
    """``(path, holder, value)`` of each of ``paths`` the analysis has: the object holding its last key, and the
    value there."""
    for path in paths:
        holder = _get(analysis, path[:-1])
        if holder is not None and path[-1] in holder:
            yield path, holder, holder[path[-1]]


def _get(value: Any, path: tuple) -> Any:
    for key in path:
        if not isinstance(value, dict) or value.get(key) is None:
            return None
        value = value[key]
    return value


def undefined_head_to_head(analysis: dict) -> list[tuple[str, str, str]]:
    """``(row, column, reason)`` of the head-to-head cells without a share."""
    return [
        (row, column, cell["reason"])
        for row, cells in analysis["head_to_head"].items() for column, cell in cells.items()
        if cell["share"] is None
    ]


def undefined_mark(letter: str) -> str:
    """The HTML report's markup of an undefined number whose reason is its table's note ``letter``."""
    return (f'<span class="undefined"><span aria-hidden="true">–<sup>{letter}</sup></span>'
            f'<span class="visually-hidden">undefined, see note {letter}</span></span>')


def html_note(letter: str, reason: str) -> str:
    """The HTML report's note under a table that gives ``reason`` for the undefined numbers marked ``letter``."""
    return f"<span><sup>{letter}</sup> {html.escape(reason)}.</span>"


def assert_reports_render(analysis: dict) -> dict[str, str]:
    """Render every report format; undefined head-to-head cells show "–" with their reason (in the HTML, a note
    under the table, as visible text). Returns the texts."""
    reports = {name: render_report(analysis, name) for name in ("html", "latex", "csv", "json")}
    reports["standalone"] = render_report(analysis, "latex", standalone=True)
    assert strict_loads(reports["json"]) == analysis
    undefined = undefined_head_to_head(analysis)
    rows = list(csv.DictReader(io.StringIO(reports["csv"])))
    for row, column, reason in undefined:
        assert f"</sup> {html.escape(reason)}.</span>" in reports["html"]
        assert reason in reports["latex"]
        (cell,) = [r for r in rows if r["section"] == "head_to_head" and r["system"] == row and r["opponent"] == column]
        assert (cell["share"], cell["p_value"], cell["reason"]) == ("–", "–", reason)
    return reports
