"""The HTML report: one self-contained page with the rankings, the plots and every name escaped."""
from __future__ import annotations

import html
import re
from collections import Counter

import numpy as np
import pytest
from playwright.sync_api import expect

from ranking import contract
from ranking.core.analysis import AnalysisParameters, analyze, bootstrap_samples
from ranking.core.pairs import expanded_pairs
from ranking.core.rankings import Rankings
from ranking.reports.html import render_html
from ranking.reports.plots import cluster_colour, head_to_head_plot, rank_ranges_plot
from tests.ranking.contract_checks import html_note, undefined_mark

SVG = re.compile(r"<svg\b[^>]*>.*?</svg>", flags=re.S)


def plot_labels(page: str) -> list[str]:
    return re.findall(r'<svg class="plot" role="img" aria-label="([^"]+)"', page)


def test_the_page_requests_nothing_from_outside(full_analysis):
    page = render_html(full_analysis)
    assert "http://" not in page and "https://" not in page
    assert not re.search(r"\b(src|srcset)\s*=", page)
    assert "<link" not in page and "<script" not in page and "@import" not in page
    assert all(target.startswith("#") for target in re.findall(r'href="([^"]*)"', page))
    assert all(target.startswith("#") for target in re.findall(r"url\(([^)]*)\)", page))


def test_it_holds_the_plots_and_every_id_once(full_analysis, plain_analysis):
    page = render_html(full_analysis)
    assert plot_labels(page) == [
        "Rank ranges and clusters of the systems", "Head-to-head heat map", "Agreement matrix of the judges",
        "Correlation of M2 with the human ranking against beta",
    ]
    ids = Counter(re.findall(r'\bid="([^"]+)"', page))
    assert ids and max(ids.values()) == 1, [i for i, n in ids.items() if n > 1][:5]
    assert all(target[1:] in ids for target in re.findall(r'href="(#[^"]+)"', page))
    assert all(target[1:] in ids for target in re.findall(r"url\((#[^)]+)\)", page))
    assert len(plot_labels(render_html(plain_analysis))) == 3


def test_names_are_escaped_in_tables_and_plots(full_analysis):
    page = render_html(full_analysis)
    assert "A&B_<x>" not in page and "cyd & co" not in page
    assert "A&amp;B_&lt;x&gt;" in page and "cyd &amp; co" in page
    for svg in SVG.findall(page):
        texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
        if "Rank ranges" in svg[:200]:
            assert set(texts) >= {s["system"] for s in full_analysis["expected_wins"]["systems"]}  # m$u$ not mathtext


def test_rank_ranges_colour_each_cluster(full_analysis):
    rankings = {m: full_analysis[m]["systems"] for m in ("expected_wins", "trueskill")}
    svg = rank_ranges_plot(rankings)
    for systems in rankings.values():
        for cluster in {row["cluster"] for row in systems}:
            assert f"fill: {cluster_colour(cluster)}" in svg


def test_every_table_scrolls_in_its_own_box(full_analysis, prws_analysis):
    """A table wider than a phone scrolls inside its wrapper, never the page (tests/browser/test_narrow_windows.py
    measures the page)."""
    for analysis in (full_analysis, prws_analysis):
        page = render_html(analysis)
        tables = re.findall(r"(.{0,26})<table\b", page)
        assert tables and all(before == '<div class="table-scroll">' for before in tables), tables


def test_summary_tables_and_sections(full_analysis):
    page = render_html(full_analysis)
    for label, value in (("Campaign", "synthetic"), ("Random seed", "3"), ("Last judgment id", "4321"),
                         ("Bootstrap samples per method", "200")):
        assert f"<dt>{label}</dt><dd>{value}</dd>" in page
    for section in ("rankings", "head-to-head", "pairs", "agreement", "metrics", "accuracy", "judges"):
        assert f'<section id="{section}">' in page
    first = full_analysis["trueskill"]["systems"][0]
    assert f'<td class="num">{first["score"]:.3f}</td>' in page


def computed_section(page: str) -> str:
    return page.split('<section id="metrics-computed">')[1].split("</section>")[0]


