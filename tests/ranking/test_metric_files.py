"""Metric score files (ranking.metric_files, ``analyze --metrics DIR``, ``export_report --run --metrics DIR``): read
as the test-set files are, numbers by the score files' rule, every system of the campaign checked before a run is
recorded, and every refusal naming the file and the line or system."""
from __future__ import annotations

import io
import unicodedata

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from ranking.metric_files import MetricFileError, parse_metric_scores, read_metric_folder
from ranking.models import AnalysisRun

from .factories import synthetic_campaign

SYSTEMS = [f"sys{k}" for k in range(6)]
GOOD = "".join(f"sys{k} 0.{k}5\n" for k in range(6))


def test_lines_are_split_at_line_feeds_and_fields_at_spaces_and_tabs():
    scores = parse_metric_scores("scores.m2", b"\xef\xbb\xbfAMU 0.3510\t0.4147 0.2174\r\n\r\nCAMB  .37 +1e-1 1.\r\n")
    assert scores == {"AMU": (0.3510, 0.4147, 0.2174), "CAMB": (0.37, 0.1, 1.0)}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"AMU\n", "scores.x: line 1: system 'AMU' has no value"),
        (b"AMU 0.5\nCAMB x\n", "scores.x: line 2: 'x' is not a number (a plain decimal number, such as 0.35 or 1e-2)"),
        (b"AMU 1_0\nCAMB 0.3\n", "scores.x: line 1: '1_0' is not a number"),
        (b"AMU inf\n", "scores.x: line 1: 'inf' is not a number"),
        (b"AMU nan\n", "scores.x: line 1: 'nan' is not a number"),
        ("AMU \u0663\n".encode(), "scores.x: line 1: '\u0663' is not a number"),
        (b"AMU 1e999\n", "scores.x: line 1: '1e999' is too large (a number is at most 1.8e+308 in size"),
        (b"AMU 0.5\nCAMB 1e-400\n", "scores.x: line 2: '1e-400' is too close to 0 (a number other than 0 is at least"),
        (b"AMU 0.5\nCAMB -0.1e-320\n", "scores.x: line 2: '-0.1e-320' is too close to 0"),
        (b"AMU 0." + b"5" * 1000 + b"x\n", "scores.x: line 1: '0.55555"),
        (b"AMU 1 2\nCAMB 1\n", "scores.x: line 2: 1 value where earlier lines have 2"),
        (b"AMU 0.35 0.41 0.22\nCAMB 0.5 -0.4 0.6\n", "scores.x: line 2: precision and recall (the second and third "
         "values of a line of F, precision and recall) are fractions from 0 to 1, not -0.4 and 0.6"),
        (b"AMU 0.5 1e308 1e308\n", "scores.x: line 1: precision and recall (the second and third values of a line "
         "of F, precision and recall) are fractions from 0 to 1, not 1e308 and 1e308"),
        (b"AMU 1\nAMU 2\n", "scores.x: line 2: system 'AMU' occurs twice"),
        (b"\n\n", "scores.x: no metric scores (a line is 'SYSTEM value...')"),
        (b"", "scores.x: the file is empty"),
        (b"AMU 0.5\nCAMB 0.\xff3\n", "scores.x: not UTF-8 text: byte 0xff at byte offset 15 (line 2)"),
        ("AMU 0.5\u2028\nCAMB 0.3\u2029\nUFC x\n".encode(), "scores.x: line 3: 'x' is not a number"),
        (b"AMU 0.5\x0cCAMB 0.3\nUFC x\n", "scores.x: line 1: the control character U+000C at column 8"),
        (b"AMU 0.5\x1cCAMB 0.3\n", "scores.x: line 1: the control character U+001C at column 8"),
        (b"AMU 0.5\nCAMB 0.3\rUFC 0.1\n", "scores.x: line 2: the control character U+000D at column 9"),
        (b"AMU,0.5\nCAMB,0.3\n", "scores.x.csv: line 1: a CSV metric file starts with a header row (such as "
         "'system,score'), not with the scores of 'AMU'"),
        (b"system,score\nAMU,0.5\nCAMB,0.3,0.1\n", "scores.x.csv: line 3: 3 fields where the header (line 1) has 2"),
        (b"system,score\nAMU,\n", "scores.x.csv: line 2: '' is not a number"),
        (b"system,score\n\n", "scores.x.csv: no metric scores (a header, then rows 'SYSTEM,value...')"),
    ],
)
def test_a_bad_file_is_refused_with_its_name_and_line(data, message):
    """Each refusal of a file of lines ``scores.x`` or of a CSV file ``scores.x.csv``, named as the message says."""
    with pytest.raises(MetricFileError) as error:
        parse_metric_scores(message.split(":", 1)[0], data)
    assert str(error.value).startswith(message)
    assert len(str(error.value)) < 300


def test_a_folder_gives_each_metric_with_a_line_for_every_system(tmp_path):
    (tmp_path / "scores.bleu").write_text(GOOD + "other 0.9\n")
    (tmp_path / "scores.m2").write_text("".join(f"sys{k} 0.{k} 0.{k} 0.{k}\n" for k in range(6)))
    (tmp_path / "scores.sub").mkdir()
    metrics = read_metric_folder(str(tmp_path), SYSTEMS)
    assert sorted(metrics) == ["bleu", "m2"]
    assert metrics["bleu"]["sys3"] == (0.35,) and metrics["m2"]["sys5"] == (0.5, 0.5, 0.5)


