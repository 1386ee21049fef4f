"""The dashboard's live leaderboard and history endpoints on PostgreSQL: the analysis's numbers, kept up to date
incrementally, on any data (none, one judge, ties only, systems never compared, flags only), for organizers only."""
from __future__ import annotations

import gzip
import json
import pickle
from datetime import timedelta

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Judgment, Screen
from annotation.random_streams import seeded_rng
from annotation.services import queue
from annotation.services.judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens
from annotation.services.screens import create_screens
from ranking import leaderboard as live
from ranking.core import separation
from ranking.core.bootstrap import bootstrap_expected_wins, bootstrap_ranking
from ranking.core.expected_wins import expected_wins
from ranking.core.pairs import expanded_pairs, outcome_counts, win_matrix
from ranking.core.rankings import Rankings
from ranking.core.win_counts import step_counts
from ranking.leaderboard import HISTORY_DECIMALS
from ranking.loading import load_rankings
from tests.annotation.factories import candidate_of, judge, small_campaign
from tests.annotation.late_commits import held_submit
from tests.annotation.test_kept_tallies import submit_one

from .factories import synthetic_campaign

pytestmark = pytest.mark.django_db

SMALL = ("INPUT", "MARMOTFIX", "QUOKKAGEC", "ZEPHYRSYS")


def strict(response) -> dict:
    """The response's JSON, refusing NaN and Infinity."""
    def refuse(constant):
        raise ValueError(f"non-finite number {constant} in the JSON")

    return json.loads(response.content, parse_constant=refuse)


def organizer_client(campaign, username: str = "orga") -> Client:
    user = get_user_model().objects.create_user(username)
    campaign.organizers.add(user)
    client = Client()
    client.force_login(user)
    return client


def get_leaderboard(client: Client, campaign) -> dict:
    response = client.get(reverse("campaign-leaderboard", args=[campaign.pk]))
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    return strict(response)


def get_history(client: Client, campaign, **params) -> dict:
    response = client.get(reverse("campaign-history", args=[campaign.pk]), params)
    assert response.status_code == 200
    return strict(response)


def analysis_ranking(campaign, seed: int):
    """The ranking the analysis computes from all pairs, with the leaderboard's random stream."""
    rankings = load_rankings(campaign)
    pairs = expanded_pairs(rankings)
    rng = seeded_rng(seed, "live")
    samples = bootstrap_expected_wins(pairs, rankings.n_systems, live.LEADERBOARD_BOOTSTRAP, rng)
    full = expected_wins(win_matrix(pairs, rankings.n_systems))
    return bootstrap_ranking(samples, full, rankings.system_names, live.CONFIDENCE)


def judged(campaign, line: int, judge: str, ranks: dict[str, int] | None, flag: str | None = None) -> JudgedScreen:
    """A screen of ``line`` ranked by ``judge``: ``ranks`` by system (systems of one candidate share a rank)."""
    candidates = {}
    for system, rank in (ranks or {}).items():
        candidates[candidate_of(campaign, line, system).pk] = rank
    return JudgedScreen(
        line=line, judge=judge, duration=timedelta(seconds=20), flag_reason=flag,
        candidates=[JudgedCandidate(candidate=pk, rank=rank) for pk, rank in candidates.items()],
    )