def williams_cells(section: str, table_id: str) -> dict[tuple[str, str], str]:
    """The cells of a Williams p-value table: (row metric, column metric) -> the cell's markup."""
    table = section.split(f'id="{table_id}"')[1].split("</table>")[0]
    columns = re.findall(r'<th scope="col">([^<]*)</th>', table)
    return {
        (row, column): cell
        for row, cells in re.findall(r'<tr><th scope="row">([^<]*)</th>(.*?)</tr>', table)
        for column, cell in zip(columns, re.findall(r"<td>(.*?)</td>", cells))
    }


def test_computed_metrics_show_their_beta_sweep_and_williams_tests(computed_analysis, prws_computed_analysis):
    """``metrics_computed``'s F-beta sweeps (G15 Figure 3) as a plot and its Williams tests (N19 section 6) as
    p-value tables, as the report shows the uploaded metrics' sweep and the PRWS metrics' Williams test."""
    computed = computed_analysis["metrics_computed"]
    page = render_html(computed_analysis)
    section = computed_section(page)
    assert plot_labels(section) == ["Correlation of the computed metrics' F-beta with the human rankings against beta"]
    svg = next(svg for svg in SVG.findall(section))
    texts = {html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)}
    assert {"m2 (Expected Wins)", "m2 (TrueSkill)"} <= texts
    for plot, prefix in ((svg, "computed-beta-sweep-"), (SVG.findall(page.split('id="metrics"')[1])[0], "beta-sweep-")):
        plot_ids = re.findall(r'\bid="([^"]+)"', plot)
        assert plot_ids and all(i.startswith(prefix) for i in plot_ids), plot_ids[:3]
    ids = Counter(re.findall(r'\bid="([^"]+)"', page))
    assert max(ids.values()) == 1, [i for i, n in ids.items() if n > 1][:5]
    names = {"m2": "M2 F0.5", "gleu": "GLEU", "chrf": "chrF++"}
    for method in ("expected_wins", "trueskill"):
        p_values = computed[method]["metric_significance"]["p_values"]
        assert williams_cells(section, f"computed-williams-{method}") == {
            (names[a], names[b]): "–" if a == b else f"{p_values[a][b]:.3f}" for a in names for b in names
        }
    prws = prws_computed_analysis["metrics_computed"]["prws"]["p_values"]
    cells = williams_cells(computed_section(render_html(prws_computed_analysis)), "computed-williams-prws")
    assert {pair: cell for pair, cell in cells.items() if pair[0] != pair[1]} == {
        (names[a], names[b]): f"{prws[a][b]:.3f}" for a in names for b in names if a != b}


def test_undefined_computed_williams_tests_give_their_reason(computed_analysis):
    computed = computed_analysis["metrics_computed"]
    ew = computed["expected_wins"]
    significance = {**ew["metric_significance"], "p_values": {"gleu": {"m2": None}, "m2": {"gleu": 0.25}},
                    "reasons": {"gleu": {"m2": "the metrics correlate perfectly"}}}
    skipped = {"systems": ["a", "b"], "skipped": "the Williams test needs more than 3 systems with metric scores"}
    analysis = {**computed_analysis, "metrics_computed": {
        **computed,
        "expected_wins": {**ew, "metric_significance": significance},
        "trueskill": {**computed["trueskill"], "metric_significance": skipped},
    }}
    section = computed_section(render_html(analysis))
    cells = williams_cells(section, "computed-williams-expected_wins")
    assert cells["GLEU", "M2 F0.5"] == undefined_mark("a")
    table = section[section.index('id="computed-williams-expected_wins"'):]
    assert html_note("a", "the metrics correlate perfectly") in table[:table.index("</p>")]
    assert cells["M2 F0.5", "GLEU"] == "0.250"
    assert 'id="computed-williams-trueskill"' not in section
    assert f"TrueSkill: {skipped['skipped']}." in section


