"""Each PRWS slider's first value after the judge moved it and its last value (the score) are stored per candidate
(METHODS 11: "record that they were moved"); a bad first value is refused with a message and stores nothing."""
from __future__ import annotations

import pytest

from annotation.models import CandidateJudgment, Judgment
from annotation.services.judgment_exports import judgment_records, judgments_csv

from .factories import add_screen
from .test_prws_judging import ann, campaign, page_keys, scores_data, served  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


def test_first_and_last_slider_values_are_stored(campaign, ann):
    add_screen(campaign, 1)
    client, url = served(ann, campaign)
    page = client.get(url).content.decode()
    assert page.count('name="first_') == 4 and 'name="first_0" value=""' in page
    data = scores_data([80, 65.5, 0, 100], keys=page_keys(client, url))
    data.update({"first_0": "50", "first_1": "70", "first_2": "0"})
    assert client.post(url, data).status_code == 302
    rows = list(CandidateJudgment.objects.order_by("position").values_list("slider_first", "slider_last", "score"))
    assert rows == [(50.0, 80.0, 80.0), (70.0, 65.5, 65.5), (0.0, 0.0, 0.0), (None, 100.0, 100.0)]
    exported = [(c["slider_first"], c["slider_last"]) for c in judgment_records(campaign)[0]["candidates"]]
    assert exported == [(50.0, 80.0), (70.0, 65.5), (0.0, 0.0), (None, 100.0)]
    header = judgments_csv(campaign).splitlines()[0].split(",")
    assert header[-2:] == ["slider_first", "slider_last"]


@pytest.mark.parametrize("first", ["101", "x", "nan"])
def test_a_bad_first_value_is_refused(campaign, ann, first):
    add_screen(campaign, 1)
    client, url = served(ann, campaign)
    data = scores_data([80, 65.5, 0, 100], keys=page_keys(client, url))
    data["first_1"] = first
    response = client.post(url, data)
    assert response.status_code == 400 and not Judgment.objects.exists()
    page = response.content.decode()
    assert "first value of slider 2" in page or "less than or equal to 100" in page
    assert 'name="first_1" value="x"' not in page and 'value="nan"' not in page, "no unreadable value shown again"