def test_the_leaderboard_is_the_analysis_expected_wins_ranking_and_follows_new_judgments():
    campaign = synthetic_campaign("live", np.random.default_rng(11), n_rankings=150)
    client = organizer_client(campaign)
    board = get_leaderboard(client, campaign)
    expected = analysis_ranking(campaign, campaign.seed)
    assert [row["system"] for row in board["systems"]] == [row.system for row in expected.systems]
    for got, want in zip(board["systems"], expected.systems):
        assert got["score"] == pytest.approx(want.score, abs=1e-12)
        assert got["full_data_score"] == pytest.approx(want.full_data_score, abs=1e-12)
        assert (tuple(got["range"]), got["cluster"]) == (want.range, want.cluster)
    unresolved = [pair for pair in board["system_pairs"]["unresolved"]]
    for a, b in unresolved:
        ra = next(r for r in board["systems"] if r["system"] == a)["range"]
        rb = next(r for r in board["systems"] if r["system"] == b)["range"]
        assert ra[0] <= rb[1] and rb[0] <= ra[1]
    assert board["system_pairs"]["separated"] == 15 - len(unresolved)
    more = board["system_pairs"]["more_judgments"]
    assert [p["pair"] for p in more["pairs"]] == unresolved
    known = [p["judgments"] for p in more["pairs"] if p["judgments"] is not None]
    assert more["all"] == max(known) and more["without_estimate"] == len(unresolved) - len(known)
    rankings_before = board["snapshot"]["rankings"]
    assert rankings_before == load_rankings(campaign).n_rankings

    write_judged_screens(campaign, random_judgments(campaign, np.random.default_rng(12), 40))
    updated = get_leaderboard(client, campaign)
    assert updated["snapshot"]["rankings"] == load_rankings(campaign).n_rankings == rankings_before + 40
    expected = analysis_ranking(campaign, campaign.seed)
    assert [(r["system"], r["score"]) for r in updated["systems"]] == [(r.system, r.score) for r in expected.systems]
    cache.clear()
    assert get_leaderboard(client, campaign) == updated, "the incremental counts equal a rebuild from scratch"


def random_judgments(campaign, rng: np.random.Generator, n: int) -> list[JudgedScreen]:
    """``n`` screens of random sentences with two or more candidates, ranked at random by two judges."""
    segments = [s for s in campaign.segments.all() if s.candidates.count() >= 2]
    screens = []
    for i in range(n):
        segment = segments[int(rng.integers(len(segments)))]
        shown = list(segment.candidates.values_list("id", flat=True))[:5]
        screens.append(JudgedScreen(
            line=segment.line, judge=("ann", "bob")[i % 2], duration=timedelta(seconds=10),
            candidates=[JudgedCandidate(candidate=pk, rank=int(rng.integers(1, 6))) for pk in shown],
        ))
    return screens


def test_an_unchanged_campaign_answers_from_the_cache(django_assert_max_num_queries):
    campaign = synthetic_campaign("cached", np.random.default_rng(2), n_rankings=60)
    client = organizer_client(campaign)
    first = get_leaderboard(client, campaign)
    with django_assert_max_num_queries(6):
        assert get_leaderboard(client, campaign) == first


