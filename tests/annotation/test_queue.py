"""The judge's queue against PostgreSQL: claims, redundancy, leases, idempotent submits, flags, undo, repeats."""
from __future__ import annotations

import threading
import uuid
from datetime import datetime, timedelta

import psycopg
import pytest
from django.db import IntegrityError, connection, transaction
from django.test import override_settings
from django.utils import timezone
from psycopg.sql import Literal

from annotation.models import Assignment, CandidateJudgment, Flag, Judgment, ScreenCandidate
from annotation.services import queue
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens

from .factories import add_screen, judge, small_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    return small_campaign()


def ranks_for(assignment: Assignment) -> list[int]:
    return [position + 1 for position in range(assignment.screen.slots.count())]


def judged_by_ann(name: str, lines: int):
    """A campaign ``name`` with a screen on each of its first ``lines`` lines, and its judge ann (for the tests that
    make their own campaign: those with threads or a second connection)."""
    campaign = small_campaign(name)
    for line in range(lines):
        add_screen(campaign, line)
    return campaign, judge("ann", campaign)


def test_claims_follow_slot_positions_and_never_give_two_judges_one_slot(campaign):
    screens = [add_screen(campaign, line, slots=2) for line in (0, 1, 2)]
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    a1 = queue.next_assignment(campaign, ann)
    b1 = queue.next_assignment(campaign, bob)
    assert a1.screen == b1.screen == screens[0]
    assert a1.pk != b1.pk
    assert a1.status == b1.status == Assignment.Status.SERVED
    queue.submit_ranking(a1.token, ann, ranks_for(a1), queue.candidate_keys(a1))
    a2 = queue.next_assignment(campaign, ann)
    assert a2.screen == screens[1], "a judge never gets a second slot of a screen they had"


def test_redundancy_means_distinct_judges_per_screen(campaign):
    for line in range(6):
        add_screen(campaign, line, slots=3)
    judges = [judge(name, campaign) for name in ("ann", "bob", "cy", "dee")]
    for _ in range(6):
        for person in judges:
            assignment = queue.next_assignment(campaign, person)
            if assignment is not None:
                queue.submit_ranking(assignment.token, person, ranks_for(assignment), queue.candidate_keys(assignment))
    submitted = Assignment.objects.filter(screen__campaign=campaign, status=Assignment.Status.SUBMITTED)
    assert submitted.count() == 18, "all 6 screens x 3 slots were judged"
    for screen_id in set(submitted.values_list("screen_id", flat=True)):
        owners = list(submitted.filter(screen_id=screen_id).values_list("judge_id", flat=True))
        assert len(owners) == len(set(owners)) == 3


def test_a_judge_who_comes_back_gets_the_same_screen_with_a_renewed_lease(campaign):
    add_screen(campaign, 0)
    add_screen(campaign, 1)
    ann = judge("ann", campaign)
    start = timezone.now()
    lease = queue.lease_length()
    first = queue.next_assignment(campaign, ann, now=start)
    soon = queue.next_assignment(campaign, ann, now=start + lease * 0.25)
    assert soon.pk == first.pk and soon.token == first.token
    assert soon.lease_expires_at == start + lease, "renewed only once half the lease has passed"
    later = queue.next_assignment(campaign, ann, now=start + lease * 0.75)
    assert later.pk == first.pk and later.token == first.token
    assert later.served_at == start, "time on screen counts from the first serving"
    later.refresh_from_db()
    assert later.lease_expires_at == start + lease * 0.75 + lease


def test_direct_assignments_come_before_the_pool(campaign):
    add_screen(campaign, 0, slots=1)
    ann = judge("ann", campaign)
    direct = add_screen(campaign, 2, judges=[ann])
    assert queue.next_assignment(campaign, ann).screen == direct


def test_only_judges_of_the_campaign_get_screens(campaign):
    add_screen(campaign, 0)
    with pytest.raises(queue.NotAJudge):
        queue.next_assignment(campaign, judge("stranger"))
    assert not Assignment.objects.exclude(status=Assignment.Status.PENDING).exists()


