"""A run's bootstrap chunks are stored and counted in the database (``runs.store_chunk``): each is stored once, the
chunk that completes the set sends the last step, a task run again after its process died past that point sends it
again, and a run put back in the queue computes only the chunks it lacks. The test settings' Celery is eager: what a
task sends runs here."""
from __future__ import annotations

import numpy as np
import pytest

from ranking.models import AnalysisChunk, AnalysisRun
from ranking.runs import (
    ChunkSamples,
    chunk_plan,
    combined_samples,
    compute_chunk,
    create_run,
    execute_in_process,
    mark_running,
    missing_chunks,
    put_back_stalled,
    store_chunk,
    stored_chunks,
)
from ranking.tasks import BOOTSTRAP_SHARE, bootstrap_chunk_task, finish_analysis_task, send_waiting

from .factories import synthetic_campaign
from .test_tasks import FAST


@pytest.fixture
def campaign():
    return synthetic_campaign("chunks", np.random.default_rng(31), n_rankings=120)


def store_all_but_the_last(run: AnalysisRun) -> tuple[str, int, int]:
    """Store every chunk of the run as its tasks would, but the last; returns the last."""
    *first, last = chunk_plan(run)
    for method, chunk, size in first:
        assert store_chunk(run.pk, method, chunk, compute_chunk(run.pk, method, chunk, size)).stored_now
    return last


@pytest.mark.django_db
def test_a_chunk_is_stored_once_and_the_last_one_completes_the_set(campaign):
    run = create_run(campaign, FAST)
    total = len(chunk_plan(run))
    assert total == 8  # 200 samples in chunks of 50, for each of the two methods
    method, chunk, size = store_all_but_the_last(run)
    computed = compute_chunk(run.pk, method, chunk, size)
    assert tuple(store_chunk(run.pk, method, chunk, computed)) == (True, total, total)
    again = ChunkSamples(computed.samples + 1.0, computed.data)
    assert tuple(store_chunk(run.pk, method, chunk, again)) == (False, total, total)  # a task run again
    stored = stored_chunks(run)
    assert np.array_equal(stored[(method, chunk)].samples, computed.samples)  # the first store stands
    assert {key: value.samples.shape for key, value in stored.items()} == {
        (method, chunk): (size, 6) for method, chunk, size in chunk_plan(run)}


@pytest.mark.django_db
def test_the_chunks_combine_to_the_samples_the_in_process_run_draws(campaign):
    run = create_run(campaign, FAST)
    for method, chunk, size in reversed(chunk_plan(run)):  # workers finish in any order
        store_chunk(run.pk, method, chunk, compute_chunk(run.pk, method, chunk, size))
    from ranking.core.analysis import bootstrap_samples
    from ranking.core.pairs import expanded_pairs
    from ranking.runs import run_parameters, run_rankings

    rankings = run_rankings(run)
    direct = bootstrap_samples(expanded_pairs(rankings), rankings.n_systems, run_parameters(run))
    stored = combined_samples(run, stored_chunks(run), rankings)
    assert all(np.array_equal(stored[method], direct[method]) for method in direct)


@pytest.mark.django_db
def test_the_last_step_refuses_a_run_that_lacks_a_chunk(campaign):
    run = create_run(campaign, FAST)
    method, chunk, _ = store_all_but_the_last(run)
    with pytest.raises(ValueError, match=f"bootstrap chunks not stored: {method} {chunk}$"):
        stored_chunks(run)


@pytest.mark.django_db
def test_a_chunk_run_again_after_its_process_died_past_the_count_sends_the_last_step(campaign):
    """The window Celery's Redis chord left open: the last chunk stored and counted, then its process killed before
    the last step was sent. The task, delivered again, finds the set complete and sends it."""
    expected = execute_in_process(create_run(campaign, FAST)).result
    run = create_run(campaign, FAST)
    AnalysisRun.objects.filter(pk=run.pk).update(task_id="sent")
    mark_running(run.pk)
    method, chunk, size = store_all_but_the_last(run)
    assert store_chunk(run.pk, method, chunk, compute_chunk(run.pk, method, chunk, size)).complete
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.RUNNING  # nothing sent the last step: the process died here
    bootstrap_chunk_task.delay(run.pk, method, chunk, size)
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.DONE, run.error
    assert run.result["expected_wins"] == expected["expected_wins"] and run.result["trueskill"] == expected["trueskill"]
    assert not AnalysisChunk.objects.filter(run=run).exists()  # dropped once done


@pytest.mark.django_db
def test_a_done_run_stores_no_chunk_and_its_last_step_sent_again_does_nothing(campaign):
    run = create_run(campaign, FAST)
    assert send_waiting() == 1
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.DONE and not AnalysisChunk.objects.filter(run=run).exists()
    finished_at, attempts = run.finished_at, run.attempts
    method, chunk, size = chunk_plan(run)[0]
    bootstrap_chunk_task.delay(run.pk, method, chunk, size)  # a late duplicate of a chunk's task
    finish_analysis_task.delay(run.pk)
    run.refresh_from_db()
    assert not AnalysisChunk.objects.filter(run=run).exists()
    assert (run.status, run.finished_at, run.attempts) == (AnalysisRun.Status.DONE, finished_at, attempts)


@pytest.mark.django_db
def test_a_run_put_back_computes_only_the_chunks_it_lacks(campaign, monkeypatch):
    expected = execute_in_process(create_run(campaign, FAST)).result
    run = create_run(campaign, FAST)
    AnalysisRun.objects.filter(pk=run.pk).update(task_id="sent")
    mark_running(run.pk)
    for method, chunk, size in chunk_plan(run)[:3]:  # three chunks stored, then the worker died
        store_chunk(run.pk, method, chunk, compute_chunk(run.pk, method, chunk, size))
    assert put_back_stalled(claim_seconds=-1) == 1
    computed, progress_at_start = [], []
    original = compute_chunk

    def counting(run_id: int, method: str, chunk: int, size: int) -> ChunkSamples:
        if not computed:
            progress_at_start.append(AnalysisRun.objects.get(pk=run_id).progress)
        computed.append((method, chunk))
        return original(run_id, method, chunk, size)

    monkeypatch.setattr("ranking.tasks.compute_chunk", counting)
    assert missing_chunks(run) == chunk_plan(run)[3:]
    assert send_waiting() == 1
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.DONE, run.error
    assert computed == [(method, chunk) for method, chunk, _ in chunk_plan(run)[3:]]
    assert progress_at_start == [BOOTSTRAP_SHARE * 3 / 8]
    assert run.result["expected_wins"] == expected["expected_wins"] and run.result["trueskill"] == expected["trueskill"]


@pytest.mark.django_db
def test_a_run_put_back_with_every_chunk_stored_goes_straight_to_its_last_step(campaign, monkeypatch):
    run = create_run(campaign, FAST)
    AnalysisRun.objects.filter(pk=run.pk).update(task_id="sent")
    mark_running(run.pk)
    for method, chunk, size in chunk_plan(run):
        store_chunk(run.pk, method, chunk, compute_chunk(run.pk, method, chunk, size))
    assert put_back_stalled(claim_seconds=-1) == 1
    monkeypatch.setattr("ranking.tasks.compute_chunk", lambda *args: pytest.fail("a stored chunk computed again"))
    assert send_waiting() == 1
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.DONE, run.error
