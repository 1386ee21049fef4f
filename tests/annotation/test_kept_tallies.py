"""Tallies kept between requests (``annotation.services.kept_tallies``): extended by the judgments stored since,
taken again after an undo or a change of their basis, and equal to what all judgments give (rater QC in
``test_rater_qc``, attention checks and time per screen here)."""
from __future__ import annotations

import threading

import numpy as np
import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Count, Sum

from annotation.models import Assignment, Campaign, Judgment
from annotation.services import kept_tallies, queue
from annotation.services.attention import attention_check_rates
from annotation.services.dashboard import judged_work
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens
from annotation.services.kept_tallies import kept_tally
from annotation.services.rater_qc import campaign_verdicts
from annotation.services.screens import create_screens

from .factories import judge, small_campaign
from .late_commits import held_submit
from .test_rater_qc import SCREENS, careful_values, judge_all, random_values
from .test_scale import blocks_read

pytestmark = pytest.mark.django_db


def judged_ids(campaign: Campaign, basis: object, reads: list[tuple[int, int]]) -> list[int]:
    """A kept tally of the campaign's judgment ids; ``reads`` records each range read."""

    def add(ids: list[int], after: int, up_to: int) -> None:
        reads.append((after, up_to))
        ids.extend(Judgment.objects.filter(assignment__campaign=campaign, id__gt=after, id__lte=up_to)
                   .order_by("id").values_list("id", flat=True))

    return kept_tally(campaign, "ids", basis, list, add).tally


def all_ids(campaign: Campaign) -> list[int]:
    return list(Judgment.objects.filter(assignment__campaign=campaign).order_by("id").values_list("id", flat=True))


def test_a_kept_tally_reads_only_what_is_new_and_starts_again_when_what_it_holds_changed():
    campaign = small_campaign("kept", redundancy=2, sampling="uniform")
    create_screens(campaign, 12)
    cache.clear()
    ann, ben = judge("ann", campaign), judge("ben", campaign)
    rng = np.random.default_rng(3)
    reads: list[tuple[int, int]] = []
    assert judged_ids(campaign, 1, reads) == [] and reads == [], "no judgments: nothing read"
    judge_all(campaign, ann, random_values, 10, rng)
    first = all_ids(campaign)
    assert judged_ids(campaign, 1, reads) == first and reads[-1] == (0, first[-1])
    reads.clear()
    assert judged_ids(campaign, 1, reads) == first and reads == [], "nothing new: nothing read"
    judge_all(campaign, ben, random_values, 10, rng)
    assert judged_ids(campaign, 1, reads) == all_ids(campaign) and reads == [(first[-1], all_ids(campaign)[-1])]
    queue.undo_last(campaign, ann, queue.last_submitted(campaign, ann).token)
    assert judged_ids(campaign, 1, reads) == all_ids(campaign) and reads[-1] == (0, all_ids(campaign)[-1]), \
        "a judgment it held is gone: from all judgments again"
    assert judged_ids(campaign, 2, reads) == all_ids(campaign) and reads[-1][0] == 0, "a new basis: again"
    queue.undo_last(campaign, ben, queue.last_submitted(campaign, ben).token)
    judge_all(campaign, ben, random_values, 10, rng)
    assert judged_ids(campaign, 2, reads) == all_ids(campaign) and reads[-1][0] == 0, \
        "the same slots submitted, one of them judged again: from all judgments again"
    Judgment.objects.filter(assignment__campaign=campaign).order_by("-id").first().assignment.delete()
    assert judged_ids(campaign, 2, reads) == all_ids(campaign), "the newest one deleted with its slot"


def fresh(function, *args):
    cache.clear()
    return function(*args)


