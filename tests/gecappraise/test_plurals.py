"""Counts in words: one of a thing is singular in messages, reasons, report notes and command output ("1 systems",
"1 pairwise judgments" and "1 control screens" were written before ``gecappraise.plurals``)."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from annotation.services.rater_qc import QcRule, _verdict, _Work
from gecappraise.plurals import counted
from ranking.core.analysis import analyze
from ranking.core.parameters import AnalysisParameters
from ranking.core.rankings import Rankings
from ranking.reports.latex import prws_table


@pytest.mark.parametrize("count, noun, plural, said", [
    (0, "system", None, "0 systems"),
    (1, "system", None, "1 system"),
    (2, "pairwise judgment", None, "2 pairwise judgments"),
    (1, "hypothesis", "hypotheses", "1 hypothesis"),
    (3, "hypothesis", "hypotheses", "3 hypotheses"),
])
def test_counted(count, noun, plural, said):
    assert counted(count, noun, plural) == said


def test_one_judgment_cannot_fill_the_accuracy_folds():
    """One ranking of two outputs is one pairwise judgment: two folds cannot be filled, and the reason says so."""
    rankings = Rankings.from_items([("ann", 0, [("A", 1), ("B", 2)])])
    analysis = analyze(rankings, AnalysisParameters(bootstrap=20, seed=1, accuracy_folds=2, accuracy_bootstrap=3))
    assert analysis.accuracy_skipped == "1 pairwise judgment cannot fill 2 folds"


def test_one_failed_control_screen():
    work = _Work(screens=1, control_screens=1, control_passed=0)
    verdict = _verdict("ann", 1, None, work, QcRule(0.7, 0.01, 0, 0, "ranking"))
    assert verdict.failures[0].startswith("(a) Source+error judged worse than Source on 0 of 1 control screen (0% <")


def test_one_rating_by_one_rater_in_the_latex_prws_note():
    prws = {"systems": [{"system": "A", "mean": 50.0, "z_mean": 0.0, "unchanged_pct": 0.0,
                         "meaning_changed_pct": 0.0}], "ratings": 1, "raters": 1}
    assert "1 rating by 1 rater who passed" in prws_table(prws).note


@pytest.mark.django_db
def test_a_campaign_of_one_system_one_document_and_one_ranking(tmp_path):
    (tmp_path / "source").write_text("a b .\nc d .\n")
    (tmp_path / "A").write_text("a B .\nc D .\n")
    out = io.StringIO()
    call_command("import_outputs", "--campaign", "single", "--source", str(tmp_path / "source"),
                 str(tmp_path / "source"), str(tmp_path / "A"), stdout=out)
    assert "2 systems, 2 sentences in 1 document," in out.getvalue()
    (tmp_path / "one.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<appraise-results>\n<error-correction-ranking-result '
        'source-language="err" id="x" target-language="cor">\n<ranking-item doc-id="d" duration="00:00:10.000000" '
        'id="0" src-id="0" user="ann">\n<translation rank="1" system="A"/>\n<translation rank="2" system="source"/>\n'
        '</ranking-item>\n</error-correction-ranking-result>\n</appraise-results>\n'
    )
    call_command("import_appraise_xml", "--campaign", "single", str(tmp_path / "one.xml"), stdout=io.StringIO())
    err = io.StringIO()
    call_command("export_appraise_xml", "--campaign", "single", "--out", str(tmp_path / "out.xml"), stderr=err)
    assert err.getvalue().startswith(f"Wrote 1 ranking to {tmp_path / 'out.xml'}: the snapshot of 1 judgment up to id ")
