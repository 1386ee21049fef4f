"""The background short queue of campaigns with active selection (ranking/active_queue.py, issue 13): judges are
served from screens written ahead, the queue is refilled after commits, and redundancy, repeats, one served screen
per judge and the diversity of sentences hold as with random screens."""
from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest

from annotation.models import Assignment, Campaign, Screen, ScreenCandidate
from annotation.services import active_queue as annotation_queue
from annotation.services import queue
from annotation.services.importing import import_outputs
from annotation.services.textfiles import NamedFile
from ranking import active_queue
from tests.annotation.factories import judge, small_campaign

from .factories import synthetic_campaign

pytestmark = pytest.mark.django_db

QUEUE = annotation_queue.QUEUE_SCREENS


def make_active(campaign: Campaign, capture, **fields) -> Campaign:
    """Switch ``campaign`` to active selection (and ``fields``), running the commit hooks the save registers."""
    for name, value in {"selection": Campaign.Selection.ACTIVE, **fields}.items():
        setattr(campaign, name, value)
    with capture(execute=True):
        campaign.save()
    return campaign


def open_slots(campaign: Campaign) -> int:
    return annotation_queue.open_screens(campaign, 10**6)


def serve(campaign: Campaign, person, capture) -> Assignment | None:
    with capture(execute=True):
        return queue.next_assignment(campaign, person)


def prws_campaign(name: str, rng: np.random.Generator, n_sentences: int = 12, n_systems: int = 5) -> Campaign:
    """A PRWS campaign whose systems edit sentences at random (several candidates per sentence), no judgments."""
    source = [f"sentence {i} has some words in it ." for i in range(n_sentences)]
    text = lambda lines: ("\n".join(lines) + "\n").encode()
    systems = []
    for k in range(n_systems):
        edited = rng.random(n_sentences) < 0.7
        systems.append(NamedFile(f"sys{k}", text([s.replace("some", f"edit{k}") if e else s
                                                  for s, e in zip(source, edited)])))
    return import_outputs(name, NamedFile("source", text(source)), systems, mode=Campaign.Mode.PRWS)


def test_a_campaign_switched_to_active_gets_a_short_queue_and_random_ones_do_not(
    django_capture_on_commit_callbacks,
):
    campaign = synthetic_campaign("aq-start", np.random.default_rng(5), n_sentences=40, n_rankings=60)
    before = Screen.objects.filter(campaign=campaign).count()
    with django_capture_on_commit_callbacks(execute=True):
        campaign.save()
    assert Screen.objects.filter(campaign=campaign).count() == before, "random order: nothing written"
    assert not annotation_queue.ask_for_screens(campaign)
    make_active(campaign, django_capture_on_commit_callbacks)
    assert Screen.objects.filter(campaign=campaign).count() == before + QUEUE
    assert open_slots(campaign) == QUEUE
    assert active_queue.top_up(campaign.pk) == 0, "a full queue is left alone"
    Campaign.objects.filter(pk=campaign.pk).update(closed_at="2026-01-01T00:00Z")
    Assignment.objects.filter(campaign=campaign, judge__isnull=True).delete()
    assert active_queue.top_up(campaign.pk) == 0, "a closed campaign gets no screens"