def test_submit_stores_ranks_by_position_once(campaign):
    screen = add_screen(campaign, 0)
    ann = judge("ann", campaign)
    assignment = queue.next_assignment(campaign, ann)
    shown = list(screen.slots.order_by("position").values_list("candidate_id", flat=True))
    ranks = [2, 1, 2, 4][: len(shown)]
    first = queue.submit_ranking(
        assignment.token, ann, ranks, queue.candidate_keys(assignment), active_time=timedelta(seconds=3)
    )
    second = queue.submit_ranking(assignment.token, ann, [1] * len(shown), queue.candidate_keys(assignment))
    assert first.created and not second.created
    assert second.judgment.pk == first.judgment.pk
    assert Judgment.objects.count() == 1
    stored = list(CandidateJudgment.objects.order_by("position").values_list("candidate_id", "rank"))
    assert stored == list(zip(shown, ranks)), "the repeated submit changed nothing"
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert first.judgment.duration == assignment.submitted_at - assignment.served_at


def test_active_time_is_clamped_to_the_time_on_screen(campaign):
    add_screen(campaign, 0)
    ann = judge("ann", campaign)
    start = timezone.now()
    assignment = queue.next_assignment(campaign, ann, now=start)
    n = assignment.screen.slots.count()
    result = queue.submit_ranking(
        assignment.token, ann, [1] * n, queue.candidate_keys(assignment), active_time=timedelta(hours=2),
        now=start + timedelta(seconds=30),
    )
    assert result.judgment.duration == timedelta(seconds=30)
    assert result.judgment.active_time == timedelta(seconds=30)


@pytest.mark.parametrize("ranks", [[1], [1, 2, 3, 4, 5], [0, 1, 1, 1], [1, 2, 3, 6]])
def test_bad_ranks_are_refused_and_change_nothing(campaign, ranks):
    add_screen(campaign, 1)
    ann = judge("ann", campaign)
    assignment = queue.next_assignment(campaign, ann)
    assert assignment.screen.slots.count() == 4
    with pytest.raises(queue.InvalidRanking):
        queue.submit_ranking(assignment.token, ann, ranks, queue.candidate_keys(assignment))
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SERVED
    assert not Judgment.objects.exists()


def test_foreign_and_unknown_tokens_are_refused(campaign):
    add_screen(campaign, 0)
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    assignment = queue.next_assignment(campaign, ann)
    with pytest.raises(queue.ForeignScreen):
        queue.submit_ranking(assignment.token, bob, ranks_for(assignment), queue.candidate_keys(assignment))
    with pytest.raises(queue.ForeignScreen):
        queue.assignment_for(assignment.token, bob)
    with pytest.raises(queue.StaleScreen):
        queue.submit_ranking(uuid.uuid4(), ann, ranks_for(assignment), queue.candidate_keys(assignment))
    assert not Judgment.objects.exists()


@override_settings(JUDGE_LEASE_MINUTES=10)
def test_an_abandoned_screen_returns_to_the_pool_after_its_lease(campaign):
    screen = add_screen(campaign, 0)
    add_screen(campaign, 1)
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    start = timezone.now()
    abandoned = queue.next_assignment(campaign, ann, now=start)
    early = queue.next_assignment(campaign, bob, now=start + timedelta(minutes=9))
    assert early.screen != screen, "within the lease the screen stays ann's"
    queue.submit_ranking(early.token, bob, ranks_for(early), queue.candidate_keys(early))
    taken = queue.next_assignment(campaign, bob, now=start + timedelta(minutes=11))
    assert taken.pk == abandoned.pk and taken.judge == bob
    assert taken.token != abandoned.token
    with pytest.raises(queue.StaleScreen):
        queue.submit_ranking(abandoned.token, ann, ranks_for(abandoned), queue.candidate_keys(abandoned))
    assert queue.next_assignment(campaign, ann, now=start + timedelta(minutes=12)) is None


@override_settings(JUDGE_LEASE_MINUTES=10)
def test_a_submit_from_a_read_that_went_stale_before_its_lock_is_refused(campaign):
    """The page's read of the assignment (``served``) is checked again under the lock: a screen claimed by another
    judge between the read and the submit's lock stores nothing, and the new judge's serving is untouched."""
    add_screen(campaign, 0)
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    start = timezone.now()
    abandoned = queue.next_assignment(campaign, ann, now=start)
    served = queue.assignment_for(abandoned.token, ann)
    taken = queue.next_assignment(campaign, bob, now=start + timedelta(minutes=11))
    assert taken.pk == served.pk
    with pytest.raises(queue.StaleScreen):
        queue.submit_ranking(
            abandoned.token, ann, ranks_for(abandoned), queue.candidate_keys(abandoned), served=served
        )
    assert not Judgment.objects.exists()
    assert Assignment.objects.get(pk=taken.pk).status == Assignment.Status.SERVED
    stored = queue.submit_ranking(
        taken.token, bob, ranks_for(taken), queue.candidate_keys(taken), served=queue.assignment_for(taken.token, bob)
    )
    assert stored.created and stored.judgment.assignment.judge == bob