def test_attention_rates_and_times_kept_are_those_of_all_judgments():
    campaign = small_campaign("kept checks", redundancy=3, sampling="uniform", control_share=0.5)
    create_screens(campaign, SCREENS)
    cache.clear()
    raters = [judge(name, campaign) for name in ("careful", "random", "hasty")]
    rng = np.random.default_rng(5)
    for rater, behave, seconds in zip(raters, (careful_values, random_values, careful_values), (20, 20, 1)):
        judge_all(campaign, rater, behave, seconds, rng)
        kept_rates, kept_times = attention_check_rates(campaign), judged_work(campaign)
        assert kept_rates == fresh(attention_check_rates, campaign)
        assert kept_times == fresh(judged_work, campaign)
    queue.undo_last(campaign, raters[0], queue.last_submitted(campaign, raters[0]).token)
    rates = {rate.judge: rate for rate in attention_check_rates(campaign)}
    assert attention_check_rates(campaign) == fresh(attention_check_rates, campaign)
    assert rates["careful"].rate == 1.0 and rates["random"].rate < 1.0 and rates["careful"].checks > 0
    times = judged_work(campaign)
    assert times == fresh(judged_work, campaign) and times.judge_times["hasty"].median == 1.0



def submit_one(campaign: Campaign, rater) -> None:
    assignment = queue.next_assignment(campaign, rater)
    keys = queue.candidate_keys(assignment)
    queue.submit_ranking(assignment.token, rater, [1] * len(keys), keys)


def ann_and_ben(name: str, **options) -> tuple[Campaign, object, object]:
    """A campaign of 12 screens of two slots, its judges ann and ben, ben's first screen submitted; no tally kept."""
    campaign = small_campaign(name, redundancy=2, sampling="uniform", **options)
    create_screens(campaign, 12)
    cache.clear()
    ann, ben = judge("ann", campaign), judge("ben", campaign)
    submit_one(campaign, ben)
    return campaign, ann, ben


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("tally", [judged_work, attention_check_rates, campaign_verdicts])
def test_a_judgment_committed_while_a_tally_reads_and_undone_before_the_next_read_is_not_kept(tally, monkeypatch):
    """A submit commits late (its judgment's id is below the newest's) after the tally counted the new judgments
    and before it read them: what is kept must not hold it uncounted, or its undo before the next read would leave
    it there for good (the kept totals and the submitted slots agree again)."""
    campaign, ann, ben = ann_and_ben("late", control_share=1.0)
    tally(campaign)
    counted = kept_tallies.judgments_after
    with held_submit(campaign, ann) as commit:
        submit_one(campaign, ben)

        def commit_once_counted(*args):
            totals = counted(*args)
            commit()
            return totals

        monkeypatch.setattr(kept_tallies, "judgments_after", commit_once_counted)
        tally(campaign)
    monkeypatch.undo()
    queue.undo_last(campaign, ann, queue.last_submitted(campaign, ann).token)
    assert tally(campaign) == fresh(tally, campaign)


def test_a_tally_whose_judgments_change_under_every_read_is_returned_and_not_kept(monkeypatch):
    """When the judgments change under the reads of every attempt (``kept_tallies.unchanged`` false each time),
    the last attempt's tally is returned and nothing is kept."""
    campaign = small_campaign("changing", redundancy=2, sampling="uniform")
    create_screens(campaign, 6)
    cache.clear()
    submit_one(campaign, judge("ann", campaign))
    reads: list[tuple[int, int]] = []
    monkeypatch.setattr(kept_tallies, "unchanged", lambda *args: False)
    assert judged_ids(campaign, 1, reads) == all_ids(campaign)
    assert len(reads) == kept_tallies.ATTEMPTS
    monkeypatch.undo()
    reads.clear()
    assert judged_ids(campaign, 1, reads) == all_ids(campaign) and reads == [(0, all_ids(campaign)[-1])], \
        "nothing was kept: read from the start"