def test_degenerate_data_give_nulls_with_reasons_never_nan():
    campaign = small_campaign()
    client = organizer_client(campaign)
    empty = get_leaderboard(client, campaign)
    assert empty["reason"] == live.NO_PAIRS and empty["snapshot"]["rankings"] == 0
    assert [row["system"] for row in empty["systems"]] == list(SMALL)
    assert all(row["score"] is None and row["range"] is None and row["pairs"] == 0 for row in empty["systems"])
    assert empty["system_pairs"] == {"total": 6, "separated": None, "unresolved": [], "reason": live.NO_PAIRS,
                                     "more_judgments": None}
    history = get_history(client, campaign)
    assert history["points"] == [] and history["stopping"]["met"] is False and history["stopping"]["reason"]

    write_judged_screens(campaign, [judged(campaign, 4, "flagger", None, flag="Garbled source sentence")])
    flagged = get_leaderboard(client, campaign)
    assert flagged["reason"] == live.NO_PAIRS and flagged["snapshot"]["rankings"] == 1

    ties = {"INPUT": 1, "ZEPHYRSYS": 1, "QUOKKAGEC": 1}
    write_judged_screens(campaign, [judged(campaign, 4, "solo", ties)])
    tied = get_leaderboard(client, campaign)
    assert tied["reason"] is None
    rows = {row["system"]: row for row in tied["systems"]}
    assert all(rows[name]["score"] == 0.0 and rows[name]["range"] == [1, 1] and rows[name]["cluster"] == 1
               for name in ties)
    assert rows["MARMOTFIX"]["pairs"] == 0 and rows["INPUT"]["pairs"] == 2, "MARMOTFIX was never compared"
    assert {key: rows["MARMOTFIX"][key] for key in ("score", "range", "cluster", "reason")} == {
        "score": None, "range": None, "cluster": None, "reason": live.NOT_COMPARED}, "as the analysis: no score, 0"
    assert tied["system_pairs"]["separated"] == 0 and len(tied["system_pairs"]["unresolved"]) == 6
    assert get_history(client, campaign)["stopping"]["reason"] == (
        "it compares the clusters at every 100th ranking with pairwise judgments, and there is none yet"), (
        "the hint said 'no clusters yet' under a leaderboard showing the clusters")
    more = tied["system_pairs"]["more_judgments"]
    assert more["all"] is None and more["without_estimate"] == 6 and more["reason"]
    reasons = {frozenset(p["pair"]): p["reason"] for p in more["pairs"]}
    assert reasons[frozenset({"INPUT", "MARMOTFIX"})] == separation.NEVER_COMPARED
    assert reasons[frozenset({"INPUT", "ZEPHYRSYS"})] == separation.LOOKS_TIED


def test_history_has_a_checkpoint_per_100_rankings_and_a_stopping_hint():
    campaign = synthetic_campaign("history", np.random.default_rng(7), n_rankings=520, n_systems=4)
    client = organizer_client(campaign)
    rankings = load_rankings(campaign)
    data = get_history(client, campaign, k=200)
    assert data["pending"] == 0 and data["systems"] == list(rankings.system_names)
    assert [p["rankings"] for p in data["points"]] == list(range(100, rankings.n_rankings + 1, 100))
    for point in data["points"]:
        prefix = prefix_rankings(campaign, point["rankings"])
        pairs = expanded_pairs(prefix)
        expected = expected_wins(win_matrix(pairs, prefix.n_systems))
        assert point["scores"] == [round(float(value), HISTORY_DECIMALS) for value in expected]
        assert 0 <= point["separated_pairs"] <= data["system_pairs"] == 6
    hint = data["stopping"]
    assert hint["k"] == 200 and hint["stable_for"] == data["points"][-1]["rankings"] - hint["stable_since"]
    assert hint["met"] == (hint["stable_for"] >= 200)
    strict_hint = get_history(client, campaign, k=10_000)["stopping"]
    assert strict_hint["met"] is False and strict_hint["stable_since"] == hint["stable_since"]
    loose = get_history(client, campaign, k=1)["stopping"]
    assert loose["met"] == (hint["stable_for"] >= 1)


def prefix_rankings(campaign, n: int) -> Rankings:
    """The first ``n`` rankings analysed, loaded up to the id of the n-th judgment."""
    judgments = Judgment.objects.filter(assignment__screen__campaign=campaign).order_by("id")
    ids = list(judgments.values_list("id", flat=True))
    rankings = load_rankings(campaign, up_to=ids[n - 1])
    assert rankings.n_rankings == n
    return rankings


def test_history_is_computed_within_a_budget_and_completed_by_later_requests():
    campaign = synthetic_campaign("budget", np.random.default_rng(8), n_rankings=420, n_systems=4)
    first = live.history(campaign, budget=0.0)
    assert first["pending"] == len(first["points"]) - 1 >= 3
    newest = first["points"][-1]
    assert newest["separated_pairs"] is not None, "the newest checkpoint, for the stopping hint, comes first"
    assert first["stopping"]["stable_since"] == newest["rankings"]
    second = live.history(campaign, budget=0.0)
    assert second["pending"] == first["pending"] - 1
    done = live.history(campaign, budget=5.0)
    assert done["pending"] == 0
    cache.clear()
    assert live.history(campaign)["points"] == done["points"], "checkpoints are a function of the data"


