"""The shared-data fixtures (tests/conftest.py): without the data folder a test skips on a developer's machine but
fails under CI (CI=true), with a message saying where the data was looked for and how to set it."""
from __future__ import annotations

import pytest

from tests import conftest


@pytest.fixture
def no_data(monkeypatch, tmp_path):
    """CONLL14 and GMEG point into an empty folder."""
    monkeypatch.setattr(conftest, "CONLL14", tmp_path / "conll14")
    monkeypatch.setattr(conftest, "GMEG", tmp_path / "gmeg")
    return tmp_path


@pytest.mark.parametrize(
    ("value", "outcome"),
    [("true", pytest.fail.Exception), ("True", pytest.fail.Exception), ("TRUE", pytest.fail.Exception),
     (None, pytest.skip.Exception), ("", pytest.skip.Exception), ("false", pytest.skip.Exception),
     ("0", pytest.skip.Exception)],
)
def test_a_missing_data_folder_fails_under_ci_and_skips_outside(no_data, monkeypatch, value, outcome):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    for helper, name, folder in ((conftest.conll14_data, "CoNLL-14", no_data / "conll14"),
                                 (conftest.gmeg_data, "GMEG", no_data / "gmeg")):
        with pytest.raises(outcome) as refused:
            helper()
        text = str(refused.value)
        assert f"{name} data not found at {folder}" in text and "set GECAPPRAISE_SHARED_DATA" in text, text
        assert ("CI=true" in text) == (outcome is pytest.fail.Exception), text


@pytest.mark.parametrize("value", ["true", "false"])
def test_present_data_is_returned_in_and_outside_ci(no_data, monkeypatch, value):
    monkeypatch.setenv("CI", value)
    (no_data / "conll14").mkdir()
    (no_data / "conll14" / "judgments.xml").write_text("<seg/>")
    (no_data / "gmeg" / "dev").mkdir(parents=True)
    (no_data / "gmeg" / "dev" / "fce-segment-scores.csv").write_text("")
    assert conftest.conll14_data() == no_data / "conll14"
    assert conftest.gmeg_data() == no_data / "gmeg"


def test_the_decision_is_a_plain_function(tmp_path):
    required = tmp_path / "judgments.xml"
    assert conftest.missing_data("X", tmp_path, required, {"CI": "true"})[0] == "fail"
    assert conftest.missing_data("X", tmp_path, required, {})[0] == "skip"
    required.write_text("")
    assert conftest.missing_data("X", tmp_path, required, {"CI": "true"}) is None
