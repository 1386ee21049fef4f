"""The HTML report: one self-contained page with the rankings, the plots and every name escaped."""
from __future__ import annotations

import html
import re
from collections import Counter

import pytest

from ranking.reports.html import render_html
from ranking.reports.plots import cluster_colour, rank_ranges_plot

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


def test_summary_tables_and_sections(full_analysis):
    page = render_html(full_analysis)
    for label, value in (("Campaign", "synthetic"), ("Random seed", "3"), ("Last judgment id", "4321"),
                         ("Bootstrap samples per method", "200")):
        assert f"<dt>{label}</dt><dd>{value}</dd>" in page
    for section in ("rankings", "head-to-head", "pairs", "agreement", "metrics", "accuracy", "judges"):
        assert f'<section id="{section}">' in page
    first = full_analysis["trueskill"]["systems"][0]
    assert f'<td class="num">{first["score"]:.3f}</td>' in page


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


@pytest.mark.slow
@pytest.mark.browser
def test_the_conll14_report_in_chromium(chromium, artifacts, conll14_analysis, tmp_path):
    context, page = open_report(chromium, conll14_analysis, tmp_path)
    first_rows = page.eval_on_selector_all(
        "table.ranking", "tables => tables.map(t => t.querySelector('tbody td.system').textContent)")
    assert first_rows == ["AMU", "AMU"]
    page.screenshot(path=str(artifacts / "report-conll14-1280.png"), full_page=True)
    context.close()
