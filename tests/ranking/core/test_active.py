"""Tests of ranking.core.active: running TrueSkill, expected information of screens, EASL for PRWS (issue 13)."""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from ranking.core import active
from ranking.core.active import (
    CandidateBeliefs,
    RunningTrueSkill,
    ScreenOptions,
    belief_from_rankings,
    choose_candidates,
    contested_pairs,
    overlapping_ranges,
    pair_weights,
    plan_active_batch,
    screen_information,
    select_prws_screen,
    select_screen,
    shown_pair_probability,
)
from ranking.core.pairs import expanded_pairs
from ranking.core.rankings import Rankings
from ranking.core.trueskill import draw_margin, rate_1vs1
from tests.ranking.served_screens import collapsed_test_set, observe_random_ranking

pair_lists = st.integers(2, 6).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from((-1, 0, 1))).filter(
                lambda p: p[0] != p[1]
            ),
            max_size=30,
        ),
    )
)


@given(pair_lists)
@settings(max_examples=60, deadline=None)
def test_running_trueskill_is_rate_1vs1_pair_by_pair(case):
    """The running update is exactly the trueskill module's two-player update, applied in order."""
    n, pairs = case
    belief = RunningTrueSkill.start(n, beta=0.4)
    first, second, relation = (np.array([p[k] for p in pairs], dtype=np.int64) for k in range(3))
    belief.observe(first, second, relation)
    mu, sigma = [0.0] * n, [0.5] * n
    margin = float(draw_margin(0.4))
    for a, b, r in pairs:
        if r == 1:
            mu[b], sigma[b], mu[a], sigma[a] = rate_1vs1(mu[b], sigma[b], mu[a], sigma[a], False, 0.4, margin)
        else:
            mu[a], sigma[a], mu[b], sigma[b] = rate_1vs1(mu[a], sigma[a], mu[b], sigma[b], r == 0, 0.4, margin)
    np.testing.assert_allclose(belief.mu, mu, atol=1e-12)
    np.testing.assert_allclose(belief.sigma, sigma, atol=1e-12)
    assert np.all(belief.sigma <= 0.5 + 1e-12)


def test_running_trueskill_moves_winner_up_and_loser_down():
    belief = RunningTrueSkill.start(3)
    belief.observe(np.array([0]), np.array([2]), np.array([1]))
    assert belief.mu[2] > 0.0 > belief.mu[0]
    assert belief.mu[1] == 0.0 and belief.sigma[1] == 0.5
    assert belief.sigma[0] < 0.5 and belief.sigma[2] < 0.5


def test_running_trueskill_with_tau_keeps_sigma_from_collapsing():
    frozen, moving = RunningTrueSkill.start(2), RunningTrueSkill.start(2, tau=0.05)
    for _ in range(2000):
        for belief in (frozen, moving):
            belief.observe(np.array([0]), np.array([1]), np.array([0]))
    assert moving.sigma.min() > frozen.sigma.max()


@pytest.mark.parametrize(
    "first, second, relation",
    [([0], [0], [0]), ([0], [3], [0]), ([0], [1], [2]), ([0, 1], [1], [0])],
)
def test_running_trueskill_refuses_bad_pairs(first, second, relation):
    belief = RunningTrueSkill.start(3)
    with pytest.raises(ValueError):
        belief.observe(np.array(first), np.array(second), np.array(relation))
    assert np.all(belief.mu == 0.0)


def test_belief_from_rankings_observes_each_ranking_in_order():
    items = [
        ("ann", 0, [(("A",), 1), (("B", "C"), 2)]),
        ("bob", 1, []),
        ("ann", 2, [(("C",), 1), (("A",), 1), (("B",), 3)]),
    ]
    rankings = Rankings.from_items(items)
    belief = belief_from_rankings(rankings)
    stepwise = RunningTrueSkill.start(3)
    for item in items:
        pairs = expanded_pairs(Rankings.from_items([item], system_names=("A", "B", "C")))
        stepwise.observe(pairs.first, pairs.second, pairs.relation)
    np.testing.assert_array_equal(belief.mu, stepwise.mu)
    np.testing.assert_array_equal(belief.sigma, stepwise.sigma)
    assert belief.mu[0] > belief.mu[1]


def test_overlapping_ranges():
    overlap = overlapping_ranges(np.array([1, 2, 4]), np.array([2, 3, 4]))
    assert overlap.tolist() == [[False, True, False], [True, False, False], [False, False, False]]


