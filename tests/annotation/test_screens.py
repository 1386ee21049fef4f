"""Creating screens and pool slots from a campaign's sampling settings."""
from __future__ import annotations

from collections import Counter

import pytest

from annotation.models import Assignment, Campaign, Screen
from annotation.services.importing import import_outputs
from annotation.services.screens import create_screens, screen_count
from annotation.services.textfiles import NamedFile

from .test_importing import SOURCE, named, systems

pytestmark = pytest.mark.django_db


def toy(name: str, **options) -> Campaign:
    return import_outputs(name, named("source", SOURCE), systems(), source_is_system=True, **options)


def screen_contents(campaign: Campaign) -> list[tuple[int, list[str]]]:
    return [
        (screen.segment.line, [slot.candidate.text for slot in screen.slots.order_by("position")])
        for screen in Screen.objects.filter(campaign=campaign).order_by("number").select_related("segment")
    ]


def test_screens_show_distinct_candidates_of_rankable_sentences_with_redundant_slots():
    campaign = toy("toy", max_candidates=2, redundancy=3, seed=7)
    assert create_screens(campaign, 20) == range(20)
    for line, texts in screen_contents(campaign):
        assert line != 2  # the empty line has a single candidate: nothing to rank
        assert len(texts) == 2 and len(set(texts)) == 2
    slots = Counter(Assignment.objects.filter(judge__isnull=True).values_list("screen__number", flat=True))
    assert slots == {n: 3 for n in range(20)}
    positions = list(Assignment.objects.order_by("position").values_list("position", flat=True))
    assert positions == list(range(60))


def test_a_seed_reproduces_the_same_screens_and_another_seed_does_not():
    first, second, other = toy("a", seed=11), toy("b", seed=11), toy("c", seed=12)
    for campaign in (first, second, other):
        create_screens(campaign, 30)
        create_screens(campaign, 10)
    assert screen_contents(first) == screen_contents(second)
    assert screen_contents(first) != screen_contents(other)
    assert [s.number for s in Screen.objects.filter(campaign=first).order_by("number")] == list(range(40))
    assert screen_count(first) == 40, "numbers have no gaps: the next number is the count"


def test_full_coverage_shows_every_rankable_sentence_once():
    campaign = toy("full", sampling=Campaign.Sampling.FULL)
    create_screens(campaign)
    assert sorted(line for line, _ in screen_contents(campaign)) == [0, 1, 3]


def test_conll14_diversity_sampling_prefers_diverse_sentences(conll14_dir):
    outputs = conll14_dir / "outputs"
    files = [NamedFile(p.name, p.read_bytes()) for p in sorted(outputs.iterdir())]
    campaign = import_outputs("conll14", NamedFile("INPUT", (outputs / "INPUT").read_bytes()), files, seed=3)
    assert len(create_screens(campaign, 400)) == 400
    sampled = [len(s.segment.candidates.all()) for s in Screen.objects.prefetch_related("segment__candidates")]
    histogram = campaign.distinct_histogram
    mean_distinct_all = sum(int(k) * v for k, v in histogram.items()) / sum(histogram.values())
    assert sum(sampled) / len(sampled) > mean_distinct_all + 0.5