def test_fill_order_is_newest_first_then_coarse_to_fine():
    assert live.fill_order(0, 3) == []
    assert live.fill_order(10, 3) == [9, 8, 7, 3, 1, 5, 0, 2, 4, 6]
    assert sorted(live.fill_order(37, 3)) == list(range(37))


def test_an_undo_and_an_exclusion_rebuild_the_counts():
    campaign = synthetic_campaign("undo", np.random.default_rng(6), n_rankings=120)
    client = organizer_client(campaign)
    before = get_leaderboard(client, campaign)
    undo(Judgment.objects.filter(assignment__screen__campaign=campaign).order_by("id")[5])
    after_undo = get_leaderboard(client, campaign)
    assert after_undo["snapshot"]["rankings"] == before["snapshot"]["rankings"] - 1
    assert after_undo["systems"] == to_rows(analysis_ranking(campaign, campaign.seed), after_undo)

    undo(Judgment.objects.filter(assignment__screen__campaign=campaign).order_by("id")[7])
    write_judged_screens(campaign, random_judgments(campaign, np.random.default_rng(3), 1))
    swapped = get_leaderboard(client, campaign)
    assert swapped["snapshot"]["judgments"] == after_undo["snapshot"]["judgments"], "one deleted, one added"
    assert swapped["systems"] == to_rows(analysis_ranking(campaign, campaign.seed), swapped)
    after_undo = swapped

    screen = Screen.objects.filter(campaign=campaign, assignments__judgment__isnull=False).order_by("number").first()
    screen.excluded = True
    screen.save(update_fields=["excluded"])
    excluded = get_leaderboard(client, campaign)
    assert excluded["snapshot"]["excluded_screens"] == 1
    assert excluded["snapshot"]["rankings"] == after_undo["snapshot"]["rankings"] - 1
    assert excluded["systems"] == to_rows(analysis_ranking(campaign, campaign.seed), excluded)
    screen.excluded = False
    screen.save(update_fields=["excluded"])
    assert get_leaderboard(client, campaign) == after_undo


def undo(judgment: Judgment) -> None:
    """What a judge's undo does to the data (``queue.undo_last``): the judgment goes, its slot is served again."""
    Assignment.objects.filter(pk=judgment.assignment_id).update(status=Assignment.Status.SERVED, submitted_at=None)
    judgment.delete()


def to_rows(ranking, board: dict) -> list[dict]:
    """The analysis's ranking in the leaderboard's row shape (pairs and overlaps taken from the board)."""
    extra = {row["system"]: (row["pairs"], row["unresolved_with"]) for row in board["systems"]}
    return [
        {"system": r.system, "score": r.score, "full_data_score": r.full_data_score, "range": list(r.range),
         "cluster": r.cluster, "pairs": extra[r.system][0], "unresolved_with": extra[r.system][1]}
        for r in ranking.systems
    ]


def test_only_the_campaign_organizers_and_admins_get_the_endpoints():
    campaign = small_campaign()
    User = get_user_model()
    judge_user = User.objects.create_user("judy")
    campaign.judges.add(judge_user)
    other = User.objects.create_user("other-orga")
    admin = User.objects.create_superuser("boss")
    for name in ("campaign-leaderboard", "campaign-history"):
        url = reverse(name, args=[campaign.pk])
        assert Client().get(url).status_code == 302
        for user in (judge_user, other):
            client = Client()
            client.force_login(user)
            assert client.get(url).status_code == 404
        client = Client()
        client.force_login(admin)
        assert client.get(url).status_code == 200
        assert client.post(url).status_code == 405


@pytest.mark.parametrize("k", ["0", "-5", "abc", "1e3", "99999999999", "", "²", "9" * 5000])
def test_a_bad_k_is_refused_with_a_message(k):
    campaign = small_campaign()
    response = organizer_client(campaign).get(reverse("campaign-history", args=[campaign.pk]), {"k": k})
    assert response.status_code == 400
    assert "k must be a whole number of rankings" in strict(response)["error"]


