"""Creating screens and pool slots from a campaign's sampling settings."""
from __future__ import annotations

from collections import Counter

import pytest

from annotation.models import Assignment, Campaign, Output, Screen, System
from annotation.services.attention import CONTROL_SYSTEM
from annotation.services.importing import import_outputs
from annotation.services.screens import create_screens, screen_count
from annotation.services.textfiles import NamedFile

from .factories import small_campaign
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


def planned_screens(campaign: Campaign) -> list[tuple[int, tuple[str, ...], bool]]:
    """Each screen of ``campaign`` by number: its sentence's line, its candidates' texts in display order (a control
    candidate's after its system's name) and whether it is a control screen."""
    controls = set(Output.objects.filter(system__campaign=campaign, system__kind=System.Kind.CONTROL)
                   .values_list("candidate_id", flat=True))
    return [
        (screen.segment.line,
         tuple(f"{CONTROL_SYSTEM}: {slot.candidate.text}" if slot.candidate_id in controls else slot.candidate.text
               for slot in screen.slots.order_by("position").select_related("candidate")),
         screen.control)
        for screen in Screen.objects.filter(campaign=campaign).order_by("number").select_related("segment")
    ]


#: The screens of ``test_a_seed_plans_these_screens``, as planned before planning read kept multiplicities.
PINNED = {
    "diversity": [
        (2, (
            "They is here since morning .",
            "They have been here since morning .",
            "They are here since the morning .",
        ), False),
        (0, (
            "He go to school every day .",
            f"{CONTROL_SYSTEM}: Hee go school every day .",
            "He goes to school every day .",
        ), True),
        (1, (
            "She like apples and <script>alert(1)</script> pears .",
            "She like apples and <b>pears</b> .",
            "She likes apples and pears .",
        ), False),
        (5, (f"{CONTROL_SYSTEM}: end is near .", "The end are near .", "The end is near ."), True),
        (5, ("The end are near .", "End are near .", "The end is near ."), False),
        (1, (
            "She like apples and <script>alert(1)</script> pears .",
            "She like apples and <b>pears</b> .",
            f"{CONTROL_SYSTEM}: She like apple and <scipt>alert(1)</script> pears .",
        ), True),
        (2, (
            "They have been here since morning .",
            "They is here since morning .",
            "They are here since the morning .",
        ), False),
        (5, (f"{CONTROL_SYSTEM}: end is near .", "End are near .", "The end are near ."), True),
        (1, (
            "She likes apples and pears .",
            f"{CONTROL_SYSTEM}: She like apple and <scipt>alert(1)</script> pears .",
            "She like apples and <script>alert(1)</script> pears .",
        ), False),
        (4, (f"{CONTROL_SYSTEM}: It hvae mnay problem .", "It has many problem .", "It have many problem ."), True),
        (1, (
            "She like apples and <script>alert(1)</script> pears .",
            "She likes apples and <script>alert(1)</script> pears .",
            "She likes apples and pears .",
        ), False),
    ],
    "uniform": [
        (5, ("The end are near .", "The end is near .", "End are near ."), False),
        (3, ("A document starts here .", "A new document starts here ."), False),
        (0, (
            "He goes to school every day .",
            "He go to school every day .",
            "He goes to the school every day .",
        ), False),
        (0, (
            "He goes to school every day .",
            "He go to school every day .",
            "He goes to the school every day .",
        ), False),
        (3, ("A new document starts here .", "A document starts here ."), False),
        (2, (
            "They is here since morning .",
            "They have been here since morning .",
            "They are here since the morning .",
        ), False),
        (5, ("The end is near .", "End are near .", "The end are near ."), False),
    ],
    "full": [
        (2, (
            "They have been here since morning .",
            "They is here since morning .",
            "They are here since the morning .",
        ), False),
        (3, ("A new document starts here .", "A document starts here ."), False),
        (1, (
            "She likes apples and <script>alert(1)</script> pears .",
            "She like apples and <script>alert(1)</script> pears .",
            "She like apples and <b>pears</b> .",
        ), False),
        (4, ("It have many problem .", "It have many problems .", "It has many problem ."), False),
        (5, ("The end are near .", "End are near .", "The end is near ."), False),
        (0, (
            "He go to school every day .",
            "He goes to school every day .",
            "He goes to the school every day .",
        ), False),
        (2, (
            "They have been here since morning .",
            "They are here since the morning .",
            "They is here since morning .",
        ), False),
        (3, ("A document starts here .", "A new document starts here ."), False),
        (1, (
            "She like apples and <b>pears</b> .",
            "She likes apples and pears .",
            "She like apples and <script>alert(1)</script> pears .",
        ), False),
    ],
}


@pytest.mark.parametrize("sampling, batches, options", [
    ("diversity", (6, 5), {"control_share": 0.5}),
    ("uniform", (4, 3), {}),
    ("full", (3, None), {}),
])
def test_a_seed_plans_these_screens(sampling, batches, options):
    """The exact screens two batches of a seeded campaign get (the second after the first's control candidates
    were added), pinned so that a change in how planning reads the test set cannot change them; a control
    candidate's text too, which the corrupter draws by the sentence's line (not its id in this database)."""
    campaign = small_campaign(f"pinned {sampling}", sampling=sampling, max_candidates=3, seed=2015, **options)
    for count in batches:
        create_screens(campaign, count)
    assert planned_screens(campaign) == PINNED[sampling]