def open_report(chromium, analysis, tmp_path):
    """The report as a local file in a 1280x800 page; asserts it loads nothing but itself."""
    path = tmp_path / "report.html"
    path.write_text(render_html(analysis), encoding="utf-8")
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    assert requests == [path.as_uri()]
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    return context, page


@pytest.mark.browser
def test_the_page_renders_in_chromium_without_requests(chromium, artifacts, full_analysis, tmp_path):
    context, page = open_report(chromium, full_analysis, tmp_path)
    widths = page.eval_on_selector_all("svg.plot", "plots => plots.map(p => p.getBoundingClientRect().width)")
    assert len(widths) == 4 and min(widths) > 300
    page.screenshot(path=str(artifacts / "report-synthetic-1280.png"), full_page=True)
    context.close()


TEXT_OUTSIDE_ITS_PLOT = """
() => Array.from(document.querySelectorAll("svg.plot")).flatMap((svg) => {
  const plot = svg.getBoundingClientRect();
  return Array.from(svg.querySelectorAll("text")).map((text) => [text, text.getBoundingClientRect()])
    .filter(([, box]) => box.left < plot.left || box.right > plot.right || box.top < plot.top
                         || box.bottom > plot.bottom)
    .map(([text, box]) => ({plot: svg.getAttribute("aria-label"), text: text.textContent,
                            box: [box.left - plot.left, box.top - plot.top, box.right - plot.left,
                                  box.bottom - plot.top], plot_size: [plot.width, plot.height]}));
})
"""


def head_to_head_of(names: list[str], spread: float) -> dict:
    """The parts of an analysis the heat map reads: systems ``names`` in Expected Wins order, each winning
    ``0.5 + spread`` against those two or more places below it."""
    return {
        "expected_wins": {"systems": [{"system": name, "full_data_score": float(len(names) - k)}
                                      for k, name in enumerate(names)]},
        "head_to_head": {row: {column: {"share": 0.5 + spread * np.sign(i - j) * min(1, abs(i - j) / 2),
                                        "p_value": 0.01, "wins": 10, "losses": 10}
                               for j, column in enumerate(names) if i != j}
                         for i, row in enumerate(names)},
    }


@pytest.mark.browser
@pytest.mark.parametrize("n", [2, 4, 6, 13])
def test_the_heat_maps_row_label_lies_inside_the_plot(chromium, artifacts, n):
    """The "Row system" label was drawn at x = 5.5 in a 9 pt font for short system names, the left of its letters
    outside the SVG's viewBox (cut off); checked as Chromium draws it (its font, not the one matplotlib measures).
    """
    names = ["alpha", "bravo", "charlie", "delta", "echo", "source", "foxtrot", "golf", "hotel", "india", "juliet",
             "kilo", "lima"][:n]
    svg = head_to_head_plot(head_to_head_of(names, 0.49))
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_content(f"<!doctype html><html><body style='margin: 0'>{svg}</body></html>")
    label = page.locator("svg.plot text", has_text="Row system")
    expect(label).to_have_count(1)
    view_box = [float(v) for v in page.locator("svg.plot").get_attribute("viewBox").split()]
    # The label's box in the SVG's user units (the viewBox's), from Chromium's layout of the drawn text.
    box = label.evaluate("""(text) => {
      const svg = text.ownerSVGElement, plot = svg.getBoundingClientRect(), box = text.getBoundingClientRect();
      const scale = svg.viewBox.baseVal.width / plot.width;
      return [(box.left - plot.left) * scale, (box.top - plot.top) * scale, (box.right - plot.left) * scale,
              (box.bottom - plot.top) * scale];
    }""")
    assert view_box[0] <= box[0] and box[2] <= view_box[0] + view_box[2], (box, view_box)
    assert view_box[1] <= box[1] and box[3] <= view_box[1] + view_box[3], (box, view_box)
    label_box, cells = label.bounding_box(), page.locator("#head-to-head-QuadMesh_1").bounding_box()
    assert abs(label_box["y"] + label_box["height"] / 2 - (cells["y"] + cells["height"] / 2)) < 2, (
        "the label is level with the rows' middle"
    )
    page.locator("svg.plot").screenshot(path=str(artifacts / f"report-head-to-head-{n}-systems.png"))
    context.close()