def test_judges_of_an_active_ranking_campaign_never_run_dry_and_the_queue_keeps_its_rules(
    django_capture_on_commit_callbacks,
):
    campaign = synthetic_campaign("aq-rank", np.random.default_rng(6), n_sentences=120, n_rankings=60)
    first_active = Screen.objects.filter(campaign=campaign).count()
    make_active(campaign, django_capture_on_commit_callbacks, redundancy=2, repeat_rate=0.25, max_candidates=3)
    people = [judge(f"aq{k}", campaign) for k in range(3)]
    rng = np.random.default_rng(0)
    for step in range(90):
        person = people[step % 3]
        assignment = serve(campaign, person, django_capture_on_commit_callbacks)
        assert assignment is not None, f"judge {person.username} waited at step {step}"
        served = Assignment.objects.filter(campaign=campaign, judge=person, status=Assignment.Status.SERVED)
        assert served.count() == 1, "one served screen per judge"
        shown = queue.candidate_keys(assignment)
        ranks = [int(r) for r in rng.integers(1, len(shown) + 1, len(shown))]
        with django_capture_on_commit_callbacks(execute=True):
            queue.submit_ranking(assignment.token, person, ranks, shown)
    assert open_slots(campaign) >= annotation_queue.REFILL_BELOW
    taken = Assignment.objects.filter(
        campaign=campaign, judge__isnull=False, repeat_of__isnull=True, screen__number__gte=first_active
    )
    judges_per_screen = defaultdict(list)
    for screen_id, judge_id in taken.values_list("screen_id", "judge_id"):
        judges_per_screen[screen_id].append(judge_id)
    for judges_of_screen in judges_per_screen.values():
        assert len(judges_of_screen) == len(set(judges_of_screen)) <= 2, "redundancy: distinct judges, at most 2"
    assert all(Assignment.objects.filter(screen_id=s).count() >= 2 for s in judges_per_screen)
    repeats = Assignment.objects.filter(campaign=campaign, repeat_of__isnull=False)
    originals = taken.filter(status=Assignment.Status.SUBMITTED).count()
    assert 0.1 <= repeats.count() / originals <= 0.45, (repeats.count(), originals)
    for repeat in repeats:
        assert repeat.judge_id == repeat.repeat_of.judge_id and repeat.screen_id == repeat.repeat_of.screen_id
    active = Screen.objects.filter(campaign=campaign, number__gte=first_active)
    segments = Counter(active.values_list("segment_id", flat=True))
    assert max(segments.values()) == 1, "diversity: no sentence twice while unshown ones are left"
    assert all(2 <= ScreenCandidate.objects.filter(screen=s).count() <= 3 for s in active)


def test_an_active_prws_campaign_follows_easl_first_every_candidate_then_the_uncertain_ones(
    django_capture_on_commit_callbacks,
):
    campaign = prws_campaign("aq-prws", np.random.default_rng(7))
    make_active(campaign, django_capture_on_commit_callbacks, max_candidates=3)
    rankable = [
        segment for segment in campaign.segments.all() if segment.candidates.count() >= 2
    ]
    every = {c.pk for segment in rankable for c in segment.candidates.all()}
    person = judge("aq-rater", campaign)
    rng = np.random.default_rng(1)
    seen: list[set[int]] = []
    for _ in range(40):
        assignment = serve(campaign, person, django_capture_on_commit_callbacks)
        assert assignment is not None
        shown = queue.candidate_keys(assignment)
        candidates = list(assignment.screen.slots.order_by("position").values_list("candidate_id", flat=True))
        seen.append(set(candidates))
        scores = [float(s) for s in rng.uniform(0, 100, len(shown))]
        with django_capture_on_commit_callbacks(execute=True):
            queue.submit_scores(assignment.token, person, scores, [False] * len(shown), shown)
    covered: set[int] = set()
    for k, candidates in enumerate(seen):
        if covered >= every:
            break
        assert candidates - covered, f"screen {k} of the first pass shows no candidate new to the rater"
        covered |= candidates
    assert covered >= every, "the first pass shows every candidate"
    later = seen[k:]
    assert later, "screens after the first pass"
    assert all(len(c) >= 2 for c in later)


def test_the_refill_runs_where_analyses_run(monkeypatch, settings, django_capture_on_commit_callbacks):
    campaign = small_campaign("aq-where")
    started = []
    monkeypatch.setattr(active_queue, "_in_thread", started.append)
    settings.ANALYSIS_EXECUTION = "process"
    active_queue.start_top_up(campaign.pk)
    assert started == [campaign.pk], "embedded mode: a thread of this process"

    from ranking import tasks

    def unreachable(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(tasks.top_up_active_queue_task, "delay", unreachable)
    settings.ANALYSIS_EXECUTION = "celery"
    active_queue.start_top_up(campaign.pk)
    assert started == [campaign.pk, campaign.pk], "task queue unreachable: the in-process path"
    sent = []
    monkeypatch.setattr(tasks.top_up_active_queue_task, "delay", sent.append)
    active_queue.start_top_up(campaign.pk)
    assert sent == [campaign.pk] and len(started) == 2


@pytest.mark.django_db(transaction=True)
def test_in_the_embedded_mode_a_thread_of_the_web_process_fills_the_queue_after_commit(settings):
    import threading

    settings.ANALYSIS_EXECUTION = "process"
    campaign = small_campaign("aq-thread")
    campaign.selection = Campaign.Selection.ACTIVE
    campaign.save()
    for thread in [t for t in threading.enumerate() if t.name == f"active-queue-{campaign.pk}"]:
        thread.join(timeout=60)
    assert open_slots(campaign) == min(QUEUE, Screen.objects.filter(campaign=campaign).count()) > 0
    assert campaign.pk not in active_queue._running