@override_settings(JUDGE_LEASE_MINUTES=10)
def test_a_claim_takes_the_earlier_of_the_first_open_slot_and_the_first_expired_one(campaign):
    """Both kinds of claimable slot are looked for in one statement; the one with the lower position is taken."""
    first, second, third = (add_screen(campaign, line) for line in range(3))
    ann, bob, cat = (judge(name, campaign) for name in ("ann", "bob", "cat"))
    start = timezone.now()
    assert queue.next_assignment(campaign, ann, now=start).screen == first
    later = start + timedelta(minutes=11)
    assert queue.next_assignment(campaign, bob, now=later).screen == first, "ann's expired slot comes first"
    assert queue.next_assignment(campaign, cat, now=later).screen == second, "then the pool, by position"
    assert queue.next_assignment(campaign, ann, now=later).screen == third


@override_settings(JUDGE_LEASE_MINUTES=10)
def test_a_prepared_claim_with_a_generic_plan_takes_expired_leases_by_position(campaign):
    """However the planner plans the claim once it is a prepared statement (a generic plan: the time unknown), the
    first expired lease by position comes first, then the pool."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
    for line in range(6):
        add_screen(campaign, line)
    served = [queue.next_assignment(campaign, judge(f"gone{i}", campaign)) for i in range(4)]
    Assignment.objects.filter(pk__in=[a.pk for a in served]).update(lease_expires_at=timezone.now() - timedelta(1))
    Assignment.objects.filter(pk=served[0].pk).update(position=100)
    ann, claimed = judge("ann", campaign), []
    while (assignment := queue.next_assignment(campaign, ann)) is not None:
        claimed.append(assignment.position)
        queue.flag_screen(assignment.token, ann, "checked")
    assert claimed == [1, 2, 3, 4, 5, 100], "expired leases and open slots, by position"


def test_a_generic_plan_of_the_claim_reads_the_pool_from_its_partial_index(campaign):
    """The claim as it is sent, prepared with a generic plan (no parameter's value known, PostgreSQL's choice once a
    connection ran it five times), reads the pool from its partial index (``assignment_pool_order``: status
    'pending'): with the status a parameter the planner could not prove the index's condition and read the
    campaign's slots for the first open one (168 ms at 350,000 assignments)."""
    for line in range(3):
        add_screen(campaign, line)
    ann = judge("ann", campaign)
    sent = []

    def keep(execute, sql, params, many, context):
        sent.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        queue._claim(campaign, ann, timezone.now())
    (sql, params), = sent
    names = list(params)
    prepared = sql % {name: f"${number}" for number, name in enumerate(names, 1)}
    declared = ", ".join(
        "bigint" if isinstance(params[name], int) else "timestamptz" if isinstance(params[name], datetime) else "text"
        for name in names
    )
    with connection.cursor() as cursor:
        values = ", ".join(Literal(params[name]).as_string(cursor.connection) for name in names)
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"PREPARE generic_claim ({declared}) AS {prepared}")
        cursor.execute(f"EXPLAIN EXECUTE generic_claim ({values})")
        plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute("DEALLOCATE generic_claim")
    assert "assignment_pool_order" in plan, plan


def test_an_expired_lease_still_lets_its_judge_finish_until_someone_claims_it(campaign):
    add_screen(campaign, 0)
    ann = judge("ann", campaign)
    start = timezone.now()
    assignment = queue.next_assignment(campaign, ann, now=start)
    result = queue.submit_ranking(
        assignment.token, ann, ranks_for(assignment), queue.candidate_keys(assignment), now=start + timedelta(hours=1)
    )
    assert result.created


