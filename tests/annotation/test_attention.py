"""Attention checks: control outputs from the corrupter on unserved screens, and each judge's rate of ranking
them last."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from django.db import connection, transaction

from annotation.models import Assignment, Candidate, Output, ScreenCandidate, System
from annotation.services import queue
from annotation.services.attention import CONTROL_SYSTEM, add_attention_checks, attention_check_rates

from .factories import add_screen, judge, small_campaign

pytestmark = pytest.mark.django_db


def control_slots(campaign):
    return ScreenCandidate.objects.filter(
        screen__campaign=campaign, candidate__outputs__system__kind=System.Kind.CONTROL
    )


def test_controls_go_on_the_chosen_share_of_unserved_screens():
    campaign = small_campaign(max_candidates=4)
    screens = [add_screen(campaign, line) for line in range(6)]
    served_screen = queue.next_assignment(campaign, judge("ann", campaign)).screen
    before = {s.pk: list(s.slots.values_list("candidate_id", flat=True)) for s in screens}
    added = add_attention_checks(campaign, 0.6, np.random.default_rng(3))
    assert added == 3, "60% of the 5 unserved screens"
    slots = control_slots(campaign)
    assert slots.count() == 3 and served_screen.pk not in slots.values_list("screen_id", flat=True)
    control = System.objects.get(campaign=campaign, name=CONTROL_SYSTEM)
    assert control.kind == System.Kind.CONTROL
    for slot in slots.select_related("candidate__segment"):
        candidate, segment = slot.candidate, slot.candidate.segment
        assert candidate.text != segment.source
        assert list(Output.objects.filter(candidate=candidate).values_list("system", flat=True)) == [control.pk]
        shown = list(slot.screen.slots.order_by("position").values_list("candidate_id", flat=True))
        assert list(range(len(shown))) == sorted(slot.screen.slots.values_list("position", flat=True))
        assert len(shown) <= campaign.max_candidates
        kept = [pk for pk in shown if pk != candidate.pk]
        assert set(kept) <= set(before[slot.screen_id])
        assert len(kept) == min(len(before[slot.screen_id]), campaign.max_candidates - 1)
    assert add_attention_checks(campaign, 1.0, np.random.default_rng(3)) == 2, "only screens without one"


def test_attention_checks_are_reproducible_from_the_generator():
    texts = []
    for name in ("one", "two"):
        campaign = small_campaign(name)
        for line in range(6):
            add_screen(campaign, line)
        add_attention_checks(campaign, 0.5, np.random.default_rng(11))
        texts.append(
            sorted(control_slots(campaign).values_list("screen__number", "position", "candidate__text"))
        )
    assert texts[0] == texts[1] and len(texts[0]) == 3


@pytest.mark.parametrize("share", [0, -0.1, 1.5])
def test_bad_shares_are_refused(share):
    with pytest.raises(ValueError):
        add_attention_checks(small_campaign(), share, np.random.default_rng(0))


def test_rate_of_ranking_the_control_last_per_judge():
    campaign = small_campaign(max_candidates=5)
    for line in (0, 1, 2, 4):
        add_screen(campaign, line, slots=2)
    add_attention_checks(campaign, 1.0, np.random.default_rng(5))
    ann, bob = judge("ann", campaign), judge("bob", campaign)

    def control_position(assignment):
        return control_slots(campaign).get(screen=assignment.screen).position

    for screen_number in range(4):
        for person in (ann, bob):
            assignment = queue.next_assignment(campaign, person)
            n = assignment.screen.slots.count()
            control = control_position(assignment)
            if person == ann and screen_number == 3:
                queue.flag_screen(assignment.token, person, "garbled")
                continue
            if person == ann:
                ranks = [1] * n
                ranks[control] = 5 if screen_number < 2 else 1
            else:
                ranks = [3] * n if screen_number == 0 else [5 if i == control else 2 for i in range(n)]
            queue.submit_ranking(assignment.token, person, ranks, queue.candidate_keys(assignment))
    rates = {rate.judge: rate for rate in attention_check_rates(campaign)}
    assert (rates["ann"].checks, rates["ann"].ranked_last) == (3, 2), "the flagged screen does not count"
    assert rates["ann"].rate == pytest.approx(2 / 3)
    assert (rates["bob"].checks, rates["bob"].ranked_last) == (4, 3), "an all-tied screen catches nothing"


def test_prws_checks_put_the_source_beside_the_control():
    """N19's rater check compares Source+error with Source, so both go on the screen, whatever else it shows."""
    campaign = small_campaign("prws", mode="prws", max_candidates=2)
    screens = []
    for line in range(6):
        others = [c for c in Candidate.objects.filter(segment__campaign=campaign, segment__line=line).order_by("id")
                  if not c.outputs.filter(system__kind=System.Kind.INPUT).exists()]
        if others:
            screens.append(add_screen(campaign, line, others[:2]))
    assert add_attention_checks(campaign, 1.0, np.random.default_rng(5)) == len(screens)
    for screen in screens:
        kinds = sorted(
            kind
            for candidate in screen.candidates.all()
            for kind in candidate.outputs.values_list("system__kind", flat=True)
        )
        assert System.Kind.CONTROL in kinds and System.Kind.INPUT in kinds, kinds
        assert screen.slots.count() == 2


