"""Automatic metrics through the product on CoNLL-14: test set and references imported as an organizer would, M2
equal to the official m2scorer's P, R and F0.5 of every system to 4 decimals, GLEU equal to cnap/gec-ranking's
(as the ``gleu`` package computes it with the script's draws)."""
from __future__ import annotations

import numpy as np
import pytest

from annotation.services.importing import import_outputs
from annotation.services.references import import_references
from annotation.services.textfiles import NamedFile
from ranking.automatic_metrics import score_m2
from ranking.core.gleu import corpus_gleu
from ranking.metric_loading import load_metric_inputs

from .published_tables import published_table

pytestmark = pytest.mark.django_db

#: The official m2scorer (github nusnlp/m2scorer, Python 2.7, max unchanged words 2, beta 0.5) on
#: gold/conll14st-test.m2, as it printed them when run on outputs/ (F0.5 as published for CoNLL-2014).
OFFICIAL_M2 = {system: (f, p, r) for system, f, p, r in published_table("""
system  F0.5    P       R
CAMB    0.3733  0.3971  0.3010
CUUI    0.3679  0.4178  0.2488
AMU     0.3501  0.4162  0.2140
POST    0.3088  0.3451  0.2173
NTHU    0.2992  0.3508  0.1885
RAC     0.2668  0.3314  0.1499
UMC     0.2537  0.3127  0.1446
PKU     0.2532  0.3221  0.1365
SJTU    0.1519  0.3011  0.0510
UFC     0.0784  0.7000  0.0172
IPN     0.0709  0.1128  0.0285
IITB    0.0590  0.3077  0.0139
INPUT   0.0000  1.0000  0.0000
""")}


@pytest.fixture
def campaign(conll14_dir):
    outputs = conll14_dir / "outputs"
    systems = [NamedFile(path.name, path.read_bytes()) for path in sorted(outputs.iterdir())]
    campaign = import_outputs("conll14-metrics", NamedFile("INPUT", (outputs / "INPUT").read_bytes()), systems)
    gold = conll14_dir / "gold"
    import_references(
        campaign,
        NamedFile("conll14st-test.m2", (gold / "conll14st-test.m2").read_bytes()),
        [NamedFile(name, (gold / name).read_bytes()) for name in ("ref0", "ref1")],
    )
    return campaign


def test_m2_equals_the_official_scorer_and_gleu_the_gleu_package(campaign):
    inputs = load_metric_inputs(campaign)
    scores = score_m2(inputs)
    found = {
        system: (round(scores.system[system], 4), round(scores.precision[system], 4), round(scores.recall[system], 4))
        for system in scores.system
    }
    assert found == OFFICIAL_M2

    pytest.importorskip("gleu")
    from gleu.aggreg import make_drn_accum
    from gleu.count import set_tokenization
    from gleu.score import drn_accum_to_n_accum, n_accum_to_gleu, rindex_to_rhlen
    from gleu.util import make_id_rindex

    hypotheses = inputs.outputs["CAMB"]
    ours = corpus_gleu(
        [line.split() for line in inputs.sources],
        [[line.split() for line in lines] for lines in inputs.references.values()],
        [line.split() for line in hypotheses],
    )
    set_tokenization("word")
    references = list(zip(*inputs.references.values()))
    accums = make_drn_accum(4, inputs.sources, references, hypotheses)
    reference_lengths = np.array([[len(reference.split()) for reference in pair] for pair in references])
    hypothesis_lengths = np.array([len(line.split()) for line in hypotheses])
    expected = np.mean([
        n_accum_to_gleu(
            drn_accum_to_n_accum(accums, draw), *rindex_to_rhlen(reference_lengths, hypothesis_lengths, draw)
        )
        for draw in make_id_rindex(500, len(inputs.sources), 2, fix=True)
    ])
    assert ours.score == pytest.approx(expected, abs=1e-9)
    assert round(ours.score, 4) == 0.5960