def test_the_stopping_hint_is_met_once_the_clusters_held_for_k_rankings():
    campaign = small_campaign()
    client = organizer_client(campaign)
    order = {"ZEPHYRSYS": 1, "QUOKKAGEC": 2, "MARMOTFIX": 3, "INPUT": 4}
    write_judged_screens(campaign, [judged(campaign, 4, ("ann", "bob")[i % 2], order) for i in range(250)])
    hint = get_history(client, campaign, k=200)["stopping"]
    assert (hint["stable_since"], hint["stable_for"], hint["met"]) == (100, 100, False)
    write_judged_screens(campaign, [judged(campaign, 4, "ann", order) for i in range(60)])
    data = get_history(client, campaign, k=200)
    assert [p["separated_pairs"] for p in data["points"]] == [6, 6, 6]
    stopping = data["stopping"]
    assert (stopping["stable_since"], stopping["stable_for"], stopping["met"]) == (100, 200, True)
    board = get_leaderboard(client, campaign)
    assert [(r["system"], r["range"], r["cluster"]) for r in board["systems"]] == [
        ("ZEPHYRSYS", [1, 1], 1), ("QUOKKAGEC", [2, 2], 2), ("MARMOTFIX", [3, 3], 3), ("INPUT", [4, 4], 4)]
    assert board["system_pairs"]["unresolved"] == [] and board["system_pairs"]["separated"] == 6


def test_a_prws_campaign_with_one_rater_is_ranked_on_its_relative_judgments():
    campaign = small_campaign(mode="prws")
    campaign.qc_control_threshold = 0.6
    campaign.save(update_fields=["qc_control_threshold"])
    client = organizer_client(campaign)
    scores = {"ZEPHYRSYS": 90.0, "QUOKKAGEC": 70.0, "MARMOTFIX": 40.0, "INPUT": 10.0}
    screen = JudgedScreen(line=4, judge="solo", duration=timedelta(seconds=9), candidates=[
        JudgedCandidate(candidate=candidate_of(campaign, 4, system).pk, score=score) for system, score in scores.items()
    ])
    write_judged_screens(campaign, [screen, screen])
    board = get_leaderboard(client, campaign)
    assert board["reason"] is None and board["snapshot"]["rankings"] == 2
    assert [row["system"] for row in board["systems"]] == list(scores)
    assert board["raters"]["threshold"] == 0.6, "the campaign's rater QC threshold, not the default"
    assert board["raters"]["checks"] == [{"judge": "solo", "screens": 0, "passed": 0, "rate": None, "excluded": False,
                                          "reason": "no screen showed both Source and Source+error"}]
    ranked = small_campaign("ranked")
    assert "raters" not in get_leaderboard(organizer_client(ranked, "orga2"), ranked)


def test_the_leaderboard_adds_checkpoints_to_the_cached_history_and_a_lost_history_is_rebuilt():
    campaign = synthetic_campaign("two-entries", np.random.default_rng(13), n_rankings=160, n_systems=4)
    client = organizer_client(campaign)
    first = get_history(client, campaign)
    assert [p["rankings"] for p in first["points"]] == [100]
    token = cache.get(live._cache_key(campaign, "counts")).token
    write_judged_screens(campaign, random_judgments(campaign, np.random.default_rng(14), 60))
    get_leaderboard(client, campaign)
    state = cache.get(live._cache_key(campaign, "counts"))
    history = cache.get(live._cache_key(campaign, "history"))
    assert state.token == token and history.matches(state), "extended in place, not rebuilt"
    assert [c.rankings for c in history.checkpoints] == [100, 200]
    assert history.checkpoints[0].ranking is not None and history.checkpoints[1].ranking is None
    second = get_history(client, campaign)
    assert second["points"][0] == first["points"][0] and second["pending"] == 0
    cache.delete(live._cache_key(campaign, "history"))
    assert get_history(client, campaign)["points"] == second["points"]
    assert cache.get(live._cache_key(campaign, "counts")).token != token