@given(
    st.lists(st.floats(-1, 1), min_size=3, max_size=8),
    st.lists(st.floats(0.01, 0.5), min_size=8, max_size=8),
)
@settings(max_examples=60, deadline=None)
def test_pair_weights_are_symmetric_non_negative_information_gains(mu, sigma):
    belief = RunningTrueSkill.start(len(mu))
    belief.mu[:] = mu
    belief.sigma[:] = sigma[: len(mu)]
    weights = pair_weights(belief)
    assert np.all(weights >= 0) and np.all(np.diag(weights) == 0)
    np.testing.assert_allclose(weights, weights.T)
    assert np.all(weights <= 1.0), "at most the one bit the order holds"


def test_pair_weight_is_the_expected_gain_in_bits_about_the_order():
    """Monte Carlo preposterior: draw the difference's posterior mean after one comparison, average the entropy
    of the order then, and compare with the quadrature."""
    belief = RunningTrueSkill.start(2)
    belief.mu[:] = [0.1, -0.05]
    belief.sigma[:] = [0.3, 0.2]
    joint = 0.3**2 + 0.2**2
    noise = active.OBSERVATION_SCALE * 2 * belief.beta**2
    after = joint * noise / (joint + noise)
    rng = np.random.default_rng(0)
    later = rng.normal(0.15, np.sqrt(joint - after), 400_000)
    entropy = lambda p: -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    gain = entropy(norm.cdf(0.15 / np.sqrt(joint))) - entropy(norm.cdf(later / np.sqrt(after))).mean()
    assert pair_weights(belief)[0, 1] == pytest.approx(gain, abs=2e-4)


def test_pairs_whose_order_is_settled_weigh_nothing_and_uncertain_ones_most():
    belief = RunningTrueSkill.start(4)
    belief.sigma[:] = 0.3
    belief.mu[:] = [0.0, 0.0, 0.5, 5.0]
    weights = pair_weights(belief)
    assert weights[0, 3] < 1e-6, "an order already certain has nothing to gain"
    assert weights[0, 1] > weights[0, 2] > weights[0, 3], "the clearer the order, the less to learn"
    belief.sigma[:] = [0.6, 0.6, 0.3, 0.3]
    assert pair_weights(belief)[0, 1] > weights[0, 1], "more uncertainty, more to learn"


def test_pairs_not_contested_weigh_less():
    belief = RunningTrueSkill.start(3)
    contested = np.array([[False, True, False], [True, False, False], [False, False, False]])
    weights = pair_weights(belief, contested, other_weight=0.1)
    assert weights[0, 1] == pytest.approx(10 * weights[0, 2])
    assert weights[1, 2] == pytest.approx(weights[0, 2])


def test_contested_pairs_are_reversed_in_some_samples_but_fewer_than_the_limit():
    """Ten bootstrap samples of four systems: 0 always above 1 (settled), 1 below 2 in 8 of 10 (reversed in 2:
    contested), 2 and 3 each above in 5 (a near-tie), 0 and 3 equal in 3 samples, 3 above in 1 and below in 6
    (equal scores count for neither side: reversed in 1 of 10, contested)."""
    samples = np.zeros((10, 4))
    samples[:, 0] = 10.0
    samples[:, 1] = 5.0
    samples[:, 2] = np.r_[[6.0] * 8, [4.0] * 2]
    samples[:, 3] = np.r_[[7.0] * 5, [3.0] * 5]
    samples[:3, 3] = 10.0
    samples[3, 3] = 11.0
    contested = contested_pairs(samples, max_flip=0.3)
    assert contested.tolist() == contested.T.tolist() and not contested.diagonal().any()
    assert {(a, b) for a, b in zip(*np.nonzero(contested)) if a < b} == {(0, 3), (1, 2)}
    assert contested_pairs(samples, max_flip=0.2)[1, 2] == False, "reversed in 0.2 of them: not fewer"  # noqa: E712
    with pytest.raises(ValueError, match="shape"):
        contested_pairs(np.zeros(4))


labels_strategy = st.integers(2, 7).flatmap(
    lambda s: st.lists(st.lists(st.integers(0, 4), min_size=s, max_size=s), min_size=1, max_size=6)
)


