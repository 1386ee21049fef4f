"""Counts in the reports: the HTML report groups thousands with commas ("2,319"), as the product's pages do; the
LaTeX report prints them plain, as G15's Table 1 does ("109098 (59117)"); the CSV report keeps them plain for
machines."""
from __future__ import annotations

import copy
import csv
import io
import re

import pytest

from ranking.reports.csv import render_csv
from ranking.reports.html import render_html
from ranking.reports.latex import render_latex


@pytest.fixture
def big_counts(full_analysis) -> dict:
    """``full_analysis`` with G15's totals of Table 1 and as many judgments in its snapshot."""
    analysis = copy.deepcopy(full_analysis)
    analysis["pairs"].update(rankings=2319, unexpanded=20516, unexpanded_ties=5694, expanded=109098,
                             expanded_ties=59117)
    analysis["snapshot"]["judgments"] = 2319
    analysis["parameters"]["bootstrap"] = 1000
    return analysis


def test_the_html_report_groups_thousands(big_counts):
    page = render_html(big_counts)
    total = re.search(r'<section id="pairs">.*?<tfoot>(.*?)</tfoot>', page, flags=re.S).group(1)
    assert re.sub(r"<[^>]+>", " ", total).split() == ["Total", "2,319", "20,516", "(5,694)", "109,098", "(59,117)"]
    assert "<dt>Judgments (snapshot)</dt><dd>2,319</dd>" in page
    assert "<dt>Bootstrap samples per method</dt><dd>1,000</dd>" in page
    assert "from 1,000 bootstrap samples" in page


def test_the_latex_report_prints_table_1_as_g15_does(big_counts):
    assert "Total & 2319 & 20516 (5694) & 109098 (59117) \\\\" in render_latex(big_counts)


def test_the_csv_report_keeps_counts_plain(big_counts):
    rows = {row["key"]: row["value"] for row in csv.DictReader(io.StringIO(render_csv(big_counts)))
            if row["section"] == "provenance"}
    assert rows["Judgments (snapshot)"] == "2319" and rows["Bootstrap samples per method"] == "1000"