def test_an_undone_screen_submitted_again_between_two_polls_is_seen():
    campaign = small_campaign()
    client = organizer_client(campaign)
    order = {"ZEPHYRSYS": 1, "QUOKKAGEC": 2, "MARMOTFIX": 3, "INPUT": 4}
    write_judged_screens(campaign, [judged(campaign, 4, "ann", order)])
    first = get_leaderboard(client, campaign)
    assert first["systems"][0]["system"] == "ZEPHYRSYS"
    judgment = Judgment.objects.get(assignment__screen__campaign=campaign)
    slot = judgment.assignment
    undo(judgment)
    again = Judgment.objects.create(assignment=slot, duration=timedelta(seconds=3))
    for system, rank in {"INPUT": 1, "MARMOTFIX": 2, "QUOKKAGEC": 3, "ZEPHYRSYS": 4}.items():
        candidate = candidate_of(campaign, 4, system)
        again.items.create(candidate=candidate, position=slot.screen.slots.get(candidate=candidate).position, rank=rank)
    Assignment.objects.filter(pk=slot.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())
    second = get_leaderboard(client, campaign)
    assert second["snapshot"]["judgments"] == 1 and second["snapshot"]["last_judgment_id"] == again.pk
    assert second["systems"][0]["system"] == "INPUT"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("counting", ["stored_since", "judgments_after"])
def test_a_judgment_committed_while_the_leaderboard_reads_and_undone_before_the_next_poll_is_not_kept(
    counting, monkeypatch
):
    """A submit commits late (its judgment's id below the newest's) after the leaderboard counted the judgments
    it reads (the new ones: ``stored_since``; all, on a cold cache: ``judgments_after``) and before it read them:
    neither the counts nor the leaderboard may be kept with it uncounted, or its undo before the next poll brings
    back the same data version and the judgment stays on the leaderboard."""
    campaign = small_campaign("late")
    create_screens(campaign, 12)
    cache.clear()
    client = organizer_client(campaign)
    ann, ben = judge("ann", campaign), judge("ben", campaign)
    submit_one(campaign, ben)
    get_leaderboard(client, campaign)
    counted = getattr(live, counting)
    with held_submit(campaign, ann) as commit:
        submit_one(campaign, ben)
        if counting == "judgments_after":
            cache.clear()

        def commit_once_counted(*args):
            totals = counted(*args)
            commit()
            return totals

        monkeypatch.setattr(live, counting, commit_once_counted)
        get_leaderboard(client, campaign)
    monkeypatch.undo()
    queue.undo_last(campaign, ann, queue.last_submitted(campaign, ann).token)
    kept = get_leaderboard(client, campaign)
    cache.clear()
    assert kept == get_leaderboard(client, campaign)


