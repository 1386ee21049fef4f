"""Unit tests of ranking.core.metric_scores."""
from __future__ import annotations

import pytest

from ranking.core.metric_scores import parse_metric_scores, score_column


def test_parse_and_select_columns():
    scores = parse_metric_scores("AMU 0.3510 0.4147 0.2174\n\nCAMB 0.3703 0.3924 0.3024\n")
    assert scores == {"AMU": (0.3510, 0.4147, 0.2174), "CAMB": (0.3703, 0.3924, 0.3024)}
    assert score_column(scores, ["CAMB", "AMU"], column=2).tolist() == [0.3024, 0.2174]


@pytest.mark.parametrize(
    "text, message",
    [
        ("AMU\n", "no value"),
        ("AMU x\n", "not a number"),
        ("AMU inf\n", "finite"),
        ("AMU 1 2\nCAMB 1\n", "earlier lines"),
        ("AMU 1\nAMU 2\n", "twice"),
        ("\n", "no metric scores"),
    ],
)
def test_bad_files_raise_with_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        parse_metric_scores(text)


def test_missing_systems_are_named():
    with pytest.raises(ValueError, match="IPN, UFC"):
        score_column({"AMU": (1.0,)}, ["AMU", "IPN", "UFC"])
