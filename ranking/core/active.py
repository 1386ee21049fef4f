"""Active selection of the next screen: fewer judgments for the same ranking (issue 13).

Relative ranking campaigns. A running TrueSkill belief (mu, sigma) per system is updated by each judgment's
expanded pairs (METHODS 3) with the two-player update of :func:`ranking.core.trueskill.rate_1vs1`, one pair after
the other, as G15's TrueSkill does, but once per judgment instead of a whole run: O(pairs of the screen) per
judgment. Unlike WMT14's ``beta = sigma * n / 40`` (which grows with a finished data set's size), the running belief
uses a fixed performance noise ``beta``; ``tau`` (optional) adds dynamics so that sigma never freezes.

The expected information of a screen is the sum, over the system pairs it separates (two systems in different
shown candidates: systems of one candidate always tie and teach nothing about their order), of the pair's weight
``w(a, b) = m(a, b) * g(a, b)``: ``g`` is the expected information gain, in bits, of one more comparison about the
*order* of a and b under the TrueSkill posterior (a preposterior analysis, as in Bayesian experimental design;
Lindley 1956). With the difference ``d = s_a - s_b ~ N(Delta, s^2)``, ``Delta = |mu_a - mu_b|`` and
``s^2 = sigma_a^2 + sigma_b^2``, the order is uncertain by ``H(Phi(Delta / s))`` bits (``H`` the binary entropy). A
comparison is taken as a noisy observation of ``d`` with variance ``c = OBSERVATION_SCALE * 2 beta^2`` (a ranked
pair says less than a Gaussian measurement of the performance difference, hence the scale); afterwards ``d`` has
variance ``s'^2 = s^2 c / (s^2 + c)`` and, before the outcome is known, a mean ``Delta' ~ N(Delta, s^2 - s'^2)``, so

    g(a, b) = H(Phi(Delta / s)) - E[H(Phi(Delta' / s'))]

(the expectation by Gauss-Hermite quadrature). ``g`` is largest for even pairs with wide posteriors and falls off
both with the gap in units of ``s`` (an order already certain has nothing to gain) and, for a given gap in those
units, with ``s^2`` itself as the posterior narrows (a pair compared often learns little from one more).
``m(a, b)`` is 1 for the *contested* pairs (:func:`contested_pairs`): those whose order the Expected Wins bootstrap
(METHODS 7) reverses in some samples but in fewer than ``CONTESTED_FLIP`` of them, and ``other_weight`` for the rest:
pairs whose order no sample reverses (settled; a little weight keeps them so) and near-ties that the bootstrap
reverses often, which the judgments still to come are unlikely to order and which would otherwise absorb them.
A sentence with K candidates of which a screen shows at most M (chosen at random, METHODS 2) separates a pair of
different candidates with probability ``q = M(M-1) / (K(K-1))`` (1 when K <= M), so its expected information is
``q * sum w(a, b)`` over the pairs in different candidates; the candidates actually shown are then chosen greedily
for the largest information (:func:`choose_candidates`).

PRWS campaigns (EASL, Sakaguchi and Van Durme 2018): each candidate holds a Beta(alpha, beta) belief about its
score / 100, starting at Beta(1, 1); a rating s adds s / 100 to alpha and 1 - s / 100 to beta. A first pass shows
every candidate once; afterwards each screen goes to the candidate of the highest variance
``alpha beta / ((alpha + beta)^2 (alpha + beta + 1))``, shown with the candidates of its sentence whose means are
closest to its own.

Every random choice comes from a passed ``numpy.random.Generator``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.special import entr, ndtr

from .pairs import expanded_pairs
from .rankings import Rankings
from .trueskill import DRAW_PROBABILITY, MU, SIGMA, draw_margin, rate_1vs1

RUNNING_BETA = SIGMA
"""Performance noise of the running belief: one prior sigma (judgments of GEC outputs are noisy, G15 §5)."""
CONTESTED_FLIP = 0.3
"""A pair is contested while the bootstrap reverses its order in fewer than this share of the samples (and in at
least one). Chosen on the development seeds 101-110 of the CoNLL-14 replay and checked on seeds 111-130
(``benchmarks/active_selection.py --first-seed``), not on the seeds 1-5 it reports: with the rank ranges' overlap
instead (which also counts the near-ties), the replay needed 0.66 of random order's rankings on seeds 111-130;
with 0.3, 0.42; with 0.2, 0.55."""
OTHER_WEIGHT = 0.2
"""Weight of a pair that is not contested, relative to a contested one (chosen like ``CONTESTED_FLIP``)."""
OBSERVATION_SCALE = 4.0
"""A comparison's noise variance about the performance difference, in units of 2 beta^2 (module docstring; chosen
on the development seeds of the replay)."""
QUADRATURE_NODES = 12
"""Gauss-Hermite nodes of the expectation over the comparison's outcome."""
_NODES, _NODE_WEIGHTS = np.polynomial.hermite_e.hermegauss(QUADRATURE_NODES)
_NODE_WEIGHTS = _NODE_WEIGHTS / _NODE_WEIGHTS.sum()
DEFAULT_SAMPLE = 1024
"""Screens scored per selection when more are available: a uniform sample keeps selection time bounded and the
sentences diverse."""