def test_flag_stores_the_reason_without_ranks_once(campaign):
    add_screen(campaign, 0)
    ann = judge("ann", campaign)
    assignment = queue.next_assignment(campaign, ann)
    first = queue.flag_screen(assignment.token, ann, "Garbled source sentence")
    second = queue.flag_screen(assignment.token, ann, "again")
    assert first.created and not second.created
    assert Flag.objects.get().reason == "Garbled source sentence"
    assert not CandidateJudgment.objects.exists()
    with pytest.raises(queue.InvalidRanking):
        queue.flag_screen(uuid.uuid4(), ann, "   ")


def test_undo_serves_the_last_screen_again_under_a_new_token(campaign):
    first_screen = add_screen(campaign, 0)
    add_screen(campaign, 1)
    ann = judge("ann", campaign)
    first = queue.next_assignment(campaign, ann)
    queue.submit_ranking(first.token, ann, ranks_for(first), queue.candidate_keys(first))
    second = queue.next_assignment(campaign, ann)
    undone = queue.undo_last(campaign, ann, first.token)
    assert undone.pk == first.pk and undone.token != first.token
    assert undone.status == Assignment.Status.SERVED and undone.submitted_at is None
    assert not Judgment.objects.exists()
    with pytest.raises(queue.StaleScreen):
        queue.submit_ranking(first.token, ann, ranks_for(first), queue.candidate_keys(first))
    with pytest.raises(queue.StaleScreen):
        queue.submit_ranking(second.token, ann, ranks_for(second), queue.candidate_keys(second))
    assert queue.next_assignment(campaign, ann).pk == first.pk
    queue.submit_ranking(undone.token, ann, ranks_for(undone), queue.candidate_keys(undone))
    after = queue.next_assignment(campaign, ann)
    assert after.pk == second.pk, "the screen served in between comes next"
    assert Judgment.objects.get().assignment.screen == first_screen


def test_the_screen_served_before_an_undo_stays_the_judges_while_they_judge_the_undone_one(campaign):
    """An undo puts the screen served since back among the judge's pending screens, to come next once the undone
    one is submitted again: its lease starts again with the undone screen's and is renewed with it, so no other
    judge claims it while the judge works, and it returns to the pool once they stop. It kept the lease of its
    serving, which ran out while the judge judged the undone screen again (bob claimed it at 1.2 leases)."""
    add_screen(campaign, 0)
    add_screen(campaign, 1)
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    start = timezone.now()
    lease = queue.lease_length()
    first = queue.next_assignment(campaign, ann, now=start)
    submitted = queue.submit_ranking(
        first.token, ann, ranks_for(first), queue.candidate_keys(first), now=start + lease * 0.1, serve_next=True
    )
    second = submitted.following
    undone = queue.undo_last(campaign, ann, first.token, now=start + lease * 0.9)
    assert Assignment.objects.get(pk=second.pk).lease_expires_at == undone.lease_expires_at == start + lease * 1.9
    assert queue.next_assignment(campaign, bob, now=start + lease * 1.2) is None
    assert queue.renew_lease(undone, ann, now=start + lease * 1.5), "the judge's page keeps the undone screen"
    assert queue.next_assignment(campaign, bob, now=start + lease * 2.2) is None
    again = queue.submit_ranking(
        undone.token, ann, ranks_for(undone), queue.candidate_keys(undone), now=start + lease * 2.3, serve_next=True
    )
    assert again.following.pk == second.pk, "the screen served in between comes next"

    later = start + lease * 3.4  # ann stopped: the lease of her screen ran out
    taken = queue.next_assignment(campaign, bob, now=later)
    assert taken.pk == second.pk and taken.judge == bob


def test_undo_takes_the_last_screen_judged_here_when_the_judge_has_imported_judgments(campaign):
    """Judgments imported for a judge (Appraise XML: no submit time) are none of their submits here: undo undoes
    the screen they submitted last. The imported one sorted first (no time is last in a descending order), so
    every undo of such a judge was refused."""
    segment = campaign.segments.get(line=0)
    shown = [JudgedCandidate(pk, rank) for rank, pk in enumerate(segment.candidates.values_list("pk", flat=True), 1)]
    ann = write_judged_screens(campaign, [JudgedScreen(line=0, judge="ann", candidates=shown)])["ann"]
    add_screen(campaign, 1)
    served = queue.next_assignment(campaign, ann)
    queue.submit_ranking(served.token, ann, ranks_for(served), queue.candidate_keys(served))
    assert queue.last_submitted(campaign, ann).pk == served.pk
    undone = queue.undo_last(campaign, ann, served.token)
    assert undone.pk == served.pk and undone.status == Assignment.Status.SERVED
    assert list(Judgment.objects.values_list("assignment__submitted_at", flat=True)) == [None], "the import stays"


