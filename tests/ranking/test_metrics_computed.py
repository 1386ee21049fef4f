"""``metrics_computed`` in an analysis of a small campaign with references: valid under the contract, reports
render, scores match the metric functions, and a campaign without references has no such key."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest
from django.core.management import call_command

from annotation.services.references import import_references
from annotation.services.textfiles import NamedFile

from .contract_checks import assert_contract, assert_reports_render, strict_loads
from .factories import synthetic_campaign

pytestmark = pytest.mark.django_db


def analyze(tmp_path) -> dict:
    out = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", "metrics", "--bootstrap", "50", "--out", str(out), stderr=io.StringIO())
    return strict_loads(out.read_text())


def test_metrics_computed_follow_the_contract(tmp_path):
    campaign = synthetic_campaign("metrics", np.random.default_rng(5), n_sentences=20, n_systems=6, n_rankings=80)
    assert "metrics_computed" not in analyze(tmp_path)
    sources = list(campaign.segments.order_by("line").values_list("source", flat=True))
    gold = "\n".join(f"S {s}\nA 3 4|||Wci|||edit5|||REQUIRED|||-NONE-|||0\n" for s in sources)
    reference = "".join(s.replace("some", "edit5") + "\n" for s in sources)
    import_references(campaign, NamedFile("gold.m2", gold.encode()), [NamedFile("ref0", reference.encode())])
    analysis = analyze(tmp_path)
    assert_contract(analysis)
    assert_reports_render(analysis)
    computed = analysis["metrics_computed"]
    assert list(computed["scores"]) == ["chrf", "gleu", "m2"]  # names sorted, as the contract orders them
    m2 = computed["scores"]["m2"]
    edited = [line for line in campaign.systems.get(name="sys5").outputs.order_by("segment__line")
              .values_list("candidate__text", flat=True)]
    expected = sum("edit5" in line for line in edited)
    assert m2["sys5"]["recall"] == pytest.approx(expected / len(sources))
    assert m2["sys5"]["precision"] == 1.0 and m2["sys0"]["recall"] == 0.0
    assert set(computed["expected_wins"]["metrics"]) == {"m2", "gleu", "chrf"}
    assert computed["expected_wins"]["metrics"]["m2"]["spearman"] > 0
    tau = computed["sentence_tau"]["m2"]
    assert tau["concordant"] + tau["discordant"] > 0 and -1 <= tau["tau"] <= 1
    json.dumps(computed, allow_nan=False)