@dataclass
class RunningTrueSkill:
    """Per-system TrueSkill beliefs (S,) kept while judgments arrive; :meth:`observe` updates them in place."""

    mu: np.ndarray
    sigma: np.ndarray
    beta: float
    margin: float
    tau: float

    @classmethod
    def start(
        cls,
        n_systems: int,
        beta: float = RUNNING_BETA,
        tau: float = 0.0,
        draw_probability: float = DRAW_PROBABILITY,
    ) -> RunningTrueSkill:
        """Every system at mu = 0, sigma = 0.5 (METHODS 6), with performance noise ``beta`` and dynamics ``tau``."""
        if n_systems < 2:
            raise ValueError(f"need at least 2 systems, got {n_systems}")
        if not beta > 0.0 or not tau >= 0.0:
            raise ValueError(f"beta must be > 0 and tau >= 0, got beta={beta}, tau={tau}")
        return cls(
            mu=np.full(n_systems, MU),
            sigma=np.full(n_systems, SIGMA),
            beta=float(beta),
            margin=float(draw_margin(beta, draw_probability)),
            tau=float(tau),
        )

    def observe(self, first: np.ndarray, second: np.ndarray, relation: np.ndarray) -> None:
        """Update by one judgment's expanded pairs (system indices, relation -1 first better, 0 tie, +1 second
        better; METHODS 3), pair by pair in the given order with :func:`ranking.core.trueskill.rate_1vs1`."""
        first = np.asarray(first, dtype=np.int64)
        second = np.asarray(second, dtype=np.int64)
        relation = np.asarray(relation, dtype=np.int64)
        if not first.shape == second.shape == relation.shape or first.ndim != 1:
            raise ValueError("first, second and relation must be 1-d arrays of the same length")
        n = self.mu.size
        if first.size and (min(first.min(), second.min()) < 0 or max(first.max(), second.max()) >= n):
            raise ValueError(f"system indices must lie in [0, {n})")
        if np.any(first == second) or not np.isin(relation, (-1, 0, 1)).all():
            raise ValueError("pairs must compare two different systems with relation -1, 0 or +1")
        _observe_pairs(self.mu, self.sigma, first, second, relation, self.beta, self.margin, self.tau)


def belief_from_rankings(rankings: Rankings, beta: float = RUNNING_BETA, tau: float = 0.0) -> RunningTrueSkill:
    """The running belief after observing every ranking's expanded pairs (METHODS 3) in order, as if each had been
    observed when it arrived (for a process that starts without a kept belief)."""
    belief = RunningTrueSkill.start(rankings.n_systems, beta, tau)
    pairs = expanded_pairs(rankings)
    belief.observe(pairs.first, pairs.second, pairs.relation)
    return belief


