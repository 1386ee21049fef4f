"""Plots of an analysis as inline SVG for the HTML report (matplotlib, no pyplot state, no files).

- :func:`rank_ranges_plot`: each system's bootstrap rank range as a horizontal bar, one colour per cluster (G15
  Tables 3b, 3c as a picture).
- :func:`head_to_head_plot`: the heat map of G15 Table 3d.
- :func:`agreement_plot`: the per-judge kappa matrix of G15 Table 2b, coloured by Landis and Koch band.
- :func:`beta_sweep_plot`: Spearman's rho and Pearson's r of M2 F-beta against beta, one curve per M2 file (or per
  computed metric and human ranking), a dashed line at the CoNLL-2014 choice 0.5 (G15 Figure 3).
- :func:`prws_scores_plot`: the PRWS mean score of each system (N19 Table 6 as a picture).
- :func:`prws_distribution_plot`: the distribution of each system's PRWS sentence scores as a box plot.

The SVG is made to sit inside an HTML page: no XML prologue, metadata or namespace declarations (so the report
names no URL at all), ids prefixed with the plot's name so that several plots on a page never share one, text kept
as text (searchable, and escaped by matplotlib), and sizes in CSS pixels that a stylesheet can scale down.
"""
from __future__ import annotations

import io
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import matplotlib
import numpy as np
from matplotlib.colors import BoundaryNorm, ListedColormap, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Patch, Rectangle
from matplotlib.textpath import text_to_path

from ranking.contract import head_to_head_order
from ranking.contract_schema import DISTRIBUTION_KEYS
from ranking.core.significance import significance_mark

from .formatting import UNDEFINED, is_missing, short
from .provenance import METHOD_NAMES
from .tables import DEGREES, agreement_degree, judges, too_few_comparisons, undefined_kappa

DEGREE_COLOURS = ("#f4cccc", "#f7fbff", "#d6e6f4", "#9ecae1", "#3182bd", "#08519c")
"""The colours of the agreement degrees (``tables.DEGREES``), poor to almost perfect."""

CLUSTER_COLOURS = (
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
)
"""One colour per cluster (Tableau 10); clusters beyond ten reuse them in order."""

STYLE = {
    "svg.fonttype": "none",
    "text.parse_math": False,
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
}
"""Matplotlib settings of every plot: text as SVG text, never parsed as mathtext (system names may hold ``$``)."""

PX_PER_PT = 4 / 3

RANK_PANEL_INCHES = 3.9
"""Width of a rank-range panel's plot area, its cluster numbers and margins, without the system names."""
MAX_PLOT_INCHES = 11.0
"""The widest a row of rank-range panels gets before they stack (about the report's column, 1,056 CSS pixels)."""
MAX_RANK_LABELS = 14
"""The most rank numbers along a rank-range panel's x axis (two-digit numbers, apart, in its plot area)."""
SCORE_PLOT_INCHES = 5.9
"""Width of a PRWS score plot's area and margins, without the system names."""


def cluster_colour(cluster: int) -> str:
    """The colour of cluster ``cluster`` (numbered from 1) in plots and tables."""
    return CLUSTER_COLOURS[(cluster - 1) % len(CLUSTER_COLOURS)]