def test_a_judge_with_submitted_screens_is_served_their_open_ones_first_then_the_pool_in_order(campaign):
    """Among the judge's submitted assignments: the served screen first, then their direct assignments by position,
    then the pool's first slot of a screen they have not had, skipping one they judged."""
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    judged = [add_screen(campaign, line, slots=2) for line in range(3)]
    for _ in judged:
        served = queue.next_assignment(campaign, ann)
        queue.submit_ranking(served.token, ann, ranks_for(served), queue.candidate_keys(served))
    direct_later, direct_first = add_screen(campaign, 3, judges=[ann]), add_screen(campaign, 4, judges=[ann])
    Assignment.objects.filter(screen=direct_first).update(position=0)
    pool = add_screen(campaign, 5, slots=2)
    first = queue.next_assignment(campaign, bob)
    assert first.screen == judged[0], "bob takes the second slot of ann's first screen"
    order = []
    while (assignment := queue.next_assignment(campaign, ann)) is not None:
        assert queue.next_assignment(campaign, ann).pk == assignment.pk, "the served screen comes back"
        order.append(assignment.screen)
        queue.submit_ranking(assignment.token, ann, ranks_for(assignment), queue.candidate_keys(assignment))
    assert order == [direct_first, direct_later, pool]


def test_only_the_last_submitted_screen_can_be_undone(campaign):
    add_screen(campaign, 0)
    add_screen(campaign, 1)
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    first = queue.next_assignment(campaign, ann)
    queue.submit_ranking(first.token, ann, ranks_for(first), queue.candidate_keys(first))
    second = queue.next_assignment(campaign, ann)
    queue.submit_ranking(second.token, ann, ranks_for(second), queue.candidate_keys(second))
    with pytest.raises(queue.QueueError):
        queue.undo_last(campaign, ann, first.token)
    with pytest.raises(queue.QueueError):
        queue.undo_last(campaign, bob, second.token)
    assert Judgment.objects.count() == 2


def test_repeats_are_scheduled_later_and_served_when_due(campaign):
    campaign.repeat_rate = 1.0
    campaign.save()
    for line in range(6):
        add_screen(campaign, line)
    ann = judge("ann", campaign)
    first = queue.next_assignment(campaign, ann)
    queue.submit_ranking(first.token, ann, ranks_for(first), queue.candidate_keys(first))
    repeat = Assignment.objects.get(repeat_of=first)
    assert repeat.judge == ann and repeat.screen == first.screen
    assert queue.REPEAT_GAP_MIN + 1 <= repeat.due_after <= queue.REPEAT_GAP_MAX + 1
    served = []
    while (assignment := queue.next_assignment(campaign, ann)) is not None:
        served.append(assignment)
        queue.submit_ranking(assignment.token, ann, ranks_for(assignment), queue.candidate_keys(assignment))
        if len(served) > 40:
            break
    originals = [a for a in served if a.repeat_of_id is None]
    repeats = [a for a in served if a.repeat_of_id is not None]
    assert len(originals) == 5 and len(repeats) == 6, "every original got one repeat, each served once"
    assert all(not a.repeats.exclude(pk=b.pk).exists() for a in originals for b in a.repeats.all())
    assert served.index(repeat) >= 5, "a repeat is not shown before the pool is used up or it is due"


def test_repeat_scheduling_is_reproducible_from_the_seed():
    due = []
    for name in ("one", "two"):
        campaign = small_campaign(name, repeat_rate=0.5, seed=7)
        ann = judge(f"ann-{name}", campaign)
        for line in range(6):
            add_screen(campaign, line)
        while (assignment := queue.next_assignment(campaign, ann)) is not None and assignment.repeat_of is None:
            queue.submit_ranking(assignment.token, ann, ranks_for(assignment), queue.candidate_keys(assignment))
        due.append(
            sorted(
                (a.repeat_of.screen.number, a.due_after)
                for a in Assignment.objects.filter(screen__campaign=campaign, repeat_of__isnull=False)
            )
        )
    assert due[0] and due[0] == due[1]