@njit(cache=True)
def _observe_pairs(mu, sigma, first, second, relation, beta, margin, tau):  # pragma: no cover - numba
    for k in range(first.size):
        a, b, r = first[k], second[k], relation[k]
        sa = math.sqrt(sigma[a] * sigma[a] + tau * tau)
        sb = math.sqrt(sigma[b] * sigma[b] + tau * tau)
        if r == 1:
            mu[b], sigma[b], mu[a], sigma[a] = rate_1vs1(mu[b], sb, mu[a], sa, False, beta, margin)
        else:
            mu[a], sigma[a], mu[b], sigma[b] = rate_1vs1(mu[a], sa, mu[b], sb, r == 0, beta, margin)


def overlapping_ranges(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Boolean (S, S): systems a != b whose rank ranges [low, high] (METHODS 7) overlap, i.e. not yet separated."""
    low = np.asarray(low)
    high = np.asarray(high)
    overlap = (low[:, None] <= high[None, :]) & (low[None, :] <= high[:, None])
    np.fill_diagonal(overlap, False)
    return overlap


def contested_pairs(samples: np.ndarray, max_flip: float = CONTESTED_FLIP) -> np.ndarray:
    """Boolean (S, S): the pairs a != b whose order the bootstrap score samples (B, S) reverse in at least one sample
    and in fewer than ``max_flip`` of them (module docstring). The share reversed is the smaller of the shares of
    samples in which a scores above b and in which b scores above a (equal scores count for neither)."""
    samples = np.asarray(samples, dtype=np.float64)
    if samples.ndim != 2 or samples.shape[0] == 0:
        raise ValueError(f"score samples must have shape (B, S) with B >= 1, got {samples.shape}")
    above = (samples[:, :, None] > samples[:, None, :]).mean(axis=0)
    flipped = np.minimum(above, above.T)
    contested = (flipped > 0.0) & (flipped < max_flip)
    np.fill_diagonal(contested, False)
    return contested


def _binary_entropy(p: np.ndarray) -> np.ndarray:
    """H(p) = -p log2 p - (1 - p) log2 (1 - p) in bits, 0 at p = 0 and 1."""
    return (entr(p) + entr(1.0 - p)) / math.log(2.0)


def pair_weights(
    belief: RunningTrueSkill,
    contested: np.ndarray | None = None,
    other_weight: float = OTHER_WEIGHT,
    observation_scale: float = OBSERVATION_SCALE,
) -> np.ndarray:
    """Expected information ``w(a, b) = m(a, b) g(a, b)`` (S, S) of one more comparison of systems a and b: the
    expected gain in bits about their order under the TrueSkill posterior (module docstring).

    ``contested`` (S, S) marks the contested pairs (:func:`contested_pairs`), the others weighing ``other_weight``;
    without it every pair counts fully. Symmetric, zero on the diagonal, non-negative.
    """
    n = belief.mu.size
    a, b = np.triu_indices(n, 1)
    joint = belief.sigma[a] ** 2 + belief.sigma[b] ** 2
    gap = np.abs(belief.mu[a] - belief.mu[b])
    noise = observation_scale * 2.0 * belief.beta**2
    after = joint * noise / (joint + noise)
    spread = np.sqrt(np.maximum(joint - after, 0.0))
    later = _binary_entropy(ndtr((gap + spread * _NODES[:, None]) / np.sqrt(after)))
    gain = np.maximum(_binary_entropy(ndtr(gap / np.sqrt(joint))) - _NODE_WEIGHTS @ later, 0.0)
    weights = np.zeros((n, n))
    weights[a, b] = gain
    weights[b, a] = gain
    if contested is not None:
        weights = weights * np.where(np.asarray(contested, dtype=bool), 1.0, other_weight)
    np.fill_diagonal(weights, 0.0)
    return weights


@dataclass(frozen=True)
class ScreenOptions:
    """Screens that could be served, as flat arrays (CSR): screen i's systems are
    ``member_system[offsets[i]:offsets[i + 1]]``, each in the candidate ``member_candidate[...]`` (numbered within
    the screen). ``n_candidates[i]`` counts screen i's candidates; a sentence screen lists all its candidates, of
    which at most ``max_shown`` are shown. A candidate's members are contiguous. ``complete`` says that every
    screen lists all S systems (sentence screens), which makes scoring cheaper."""

    offsets: np.ndarray
    member_system: np.ndarray
    member_candidate: np.ndarray
    n_candidates: np.ndarray
    complete: bool = False

    @property
    def n_screens(self) -> int:
        return int(self.offsets.size - 1)

    @classmethod
    def from_labels(cls, labels: np.ndarray) -> ScreenOptions:
        """Sentence screens from ``labels`` (n, S): ``labels[i, s]`` is the candidate of system s in sentence i
        (systems with equal labels share an output, METHODS 1); labels may be any non-negative integers."""
        labels = np.asarray(labels)
        if labels.ndim != 2 or labels.shape[1] < 2 or (labels.size and labels.min() < 0):
            raise ValueError("labels must be an (n, S) array of non-negative integers with S >= 2")
        n, s = labels.shape
        order = np.argsort(labels, axis=1, kind="stable")
        sorted_labels = np.take_along_axis(labels, order, axis=1)
        new = np.ones_like(sorted_labels, dtype=bool)
        new[:, 1:] = sorted_labels[:, 1:] != sorted_labels[:, :-1]
        candidate = np.cumsum(new, axis=1) - 1
        return cls(
            offsets=np.arange(0, n * s + 1, s, dtype=np.int64),
            member_system=order.reshape(-1).astype(np.int64),
            member_candidate=candidate.reshape(-1).astype(np.int64),
            n_candidates=new.sum(axis=1).astype(np.int64),
            complete=True,
        )

    @classmethod
    def from_screens(cls, screens: list[list[list[int]]]) -> ScreenOptions:
        """Shown screens: ``screens[i]`` lists screen i's candidates, each a list of system indices."""
        sizes = [sum(len(c) for c in screen) for screen in screens]
        return cls(
            offsets=np.r_[0, np.cumsum(sizes)].astype(np.int64),
            member_system=np.array([s for screen in screens for c in screen for s in c], dtype=np.int64),
            member_candidate=np.array(
                [k for screen in screens for k, c in enumerate(screen) for _ in c], dtype=np.int64
            ),
            n_candidates=np.array([len(screen) for screen in screens], dtype=np.int64),
        )


def shown_pair_probability(n_candidates: np.ndarray, max_shown: int) -> np.ndarray:
    """q = M(M-1) / (K(K-1)), the chance that two given candidates of K are both among M shown at random (1 if
    K <= M)."""
    k = np.asarray(n_candidates, dtype=np.float64)
    return np.where(k <= max_shown, 1.0, max_shown * (max_shown - 1) / np.maximum(k * (k - 1), 1.0))


@njit(cache=True)
def _separated_weight(weights, offsets, member_system, member_candidate, index, complete):  # pragma: no cover
    """Sum of weights over member pairs in different candidates, per screen in ``index``. Members of a candidate
    are contiguous. A complete screen (all systems) takes the total over all pairs minus the pairs within its
    candidates: sum |c|^2 / 2 steps instead of S^2 / 2."""
    n = weights.shape[0]
    everything = 0.0
    if complete:
        for a in range(n):
            for b in range(a + 1, n):
                everything += weights[a, b]
    out = np.zeros(index.size)
    for k in range(index.size):
        i = index[k]
        stop = offsets[i + 1]
        within = 0.0
        covered = 0.0
        for p in range(offsets[i], stop):
            row = weights[member_system[p]]
            c = member_candidate[p]
            q = p + 1
            while q < stop and member_candidate[q] == c:
                within += row[member_system[q]]
                q += 1
            if not complete:
                for r in range(q, stop):
                    covered += row[member_system[r]]
        out[k] = everything - within if complete else covered
    return out


def screen_information(
    weights: np.ndarray, options: ScreenOptions, index: np.ndarray, max_shown: int = 5
) -> np.ndarray:
    """Expected information of the screens ``index`` (module docstring): ``q_i * sum w(a, b)`` over the pairs of
    systems that screen i puts in different candidates, with ``q_i`` of :func:`shown_pair_probability`."""
    index = np.asarray(index, dtype=np.int64)
    separated = _separated_weight(
        np.ascontiguousarray(weights, dtype=np.float64),
        options.offsets,
        options.member_system,
        options.member_candidate,
        index,
        options.complete,
    )
    return separated * shown_pair_probability(options.n_candidates[index], max_shown)


def select_screen(
    weights: np.ndarray,
    options: ScreenOptions,
    available: np.ndarray,
    rng: np.random.Generator,
    max_shown: int = 5,
    sample_size: int = DEFAULT_SAMPLE,
) -> int:
    """The available screen of the largest expected information; -1 when none is available.

    When more than ``sample_size`` screens are available, a uniform sample of them (with replacement) is scored,
    which bounds the time per selection and spreads the choice over the sentences. Ties go to the first in a random
    order.
    """
    candidates = np.flatnonzero(available)
    if candidates.size == 0:
        return -1
    if candidates.size > sample_size:
        candidates = np.unique(candidates[rng.integers(0, candidates.size, sample_size)])
    candidates = rng.permutation(candidates)
    scores = screen_information(weights, options, candidates, max_shown)
    return int(candidates[int(np.argmax(scores))])


def choose_candidates(
    weights: np.ndarray, options: ScreenOptions, screen: int, max_shown: int, rng: np.random.Generator
) -> np.ndarray:
    """Which of screen ``screen``'s candidates to show (at most ``max_shown``), in random display order.

    Greedy on ``B[c, d]`` = the summed weights of the system pairs between candidates c and d: first the two
    candidates of the largest ``B``, then each time the candidate adding the most to the shown ones.
    """
    start, stop = options.offsets[screen], options.offsets[screen + 1]
    systems = options.member_system[start:stop]
    candidate = options.member_candidate[start:stop]
    k = int(options.n_candidates[screen])
    if k <= max_shown:
        return rng.permutation(k)
    one_hot = np.zeros((k, systems.size))
    one_hot[candidate, np.arange(systems.size)] = 1.0
    block = one_hot @ weights[np.ix_(systems, systems)] @ one_hot.T
    np.fill_diagonal(block, 0.0)
    upper_c, upper_d = np.triu_indices(k, 1)
    order = rng.permutation(upper_c.size)
    best = order[int(np.argmax(block[upper_c[order], upper_d[order]]))]
    shown = [int(upper_c[best]), int(upper_d[best])]
    while len(shown) < max_shown:
        gain = block[shown].sum(axis=0)
        gain[shown] = -np.inf
        shown.append(int(np.argmax(gain)))
    return rng.permutation(np.array(shown, dtype=np.int64))


def plan_active_batch(
    weights: np.ndarray,
    options: ScreenOptions,
    available: np.ndarray,
    count: int,
    max_shown: int,
    rng: np.random.Generator,
    discount: float = 0.5,
    sample_size: int = DEFAULT_SAMPLE,
) -> list[tuple[int, np.ndarray]]:
    """A short queue of up to ``count`` screens ``(screen, shown candidates)``, each screen at most once, chosen one
    after the other by :func:`select_screen` and :func:`choose_candidates`.

    The batch is served before its judgments come back, so after each pick the weights of the system pairs it
    separates are multiplied by ``discount`` (0 < discount <= 1): the next picks turn to other pairs instead of
    asking the same question again. ``weights`` and ``available`` are not changed.
    """
    if not 0.0 < discount <= 1.0:
        raise ValueError(f"discount must be in (0, 1], got {discount}")
    weights = np.array(weights, dtype=np.float64)
    open_ = np.array(available, dtype=bool)
    batch = []
    while len(batch) < count:
        screen = select_screen(weights, options, open_, rng, max_shown, sample_size)
        if screen < 0:
            break
        shown = choose_candidates(weights, options, screen, max_shown, rng)
        batch.append((screen, shown))
        open_[screen] = False
        members = slice(options.offsets[screen], options.offsets[screen + 1])
        on_screen = np.isin(options.member_candidate[members], shown)
        systems = options.member_system[members][on_screen]
        candidate = options.member_candidate[members][on_screen]
        separated = candidate[:, None] != candidate[None, :]
        weights[np.ix_(systems, systems)] *= np.where(separated, discount, 1.0)
    return batch


@dataclass
class CandidateBeliefs:
    """EASL Beta(alpha, beta) beliefs about each PRWS candidate's score / 100, and its number of ratings."""

    alpha: np.ndarray
    beta: np.ndarray
    ratings: np.ndarray

    @classmethod
    def start(cls, n_candidates: int) -> CandidateBeliefs:
        """Every candidate at Beta(1, 1), unrated."""
        return cls(np.ones(n_candidates), np.ones(n_candidates), np.zeros(n_candidates, dtype=np.int64))

    def observe(self, candidates: np.ndarray, scores: np.ndarray) -> None:
        """Ratings 0..100 of the given candidates: alpha += s / 100, beta += 1 - s / 100 (EASL)."""
        candidates = np.asarray(candidates, dtype=np.int64)
        scores = np.asarray(scores, dtype=np.float64)
        if candidates.shape != scores.shape or np.any((scores < 0) | (scores > 100) | ~np.isfinite(scores)):
            raise ValueError("one score in [0, 100] per candidate")
        np.add.at(self.alpha, candidates, scores / 100.0)
        np.add.at(self.beta, candidates, 1.0 - scores / 100.0)
        np.add.at(self.ratings, candidates, 1)

    @property
    def mean(self) -> np.ndarray:
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self) -> np.ndarray:
        total = self.alpha + self.beta
        return self.alpha * self.beta / (total * total * (total + 1.0))


