"""Active selection's short queue written into a campaign (ranking/active_screens.py, issue 13), on PostgreSQL."""
from __future__ import annotations

import re
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotation.models import Assignment, Campaign, Judgment, Screen, ScreenCandidate
from annotation.services import queue
from annotation.services.exclusion import set_excluded
from ranking import active_screens
from ranking.active_screens import running_state, write_active_screens
from ranking.core.active import ScreenOptions, belief_from_rankings, pair_weights, screen_information
from ranking.core.pairs import expanded_pairs, outcome_counts
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
    for arguments, message in [
        (["--campaign", "active-cli", "--count", "0"], "--count must be between 1 and 10000, got 0"),
        (["--campaign", "nowhere"], "no campaign named 'nowhere'"),
    ]:
        with pytest.raises(CommandError, match=message):
            call_command("active_screens", *arguments)
    assert Screen.objects.filter(campaign=campaign).count() == 2


def test_the_command_gives_a_prws_campaign_easls_screens():
    """EASL's first pass: the first screens show candidates no screen showed yet, each sentence's up to M."""
    campaign = small_campaign("active-cli-prws", mode=Campaign.Mode.PRWS)
    out = StringIO()
    call_command("active_screens", "--campaign", "active-cli-prws", "--count", "2", stdout=out)
    assert out.getvalue().strip() == "active-cli-prws: 2 screens added (0 to 1)"
    shown = [list(screen.slots.values_list("candidate_id", flat=True))
             for screen in Screen.objects.filter(campaign=campaign).order_by("number")]
    assert len(shown) == 2 and all(len(candidates) >= 2 for candidates in shown)
    assert len({pk for candidates in shown for pk in candidates}) == sum(map(len, shown))


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


def judge_open_screens(campaign: Campaign, username: str) -> int:
    """A judge submits every screen the queue serves them (ranked in display order); how many."""
    person, done = judge(username, campaign), 0
    while (assignment := queue.next_assignment(campaign, person)) is not None:
        queue.submit_ranking(assignment.token, person, list(range(1, assignment.screen.candidates.count() + 1)),
                             queue.candidate_keys(assignment))
        done += 1
    return done


def newest_judgment(campaign: Campaign) -> int:
    return Judgment.objects.filter(assignment__campaign=campaign).order_by("-id").values_list("id", flat=True)[0]


def assert_recomputed(campaign: Campaign, counts: np.ndarray, belief) -> None:
    """The kept counts and belief are those of a full recomputation from every ranking analysed, in order."""
    rankings = load_rankings(campaign)
    full = belief_from_rankings(rankings)
    assert np.array_equal(belief.mu, full.mu) and np.array_equal(belief.sigma, full.sigma)
    assert np.array_equal(counts, outcome_counts(expanded_pairs(rankings), rankings.n_systems))


def test_the_running_belief_is_kept_and_observes_only_the_judgments_stored_since(monkeypatch):
    campaign = synthetic_campaign("kept", np.random.default_rng(5), n_sentences=30, n_systems=6, n_rankings=40)
    read, loaded = active_screens.analysed_rankings, []

    def recorded(campaign, after, up_to):
        loaded.append((after, up_to))
        return read(campaign, after, up_to)

    monkeypatch.setattr(active_screens, "analysed_rankings", recorded)
    first = newest_judgment(campaign)
    assert_recomputed(campaign, *running_state(campaign))
    assert loaded == [(None, first)]
    assert_recomputed(campaign, *running_state(campaign))
    assert loaded == [(None, first)], "nothing new: nothing is read"
    write_active_screens(campaign, 4)
    assert judge_open_screens(campaign, "dee") == 4
    assert_recomputed(campaign, *running_state(campaign))
    assert loaded[-1] == (first, newest_judgment(campaign)), "only the judgments stored since are read"
    set_excluded(Screen.objects.filter(campaign=campaign).order_by("number").first(), True)
    assert_recomputed(campaign, *running_state(campaign))
    assert loaded[-1] == (None, newest_judgment(campaign)), "an excluded screen rebuilds the belief from all judgments"


def shown_by_line(campaign: Campaign) -> list[str]:
    """Each screen of ``campaign`` in number order: its sentence's line, a colon and the word each text it shows has
    where the systems edit (``some`` unedited, ``edit3`` system 3's), in order."""
    return [
        f"{screen.segment.line}: " + " ".join(text.split()[3] for text in screen.slots.order_by("position")
                                              .values_list("candidate__text", flat=True))
        for screen in Screen.objects.filter(campaign=campaign).select_related("segment").order_by("number")
    ]


#: The PRWS screens EASL chose in ``test_easl_chooses_the_same_screens_for_the_same_scores_and_seed`` (as
#: ``shown_by_line`` says them, in number order, separated by "|"), as it chose them when it read every candidate of
#: the campaign.
PINNED_EASL_SCREENS = """
14: edit1 edit0 edit5 | 15: edit5 some edit0 | 17: some edit3 edit5 | 0: edit3 edit1 edit4 | 3: edit0 some edit3
2: edit2 edit3 some | 4: edit5 edit3 edit0 | 27: edit1 edit4 edit2 | 29: edit0 edit2 edit1 | 3: edit2 edit1 edit4
22: edit1 edit0 edit4 | 26: edit4 edit0 edit2 | 22: edit2 edit5 edit3 | 9: edit1 edit0 edit4 | 17: some edit4 edit1
5: edit4 some edit2 | 24: edit1 some edit4 | 8: some edit3 edit4 | 19: edit3 edit2 some | 7: edit4 edit5 some
9: edit0 edit5 edit3 | 11: edit4 edit3 edit2 | 13: edit2 edit3 edit0 | 28: some edit0 edit4 | 25: edit5 some edit1
18: edit1 edit5 edit0 | 18: edit5 edit0 edit3 | 1: edit1 edit2 some | 23: edit1 edit2 edit0 | 16: some edit1 edit3
1: edit4 some edit2 | 6: edit5 edit0 edit3 | 20: edit5 edit1 edit0 | 28: edit2 edit0 edit3 | 21: edit5 edit4 edit1
13: some edit3 edit4 | 4: edit5 some edit0 | 11: edit3 edit2 edit0 | 25: edit5 edit1 edit0 | 10: edit1 edit2 edit5
0: edit2 edit5 edit0 | 6: edit4 edit5 edit2 | 25: edit2 edit1 edit5 | 23: edit0 edit5 edit2 | 5: edit1 edit4 some
6: edit1 edit4 edit0 | 13: edit5 edit4 edit0 | 21: some edit0 edit4
"""


def test_easl_chooses_the_same_screens_for_the_same_scores_and_seed():
    """A PRWS campaign's EASL screens, before and after a rater scored some of them and with some still waiting,
    are those pinned: reading only the candidates it needs (rated, waiting, shown) changes no choice."""
    from tests.ranking.test_active_queue import prws_campaign

    campaign = prws_campaign("easl-pinned", np.random.default_rng(7), n_sentences=30, n_systems=6)
    campaign.max_candidates = 3
    campaign.save()
    active_screens.write_active_prws_screens(campaign, 8)
    rater = judge("easl-rater", campaign)
    rng = np.random.default_rng(3)
    for _ in range(6):
        assignment = queue.next_assignment(campaign, rater)
        shown = queue.candidate_keys(assignment)
        queue.submit_scores(assignment.token, rater, [float(s) for s in rng.uniform(0, 100, len(shown))],
                            [False] * len(shown), shown)
    active_screens.write_active_prws_screens(campaign, 40)
    assert shown_by_line(campaign) == re.split(r" \| |\n", PINNED_EASL_SCREENS.strip())