def test_a_closed_campaign_serves_nothing_new_and_takes_no_judgments(campaign):
    add_screen(campaign, 0)
    add_screen(campaign, 1)
    ann = judge("ann", campaign)
    served = queue.next_assignment(campaign, ann)
    campaign.closed_at = timezone.now()
    campaign.save()
    with pytest.raises(queue.CampaignClosed):
        queue.submit_ranking(served.token, ann, ranks_for(served), queue.candidate_keys(served))
    assert not Judgment.objects.exists()


def test_a_judge_removed_from_the_campaign_cannot_submit_the_screen_they_had_open(campaign):
    """A judge removed from a campaign (in the admin) while a screen is served to them: the screen and its submit or
    flag are refused, nothing is stored and nothing more is served. The submit was stored and served the next
    screen, and so on: the removed judge went on judging the campaign for as long as their tab stayed open."""
    add_screen(campaign, 0)
    add_screen(campaign, 1)
    ann = judge("ann", campaign)
    served = queue.next_assignment(campaign, ann)
    campaign.judges.remove(ann)
    with pytest.raises(queue.NotAJudge, match="no longer a judge of this campaign"):
        queue.assignment_for(served.token, ann)
    with pytest.raises(queue.NotAJudge):
        queue.submit_ranking(served.token, ann, ranks_for(served), queue.candidate_keys(served), serve_next=True)
    with pytest.raises(queue.NotAJudge):
        queue.flag_screen(served.token, ann, "garbled", serve_next=True)
    assert not Judgment.objects.exists()
    assert list(Assignment.objects.filter(judge=ann).values_list("pk", flat=True)) == [served.pk]


def test_progress_counts_what_the_judge_can_still_reach(campaign):
    for line in range(3):
        add_screen(campaign, line, slots=2)
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    assert queue.progress(campaign, ann) == queue.Progress(done=0, total=3)
    assignment = queue.next_assignment(campaign, ann)
    queue.submit_ranking(assignment.token, ann, ranks_for(assignment), queue.candidate_keys(assignment))
    progress = queue.progress(campaign, ann)
    assert (progress.done, progress.total, progress.current) == (1, 3, 2)
    for _ in range(2):
        other = queue.next_assignment(campaign, bob)
        queue.submit_ranking(other.token, bob, ranks_for(other), queue.candidate_keys(other))
    assert queue.progress(campaign, ann) == queue.Progress(done=1, total=3)