def select_prws_screen(
    beliefs: CandidateBeliefs,
    sentence_offsets: np.ndarray,
    candidate_sentence: np.ndarray,
    max_shown: int,
    rng: np.random.Generator,
    available: np.ndarray | None = None,
    partners: np.ndarray | None = None,
) -> np.ndarray:
    """The candidates (indices, at most ``max_shown``, all of one sentence, in random display order) of the next
    PRWS screen under EASL; empty when no candidate is available.

    Candidates are numbered sentence by sentence: sentence j holds ``sentence_offsets[j]:sentence_offsets[j + 1]``
    and ``candidate_sentence`` gives each candidate's sentence. First pass: while some available candidate is
    unrated, one of them at random leads, with its sentence's other unrated candidates. Afterwards the available
    candidate of the highest variance leads. The screen is filled with the lead's sentence's candidates whose means
    are closest to the lead's, among ``partners`` (default: the available ones; a lead may need partners that are
    not available to lead, e.g. candidates already on a screen waiting for its judgment).
    """
    n = beliefs.alpha.size
    open_ = np.ones(n, dtype=bool) if available is None else np.asarray(available, dtype=bool)
    unrated = np.flatnonzero(open_ & (beliefs.ratings == 0))
    if unrated.size:
        lead = int(unrated[rng.integers(unrated.size)])
    else:
        variance = np.where(open_, beliefs.variance, -np.inf)
        best = np.flatnonzero(variance == variance.max())
        if not np.isfinite(variance[best[0]]):
            return np.zeros(0, dtype=np.int64)
        lead = int(best[rng.integers(best.size)])
    sentence = candidate_sentence[lead]
    others = np.arange(sentence_offsets[sentence], sentence_offsets[sentence + 1])
    fill = open_ if partners is None else np.asarray(partners, dtype=bool)
    others = others[(others != lead) & fill[others]]
    distance = np.abs(beliefs.mean[others] - beliefs.mean[lead])
    first_pass_key = (beliefs.ratings[others] > 0) if unrated.size else np.zeros(others.size, dtype=bool)
    order = np.lexsort((rng.random(others.size), distance, first_pass_key))
    shown = np.r_[lead, others[order][: max_shown - 1]].astype(np.int64)
    return rng.permutation(shown)