def test_a_csv_file_with_a_header_gives_each_row_its_scores():
    """PRODUCT.md: metric score files are ``SYSTEM value ...`` lines "or CSV with a header"; a CSV file was refused
    ("system 'system,score' has no value")."""
    data = b'\xef\xbb\xbfsystem,f0.5,precision,recall\r\nAMU, 0.3510 ,0.4147,0.2174\r\n\r\n"CAMB",.37,+1e-1,1.\r\n'
    assert parse_metric_scores("scores.m2.csv", data) == {"AMU": (0.3510, 0.4147, 0.2174), "CAMB": (0.37, 0.1, 1.0)}


def test_a_folder_reads_a_csv_file_as_its_metric_and_refuses_two_files_of_one_metric(tmp_path):
    (tmp_path / "scores.gleu.csv").write_text("system,score\n" + GOOD.replace(" ", ","))
    assert read_metric_folder(str(tmp_path), SYSTEMS)["gleu"]["sys3"] == (0.35,)
    (tmp_path / "scores.gleu").write_text(GOOD)
    with pytest.raises(MetricFileError) as error:
        read_metric_folder(str(tmp_path), SYSTEMS)
    message = "scores.gleu.csv: metric gleu is in scores.gleu too; keep one of the two files"
    assert str(error.value) == f"{tmp_path}/{message}"


@pytest.mark.parametrize("campaign_form", ["NFC", "NFD"])
def test_a_system_is_found_whichever_way_the_file_or_the_campaign_encodes_its_accents(tmp_path, campaign_form):
    """A tool on macOS writes 'Zürich' decomposed (u + U+0308): the line gives the campaign's system its scores, as
    the score CSVs and Appraise XML do; two lines of the name written both ways are the same system twice."""
    systems = [unicodedata.normalize(campaign_form, "Zürich"), "plain"]
    (tmp_path / "scores.bleu").write_text(f"{unicodedata.normalize('NFD', 'Zürich')} 0.5\nplain 0.25\nother 0.1\n")
    metrics = read_metric_folder(str(tmp_path), systems)
    assert metrics["bleu"] == {systems[0]: (0.5,), "plain": (0.25,), "other": (0.1,)}
    twice = f"{unicodedata.normalize('NFD', 'Zürich')} 0.5\nZürich 0.25\n".encode()
    with pytest.raises(MetricFileError, match="line 2: system 'Zürich' occurs twice"):
        parse_metric_scores("scores.bleu", twice)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"scores.bleu": GOOD.replace("sys0 0.05\n", "")}, "scores.bleu: no line for system sys0"),
        ({"scores.bleu": GOOD, "scores.iwacc": "sys1 0.1\nsys4 0.4\n"},
         "scores.iwacc: no line for systems sys0, sys2, sys3, sys5"),
        ({"scores.": GOOD}, "scores.: a metric file is named scores.<metric>; this one names no metric"),
    ],
)
def test_a_folder_is_refused_for_a_missing_system_or_a_file_naming_no_metric(tmp_path, files, message):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(MetricFileError) as error:
        read_metric_folder(str(tmp_path), SYSTEMS)
    assert str(error.value) == f"{tmp_path}/{message}"


@pytest.mark.django_db
@pytest.mark.parametrize("command", ["analyze", "export_report"])
def test_the_commands_check_the_files_against_the_campaign_before_recording_a_run(tmp_path, command):
    synthetic_campaign("metrics", np.random.default_rng(3), n_rankings=20)
    (tmp_path / "scores.bleu").write_text(GOOD.replace("sys2 0.25\n", ""))
    options = ["--format", "json", "--run"] if command == "export_report" else []
    with pytest.raises(CommandError) as error:
        call_command(command, "--campaign", "metrics", *options, "--bootstrap", "10", "--metrics", str(tmp_path),
                     "--out", str(tmp_path / "out.json"), stderr=io.StringIO())
    assert str(error.value) == f"{tmp_path}/scores.bleu: no line for system sys2"
    assert not AnalysisRun.objects.exists()
    assert not (tmp_path / "out.json").exists()


@pytest.mark.django_db
def test_a_precision_outside_0_to_1_is_refused_before_recording_a_run(tmp_path):
    """A scores.m2 with a negative precision was taken, and the analysis failed at the F-beta sweep after computing
    everything else ('precision, recall and beta must be non-negative'); precisions and recalls near 1e308 failed
    there too (F-beta overflows: 'scores must be finite numbers'). Precision and recall are fractions from 0 to 1:
    the file is refused with its line, as the other checks refuse, before a run is recorded."""
    synthetic_campaign("metrics", np.random.default_rng(3), n_rankings=20)
    precision = {k: "-0.4" if k == 2 else "0.5" for k in range(6)}
    (tmp_path / "scores.m2").write_text("".join(f"sys{k} 0.{k} {precision[k]} 0.{k}\n" for k in range(6)))
    with pytest.raises(CommandError) as error:
        call_command("analyze", "--campaign", "metrics", "--bootstrap", "10", "--metrics", str(tmp_path),
                     "--out", str(tmp_path / "out.json"), stderr=io.StringIO())
    assert str(error.value).startswith(f"{tmp_path}/scores.m2: line 3: precision and recall")
    assert not AnalysisRun.objects.exists()
