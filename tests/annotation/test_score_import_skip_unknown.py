"""``import_scores --skip-unknown``: a column (wide) or row (long) naming no system of the campaign is skipped and
counted instead of refused; held out: GMEG-Data's dev segment scores, imported without their ``ref`` column (no
single output file), give every other system its released corpus mean (../shared/data/gmeg/dev)."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Campaign, CandidateJudgment
from annotation.services.score_import import ScoreImportError, import_scores

from .factories import small_campaign

pytestmark = pytest.mark.django_db

WIDE = "ZEPHYRSYS,ref,INPUT,other\n50,99,60,\n,,,\n70,,20.5,1\n,,,\n,,,\n,,,\n"
GMEG_SYSTEMS = ("amu", "lstm", "lstm-r", "marian", "nus", "transformer", "source")


@pytest.fixture
def campaign():
    return small_campaign("scored", mode=Campaign.Mode.PRWS)


def test_unknown_columns_of_a_wide_file_are_skipped_and_counted(campaign, tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text(WIDE, encoding="utf-8")
    out = io.StringIO()
    call_command("import_scores", "--campaign", "scored", "--wide", "--skip-unknown", str(path), stdout=out)
    assert out.getvalue().splitlines() == [
        "Imported 4 ratings on 2 screens by 1 rater into 'scored'.",
        "Skipped 2 cells naming no system of the campaign ('other', 'ref').",
    ]
    assert sorted(CandidateJudgment.objects.values_list("score", flat=True)) == [20.5, 50.0, 60.0, 70.0]


def test_a_long_unknown_name_is_shortened_in_the_summary(campaign, tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text(WIDE.replace("other", "o" * 100_000), encoding="utf-8")
    out = io.StringIO()
    call_command("import_scores", "--campaign", "scored", "--wide", "--skip-unknown", str(path), stdout=out)
    assert out.getvalue().splitlines()[1] == (
        f"Skipped 2 cells naming no system of the campaign ({'o' * 60!r}... (100000 characters), 'ref')."
    )


def test_unknown_systems_of_a_long_file_are_skipped_and_counted(campaign):
    summary = import_scores(campaign, b"ann,0,ref,90\nann,0,INPUT,40\nann,1,ref,80\nann,1,nope,2\n", skip_unknown=True)
    assert (summary.ratings, summary.skipped, summary.unknown) == (1, 3, ("nope", "ref"))


def test_without_the_flag_an_unknown_system_is_still_refused(campaign, tmp_path):
    with pytest.raises(ScoreImportError, match="row 1, column 2: unknown system 'ref'"):
        import_scores(campaign, WIDE.encode(), wide=True)
    path = tmp_path / "wide.csv"
    path.write_text(WIDE, encoding="utf-8")
    with pytest.raises(CommandError, match="unknown system 'ref'"):
        call_command("import_scores", "--campaign", "scored", "--wide", str(path), stdout=io.StringIO())
    assert not CandidateJudgment.objects.exists()


def test_skipping_leaves_only_unknown_names_out(campaign):
    with pytest.raises(ScoreImportError, match="row 2, column 'INPUT': score 'x' is not a number"):
        import_scores(campaign, b"INPUT,ref\nx,1\n,\n,\n,\n,\n,\n", wide=True, skip_unknown=True)
    assert not CandidateJudgment.objects.exists()


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["fce", "wiki"])
def test_gmeg_dev_without_ref_gives_the_released_corpus_means(gmeg_dir, tmp_path, domain):
    dev = gmeg_dir / "dev"
    segment_csv = dev / f"{domain}-segment-scores.csv"
    call_command("import_outputs", "--campaign", domain, "--mode", "prws", "--source", str(dev / domain / "source"),
                 *(str(dev / domain / name) for name in GMEG_SYSTEMS), stdout=io.StringIO())
    out = io.StringIO()
    call_command("import_scores", "--campaign", domain, "--wide", "--skip-unknown", str(segment_csv), stdout=out)
    with segment_csv.open(encoding="utf-8") as handle:
        ref_cells = sum(bool(row["ref"].strip()) for row in csv.DictReader(handle))
    assert out.getvalue().splitlines()[1] == f"Skipped {ref_cells} cells naming no system of the campaign ('ref')."
    analysis_file = tmp_path / "analysis.json"
    call_command("analyze", "--campaign", domain, "--bootstrap", "20", "--seed", "1", "--out", str(analysis_file),
                 stderr=io.StringIO())
    means = {row["system"]: row["mean"] for row in json.loads(analysis_file.read_text())["prws"]["systems"]}
    with (dev / f"{domain}-corpus-scores.csv").open(encoding="utf-8") as handle:
        corpus = {row["system"]: float(row["score"]) for row in csv.DictReader(handle)}
    assert set(means) == set(corpus) - {"ref"} == set(GMEG_SYSTEMS)
    for system, mean in means.items():
        assert abs(mean - corpus[system]) < 1e-6, system