@pytest.mark.django_db(transaction=True)
def test_a_late_commit_is_counted_by_reading_again_since_the_newest_checkpoint_not_every_judgment(monkeypatch):
    """Under load a submit often commits after one of a higher judgment id was counted. The leaderboard counts it
    by reading again the judgments since the reads that completed its newest checkpoint (``Tail``), not all of
    them (the same counts: the history keeps its token), and its leaderboard and history are those of counts
    rebuilt from all judgments."""
    campaign = synthetic_campaign("tail", np.random.default_rng(31), n_rankings=250)
    create_screens(campaign, 12)
    cache.clear()
    client = organizer_client(campaign)
    dee, eve = judge("dee", campaign), judge("eve", campaign)
    get_leaderboard(client, campaign)
    with transaction.atomic():
        write_judged_screens(campaign, random_judgments(campaign, np.random.default_rng(32), 100))
    get_leaderboard(client, campaign)
    state = cache.get(live._cache_key(campaign, "counts"))
    assert state.tail is not None and state.tail.rankings < state.rankings // live.HISTORY_STEP * live.HISTORY_STEP
    with held_submit(campaign, dee) as commit:
        submit_one(campaign, eve)
        assert get_leaderboard(client, campaign)["snapshot"]["judgments"] == state.judgments + 1
        commit()
    monkeypatch.setattr(live, "_rebuilt", lambda *args: pytest.fail("rebuilt from all judgments"))
    late = get_leaderboard(client, campaign)
    counted = cache.get(live._cache_key(campaign, "counts"))
    assert (counted.token, counted.judgments) == (state.token, state.judgments + 2)
    assert late["snapshot"]["judgments"] == Judgment.objects.filter(assignment__campaign=campaign).count()
    history = live.history(campaign, budget=60.0)
    monkeypatch.undo()
    cache.clear()
    assert get_leaderboard(client, campaign) == late
    assert live.history(campaign, budget=60.0) == history


def test_the_cached_history_holds_a_byte_a_cell_of_each_checkpoint_and_its_counts_are_the_rankings_so_far():
    """20 systems, 1,000 rankings, judged in four goes across checkpoints (the history extended, not rebuilt):
    the cached history pickles to less than 2 bytes per outcome cell (S x S x 3) of each checkpoint, the bootstraps
    still missing (the 8-byte counts of each pending checkpoint took 8), and each checkpoint's counts are those of the
    rankings up to it, as a history rebuilt from all of them has them."""
    campaign = synthetic_campaign("compact", np.random.default_rng(21), n_rankings=250, n_systems=20)
    client = organizer_client(campaign)
    live.history(campaign, budget=0.0)
    rng = np.random.default_rng(22)
    for count in (250, 250, 250):
        write_judged_screens(campaign, random_judgments(campaign, rng, count))
        get_leaderboard(client, campaign)
    state = cache.get(live._cache_key(campaign, "counts"))
    extended = cache.get(live._cache_key(campaign, "history"))
    assert extended.matches(state) and len(extended.checkpoints) == 10
    assert sum(point.ranking is None for point in extended.checkpoints) >= 9
    cells = 20 * 20 * 3
    assert len(pickle.dumps(extended)) < 2 * cells * len(extended.checkpoints)
    rankings = load_rankings(campaign)
    assert rankings.system_names == state.names
    prefixes = np.cumsum(step_counts(rankings, [point.rankings for point in extended.checkpoints]), axis=0)
    for index, prefix in enumerate(prefixes):
        np.testing.assert_array_equal(extended.counts(index), prefix)
    np.testing.assert_array_equal(state.counts, outcome_counts(expanded_pairs(rankings), 20))
    cache.clear()
    live.history(campaign, budget=0.0)
    rebuilt = cache.get(live._cache_key(campaign, "history"))
    assert [(p.rankings, p.digest, p.scores) for p in rebuilt.checkpoints] == [
        (p.rankings, p.digest, p.scores) for p in extended.checkpoints]


def test_the_history_is_sent_compressed_with_its_scores_to_four_decimals():
    """The dashboard fetches the history on every poll while checkpoints are computed: sent gzipped to a browser
    that takes it, with each score to four decimals (the table shows three), it is about an eighth of the bytes."""
    campaign = synthetic_campaign("compressed", np.random.default_rng(4), n_rankings=300, n_systems=5)
    client = organizer_client(campaign)
    url = reverse("campaign-history", args=[campaign.pk])
    plain = client.get(url)
    zipped = client.get(url, headers={"accept-encoding": "gzip"})
    assert "Content-Encoding" not in plain and zipped["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(zipped.content)) == plain.json()
    scores = [value for point in plain.json()["points"] for value in point["scores"]]
    assert scores and all(value == round(value, 4) for value in scores)
    assert any(value != round(value, 3) for value in scores)