@given(labels_strategy, st.integers(0, 2**32 - 1))
@settings(max_examples=80, deadline=None)
def test_screen_information_is_the_sum_over_separated_pairs(labels, seed):
    """Brute force: every two systems in different candidates add their weight, times the chance both are shown."""
    labels = np.array(labels)
    rng = np.random.default_rng(seed)
    n_systems = labels.shape[1]
    weights = rng.random((n_systems, n_systems))
    weights = weights + weights.T
    np.fill_diagonal(weights, 0.0)
    options = ScreenOptions.from_labels(labels)
    got = screen_information(weights, options, np.arange(labels.shape[0]), max_shown=3)
    for i, row in enumerate(labels):
        k = len(set(row.tolist()))
        q = 1.0 if k <= 3 else 6 / (k * (k - 1))
        expected = q * sum(weights[a, b] for a, b in combinations(range(n_systems), 2) if row[a] != row[b])
        assert got[i] == pytest.approx(expected)
    # the same screens listed candidate by candidate (not complete) give the same numbers
    screens = [[[s for s in range(n_systems) if row[s] == c] for c in sorted(set(row.tolist()))] for row in labels]
    listed = ScreenOptions.from_screens(screens)
    assert not listed.complete
    np.testing.assert_allclose(
        screen_information(weights, listed, np.arange(labels.shape[0]), max_shown=3), got, atol=1e-9
    )


def test_a_sentence_all_systems_leave_alike_teaches_nothing():
    options = ScreenOptions.from_labels(np.array([[0, 0, 0, 0], [0, 1, 1, 1]]))
    belief = RunningTrueSkill.start(4)
    info = screen_information(pair_weights(belief), options, np.array([0, 1]))
    assert info[0] == 0.0 and info[1] > 0.0


def test_shown_pair_probability():
    np.testing.assert_allclose(shown_pair_probability(np.array([2, 5, 6, 10]), 5), [1, 1, 20 / 30, 20 / 90])


def test_select_screen_takes_the_most_informative_available_screen():
    # systems 0 and 1 are uncertain and close; 2 and 3 are settled far apart
    belief = RunningTrueSkill.start(4)
    belief.mu[:] = [0.0, 0.01, 2.0, -2.0]
    belief.sigma[:] = [0.5, 0.5, 0.05, 0.05]
    weights = pair_weights(belief)
    options = ScreenOptions.from_labels(np.array([[0, 0, 1, 2], [0, 1, 0, 0], [0, 1, 2, 3], [0, 0, 0, 0]]))
    rng = np.random.default_rng(1)
    assert select_screen(weights, options, np.ones(4, dtype=bool), rng) == 2
    assert select_screen(weights, options, np.array([True, True, False, True]), rng) == 1
    assert select_screen(weights, options, np.array([True, False, False, True]), rng) == 0
    assert select_screen(weights, options, np.zeros(4, dtype=bool), rng) == -1


def test_choose_candidates_shows_the_uncertain_pairs():
    belief = RunningTrueSkill.start(8)
    belief.mu[:] = [0.0, 0.0, 0.01, 3.0, -3.0, 6.0, -6.0, 9.0]
    belief.sigma[:] = [0.5, 0.5, 0.5, 0.01, 0.01, 0.01, 0.01, 0.01]
    weights = pair_weights(belief)
    options = ScreenOptions.from_labels(np.arange(8)[None, :])
    shown = choose_candidates(weights, options, 0, 3, np.random.default_rng(0))
    assert sorted(shown.tolist()) == [0, 1, 2]
    assert sorted(choose_candidates(weights, options, 0, 8, np.random.default_rng(0)).tolist()) == list(range(8))


def test_a_batch_spreads_over_pairs_and_sentences():
    """Two sentences ask the same question (0 vs 1), one asks 2 vs 3: after the first pick, the discount makes the
    other question come next, though the repeated one scored higher at the start."""
    weights = np.zeros((4, 4))
    weights[0, 1] = weights[1, 0] = 1.0
    weights[2, 3] = weights[3, 2] = 0.8
    before = weights.copy()
    options = ScreenOptions.from_labels(np.array([[0, 1, 2, 2], [0, 1, 2, 2], [0, 0, 1, 2]]))
    available = np.ones(3, dtype=bool)
    batch = plan_active_batch(weights, options, available, 3, 5, np.random.default_rng(0), discount=0.1)
    order = [screen for screen, _ in batch]
    assert order[0] in (0, 1) and order[1] == 2 and sorted(order) == [0, 1, 2]
    assert np.array_equal(weights, before) and available.all()
    assert len(plan_active_batch(weights, options, np.array([True, False, False]), 3, 5,
                                 np.random.default_rng(0))) == 1