def run_together(functions):
    """Run the functions in threads released at once; return their results (or exceptions)."""
    barrier = threading.Barrier(len(functions))
    results = [None] * len(functions)

    def run(index, function):
        try:
            barrier.wait()
            results[index] = function()
        except Exception as exc:  # noqa: BLE001 - reported to the test
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, f)) for i, f in enumerate(functions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.django_db(transaction=True)
def test_concurrent_claims_give_every_judge_a_different_slot():
    campaign = small_campaign("concurrent")
    for line in range(6):
        add_screen(campaign, line, slots=2)
    judges = [judge(f"judge{i}", campaign) for i in range(8)]
    claims = run_together([lambda j=j: queue.next_assignment(campaign, j) for j in judges])
    assert all(isinstance(claim, Assignment) for claim in claims), claims
    assert len({claim.pk for claim in claims}) == 8
    served = Assignment.objects.filter(status=Assignment.Status.SERVED)
    assert served.count() == 8
    for screen_id in set(served.values_list("screen_id", flat=True)):
        owners = list(served.filter(screen_id=screen_id).values_list("judge_id", flat=True))
        assert len(owners) == len(set(owners))


@pytest.mark.django_db(transaction=True)
def test_one_judges_tabs_claiming_at_once_get_one_screen():
    campaign, ann = judged_by_ann("tabs", lines=4)
    claims = run_together([lambda: queue.next_assignment(campaign, ann) for _ in range(4)])
    assert len({claim.pk for claim in claims}) == 1
    assert Assignment.objects.filter(status=Assignment.Status.SERVED).count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_double_submit_stores_one_judgment():
    campaign, ann = judged_by_ann("double", lines=1)
    assignment = queue.next_assignment(campaign, ann)
    ranks = ranks_for(assignment)
    results = run_together(
        [lambda: queue.submit_ranking(assignment.token, ann, ranks, queue.candidate_keys(assignment)) for _ in range(6)]
    )
    assert all(isinstance(result, queue.SubmitResult) for result in results), results
    assert sum(result.created for result in results) == 1
    assert Judgment.objects.count() == 1
    assert CandidateJudgment.objects.count() == len(ranks)


def test_ranks_are_refused_on_a_prws_campaign(campaign):
    add_screen(campaign, 0)
    ann = judge("ann", campaign)
    assignment = queue.next_assignment(campaign, ann)
    campaign.mode = "prws"
    campaign.save()
    with pytest.raises(queue.InvalidRanking, match="PRWS"):
        queue.submit_ranking(assignment.token, ann, ranks_for(assignment), queue.candidate_keys(assignment))
    assert not Judgment.objects.exists()


def test_one_judge_has_at_most_one_original_assignment_per_screen(campaign):
    screen = add_screen(campaign, 0, slots=2)
    ann = judge("ann", campaign)
    original = Assignment.objects.create(screen=screen, judge=ann, position=10)
    Assignment.objects.create(screen=screen, judge=ann, position=11, repeat_of=original)
    with pytest.raises(IntegrityError, match="assignment_one_original_per_judge"), transaction.atomic():
        Assignment.objects.create(screen=screen, judge=ann, position=12)
    assert Assignment.objects.filter(screen=screen, judge__isnull=True).count() == 2, "pool slots have no judge"


@override_settings(JUDGE_LEASE_MINUTES=10)
def test_renewing_a_lease_checks_the_judge_and_the_token(campaign):
    add_screen(campaign, 0)
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    start = timezone.now()
    anns = queue.next_assignment(campaign, ann, now=start)
    bobs = queue.next_assignment(campaign, bob, now=start + timedelta(minutes=11))
    assert bobs.pk == anns.pk and bobs.judge == bob, "ann's lease ran out; bob claimed the screen"
    assert not queue.renew_lease(anns, ann, now=start + timedelta(minutes=15)), "ann's old page renews nothing"
    assert not queue.renew_lease(bobs, ann, now=start + timedelta(minutes=15)), "nor can ann renew bob's serving"
    bobs.refresh_from_db()
    assert bobs.lease_expires_at == start + timedelta(minutes=21)
    assert queue.renew_lease(bobs, bob, now=start + timedelta(minutes=17))
    bobs.refresh_from_db()
    assert bobs.lease_expires_at == start + timedelta(minutes=27)


def reverse_slots(screen) -> None:
    """Show the screen's candidates in reverse order (as a screen changed after it was served would)."""
    slots = list(screen.slots.order_by("position").values_list("candidate_id", flat=True))
    ScreenCandidate.objects.filter(screen=screen).delete()
    ScreenCandidate.objects.bulk_create(
        ScreenCandidate(screen=screen, candidate_id=pk, position=i) for i, pk in enumerate(reversed(slots))
    )


def test_a_submit_for_other_candidates_than_the_screen_shows_is_refused_whole(campaign):
    screen = add_screen(campaign, 1)
    ann = judge("ann", campaign)
    assignment = queue.next_assignment(campaign, ann)
    shown = queue.candidate_keys(assignment)
    reverse_slots(screen)
    with pytest.raises(queue.ChangedScreen, match="Nothing was saved"):
        queue.submit_ranking(assignment.token, ann, [1, 2, 3, 4], shown)
    with pytest.raises(queue.ChangedScreen):
        queue.submit_ranking(assignment.token, ann, [1, 2, 3], shown[:3])
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SERVED and not Judgment.objects.exists()
    now_shown = list(screen.slots.order_by("position").values_list("candidate_id", flat=True))
    queue.submit_ranking(assignment.token, ann, [1, 2, 3, 4], queue.candidate_keys(assignment))
    stored = list(CandidateJudgment.objects.order_by("rank").values_list("candidate_id", flat=True))
    assert stored == now_shown, "ranks go to the candidates the keys name"


def test_candidate_keys_name_candidates_of_one_serving_without_revealing_them(campaign):
    first_screen = add_screen(campaign, 1, slots=2)
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    anns, bobs = queue.next_assignment(campaign, ann), queue.next_assignment(campaign, bob)
    assert anns.screen == bobs.screen == first_screen
    keys = queue.candidate_keys(anns)
    assert len(set(keys)) == 4 and set(keys).isdisjoint(queue.candidate_keys(bobs)), "another serving, other keys"
    ids = [str(pk) for pk in first_screen.slots.values_list("candidate_id", flat=True)]
    assert all(candidate not in key for key in keys for candidate in ids)
    with pytest.raises(queue.ChangedScreen):
        queue.submit_ranking(anns.token, ann, [1, 2, 3, 4], queue.candidate_keys(bobs))
    assert queue.submit_ranking(anns.token, ann, [1, 2, 3, 4], keys).created


def test_progress_counts_claimable_screens_up_to_a_cap(campaign, monkeypatch):
    monkeypatch.setattr(queue, "PROGRESS_CAP", 3)
    for line in range(5):
        add_screen(campaign, line, slots=2)
    ann, bob = judge("ann", campaign), judge("bob", campaign)
    queue.next_assignment(campaign, ann)
    assert queue.progress(campaign, ann) == queue.Progress(done=0, total=4, more=True)
    assert queue.progress(campaign, ann).total_text == "4+"
    for _ in range(2):
        served = queue.next_assignment(campaign, ann)
        queue.submit_ranking(served.token, ann, ranks_for(served), queue.candidate_keys(served))
    assert queue.progress(campaign, ann) == queue.Progress(done=2, total=5), "3 screens left: counted exactly"
    assert queue.progress(campaign, bob) == queue.Progress(done=0, total=3, more=True)


def test_a_submit_can_serve_the_next_screen_in_its_own_transaction(campaign):
    screens = [add_screen(campaign, line) for line in (0, 1)]
    ann = judge("ann", campaign)
    first = queue.next_assignment(campaign, ann)
    result = queue.submit_ranking(first.token, ann, ranks_for(first), queue.candidate_keys(first), serve_next=True)
    assert result.created and result.following.screen == screens[1]
    assert result.following.status == Assignment.Status.SERVED and result.following.judge == ann
    assert queue.next_assignment(campaign, ann).pk == result.following.pk, "the judge's current screen"
    last = result.following
    flagged = queue.flag_screen(last.token, ann, "garbled", serve_next=True)
    assert flagged.created and flagged.following is None, "nothing left"


@pytest.mark.django_db(transaction=True)
def test_the_queue_keeps_working_when_a_migration_adds_a_column_under_its_prepared_statements():
    """Connections prepare the statements they run often (settings: ``prepare_threshold``). The queue's plain SQL
    names its columns, so a column that another connection (a migration) adds while a web process holds them
    prepared does not break its next claim or submit (``SELECT *`` would: "cached plan must not change result
    type")."""
    campaign, ann = judged_by_ann("migrated", lines=3)
    table = Assignment._meta.db_table
    connection.ensure_connection()
    threshold = connection.connection.prepare_threshold
    connection.connection.prepare_threshold = 0  # prepare every statement at its first run
    migration = psycopg.connect(**connection.get_connection_params(), autocommit=True)
    try:
        first = queue.next_assignment(campaign, ann)
        current = queue.submit_ranking(
            first.token, ann, ranks_for(first), queue.candidate_keys(first), serve_next=True,
            served=queue.assignment_for(first.token, ann),
        ).following
        migration.execute(f"ALTER TABLE {table} ADD COLUMN probe integer")
        result = queue.submit_ranking(
            current.token, ann, ranks_for(current), queue.candidate_keys(current), serve_next=True,
            served=queue.assignment_for(current.token, ann),
        )
    finally:
        connection.connection.prepare_threshold = threshold
        connection.close()
        migration.execute(f"ALTER TABLE {table} DROP COLUMN IF EXISTS probe")
        migration.close()
    assert result.created and result.following.screen.segment.line == 2


@pytest.mark.django_db(transaction=True)
def test_a_submit_and_another_tab_asking_for_a_screen_never_deadlock():
    """A submit that serves the next screen locks the judge's membership before the assignment, as claims do."""
    campaign, ann = judged_by_ann("tabs-and-submits", lines=6)
    for _ in range(5):
        served = queue.next_assignment(campaign, ann)
        keys, ranks = queue.candidate_keys(served), ranks_for(served)
        results = run_together([
            lambda served=served, ranks=ranks, keys=keys: queue.submit_ranking(
                served.token, ann, ranks, keys, serve_next=True
            ),
            lambda: queue.next_assignment(campaign, ann),
        ])
        assert not any(isinstance(result, Exception) for result in results), results
        assert Assignment.objects.filter(judge=ann, status=Assignment.Status.SERVED).count() == 1
    assert Judgment.objects.count() == 5
