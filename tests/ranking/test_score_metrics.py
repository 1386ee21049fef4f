"""score_metrics: M2, GLEU and chrF++ of a campaign's systems from its references, in the WMT formats."""
from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from sacrebleu.metrics import CHRF

from annotation.services.importing import import_outputs
from annotation.services.references import import_references
from annotation.services.textfiles import NamedFile

pytestmark = pytest.mark.django_db

SOURCE = b"He go to school .\nShe like apples .\nThey is here .\n"
GOOD = b"He goes to school .\nShe likes apples .\nThey are here .\n"
HALF = b"He goes to school .\nShe like apples .\nThey is here .\n"
GOLD = (
    b"S He go to school .\nA 1 2|||Vform|||goes|||REQUIRED|||-NONE-|||0\n\n"
    b"S She like apples .\nA 1 2|||SVA|||likes|||REQUIRED|||-NONE-|||0\n\n"
    b"S They is here .\nA 1 2|||SVA|||are|||REQUIRED|||-NONE-|||0\n"
)


@pytest.fixture
def campaign():
    campaign = import_outputs(
        "tiny", NamedFile("source", SOURCE), [NamedFile("good", GOOD), NamedFile("half", HALF)],
        source_is_system=True,
    )
    return campaign


def rows(path):
    return [line.split("\t") for line in path.read_text().splitlines()]


def test_wmt_system_and_segment_files(campaign, tmp_path):
    import_references(campaign, NamedFile("gold.m2", GOLD), [NamedFile("ref0", GOOD)])
    out, segments = tmp_path / "system.tsv", tmp_path / "segments.tsv"
    call_command("score_metrics", "--campaign", "tiny", "--out", str(out), "--segments", str(segments))
    system = {(metric, name): float(value) for metric, pair, test_set, name, value in rows(out)}
    assert {pair for _, pair, *_ in rows(out)} == {"err-cor"} and {t for _, _, t, *_ in rows(out)} == {"tiny"}
    assert system[("m2", "good")] == 1.0
    assert round(system[("m2", "half")], 6) == round(1.25 * 1 * (1 / 3) / (0.25 * 1 + 1 / 3), 6)
    assert system[("m2", "source")] == 0.0
    assert system[("gleu", "good")] == 1.0 and system[("gleu", "source")] < system[("gleu", "half")] < 1.0
    expected = CHRF(word_order=2).corpus_score(HALF.decode().splitlines(), [GOOD.decode().splitlines()]).score
    assert system[("chrf", "half")] == pytest.approx(expected / 100, abs=1e-6)
    segment = {(m, name, int(number)): float(value) for m, _, _, name, number, value in rows(segments)}
    assert len(segment) == 3 * 3 * 3
    assert [segment[("m2", "half", n)] for n in (1, 2, 3)] == [1.0, 0.0, 0.0]


def test_dash_writes_to_standard_output(campaign, tmp_path, monkeypatch, capsys):
    """``--out -`` and ``--segments -`` mean standard output, as for analyze and export_report; they wrote a file
    named "-" in the working directory."""
    import_references(campaign, None, [NamedFile("ref0", GOOD)])
    monkeypatch.chdir(tmp_path)
    call_command("score_metrics", "--campaign", "tiny", "--metric", "gleu", "--out", "-", "--segments", "-")
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert sorted(len(line) for line in lines) == [5] * 3 + [6] * 9
    assert list(tmp_path.iterdir()) == []
    call_command("score_metrics", "--campaign", "tiny", "--metric", "gleu")
    assert len(capsys.readouterr().out.splitlines()) == 3


def test_an_unwritable_file_is_named(campaign, tmp_path):
    import_references(campaign, None, [NamedFile("ref0", GOOD)])
    with pytest.raises(CommandError, match="missing/system.tsv: cannot write"):
        call_command("score_metrics", "--campaign", "tiny", "--out", str(tmp_path / "missing" / "system.tsv"))


def test_an_unwritable_segments_file_is_refused_before_any_metric_is_computed(campaign, tmp_path, monkeypatch):
    import_references(campaign, None, [NamedFile("ref0", GOOD)])
    monkeypatch.setattr("ranking.management.commands.score_metrics.compute_metrics",
                        lambda *args: pytest.fail("the metrics were computed"))
    out = tmp_path / "system.tsv"
    with pytest.raises(CommandError, match=r"missing/segments.tsv: cannot write \(no folder"):
        call_command("score_metrics", "--campaign", "tiny", "--out", str(out),
                     "--segments", str(tmp_path / "missing" / "segments.tsv"))
    assert not out.exists()


def test_missing_references_are_reported(campaign, tmp_path):
    out = tmp_path / "system.tsv"
    with pytest.raises(CommandError, match="no metric could be computed"):
        call_command("score_metrics", "--campaign", "tiny", "--out", str(out))
    import_references(campaign, None, [NamedFile("ref0", GOOD)])
    call_command("score_metrics", "--campaign", "tiny", "--metric", "m2", "--metric", "gleu", "--out", str(out))
    assert {row[0] for row in rows(out)} == {"gleu"}


def test_chrf_computed_once_per_distinct_output_equals_sacrebleus_corpus_and_sentence_scores():
    from ranking.automatic_metrics import score_chrf
    from ranking.metric_loading import MetricInputs

    sources = ["he go to school .", "she have many book .", "it are good .", "we was late ."]
    outputs = {
        "a": ["he goes to school .", "she has many books .", "it is good .", "we were late ."],
        "b": ["he goes to school .", "she have many books .", "it are good .", "we was late ."],
        "c": ["He goes to the school .", "she has many books .", "", "we were late ."],
    }
    references = {"r1": ["he goes to school .", "she has many books .", "it is good .", "we were late ."],
                  "r2": ["He goes to school .", "She has a lot of books .", "It is good .", "We were late ."]}
    scored = score_chrf(MetricInputs("t", sources, outputs, references=references))
    chrf = CHRF(word_order=2)
    for system, lines in outputs.items():
        assert scored.system[system] == chrf.corpus_score(lines, list(references.values())).score / 100
        assert scored.segments[system] == [
            chrf.sentence_score(line, [reference[i] for reference in references.values()]).score / 100
            for i, line in enumerate(lines)
        ]
        assert scored.statistics[system].shape[0] == len(lines)
        assert scored.from_statistics(scored.statistics[system].sum(axis=0)) == scored.system[system]