def rank_ranges_plot(rankings: Mapping[str, Sequence[Mapping]]) -> str:
    """One panel per method (``{method: systems in rank order}``): a bar from the low to the high end of each
    system's rank range, coloured by cluster, a dot at its place in the ranking, dashed lines between clusters and
    the cluster numbers on the right. Systems never judged (no range) are named without a bar.

    Each panel is as wide as its plot area (:data:`RANK_PANEL_INCHES`) and the widest system name; the panels sit
    side by side when that fits in :data:`MAX_PLOT_INCHES`, else one below the other, so that names of any length
    (up to 100 characters) neither squeeze the plot area away nor run into the next panel. At most
    :data:`MAX_RANK_LABELS` ranks are numbered along x (every rank keeps its grid line)."""
    n_systems = max([len(systems) for systems in rankings.values()] + [1])
    with _style("rank-ranges"):
        names = [row["system"] for systems in rankings.values() for row in systems]
        panel = RANK_PANEL_INCHES + names_width(names)
        columns = max(1, min(len(rankings), int(MAX_PLOT_INCHES // panel)))
        panel_rows = -(-max(len(rankings), 1) // columns)
        figure = Figure(figsize=(panel * columns, (0.3 * n_systems + 1.2) * panel_rows), layout="constrained")
        grid = figure.subplots(panel_rows, columns, squeeze=False).flat
        for axes, (method, systems) in zip(grid, rankings.items()):
            y = np.arange(len(systems))
            ranked = [row for row in systems if row["range"] is not None]
            lo = np.array([row["range"][0] for row in ranked], dtype=float)
            hi = np.array([row["range"][1] for row in ranked], dtype=float)
            colours = [cluster_colour(row["cluster"]) for row in ranked]
            axes.barh(y[:len(ranked)], hi - lo + 0.8, left=lo - 0.4, height=0.62, color=colours)
            axes.plot(y[:len(ranked)] + 1, y[:len(ranked)], "o", color="#1d2330", markersize=3.5)
            for k in np.flatnonzero(np.diff([row["cluster"] for row in ranked])):
                axes.axhline(k + 0.5, color="#5b6474", linestyle="--", linewidth=0.7)
            axes.set_yticks(y, [row["system"] for row in systems])
            axes.set_ylim(max(len(systems), 1) - 0.5, -0.5)
            axes.set_xlim(0.3, n_systems + 0.7)
            axes.set_xticks(np.arange(1, n_systems + 1, -(-n_systems // MAX_RANK_LABELS)))
            axes.set_xticks(np.arange(1, n_systems + 1), minor=True)
            axes.tick_params(axis="x", which="minor", length=0)
            axes.set_xlabel("Rank")
            axes.grid(axis="x", which="both", color="#e3e6ec", linewidth=0.6)
            axes.set_axisbelow(True)
            axes.set_title(METHOD_NAMES.get(method, method))
            cluster_of = np.array([row["cluster"] for row in ranked], dtype=np.int64)
            for cluster in np.unique(cluster_of):
                rows = np.flatnonzero(cluster_of == cluster)
                axes.text(1.01, rows.mean(), str(cluster), transform=axes.get_yaxis_transform(), va="center",
                          fontweight="bold", color=cluster_colour(int(cluster)))
        for axes in list(grid):
            axes.remove()  # the grid's cells left over when the panels stack (an odd number of methods)
        return _svg(figure, "rank-ranges", "Rank ranges and clusters of the systems")


SHORT_NAME_INCHES = 0.6
"""The room a heat map's margins leave its row and column names (about 8 characters at 9 pt)."""


def _longer_than_short(names: Sequence[str]) -> float:
    """How much wider (inches) the widest of ``names`` is than a heat map's margins leave its names
    (:data:`SHORT_NAME_INCHES`): the heat maps grow by that much across and down, for the row names on the left and
    the column names standing on top, so that long names (crowd judges are ``crowd-<campaign>-<platform>-<id>``,
    about 40 characters; system names up to 100) neither squeeze the cells nor run off the figure."""
    return max(0.0, names_width(names) - SHORT_NAME_INCHES)


def names_width(names: Sequence[str]) -> float:
    """The width in inches of the widest of ``names`` as a tick label in the current style (0 without names)."""
    font = FontProperties(size=matplotlib.rcParams["ytick.labelsize"])  # "medium": the font size
    widths = [text_to_path.get_text_width_height_descent(name, font, ismath=False)[0] for name in names]
    return max(widths, default=0.0) / 72


def head_to_head_plot(analysis: Mapping) -> str:
    """G15 Table 3d as a heat map: cell (row, column) is the share of decided judgments the column won, blue where
    the column won, red where the row won, labelled with the share and its sign-test mark; blank where the two
    were never compared decisively. Rows and columns in the order of G15 Table 3d (``head_to_head_order``)."""
    order = head_to_head_order(analysis)
    h2h = analysis["head_to_head"]
    n = len(order)
    share = np.full((n, n), np.nan)
    labels = np.full((n, n), "", dtype=object)
    for i, row in enumerate(order):
        for j, column in enumerate(order):
            cell = h2h.get(row, {}).get(column)
            if i != j and cell is not None and not is_missing(cell["share"]):
                share[i, j] = cell["share"]
                p_value = float("nan") if cell["p_value"] is None else cell["p_value"]
                labels[i, j] = short(cell["share"]) + significance_mark(p_value)
    spread = max(float(np.nanmax(np.abs(share - 0.5))) if np.isfinite(share).any() else 0.0, 0.05)
    with _style("head-to-head"):
        size = 0.42 * n + 2.2 + _longer_than_short(order)
        figure = Figure(figsize=(size + 0.8, size), layout="constrained")
        axes = figure.subplots()
        image = _heat_map(axes, share, "RdBu", TwoSlopeNorm(0.5, 0.5 - spread, 0.5 + spread))
        for i, j in zip(*np.nonzero(labels != "")):
            dark = abs(share[i, j] - 0.5) > 0.6 * spread
            axes.text(j, i, labels[i, j], ha="center", va="center", fontsize=7.5, color="white" if dark else "#1d2330")
        _matrix_axes(axes, order, order)
        axes.set_xlabel("Column system")
        colourbar = figure.colorbar(image, ax=axes, shrink=0.7)
        colourbar.solids.set_rasterized(False)  # vector, not an embedded bitmap, with no seams between its cells:
        colourbar.solids.set_edgecolor("face")
        colourbar.set_label("Share of judgments won by the column system")
        _row_label(figure, axes, "Row system")
        return _svg(figure, "head-to-head", "Head-to-head heat map")


def agreement_plot(analysis: Mapping) -> str:
    """G15 Table 2b as a heat map: kappa of each judge pair (upper triangle, intra-annotator on the diagonal),
    coloured by its degree (Landis and Koch band, as Table 2a words it); grey with a star where there are too few
    comparisons, grey with "–" where kappa is undefined on enough of them."""
    names = judges(analysis)
    matrix = analysis["agreement"]["matrix"]
    n = len(names)
    degree = np.full((n, n), np.nan)
    labels = {}
    for i, judge in enumerate(names):
        for j in range(i, n):
            cell = matrix[judge][names[j]]
            if too_few_comparisons(cell):
                labels[i, j] = "*"
            elif undefined_kappa(cell):
                labels[i, j] = UNDEFINED
            else:
                degree[i, j] = DEGREES.index(agreement_degree(cell["kappa"]))
                labels[i, j] = short(cell["kappa"])
    colours = ListedColormap(DEGREE_COLOURS)
    with _style("agreement"):
        size = 0.55 * n + 2.0 + _longer_than_short(names)
        figure = Figure(figsize=(size + 1.8, size), layout="constrained")
        axes = figure.subplots()
        _heat_map(axes, degree, colours, BoundaryNorm(np.arange(len(DEGREES) + 1) - 0.5, colours.N))
        for (i, j), label in labels.items():
            if label in ("*", UNDEFINED):
                axes.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, color="#e3e6ec"))
            light = np.isfinite(degree[i, j]) and degree[i, j] >= DEGREES.index("Substantial")
            axes.text(j, i, label, ha="center", va="center", fontsize=8, color="white" if light else "#1d2330")
        _matrix_axes(axes, names, names)
        # A legend rather than a colour bar: constrained layout gives a colour bar with long tick labels too
        # little room and clips the judge names.
        figure.legend(
            handles=[Patch(facecolor=c, edgecolor="#9aa3b2", linewidth=0.5, label=d)
                     for c, d in zip(DEGREE_COLOURS[::-1], DEGREES[::-1])],
            loc="outside right upper", title="Cohen's κ", fontsize=8, title_fontsize=8, frameon=False,
        )
        return _svg(figure, "agreement", "Agreement matrix of the judges")


def beta_sweep_plot(sweeps: Mapping[str, Sequence[Mapping]], name: str = "beta-sweep",
                    label: str = "Correlation of M2 with the human ranking against beta") -> str:
    """G15 Figure 3: Spearman's rho (top) and Pearson's r (bottom) of M2 F-beta with the human ranking against
    beta, one curve per M2 file (``{curve's name: sweep points}``), a dashed line at beta = 0.5. ``name`` prefixes
    the plot's SVG ids (one per plot on a page), ``label`` is its accessible name."""
    with _style(name):
        figure = Figure(figsize=(6.4, 4.8), layout="constrained")
        top, bottom = figure.subplots(2, 1, sharex=True)
        for curve, sweep in sorted(sweeps.items()):
            betas = [point["beta"] for point in sweep]
            top.plot(betas, _values(sweep, "spearman"), label=curve, linewidth=1.4)
            bottom.plot(betas, _values(sweep, "pearson"), label=curve, linewidth=1.4)
        for axes, statistic in ((top, "Spearman's ρ"), (bottom, "Pearson's r")):
            axes.axvline(0.5, color="#5b6474", linestyle="--", linewidth=0.9)
            axes.set_ylabel(statistic)
            axes.grid(color="#e3e6ec", linewidth=0.6)
        bottom.set_xlabel("β")
        bottom.set_xlim(0, 1)
        top.legend(fontsize=8, frameon=False)
        return _svg(figure, name, label)


def prws_scores_plot(systems: Sequence[Mapping]) -> str:
    """The mean PRWS score (0-100) of each system as a horizontal bar, best first, control systems in grey; as wide
    as the plot area (:data:`SCORE_PLOT_INCHES`) and the widest system name."""
    with _style("prws-scores"):
        width = SCORE_PLOT_INCHES + names_width([row["system"] for row in systems])
        figure = Figure(figsize=(width, 0.3 * len(systems) + 1.0), layout="constrained")
        axes = figure.subplots()
        y = np.arange(len(systems))
        means = np.array([np.nan if row["mean"] is None else row["mean"] for row in systems], dtype=float)
        colours = ["#bab0ac" if row.get("control") else CLUSTER_COLOURS[0] for row in systems]
        axes.barh(y, np.nan_to_num(means), height=0.62, color=colours)
        for k, mean in enumerate(means):
            if np.isfinite(mean):
                axes.text(mean + 1, k, f"{mean:.1f}", va="center", fontsize=8, color="#1d2330")
        _score_axes(axes, systems, "Mean score (0-100)")
        return _svg(figure, "prws-scores", "Mean PRWS score of each system")


def _score_axes(axes, systems: Sequence[Mapping], label: str) -> None:
    """The axes of a PRWS plot: one row per system, best at the top, scores 0-100 along x with a light grid."""
    axes.set_yticks(np.arange(len(systems)), [row["system"] for row in systems])
    axes.set_ylim(max(len(systems), 1) - 0.5, -0.5)
    axes.set_xlim(0, 100)
    axes.set_xlabel(label)
    axes.grid(axis="x", color="#e3e6ec", linewidth=0.6)
    axes.set_axisbelow(True)


def prws_distribution_plot(systems: Sequence[Mapping]) -> str:
    """The distribution of each system's sentence scores (0-100; ``distribution`` of the analysis JSON) as a
    horizontal box from the lower to the upper quartile with a white line at the median, whiskers to the lowest and
    the highest score and a dot at the mean; best first, as in :func:`prws_scores_plot`, control systems in
    grey."""
    with _style("prws-distribution"):
        width = SCORE_PLOT_INCHES + names_width([row["system"] for row in systems])
        figure = Figure(figsize=(width, 0.34 * len(systems) + 1.0), layout="constrained")
        axes = figure.subplots()
        y = np.arange(len(systems))
        points = np.array([[row["distribution"][key] for key in DISTRIBUTION_KEYS] for row in systems],
                          dtype=float).reshape(len(systems), len(DISTRIBUTION_KEYS))
        lowest, lower, median, upper, highest = points.T
        means = np.array([np.nan if row["mean"] is None else row["mean"] for row in systems], dtype=float)
        colours = ["#bab0ac" if row.get("control") else CLUSTER_COLOURS[0] for row in systems]
        axes.hlines(y, lowest, highest, color="#5b6474", linewidth=0.9)
        for end in (lowest, highest):
            axes.vlines(end, y - 0.16, y + 0.16, color="#5b6474", linewidth=0.9)
        axes.barh(y, upper - lower, left=lower, height=0.56, color=colours, edgecolor="#1d2330", linewidth=0.6)
        axes.vlines(median, y - 0.28, y + 0.28, color="white", linewidth=1.8)
        axes.plot(means, y, "o", color="#1d2330", markersize=3.5)
        _score_axes(axes, systems, "Sentence score (0-100)")
        return _svg(figure, "prws-distribution", "Distribution of the PRWS sentence scores of each system")


def _values(points: Sequence[Mapping], key: str) -> np.ndarray:
    """``point[key]`` of each point as floats, NaN (a gap in the curve) where undefined."""
    return np.array([np.nan if point[key] is None else point[key] for point in points], dtype=float)


def _heat_map(axes, values: np.ndarray, cmap, norm):
    """Cells of ``values`` (NaN left blank) as vector squares centred on integer positions, row 0 at the top
    (``pcolormesh`` rather than ``imshow``, whose SVG is an embedded bitmap)."""
    rows, columns = values.shape
    mesh = axes.pcolormesh(np.arange(columns + 1) - 0.5, np.arange(rows + 1) - 0.5, np.ma.masked_invalid(values),
                           cmap=cmap, norm=norm)
    axes.set_xlim(-0.5, max(columns, 1) - 0.5)
    axes.set_ylim(max(rows, 1) - 0.5, -0.5)
    axes.set_aspect("equal")
    return mesh


def _row_label(figure: Figure, axes, label: str) -> None:
    """``label`` left of ``axes``'s row names, level with the rows' middle, as a figure label: constrained layout
    keeps a figure label inside the figure (at its pad from the left edge), whereas with an equal-aspect heat map
    and its colour bar it left an axis label partly outside (the "Row system" of the head-to-head map drawn at
    x = 5.5 in a 9 pt font: the left of its letters cut off)."""
    text = figure.supylabel(label, fontsize=matplotlib.rcParams["axes.labelsize"])
    figure.draw_without_rendering()  # lays the figure out: the axes' place is known from here on
    box = axes.get_position()
    text.set_y(box.y0 + box.height / 2)  # the layout reserves the label's width and leaves its height where it is


def _matrix_axes(axes, rows: Sequence[str], columns: Sequence[str]) -> None:
    """Labels of a heat map: columns on top, rotated; rows on the left; no spines or ticks."""
    axes.set_xticks(np.arange(len(columns)), columns, rotation=90)
    axes.set_yticks(np.arange(len(rows)), rows)
    axes.xaxis.tick_top()
    axes.xaxis.set_label_position("top")
    axes.tick_params(length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)


@contextmanager
def _style(name: str) -> Iterator[None]:
    """The plots' matplotlib settings, with SVG ids salted by ``name`` so that they are reproducible."""
    with matplotlib.rc_context({**STYLE, "svg.hashsalt": name}):
        yield


def _svg(figure: Figure, name: str, label: str) -> str:
    """``figure`` as an SVG element for inline use (see the module docstring)."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r'\s+xmlns(?::\w+)?="[^"]*"', "", text)
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    text = re.sub(r'\bid="([^"]+)"', rf'id="{name}-\1"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{name}-\1)", text)
    text = re.sub(r'href="#([^"]+)"', rf'href="#{name}-\1"', text)

    def size(match: re.Match) -> str:
        width, height = (float(match.group(k)) * PX_PER_PT for k in (1, 2))
        return f'<svg class="plot" role="img" aria-label="{label}" width="{width:.0f}" height="{height:.0f}"'

    return re.sub(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', size, text, count=1).strip()
