"""load_rankings reads arrays: exactly the Rankings the item-by-item loader gave (``loading_reference``) on campaigns
with awkward data, and on CoNLL-14; a fixed number of queries, whatever the judgments."""
from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from annotation.models import Campaign, Candidate, Judgment, Screen, System
from annotation.services.importing import import_outputs
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens
from annotation.services.textfiles import NamedFile
from ranking.loading import load_rankings

from .core.test_rankings_from_codes import assert_same
from .factories import conll14_campaign
from .loading_reference import reference_load_rankings

pytestmark = pytest.mark.django_db

JUDGES = ("ann", "bob", "cyd", "admin")


def awkward_campaign(name: str, rng: np.random.Generator, n_screens: int | None = None) -> Campaign:
    """A campaign of 1-8 systems (sometimes with the source among them) whose outputs often coincide, so that
    candidates collapse; one system made a control at times (its candidates alone dropped, shared ones kept without
    it). Screens of 1-5 candidates ranked with ties by ann, bob, cyd and admin; some flagged (with or without ranked
    candidates), some stored without candidates, a few candidates scored instead of ranked, some screens excluded,
    and a judge of the campaign, dan, who judged nothing."""
    n_sentences, n_systems = int(rng.integers(2, 12)), int(rng.integers(1, 9))
    source = [f"sentence {i} has words ." for i in range(n_sentences)]
    edits = rng.choice(["", " x", " y", " z", " v", " w"], p=[0.3, 0.2, 0.15, 0.15, 0.1, 0.1],
                       size=(n_systems, n_sentences))
    outputs = [[s + edit for s, edit in zip(source, row)] for row in edits]
    text = lambda lines: ("\n".join(lines) + "\n").encode()
    files = [NamedFile(f"sys{k}", text(lines)) for k, lines in enumerate(outputs)]
    if rng.random() < 0.5:
        files.append(NamedFile("source", text(source)))
    campaign = import_outputs(name, NamedFile("source", text(source)), files)
    if n_systems > 1 and rng.random() < 0.5:
        System.objects.filter(campaign=campaign, name=f"sys{int(rng.integers(n_systems))}").update(
            kind=System.Kind.CONTROL)
    by_line: dict[int, list[int]] = {}
    for pk, line in Candidate.objects.filter(segment__campaign=campaign).values_list("id", "segment__line"):
        by_line.setdefault(line, []).append(pk)
    screens = []
    for _ in range(int(rng.integers(0, 40)) if n_screens is None else n_screens):
        line = int(rng.integers(n_sentences))
        shown = rng.permutation(by_line[line])[: int(rng.integers(1, 6))]
        ranked = [JudgedCandidate(int(pk), int(rng.integers(1, len(shown) + 1))) if rng.random() < 0.95
                  else JudgedCandidate(int(pk), score=40.0) for pk in shown]
        kind = rng.random()
        candidates = [] if kind < 0.15 else ranked
        screens.append(JudgedScreen(line=line, judge=JUDGES[int(rng.integers(len(JUDGES)))], candidates=candidates,
                                    duration=timedelta(seconds=20), flag_reason="unclear" if kind < 0.2 else None))
    with transaction.atomic():
        write_judged_screens(campaign, screens, explicit=JUDGES)  # the same accounts in every such campaign
    excluded = [pk for pk in Screen.objects.filter(campaign=campaign).values_list("id", flat=True)
                if rng.random() < 0.1]
    Screen.objects.filter(id__in=excluded).update(excluded=True)
    campaign.judges.add(get_user_model().objects.create_user(f"dan-{name}"))
    return campaign


def selections(campaign: Campaign) -> list[dict]:
    """Every way an analysis or the leaderboard selects judgments, at ids within the campaign's."""
    ids = list(Judgment.objects.filter(assignment__screen__campaign=campaign).order_by("id")
               .values_list("id", flat=True)) or [0]
    third, middle = ids[len(ids) // 3], ids[len(ids) // 2]
    return [
        {}, {"ignored_judges": ()}, {"judge": "ann"}, {"judge": f"dan-{campaign.name}"}, {"up_to": middle},
        {"after": third}, {"after": third, "up_to": middle}, {"after": ids[-1]},
        {"excluded_ranges": [("bob", None, middle), ("cyd", third, None)], "ignored_judges": ()},
    ]


@pytest.mark.parametrize("seed", range(16))
def test_load_rankings_gives_the_rankings_of_the_item_by_item_loader(seed):
    campaign = awkward_campaign(f"awkward-{seed}", np.random.default_rng(seed))
    for selection in selections(campaign):
        assert_same(load_rankings(campaign, **selection), reference_load_rankings(campaign, **selection))


def test_conll14_rankings_are_those_of_the_item_by_item_loader(conll14_dir):
    """G15's 2,319 rankings, 13 of them skipped (Table 1)."""
    campaign = conll14_campaign(conll14_dir)
    rankings = load_rankings(campaign)
    assert rankings.n_rankings == 2319 and (np.bincount(rankings.candidate_ranking, minlength=2319) == 0).sum() == 13
    for selection in ({}, {"ignored_judges": ()}, {"judge": rankings.judge_names[0]}):
        assert_same(load_rankings(campaign, **selection), reference_load_rankings(campaign, **selection))


def test_the_queries_do_not_grow_with_the_judgments():
    counts = []
    for name, screens in (("few", 3), ("many", 60)):
        campaign = awkward_campaign(name, np.random.default_rng(7), n_screens=screens)
        with CaptureQueriesContext(connection) as queries:
            load_rankings(campaign)
        counts.append(len(queries))
    assert counts[0] == counts[1]
