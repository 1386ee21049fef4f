"""CSV rows of the meta-evaluation of metrics, shared by the uploaded metrics' sections (``beta_sweep``,
``prws_williams``) and the computed metrics' (``computed_beta_sweep``, ``computed_williams``; ``computed_metrics``).

- :func:`beta_sweep_rows`: G15 Figure 3, the correlations of M2 F-beta with the human ranking at every beta of the
  sweep: metric, beta, spearman, pearson.
- :func:`williams_rows`: N19 section 6 (METHODS 12), the one-sided Williams test that the row metric correlates
  better with the human scores than the other metric: metric, other_metric, p_value.

An undefined number is None with its reason in the row's ``reason`` (the CSV report writes it "–").
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping

from .formatting import matrix_reason
from .tables import beta_sweeps

Row = dict[str, object]


def beta_sweep_rows(section: str, holder: Mapping, **labels: str) -> Iterator[Row]:
    """One row per point of each F-beta sweep of ``holder`` (``tables.beta_sweeps``), metrics by name, betas
    rising; ``labels`` fill further columns of every row (``method``)."""
    for name, sweep in sorted(beta_sweeps(holder).items()):
        for point in sweep:
            yield {"section": section, **labels, "metric": name, **point}


def williams_rows(section: str, significance: Mapping, **labels: str) -> Iterator[Row]:
    """One row per ordered pair of metrics of the Williams test ``significance`` (the contract's ``SIGNIFICANCE``),
    by name; an undefined p-value with the reason of its cell. None when the test was skipped."""
    for name, row in sorted((significance.get("p_values") or {}).items()):
        for other, p_value in sorted(row.items()):
            if other != name:
                reason = {"reason": matrix_reason(significance, name, other)} if p_value is None else {}
                yield {"section": section, **labels, "metric": name, "other_metric": other, "p_value": p_value,
                       **reason}