def test_a_prws_report_plots_each_systems_score_distribution(prws_analysis):
    systems = prws_analysis["prws"]["systems"]
    for row in systems:
        points = [row["distribution"][key] for key in ("min", "q1", "median", "q3", "max")]
        assert points == sorted(points) and 0 <= points[0] and points[-1] <= 100
    page = render_html(prws_analysis)
    assert plot_labels(page)[-2:] == ["Mean PRWS score of each system",
                                      "Distribution of the PRWS sentence scores of each system"]
    svg = next(svg for svg in SVG.findall(page) if "Distribution of the PRWS" in svg[:200])
    texts = [html.unescape(text) for text in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    assert [text for text in texts if text in {row["system"] for row in systems}] == [row["system"] for row in systems]
    assert "Sentence score (0-100)" in texts
    assert "fill: #bab0ac" in svg, "the control system's box is grey"

    stored_before = {**prws_analysis, "prws": {**prws_analysis["prws"], "systems": [
        {key: value for key, value in row.items() if key != "distribution"} for row in systems]}}
    assert plot_labels(render_html(stored_before))[-1] == "Mean PRWS score of each system", (
        "an analysis stored before the distributions has no distribution plot"
    )


@pytest.mark.browser
def test_the_prws_distribution_plot_in_chromium(chromium, artifacts, prws_analysis, tmp_path):
    """Each system's box spans its quartiles and its whiskers its lowest and highest score, on the plot's 0-100
    axis as Chromium draws it."""
    context, page = open_report(chromium, prws_analysis, tmp_path)
    plot = page.locator("svg.plot[aria-label='Distribution of the PRWS sentence scores of each system']")
    expect(plot).to_be_visible()
    # Patches in drawing order: the figure, the axes, one box per system, then the axes' two spines.
    systems = prws_analysis["prws"]["systems"]
    expect(plot.locator("[id^='prws-distribution-patch_']")).to_have_count(2 + len(systems) + 2)
    # Left and right of a patch's shape (without its stroke) in the page.
    extent = """(patch) => {
      const box = patch.getBBox(), m = patch.getScreenCTM();
      return [box.x * m.a + m.e, (box.x + box.width) * m.a + m.e];
    }"""
    left, right = plot.locator("#prws-distribution-patch_2").evaluate(extent)
    x = lambda score: left + (right - left) * score / 100  # noqa: E731
    for k, row in enumerate(systems):
        box = plot.locator(f"#prws-distribution-patch_{3 + k}").evaluate(extent)
        quartiles = [x(row["distribution"]["q1"]), x(row["distribution"]["q3"])]
        assert box == pytest.approx(quartiles, abs=0.5), row["system"]
    plot.screenshot(path=str(artifacts / "report-prws-distribution.png"))
    context.close()


@pytest.mark.browser
def test_no_plot_text_lies_outside_its_plot(chromium, full_analysis, short_names_analysis, prws_analysis, tmp_path):
    for analysis in (full_analysis, short_names_analysis, prws_analysis):
        context, page = open_report(chromium, analysis, tmp_path)
        assert page.evaluate(TEXT_OUTSIDE_ITS_PLOT) == []
        context.close()


@pytest.mark.slow
@pytest.mark.browser
def test_the_conll14_report_in_chromium(chromium, artifacts, conll14_analysis, tmp_path):
    context, page = open_report(chromium, conll14_analysis, tmp_path)
    first_rows = page.eval_on_selector_all(
        "table.ranking", "tables => tables.map(t => t.querySelector('tbody td.system').textContent)")
    assert first_rows == ["AMU", "AMU"]
    page.screenshot(path=str(artifacts / "report-conll14-1280.png"), full_page=True)
    context.close()


def test_the_uploaded_metrics_williams_test_is_a_p_value_table_or_its_reason(full_analysis, plain_analysis):
    """The JSON's ``metric_significance`` (N19 section 6, against the Expected Wins scores) in the Metrics section,
    as the computed metrics' tests are shown."""
    p_values = full_analysis["metric_significance"]["p_values"]
    section = render_html(full_analysis).split('<section id="metrics">')[1].split("</section>")[0]
    assert williams_cells(section, "metric-williams") == {
        (a, b): "–" if a == b else f"{p_values[a][b]:.3f}" for a in p_values for b in p_values
    }
    skipped = "the Williams test needs more than 3 systems with metric scores"
    analysis = {**full_analysis, "metric_significance": {"systems": ["a", "b"], "skipped": skipped}}
    section = render_html(analysis).split('<section id="metrics">')[1].split("</section>")[0]
    assert 'id="metric-williams"' not in section and f"Williams test: {skipped}." in section
    assert 'id="metric-williams"' not in render_html(plain_analysis)


def laid_out_figures(monkeypatch) -> list:
    """Capture the figures the plot functions make, laid out in their style as they are saved (``_svg``)."""
    from ranking.reports import plots

    figures = []

    def capture(figure, name, label):
        figure.draw_without_rendering()
        figures.append(figure)
        return ""

    monkeypatch.setattr(plots, "_svg", capture)
    return figures


def overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("name_length, n_systems, side_by_side", [(4, 13, True), (100, 40, False), (20, 7, True)])
def test_system_names_of_any_length_leave_the_rank_ranges_their_panels(monkeypatch, name_length, n_systems,
                                                                       side_by_side):
    """System names may have 100 characters (annotation/upload_names.py). The panels were 4.4 inches wide whatever
    the names: 100-character names squeezed the Expected Wins panel's plot area to nothing (matplotlib: "axes sizes
    collapsed to zero"), ran across it from the TrueSkill panel, and 40 rank numbers along x ran into each other.
    Now each panel is as wide as its names, the panels stack when two do not fit side by side, and at most
    ``MAX_RANK_LABELS`` ranks are numbered (every rank keeps its grid line)."""
    from ranking.reports.plots import MAX_RANK_LABELS, rank_ranges_plot

    figures = laid_out_figures(monkeypatch)
    names = [f"s{k:02d}".ljust(name_length, "x") for k in range(n_systems)]
    rankings = {method: [{"system": name, "range": [k + 1, min(k + 3, n_systems)], "cluster": 1 + k // 5}
                         for k, name in enumerate(names[::step])]
                for method, step in (("expected_wins", 1), ("trueskill", -1))}
    rank_ranges_plot(rankings)
    (figure,) = figures
    panels = [axes for axes in figure.axes if axes.get_visible()]
    assert len(panels) == 2
    boxes = [axes.get_window_extent() for axes in panels]
    assert all(box.width > 2.5 * figure.dpi for box in boxes), "each plot area keeps its width"
    assert (abs(boxes[0].y0 - boxes[1].y0) < 1) == side_by_side
    for axes, other in ((panels[0], boxes[1]), (panels[1], boxes[0])):
        for label in axes.get_yticklabels():
            assert not overlaps(label.get_window_extent(), other), f"{label.get_text()} runs into the other panel"
        numbers = [label for label in axes.get_xticklabels() if label.get_text()]
        assert 0 < len(numbers) <= MAX_RANK_LABELS
        extents = [label.get_window_extent() for label in numbers]
        assert all(a.x1 < b.x0 for a, b in zip(extents, extents[1:])), "rank numbers apart"
        ranks = {*axes.get_xticks(), *axes.get_xticks(minor=True)}
        assert ranks == set(range(1, n_systems + 1)), "a grid line per rank"
    for box in boxes:
        assert box.x0 >= 0 and box.x1 <= figure.bbox.width and box.y0 >= 0 and box.y1 <= figure.bbox.height


def test_long_system_names_leave_the_prws_plots_their_score_axis(monkeypatch):
    from ranking.reports.plots import prws_distribution_plot, prws_scores_plot

    figures = laid_out_figures(monkeypatch)
    systems = [{"system": f"s{k}".ljust(100, "y"), "mean": 10.0 * k, "control": k == 0,
                "distribution": {"min": 0.0, "q1": 10.0, "median": 20.0, "q3": 30.0, "max": 40.0}} for k in range(5)]
    prws_scores_plot(systems)
    prws_distribution_plot(systems)
    for figure in figures:
        (axes,) = figure.axes
        assert axes.get_window_extent().width > 4 * figure.dpi
        assert all(label.get_window_extent().x0 >= 0 for label in axes.get_yticklabels())


def heat_map_analysis(names: list[str]) -> dict:
    """What the two heat maps read: ``names`` as the systems (Expected Wins order) and as the judges."""
    return {
        "expected_wins": {"systems": [{"system": name, "full_data_score": float(-k)} for k, name in enumerate(names)]},
        "head_to_head": {row: {column: {"share": 0.6, "p_value": 0.01, "wins": 6, "losses": 4}
                               for column in names if column != row} for row in names},
        "agreement": {"matrix": {a: {b: {"kappa": 0.3, "comparisons": 100} for b in names} for a in names}},
        "pairs": {"per_judge": {name: {} for name in names}},
    }


@pytest.mark.parametrize("names", [
    ["crowd-12-prolific-5f3a8b2c9d1e4f0012345678", "crowd-12-prolific-60a1b2c3d4e5f60718293a4b"],
    [f"s{k}".ljust(100, "x") for k in range(3)],
    ["alpha", "bravo", "charlie"],
])
def test_long_names_stay_on_the_heat_maps(monkeypatch, names):
    """The heat maps had a fixed size for their number of rows: a crowd campaign's judges (named
    ``crowd-<campaign>-<platform>-<worker id>``, about 40 characters) left the agreement matrix's cells 60 pixels
    wide (matplotlib: "axes sizes collapsed to zero"), and 100-character system names ran 750 pixels off the
    head-to-head map's left edge. The maps now grow by the names' width."""
    import warnings

    from ranking.reports.plots import agreement_plot, head_to_head_plot

    figures = laid_out_figures(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # constrained layout's "axes sizes collapsed to zero"
        head_to_head_plot(heat_map_analysis(names))
        agreement_plot(heat_map_analysis(names))
    for figure in figures:
        axes = figure.axes[0]
        assert axes.get_window_extent().width > 1.4 * figure.dpi, "the cells keep their room"
        for label in axes.get_yticklabels() + axes.get_xticklabels():
            box = label.get_window_extent()
            assert box.x0 >= -3 and box.y1 <= figure.bbox.height + 3, f"{label.get_text()} runs off the figure"


def test_one_rating_by_one_rater_is_said_in_the_singular(prws_analysis):
    """The PRWS section said "1 ratings by 1 rater" (the raters were counted in words, the ratings not)."""
    page = render_html({**prws_analysis, "prws": {**prws_analysis["prws"], "ratings": 1, "raters": 1}})
    assert "1 rating by 1 rater who passed the quality check" in " ".join(page.split())


def test_an_undefined_accuracy_shows_its_reason(full_analysis):
    """Table 4's cell of an undefined accuracy was empty, without the "–" and the reason that the JSON, the LaTeX
    (a note) and the CSV (the reason column) give."""
    reason = "no held-out pair was decisive"
    accuracy = {**full_analysis["accuracy"]["expected_wins"], "total_order": None, "reason": reason}
    page = render_html({**full_analysis, "accuracy": {**full_analysis["accuracy"], "expected_wins": accuracy}})
    section = page[page.index('<section id="accuracy">'):]
    section = section[:section.index("</section>")]
    assert f'<td class="num">{undefined_mark("a")}</td>' in section
    assert f'<p class="table-notes">{html_note("a", reason)}</p>' in section


def test_an_analysis_without_judges_rankings_says_why(full_analysis):
    """With no judge's rankings (no judgment counted: all by ignored judges, or none yet) the Judges section was
    left out, and with it the reason the JSON gives for the missing judge correlations (G15 Tables 6 and 7)."""
    reason = "fewer than two judges with pairwise judgments"
    page = render_html({**full_analysis, "per_judge": {"rankings": {}, "correlations": None, "reason": reason}})
    section = page[page.index('<section id="judges">'):]
    section = " ".join(section[:section.index("</section>")].split())
    assert f"No correlations between judges (G15 Table 6): {reason}." in section
    assert "No rankings by individual judges (G15 Table 7)" in section
    assert '<a href="#judges">Judges</a>' in page


@pytest.fixture(scope="module")
def undefined_analysis() -> dict:
    """An analysis with undefined numbers in many tables: one judge (no agreement, no judge correlations), two
    systems never compared decisively (head to head), X in too few bootstrap samples for a range (its range and
    cluster null), "unseen" never judged (no score), and Table 4 over 2 folds with nothing decisive held out."""
    items = [("ann", 0, [(("A",), 1), (("B",), 2)])] * 3 + [("ann", 1, [(("B",), 1), (("A",), 1)]),
                                                            ("ann", 2, [(("A",), 1), (("X",), 2)])]
    rankings = Rankings.from_items(items, system_names=["A", "B", "X", "unseen"])
    parameters = AnalysisParameters(bootstrap=10, seed=1, accuracy_folds=2, accuracy_bootstrap=10)
    samples = bootstrap_samples(expanded_pairs(rankings), 4, parameters)
    samples["expected_wins"][:, 2] = [0.4, 0.6] + [np.nan] * 8
    return contract.analysis_json(analyze(rankings, parameters, samples=samples), campaign="undefined",
                                  snapshot={"judgments": 5, "last_judgment_at": "2025-03-04T05:06:07+00:00",
                                            "last_judgment_id": 5, "ignored_judgments": {}})


UNDEFINED_MARK = re.compile(r'<span class="undefined"><span aria-hidden="true">–<sup>([a-z])</sup>')
TABLE_NOTES = re.compile(r'<p class="table-notes">(.*?)</p>', flags=re.S)


def test_every_undefined_number_has_its_reason_as_text_under_its_table(undefined_analysis, prws_unrated_analysis):
    """The reasons of undefined numbers were only tooltips (``title``), which touch screens and screen readers do
    not get: each "–" now carries a letter, and the notes under its table give that letter's reason as text."""
    for analysis in (undefined_analysis, prws_unrated_analysis):
        page = render_html(analysis)
        body = page[page.index("<body>"):]
        assert "title=" not in body and 'class="undefined" title' not in body
        marks = list(UNDEFINED_MARK.finditer(body))
        assert len(marks) >= (10 if analysis is undefined_analysis else 3)
        for mark in marks:
            notes = TABLE_NOTES.search(body, mark.end())
            assert notes is not None and "<table" not in body[mark.end():notes.start()], "the notes of its table"
            letters = dict(re.findall(r"<sup>([a-z])</sup> (.*?)\.</span>", notes.group(1)))
            assert mark.group(1) in letters, (mark.group(0), notes.group(0))
    page = html.unescape(" ".join(render_html(undefined_analysis).split()))
    ranking = page[page.index("<h3>Expected Wins</h3>"):]
    assert ("<sup>a</sup> ranked in 2 of the 10 bootstrap samples, too few for a rank range at confidence 0.95 (a "
            "sample ranks only the systems its pairs compare, as G15's cluster.py does).</span> <span><sup>b</sup> "
            "no judgment of this system.</span></p>") in ranking[:ranking.index("<h3>TrueSkill</h3>")]


@pytest.mark.browser
def test_a_report_with_undefined_numbers_passes_axe(chromium, undefined_analysis, prws_unrated_analysis, tmp_path):
    """The notes and the marks of undefined numbers keep the report accessible (axe-core, WCAG 2.1 A and AA)."""
    from tests.browser.test_accessibility import axe_violations

    for analysis in (undefined_analysis, prws_unrated_analysis):
        context, page = open_report(chromium, analysis, tmp_path)
        assert axe_violations(page) == []
        marks = page.locator(".undefined .visually-hidden")
        assert marks.count() > 0 and marks.first.inner_text().startswith("undefined, see note ")
        assert page.locator(".table-notes").first.is_visible()
        context.close()
