"""Campaigns with judgments for analysis tests, built through the product's own import path."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import numpy as np

from annotation.models import Campaign
from annotation.services.appraise_import import import_appraise_xml
from annotation.services.appraise_xml import AppraiseResults, RankingItem, write_appraise_xml
from annotation.services.importing import import_outputs
from annotation.services.textfiles import NamedFile


def conll14_campaign(conll14_dir: Path, name: str = "conll14") -> Campaign:
    """The G15 campaign: the 13 CoNLL-14 outputs and the 2,319 rankings of judgments.xml."""
    outputs = conll14_dir / "outputs"
    files = [NamedFile(p.name, p.read_bytes()) for p in sorted(outputs.iterdir())]
    campaign = import_outputs(name, NamedFile("INPUT", (outputs / "INPUT").read_bytes()), files)
    import_appraise_xml(campaign, (conll14_dir / "judgments.xml").read_bytes())
    return campaign


def synthetic_campaign(
    name: str, rng: np.random.Generator, n_sentences: int = 40, n_systems: int = 6, n_rankings: int = 120,
    judges: tuple[str, ...] = ("ann", "bob", "cyd"),
) -> Campaign:
    """A campaign whose system k edits a sentence with probability (k + 1) / (n_systems + 1), ranked at random
    with a bias towards better-numbered systems, so that rankings are neither trivial nor random."""
    source = [f"sentence {i} has some words in it ." for i in range(n_sentences)]
    names = [f"sys{k}" for k in range(n_systems)]
    outputs = []
    for k in range(n_systems):
        edited = rng.random(n_sentences) < (k + 1) / (n_systems + 1)
        outputs.append([s.replace("some", f"edit{k}") if e else s for s, e in zip(source, edited)])
    text = lambda lines: ("\n".join(lines) + "\n").encode()
    campaign = import_outputs(
        name, NamedFile("source", text(source)), [NamedFile(n, text(o)) for n, o in zip(names, outputs)]
    )
    items = []
    for i in range(n_rankings):
        line = int(rng.integers(n_sentences))
        groups: dict[str, list[str]] = {}
        for k in range(n_systems):
            groups.setdefault(outputs[k][line], []).append(names[k])
        shown = list(groups.values())
        if len(shown) < 2:
            continue
        order = rng.permutation(len(shown))[:5]
        quality = [max(int(n[3:]) for n in shown[j]) + rng.normal(0, 2) for j in order]
        ranks = 1 + np.argsort(np.argsort(-np.array(quality)))
        items.append(RankingItem(
            id=str(i), doc_id=f"hit-{i}", src_id=line, user=judges[i % len(judges)],
            duration=timedelta(seconds=30), skipped=False,
            translations=[(tuple(sorted(shown[j])), int(min(r, 5))) for j, r in zip(order, ranks)], group="synthetic",
        ))
    import_appraise_xml(campaign, write_appraise_xml(AppraiseResults(items=items)).encode(),
                        users={item.user: item.user for item in items})  # the same judges in every such campaign
    return campaign