def test_selection_with_100_systems_and_100000_sentences_scores_a_bounded_sample(monkeypatch):
    """One served screen: weights from the running belief, a sentence, its shown candidates, and the update. What
    bounds its time is that each choice scores at most ``DEFAULT_SAMPLE`` screens, whatever the test set's size
    (``benchmarks/active_choice.py`` times it against scoring every screen)."""
    rng = np.random.default_rng(0)
    n_sentences, n_systems = 100_000, 100
    options = collapsed_test_set(n_sentences, n_systems, rng)
    belief = RunningTrueSkill.start(n_systems)
    available = np.ones(n_sentences, dtype=bool)
    scored = []
    score = active.screen_information
    monkeypatch.setattr(active, "screen_information",
                        lambda weights, options, candidates, max_shown: scored.append(candidates) or score(
                            weights, options, candidates, max_shown))
    chosen = []
    for _ in range(40):
        weights = pair_weights(belief)
        screen = select_screen(weights, options, available, rng)
        assert available[screen]
        shown = choose_candidates(weights, options, screen, 5, rng)
        assert np.unique(shown).size == shown.size == min(5, options.n_candidates[screen])
        observe_random_ranking(belief, options, screen, shown, rng)
        available[screen] = False
        chosen.append(screen)
    assert len(set(chosen)) == 40 and len(scored) == 40
    assert all(0 < candidates.size <= active.DEFAULT_SAMPLE for candidates in scored)
    assert len({candidates.tobytes() for candidates in scored}) == 40, "a new sample for each choice"
    assert (belief.sigma < RunningTrueSkill.start(n_systems).sigma).any()


def test_candidate_beliefs_follow_easl():
    beliefs = CandidateBeliefs.start(3)
    beliefs.observe(np.array([0, 0, 2]), np.array([100.0, 25.0, 0.0]))
    np.testing.assert_allclose(beliefs.alpha, [1 + 1 + 0.25, 1, 1])
    np.testing.assert_allclose(beliefs.beta, [1 + 0 + 0.75, 1, 2])
    assert beliefs.ratings.tolist() == [2, 0, 1]
    np.testing.assert_allclose(beliefs.variance[1], 1 / 12)
    with pytest.raises(ValueError):
        beliefs.observe(np.array([1]), np.array([101.0]))
    assert beliefs.ratings.tolist() == [2, 0, 1]


sentence_sizes = st.lists(st.integers(1, 7), min_size=1, max_size=12)


@given(sentence_sizes, st.integers(2, 5), st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_prws_first_pass_covers_every_candidate_then_follows_variance(sizes, max_shown, seed):
    rng = np.random.default_rng(seed)
    offsets = np.r_[0, np.cumsum(sizes)]
    sentence = np.repeat(np.arange(len(sizes)), sizes)
    n = int(offsets[-1])
    beliefs = CandidateBeliefs.start(n)
    screens = 0
    while (beliefs.ratings == 0).any():
        shown = select_prws_screen(beliefs, offsets, sentence, max_shown, rng)
        assert 1 <= shown.size <= max_shown and np.unique(shown).size == shown.size
        assert np.unique(sentence[shown]).size == 1
        # the first pass rates no candidate twice while its sentence has unrated ones left on the screen's budget
        assert (beliefs.ratings[shown] == 0).any()
        beliefs.observe(shown, rng.uniform(0, 100, shown.size))
        screens += 1
    assert screens <= n
    for _ in range(5):
        variance = beliefs.variance
        shown = select_prws_screen(beliefs, offsets, sentence, max_shown, rng)
        assert variance[shown].max() == variance.max()
        lead = shown[np.argmax(variance[shown])]
        same = np.arange(offsets[sentence[lead]], offsets[sentence[lead] + 1])
        rest = np.setdiff1d(same, shown)
        if rest.size and shown.size > 1:
            gap = np.abs(beliefs.mean - beliefs.mean[lead])
            assert gap[shown].max() <= gap[rest].min() + 1e-12
        beliefs.observe(shown, rng.uniform(0, 100, shown.size))


def test_prws_selection_respects_availability():
    beliefs = CandidateBeliefs.start(4)
    offsets, sentence = np.array([0, 2, 4]), np.array([0, 0, 1, 1])
    shown = select_prws_screen(beliefs, offsets, sentence, 5, np.random.default_rng(0), np.array([0, 0, 1, 0], bool))
    assert shown.tolist() == [2]
    assert select_prws_screen(beliefs, offsets, sentence, 5, np.random.default_rng(0), np.zeros(4, bool)).size == 0
