"""An analysis is of one snapshot of its campaign's judgments, whatever judges do while it is queued or computed: a
judgment that commits late (its id below the snapshot's last one), an undo, the chunks of its bootstrap computed on
workers before either; the JSON's ``snapshot`` counts the judgments it analysed (``pairs.rankings`` here, with no
flag, ignored judge or excluded screen)."""
from __future__ import annotations

import pytest

from annotation.services import queue
from annotation.services.screens import create_screens
from ranking.runs import chunk_plan, compute_chunk, create_run, execute_in_process, store_chunk
from ranking.tasks import finish_analysis_task
from tests.annotation.factories import judge, small_campaign
from tests.annotation.late_commits import held_submit

from .test_tasks import FAST

pytestmark = pytest.mark.django_db(transaction=True)


def submit_one(campaign, rater) -> None:
    """``rater`` ranks their next screen's corrections in the order shown (1, 2, ...: no ties)."""
    assignment = queue.next_assignment(campaign, rater)
    keys = queue.candidate_keys(assignment)
    queue.submit_ranking(assignment.token, rater, list(range(1, len(keys) + 1)), keys)


def judged_by_ann_and_ben(ben_submits: int):
    """A campaign of 12 screens of two slots, its judges ann and ben, ``ben_submits`` of ben's screens submitted."""
    campaign = small_campaign("snapshot", redundancy=2, sampling="uniform")
    create_screens(campaign, 12)
    ann, ben = judge("ann", campaign), judge("ben", campaign)
    for _ in range(ben_submits):
        submit_one(campaign, ben)
    return campaign, ann, ben


def counted_and_analysed(result: dict) -> tuple[int, int]:
    return result["snapshot"]["judgments"], result["pairs"]["rankings"]


def test_a_judgment_that_commits_after_the_run_was_recorded_below_its_last_id_is_counted_where_analysed():
    campaign, ann, ben = judged_by_ann_and_ben(3)
    with held_submit(campaign, ann) as commit:
        submit_one(campaign, ben)  # its id is above ann's, which commits after the run is recorded
        run = create_run(campaign, FAST)
        commit()
    assert counted_and_analysed(execute_in_process(run).result) == (5, 5)


def test_a_judgment_undone_after_the_run_was_recorded_is_neither_counted_nor_analysed():
    campaign, ann, ben = judged_by_ann_and_ben(4)
    run = create_run(campaign, FAST)
    queue.undo_last(campaign, ben, queue.last_submitted(campaign, ben).token)
    run = execute_in_process(run)
    assert counted_and_analysed(run.result) == (3, 3)
    assert run.snapshot == run.result["snapshot"]


def test_chunks_computed_before_an_undo_are_computed_again_on_the_data_the_last_step_analyses():
    campaign, ann, ben = judged_by_ann_and_ben(4)
    submit_one(campaign, ann)
    run = create_run(campaign, FAST)
    for method, chunk, size in chunk_plan(run):  # the workers' chunks, on five judgments
        store_chunk(run.pk, method, chunk, compute_chunk(run.pk, method, chunk, size))
    queue.undo_last(campaign, ben, queue.last_submitted(campaign, ben).token)
    finish_analysis_task.apply((run.pk,), throw=True)  # here, whether or not a test worker runs
    run.refresh_from_db()
    expected = execute_in_process(create_run(campaign, FAST)).result  # on the four left
    assert counted_and_analysed(run.result) == counted_and_analysed(expected) == (4, 4)
    assert run.result["expected_wins"] == expected["expected_wins"] and run.result["trueskill"] == expected["trueskill"]
