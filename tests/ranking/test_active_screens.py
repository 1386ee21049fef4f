"""Active selection's short queue written into a campaign (ranking/active_screens.py, issue 13), on PostgreSQL."""
from __future__ import annotations

from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotation.models import Assignment, Campaign, Screen, ScreenCandidate
from annotation.services import queue
from ranking.active_screens import write_active_screens
from ranking.core.active import ScreenOptions, belief_from_rankings, pair_weights, screen_information
from ranking.loading import contestant_names, load_rankings
from tests.annotation.factories import judge, small_campaign

from .factories import synthetic_campaign

pytestmark = pytest.mark.django_db


def test_active_screens_are_ordinary_screens_with_the_campaigns_redundancy():
    campaign = synthetic_campaign("active", np.random.default_rng(3), n_sentences=30, n_systems=6, n_rankings=90)
    Campaign.objects.filter(pk=campaign.pk).update(redundancy=2, max_candidates=3)
    campaign.refresh_from_db()
    before = Screen.objects.filter(campaign=campaign).count()
    numbers = write_active_screens(campaign, 6)
    assert list(numbers) == list(range(before, before + 6))
    screens = Screen.objects.filter(campaign=campaign, number__in=numbers)
    assert screens.count() == 6
    assert len(set(screens.values_list("segment_id", flat=True))) == 6, "one batch asks each sentence once"
    for screen in screens:
        shown = ScreenCandidate.objects.filter(screen=screen)
        assert 2 <= shown.count() <= 3
        assert set(shown.values_list("candidate__segment_id", flat=True)) == {screen.segment_id}
        assert Assignment.objects.filter(screen=screen, judge__isnull=True).count() == 2
    # the queue serves them like any other screen: each to two different judges, never twice to one
    ann, bob = judge("ann2", campaign), judge("bob2", campaign)
    served = {}
    for person in (ann, bob):
        served[person.pk] = set()
        while (assignment := queue.next_assignment(campaign, person)) is not None:
            if assignment.screen.number not in numbers or assignment.screen_id in served[person.pk]:
                break
            served[person.pk].add(assignment.screen_id)
            queue.submit_ranking(assignment.token, person, list(range(1, assignment.screen.candidates.count() + 1)),
                                 queue.candidate_keys(assignment))
    assert served[ann.pk] == served[bob.pk] == set(screens.values_list("id", flat=True))


def test_active_screens_take_the_most_informative_sentences_first():
    campaign = synthetic_campaign("active-best", np.random.default_rng(4), n_sentences=30, n_systems=6,
                                  n_rankings=60)
    names = contestant_names(campaign)
    weights = pair_weights(belief_from_rankings(load_rankings(campaign)))
    shown_before = set(Screen.objects.filter(campaign=campaign).values_list("segment_id", flat=True))
    numbers = write_active_screens(campaign, 1)
    screen = Screen.objects.get(campaign=campaign, number=numbers[0])
    assert screen.segment_id not in shown_before, "a sentence no screen showed yet comes first"
    lines = {}
    for segment in campaign.segments.exclude(pk__in=shown_before):
        groups = [[names.index(o.system.name) for o in c.outputs.all()] for c in segment.candidates.all()]
        if len(groups) >= 2:
            lines[segment.line] = groups
    options = ScreenOptions.from_screens(list(lines.values()))
    info = dict(zip(lines, screen_information(weights, options, np.arange(len(lines)), campaign.max_candidates)))
    # of the unshown sentences, scored without the unresolved-pair mask the service also applies, the chosen one is
    # still near the top
    assert info[screen.segment.line] >= np.quantile(list(info.values()), 0.8)


def test_prws_campaigns_and_empty_requests_are_refused():
    ranking = small_campaign("active-small")
    with pytest.raises(ValueError, match="at least one"):
        write_active_screens(ranking, 0)
    prws = small_campaign("active-prws", mode=Campaign.Mode.PRWS)
    with pytest.raises(ValueError, match="relative ranking"):
        write_active_screens(prws, 3)
    assert not Screen.objects.filter(campaign=prws).exists()


def test_command_adds_screens_and_refuses_bad_requests_with_a_message():
    campaign = small_campaign("active-cli")
    out = StringIO()
    call_command("active_screens", "--campaign", "active-cli", "--count", "2", stdout=out)
    assert out.getvalue().strip() == "active-cli: 2 screens added (0 to 1)"
    assert Screen.objects.filter(campaign=campaign).count() == 2
    small_campaign("active-cli-prws", mode=Campaign.Mode.PRWS)
    for arguments, message in [
        (["--campaign", "active-cli", "--count", "0"], "--count must be between 1 and 10000, got 0"),
        (["--campaign", "nowhere"], "no campaign named 'nowhere'"),
        (["--campaign", "active-cli-prws"], "active screens are for relative ranking campaigns"),
    ]:
        with pytest.raises(CommandError, match=message):
            call_command("active_screens", *arguments)
    assert Screen.objects.filter(campaign=campaign).count() == 2


def test_active_screens_get_their_repeats_like_sampled_ones():
    """With repeat rate 1 every active screen a judge submits comes back to them once (intra-annotator agreement)."""
    campaign = small_campaign("active-repeats")
    Campaign.objects.filter(pk=campaign.pk).update(repeat_rate=1.0)
    campaign.refresh_from_db()
    numbers = write_active_screens(campaign, 3)
    person = judge("cyd2", campaign)
    judged = []
    while (assignment := queue.next_assignment(campaign, person)) is not None and len(judged) < 20:
        judged.append((assignment.screen.number, assignment.repeat_of_id is not None))
        queue.submit_ranking(assignment.token, person, [1] * assignment.screen.candidates.count(),
                             queue.candidate_keys(assignment))
    assert sorted(judged) == sorted([(n, False) for n in numbers] + [(n, True) for n in numbers])
