"""The content of the report tables, independent of the output format: which rows, in which order.

Orders never come from the key order of the analysis dict (a result read back from PostgreSQL's jsonb has its keys
re-sorted): systems follow the Expected Wins ranking (Table 3d: its full-data scores, as G15's ``head2head.pl``),
judges their sorted names, as the analysis computed them.
"""
from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import groupby

from ranking.core.agreement import MIN_COMPARISONS

from .formatting import is_missing
from .provenance import METHOD_NAMES

KAPPA_BANDS = (0.20, 0.40, 0.60, 0.80)
KAPPA_DEGREES = ("Slight", "Weak", "Moderate", "Substantial", "Almost perfect")
"""Landis and Koch (1977) bands of kappa: <0 poor, 0-.20, .21-.40, .41-.60, .61-.80, .81-1. G15 Table 2 names
the .21-.40 band "Weak" (Landis and Koch: "fair"); the reports follow G15."""
DEGREES = ("Poor", *KAPPA_DEGREES)
"""Every degree :func:`agreement_degree` gives, from the lowest."""

TABLE_5_BETAS = (1.0, 0.5, 0.25, 0.1)
"""The M2 F-beta rows of G15 Table 5 besides the best beta; 0.5 is the official CoNLL-2014 choice."""
OFFICIAL_BETA = 0.5

TABLE_4_ROWS = (("total_order", "Total ordering (non-ties)"), ("clusters", "Bootstrapped clusters"))
"""The accuracies of G15 Table 4, keyed as in the analysis JSON, with the table's labels."""


def unpredictable_pairs(accuracy: Mapping) -> str | None:
    """What G15 Table 4 (``accuracy``: the analysis's, by method) did not score, in words, or None when it scored
    every held-out pair: the held-out pairs of a system with no pair in its fold's training data, or with pairs in
    too few of the fold's training runs for a rank range (``ranking.core.accuracy``), per method."""
    counts = {METHOD_NAMES[m]: accuracy[m].get("unpredictable_pairs") or 0 for m in METHOD_NAMES if m in accuracy}
    if not any(counts.values()):
        return None
    said = ", ".join(f"{name} {count}" for name, count in counts.items())
    return (f"Held-out pairs not predicted, because a system of the pair has no pair in its fold's training data, "
            f"or pairs in too few of its training runs for a rank range (left out of both accuracies): {said}.")


def judges(analysis: Mapping) -> list[str]:
    """The analysed judges in the analysis' order (sorted names, ``Rankings.judge_names``)."""
    return sorted(analysis["pairs"]["per_judge"])


def clusters(systems: list[Mapping]) -> list[list[Mapping]]:
    """Ranking rows (in rank order) grouped into their clusters, first cluster first."""
    return [list(rows) for _, rows in groupby(systems, key=lambda row: row["cluster"])]


def agreement_degree(kappa: float | None) -> str:
    """The degree of agreement of ``kappa`` as G15 Table 2 words it (Landis and Koch bands, ``KAPPA_DEGREES``),
    judged on the value as printed (two decimals); ``""`` when kappa is undefined."""
    if is_missing(kappa):
        return ""
    printed = round(kappa, 2)
    return DEGREES[0] if printed < 0 else KAPPA_DEGREES[bisect_left(KAPPA_BANDS, printed)]


def too_few_comparisons(cell: Mapping) -> bool:
    """A cell of the agreement matrix that G15 Table 2 stars: fewer than ``MIN_COMPARISONS`` comparisons."""
    return cell["comparisons"] < MIN_COMPARISONS


def undefined_kappa(cell: Mapping) -> bool:
    """A cell of the agreement matrix with enough comparisons but no kappa (every relation the same, so chance
    agreement is 1): shown as undefined with the cell's reason, not starred as too few."""
    return not too_few_comparisons(cell) and is_missing(cell["kappa"])


def beta_sweeps(holder: Mapping) -> dict[str, list[Mapping]]:
    """The F-beta sweeps (G15 Figure 3) of ``holder``, the analysis or one of the human rankings of its
    ``metrics_computed`` (the contract's ``METRIC_CORRELATIONS``), by metric: its ``beta_sweeps``, or in analyses
    stored before those, its M2 ``beta_sweep``; empty without a sweep."""
    return holder.get("beta_sweeps") or ({"m2": holder["beta_sweep"]} if holder.get("beta_sweep") else {})


@dataclass(frozen=True)
class MetricRow:
    """A row of G15 Table 5: ``metric`` is a metric file's name; ``beta`` is set on the M2 F-beta sweep rows.

    ``notes`` says why a sweep row is there besides the fixed betas: ``official`` (beta = 0.5), ``max_spearman``,
    ``max_pearson``. ``reason`` says why a correlation is undefined (None).
    """

    metric: str
    spearman: float | None
    pearson: float | None
    beta: float | None = None
    notes: tuple[str, ...] = ()
    reason: str | None = None


def metric_rows(analysis: Mapping) -> list[MetricRow]:
    """G15 Table 5: with a beta sweep, M2 at beta 1.0, 0.5, 0.25, the beta of the best Spearman (and of the best
    Pearson where that differs) and 0.1, by decreasing beta; then every other metric (other M2 files at their own
    F column), by name. Without a sweep, every metric by name. Empty without metrics. ``analysis`` may also be one
    human ranking of the analysis' ``metrics_computed`` (the same ``metrics`` and ``beta_sweep`` keys)."""
    metrics = analysis.get("metrics") or {}
    sweep = analysis.get("beta_sweep") or []
    rows: list[MetricRow] = []
    if sweep:
        notes: dict[float, list[str]] = {beta: [] for beta in TABLE_5_BETAS}
        notes[OFFICIAL_BETA].append("official")
        for statistic in ("spearman", "pearson"):
            defined = [point for point in sweep if not is_missing(point[statistic])]
            if defined:
                best = max(defined, key=lambda point: point[statistic])  # the smallest beta on a tie, as the grid rises
                notes.setdefault(round(best["beta"], 2), []).append(f"max_{statistic}")
        by_beta = {round(point["beta"], 2): point for point in sweep}
        for beta in sorted(notes, reverse=True):
            if beta in by_beta:
                point = by_beta[beta]
                rows.append(MetricRow("m2", point["spearman"], point["pearson"], beta, tuple(notes[beta]),
                                      point.get("reason")))
    rows.extend(
        MetricRow(name, values["spearman"], values["pearson"], reason=values.get("reason"))
        for name, values in sorted(metrics.items())
        if not (sweep and name == "m2")
    )
    return rows