@pytest.mark.django_db(transaction=True)
def test_a_judgment_committed_after_a_newer_one_was_kept_is_added_by_itself(monkeypatch):
    """Concurrent submits commit out of id order: a judgment committed after a tally kept a newer one is found
    among the kept recent ids and read alone; one older than the ``RECENT`` kept ids sends the tally back to all
    judgments."""
    campaign, ann, ben = ann_and_ben("late kept")
    reads: list[tuple[int, int]] = []
    with held_submit(campaign, ann) as commit:
        submit_one(campaign, ben)
        assert judged_ids(campaign, 1, reads) == all_ids(campaign)
        commit()
    late = Judgment.objects.get(assignment__campaign=campaign, assignment__judge=ann).pk
    assert late < all_ids(campaign)[-1]
    reads.clear()
    held = [pk for pk in all_ids(campaign) if pk != late]
    assert judged_ids(campaign, 1, reads) == held + [late]
    assert reads == [(late - 1, late)], "only the late judgment is read"
    assert judged_ids(campaign, 1, reads) == held + [late] and len(reads) == 1, "and then kept"

    monkeypatch.setattr(kept_tallies, "RECENT", 1)
    cache.clear()
    submit_one(campaign, ben)
    assert sorted(judged_ids(campaign, 1, reads)) == all_ids(campaign)
    with held_submit(campaign, ann) as commit:
        submit_one(campaign, ben)
        submit_one(campaign, ben)
        reads.clear()
        assert sorted(judged_ids(campaign, 1, reads)) == all_ids(campaign)
        commit()
    reads.clear()
    assert sorted(judged_ids(campaign, 1, reads)) == all_ids(campaign) and reads[0][0] == 0, \
        "committed later than the recent ids kept: from all judgments again"


@pytest.mark.django_db(transaction=True)
def test_submits_committing_between_a_tallys_reads_do_not_send_it_back_to_all_judgments(monkeypatch):
    """A tally reads the submitted slots and the judgments in one snapshot (``kept_tallies.one_snapshot``): a submit
    that commits after each read of the slots, as under a steady stream of submits, is not seen by the reads after
    it, which agree with the slots; read in separate snapshots, every attempt saw one judgment more than its slots
    and the tally was taken again from all judgments."""
    campaign, ann, ben = ann_and_ben("stream")
    reads: list[tuple[int, int]] = []
    judged_ids(campaign, 1, reads)
    read_slots = kept_tallies.submitted_slots

    def submit_and_close() -> None:
        try:
            submit_one(campaign, ann)
        finally:
            connection.close()

    def slots_then_a_submit(campaign):
        slots = read_slots(campaign)
        other = threading.Thread(target=submit_and_close)
        other.start()
        other.join()
        return slots

    submit_one(campaign, ben)
    monkeypatch.setattr(kept_tallies, "submitted_slots", slots_then_a_submit)
    reads.clear()
    seen = judged_ids(campaign, 1, reads)
    monkeypatch.undo()
    assert reads and all(after > 0 for after, _ in reads), "only the new judgments read"
    assert len(seen) == 2 and len(all_ids(campaign)) > 2
    assert judged_ids(campaign, 1, reads) == all_ids(campaign)


@pytest.mark.django_db(transaction=True)
def test_the_judgments_a_tally_counts_are_found_among_the_campaigns_submitted_slots_not_all_its_slots():
    """A campaign with 40,000 pool slots and no judgment yet, beside one with 3,000 judgments: counting its
    judgments (every poll of a campaign whose tallies hold none) reads a few index blocks; it read the campaign's
    slots, or every campaign's (97 blocks here; 11,000 at 1,000,000 slots beside 200,000 judgments), to find that
    it has none."""
    judged = small_campaign("judged")
    rng = np.random.default_rng(3)
    lines = [line for line in range(6) if judged.segments.get(line=line).candidates.count() >= 2]
    shown = {line: list(judged.segments.get(line=line).candidates.values_list("pk", flat=True)) for line in lines}
    with transaction.atomic():
        write_judged_screens(judged, [
            JudgedScreen(line=line, judge=f"judge{i % 7}",
                         candidates=[JudgedCandidate(pk, int(rng.integers(1, 4))) for pk in shown[line]])
            for i, line in enumerate(lines[i % len(lines)] for i in range(3000))
        ])
    fresh = small_campaign("fresh", redundancy=4, sampling="uniform")
    create_screens(fresh, 10_000)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    slots = Assignment.objects.filter(campaign=judged).aggregate(n=Count("id"), sum=Sum("id"))
    assert kept_tallies.judgments_after(judged, 0) == {
        "n": 3000, "sum": slots["sum"], "last": Judgment.objects.order_by("id").last().pk}
    before = blocks_read()
    assert kept_tallies.judgments_after(fresh, 0) == {"n": 0, "sum": 0, "last": 0}
    blocks = blocks_read() - before
    assert blocks <= 20, f"counting no judgment among {Assignment.objects.filter(campaign=fresh).count()} slots " \
                         f"read {blocks} blocks"
