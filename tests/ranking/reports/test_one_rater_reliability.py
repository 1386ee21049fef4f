"""Split-half reliability of a PRWS campaign with one rater, from the analysis to the LaTeX report.

One rater scores systems A, B and C on three sentences: every system has three ratings, but no candidate (a
system's output of one sentence) has two, so neither level can be split. The system level's reason said "fewer
than 3 systems with two ratings or more" beside ``"systems": 0``, which three systems of three ratings each belie:
it counts the systems with a candidate rated twice or more, and now says so.
"""
from __future__ import annotations

from ranking.contract import analysis_json
from ranking.core.analysis import AnalysisParameters, analyze
from ranking.core.prws import ScoredCandidate, Scores, relative_rankings
from ranking.reports.latex import latex_tables


def test_one_rater_cannot_be_split_and_the_reasons_say_what_was_counted():
    scores = Scores.from_items([
        ("rita", segment, [ScoredCandidate((name,), float(score)) for name, score in zip("ABC", row)])
        for segment, row in enumerate([(80, 40, 10), (60, 60, 20), (70, 50, 30)])
    ])
    analysis = analysis_json(
        analyze(relative_rankings(scores), AnalysisParameters(bootstrap=20, seed=1), prws=scores), campaign="one",
        snapshot={"judgments": 3, "last_judgment_at": "2025-03-04T05:06:07+00:00", "last_judgment_id": 3,
                  "ignored_judgments": {}},
    )
    prws = analysis["prws"]
    assert [row["ratings"] for row in prws["systems"]] == [3, 3, 3]
    sentence, system = prws["reliability"]["sentence"], prws["reliability"]["system"]
    assert sentence["candidates"] == 0 and sentence["pearson"] is None
    assert sentence["reason"] == "fewer than 3 candidates with two ratings or more"
    assert system["systems"] == 0 and system["pearson"] is None and system["spearman"] is None
    assert system["reason"] == "fewer than 3 systems with a candidate rated twice or more"
    table = next(table for table in latex_tables(analysis) if table.number == "PRWS reliability")
    assert "Compared: the candidates with two ratings or more, and the systems with such a candidate." in table.note
    assert "$^{b}$ fewer than 3 systems with a candidate rated twice or more." in table.note