def shown_ids(screen) -> list[int]:
    return list(
        ScreenCandidate.objects.filter(screen=screen).order_by("position").values_list("candidate_id", flat=True)
    )


def while_held(hold, then) -> None:
    """Run ``hold`` in a transaction, in a thread of its own, that stays open a second after ``hold`` returns, and
    ``then`` in a second thread as soon as ``hold`` has returned (or failed), so that it meets what ``hold`` locked.
    Each thread has its own connection and closes it."""
    held = threading.Event()

    def holder():
        try:
            with transaction.atomic():
                hold()
                held.set()
                time.sleep(1.0)
        finally:
            held.set()
            connection.close()

    def follower():
        try:
            held.wait(timeout=10)
            then()
        finally:
            connection.close()

    threads = [threading.Thread(target=holder), threading.Thread(target=follower)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@pytest.mark.django_db(transaction=True)
def test_a_screen_being_served_is_never_changed_by_attention_checks():
    """Threads with their own connections: a judge's serving holds its slot while attention checks run; the checks
    must wait for it and then leave the served screen alone, whichever commits first."""
    campaign = small_campaign("race", max_candidates=5)
    screen = add_screen(campaign, 1)
    ann = judge("ann", campaign)
    seen, added = {}, {}

    def serve():
        served = queue.next_assignment(campaign, ann)
        seen["screen"], seen["shown"] = served.screen_id, shown_ids(served.screen)

    def check():
        added["n"] = add_attention_checks(campaign, 1.0, np.random.default_rng(1))

    while_held(serve, check)  # the page renders while attention checks start
    assert seen["screen"] == screen.pk
    assert shown_ids(screen) == seen["shown"], "the served screen shows what its judge was shown"
    assert added["n"] == 0 and not control_slots(campaign).exists()


@pytest.mark.django_db(transaction=True)
def test_attention_checks_hold_their_screens_until_they_are_written():
    """While checks are being added, judges are served other screens (the checks' screens are locked), and a
    screen changed by the checks is served only afterwards, as changed."""
    campaign = small_campaign("hold", max_candidates=5)
    screens = [add_screen(campaign, line) for line in (1, 2)]
    ann = judge("ann", campaign)
    served = {}

    def check():
        add_attention_checks(campaign, 0.5, np.random.default_rng(1))

    def serve():
        assignment = queue.next_assignment(campaign, ann)
        served["screen"], served["shown"] = assignment.screen_id, shown_ids(assignment.screen)

    while_held(check, serve)
    checked = set(control_slots(campaign).values_list("screen_id", flat=True))
    assert checked == {screens[0].pk}, "the generator picks the first screen, which a judge would be served first"
    assert served["screen"] == screens[1].pk
    assert served["shown"] == shown_ids(Assignment.objects.get(judge=ann).screen)
    assert {screen.pk for screen in screens} == checked | {served["screen"]}
