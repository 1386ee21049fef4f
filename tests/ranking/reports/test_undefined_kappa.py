"""G15 Table 2b's cell of two judges who share enough comparisons but gave one relation throughout: kappa is
undefined (chance agreement 1), which the JSON says with its reason; the LaTeX and HTML reports starred it as
"too few overlapping judgments", which it was not."""
from __future__ import annotations

import html

import pytest

from ranking.contract import analysis_json
from ranking.core.agreement import MIN_COMPARISONS
from ranking.core.analysis import analyze
from ranking.core.parameters import AnalysisParameters
from ranking.core.rankings import Rankings
from ranking.reports.html import render_html
from ranking.reports.latex import agreement_matrix_table


@pytest.fixture(scope="module")
def one_relation() -> dict:
    """ann and bob both rank A above B on the same MIN_COMPARISONS + 10 sentences, each sentence once."""
    n = MIN_COMPARISONS + 10
    rankings = Rankings.from_items([(judge, i, [("A", 1), ("B", 2)]) for judge in ("ann", "bob") for i in range(n)])
    return analysis_json(analyze(rankings, AnalysisParameters(bootstrap=20)), campaign="same",
                         snapshot={"judgments": 2 * n, "last_judgment_at": "2025-03-04T05:06:07+00:00",
                                   "last_judgment_id": 2 * n, "ignored_judgments": {}})


def test_the_json_has_the_reason(one_relation):
    cell = one_relation["agreement"]["matrix"]["ann"]["bob"]
    assert cell["comparisons"] == MIN_COMPARISONS + 10 and cell["kappa"] is None
    assert cell["reason"] == "every relation was the same, so chance agreement is 1"


def test_latex_shows_the_cell_undefined_with_its_reason(one_relation):
    table = agreement_matrix_table(one_relation)
    assert "ann & * & --$^{a}$ \\\\" in table.tabular.splitlines()
    assert "bob & -- & * \\\\" in table.tabular.splitlines()
    assert table.note.endswith("$^{a}$ every relation was the same, so chance agreement is 1.")


def test_html_says_why_the_cell_is_undefined(one_relation):
    page = html.unescape(" ".join(render_html(one_relation).split()))
    assert ("intra-annotator agreement on the diagonal; a star marks too few overlapping judgments; – marks an "
            "undefined κ: every relation was the same, so chance agreement is 1.</figcaption>") in page
