"""Property tests: `manage.py analyze` completes on small, degenerate judgment sets that hypothesis makes up, on
PostgreSQL: one or a few systems, systems never judged, pairs only ever tied, one rater, only flagged screens, the
judge ``admin`` (ignored by default), PRWS campaigns with a control system and equal scores. Every analysis (with
Table 4's cross-validation over two folds) parses as strict JSON, satisfies the contract's schema with a reason beside
every null, and renders in every report format.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.models import Campaign, System
from annotation.services.appraise_import import candidate_lookup
from annotation.services.importing import import_outputs
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens
from annotation.services.textfiles import NamedFile

from .contract_checks import assert_contract, assert_reports_render, strict_loads

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

LINES = 3
JUDGES = ("ann", "bob", "admin")
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def judgment_sets(draw) -> dict:
    """Systems (1-4, the source among them or not) whose outputs of each line are one of three variants (variant 0
    is the source, equal variants collapse), and 0-6 judged screens: a line, a judge, flagged or some of the line's
    candidates with ranks 1-5 (or scores from {0, 50, 100}, ties likely), and metric scores that may be constant."""
    n_systems = draw(st.integers(1, 4))
    variants = draw(st.lists(st.lists(st.integers(0, 2), min_size=LINES, max_size=LINES),
                             min_size=n_systems, max_size=n_systems))
    screens = draw(st.lists(st.fixed_dictionaries({
        "line": st.integers(0, LINES - 1),
        "judge": st.sampled_from(JUDGES),
        "flagged": st.booleans(),
        "shown": st.lists(st.booleans(), min_size=5, max_size=5),
        "ranks": st.lists(st.integers(1, 5), min_size=5, max_size=5),
        "scores": st.lists(st.sampled_from([0.0, 50.0, 100.0]), min_size=5, max_size=5),
        "meaning_changed": st.booleans(),
    }), max_size=6))
    return {
        "variants": variants,
        "source_is_system": draw(st.booleans()),
        "control": draw(st.booleans()),
        "screens": screens,
        "metric": draw(st.lists(st.sampled_from([0.1, 0.2, 0.4]), min_size=3, max_size=3)),
    }


def build_campaign(case: dict, mode: str) -> Campaign:
    source = [f"line {i} variant 0" for i in range(LINES)]
    text = lambda lines: ("\n".join(lines) + "\n").encode()
    files = [NamedFile(f"s{k}", text([f"line {i} variant {v}" for i, v in enumerate(variants)]))
             for k, variants in enumerate(case["variants"])]
    campaign = import_outputs("prop", NamedFile("source", text(source)), files,
                              source_is_system=case["source_is_system"], mode=mode)
    if case["control"] and mode == Campaign.Mode.PRWS:
        System.objects.filter(campaign=campaign, name="s0").update(kind=System.Kind.CONTROL)
    lookup = candidate_lookup(campaign)
    judged = []
    for screen in case["screens"]:
        candidates = sorted(lookup[screen["line"]].values())
        shown = [c for c, keep in zip(candidates, screen["shown"]) if keep]
        if screen["flagged"] or not shown:
            judged.append(JudgedScreen(screen["line"], screen["judge"], [], flag_reason="unreadable"))
        elif mode == Campaign.Mode.PRWS:
            judged.append(JudgedScreen(screen["line"], screen["judge"], [
                JudgedCandidate(c, score=score, meaning_changed=screen["meaning_changed"])
                for c, score in zip(shown, screen["scores"])
            ]))
        else:
            judged.append(JudgedScreen(screen["line"], screen["judge"], [
                JudgedCandidate(c, rank=rank) for c, rank in zip(shown, screen["ranks"])
            ]))
    if judged:
        write_judged_screens(campaign, judged)
    return campaign


def metric_folder(case: dict, campaign: Campaign, folder: Path) -> Path:
    """A folder of ``folder`` with an M2 score file of the campaign's systems, from the case's three metric values."""
    names = list(System.objects.filter(campaign=campaign).values_list("name", flat=True))
    metrics = folder / "metrics"
    metrics.mkdir(exist_ok=True)
    (metrics / "scores.m2").write_text("".join(
        f"{name} {case['metric'][k % 3]} {case['metric'][(k + 1) % 3]} {case['metric'][(k + 2) % 3]}\n"
        for k, name in enumerate(names)
    ))
    return metrics


def analyze_case(case: dict, mode: str, folder: Path) -> dict:
    """Build the campaign, analyse it with the commands and check the result; everything is rolled back after."""
    with transaction.atomic():
        campaign = build_campaign(case, mode)
        metrics = metric_folder(case, campaign, folder)
        out = folder / "analysis.json"
        call_command("analyze", "--campaign", campaign.name, "--bootstrap", "20", "--seed", "3", "--accuracy-folds",
                     "2", "--metrics", str(metrics), "--out", str(out), stderr=io.StringIO())
        analysis = strict_loads(out.read_text(encoding="utf-8"))
        assert_contract(analysis)
        assert_reports_render(analysis)
        transaction.set_rollback(True)
    return analysis


def assert_ranges_in_bounds_or_null_with_reason(systems: list[dict]) -> None:
    """The systems with a rank range come first, their ranges within 1..S (S: how many have one: each bootstrap
    sample ranks only them, and only those it scores) and their clusters numbered in order; every other system has
    neither range nor cluster, and a reason (in too few samples for a range, or never judged). Whether a range
    holds the system's full-data rank is not checked: on such small data it need not (with 20 samples, or when the
    full data tie systems that the samples part, a range can miss it, whether or not a system is missing from a
    sample)."""
    ranked = [row for row in systems if row["range"] is not None]
    assert systems[:len(ranked)] == ranked, "ranked systems first"
    assert all(1 <= row["range"][0] <= row["range"][1] <= len(ranked) for row in ranked)
    assert [row["cluster"] for row in ranked] == sorted(row["cluster"] for row in ranked)
    assert all(row["cluster"] is None and row["reason"] for row in systems[len(ranked):])


@SETTINGS
@given(case=judgment_sets())
def test_ranking_analyses_of_degenerate_judgments(tmp_path_factory, case):
    analysis = analyze_case(case, Campaign.Mode.RANKING, tmp_path_factory.mktemp("ranking"))
    assert "admin" not in analysis["pairs"]["per_judge"] and analysis["parameters"]["ignored_judges"] == ["admin"]
    admin_screens = sum(screen["judge"] == "admin" for screen in case["screens"])
    assert analysis["snapshot"]["ignored_judgments"] == ({"admin": admin_screens} if admin_screens else {})
    for ranking in (analysis["expected_wins"], analysis["trueskill"], *analysis["per_judge"]["rankings"].values()):
        assert_ranges_in_bounds_or_null_with_reason(ranking["systems"])
    for accuracy in analysis["accuracy"].values():
        for key in ("total_order", "clusters"):
            assert 0 <= accuracy[key] <= 1 if accuracy[key] is not None else accuracy["reason"]


@SETTINGS
@given(case=judgment_sets())
def test_prws_analyses_of_degenerate_scores(tmp_path_factory, case):
    analysis = analyze_case(case, Campaign.Mode.PRWS, tmp_path_factory.mktemp("prws"))
    prws = analysis["prws"]
    rated = [row for row in prws["systems"] if row["mean"] is not None]
    unrated = prws["systems"][len(rated):]
    assert prws["raters"] <= 2 and all(row["sentences"] > 0 for row in rated)
    assert all(row["mean"] is None and row["sentences"] == 0 and row["reason"] for row in unrated), "unrated last"
    assert [row["mean"] for row in rated] == sorted((row["mean"] for row in rated), reverse=True)
