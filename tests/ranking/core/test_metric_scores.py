"""Unit tests of ranking.core.metric_scores."""
from __future__ import annotations

import pytest

from ranking.core.metric_scores import score_column


def test_columns_are_selected_in_the_order_of_the_systems():
    scores = {"AMU": (0.3510, 0.4147, 0.2174), "CAMB": (0.3703, 0.3924, 0.3024)}
    assert score_column(scores, ["CAMB", "AMU"], column=2).tolist() == [0.3024, 0.2174]


def test_missing_systems_are_named():
    with pytest.raises(ValueError, match="IPN, UFC"):
        score_column({"AMU": (1.0,)}, ["AMU", "IPN", "UFC"])
