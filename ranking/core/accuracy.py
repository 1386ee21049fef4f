"""Which ranking to publish: accuracy of predicting held-out pairwise judgments (G15 §5.3, Table 4; METHODS 9).

The expanded pairs are shuffled with a seed and dealt round-robin into K folds (as G15's ``shuf | split -n r/100``).
For each fold, B score samples are drawn from training pairs by a scoring method (Expected Wins, TrueSkill), systems
are ordered by their mean sample score and clustered at the given confidence (METHODS 7), and the fold's pairs are
predicted:

* *total order*: the better-ordered system wins; accuracy over the fold's non-tie pairs;
* *clusters*: ``=`` when both systems share a cluster, else the better cluster wins; accuracy over all the fold's
  pairs, ties included.

Each accuracy is the mean of the K per-fold accuracies (G15 averages its per-fold results the same way).

A system with no pair in a fold's training pairs (its few pairs all fell in the held-out fold) has nothing to be
ranked from: it is left out of that fold's ranking, and the fold's pairs that involve it are not predicted but
counted (``unpredictable_pairs``). G15's scripts leave such a system out of the fold's ranking too (``EW.py`` and
``TS.py`` score the systems their input pairs name), and then ``eval/accuracy.py`` predicts that every ranked
system beats it, and stops with an error on a pair of two such systems; every system of CoNLL-14 has pairs in every
fold's training data, so Table 4 is the same either way.

A system absent from some of a fold's B samples (a bootstrap resample of Expected Wins that drew none of its few
pairs; a ``g15_makefile`` run whose folds hold none of them) has no score in those samples, rather than the score of
no data (Expected Wins 0, TrueSkill's initial mu = 0) entering its mean and its ranks as if it were evidence. This
follows G15's scripts, where the paper's text does not say: ``EW.py`` and ``TS.py`` write the scores of the systems
their run's pairs name, and ``eval/cluster.py`` ranks each run's systems among themselves, averages each system's
scores over the runs that have it and trims its rank range from those runs alone
(:func:`ranking.core.bootstrap.rank_ranges` of NaN-marked samples). A system in too few of the fold's samples for a
rank range at the confidence (fewer than 3 at 0.95; ``cluster.py`` fails there) is left out of the fold's ranking
as one without training pairs is, its held-out pairs counted in ``unpredictable_pairs``.

Training pairs. ``training="other_folds"`` (METHODS 9) trains every sample of fold k on the other K - 1 folds.
``training="g15_makefile"`` trains as G15's ``Makefile`` actually did: sample r (r = 0 .. B-1) of *every* fold is
trained on the folds whose file name (zero-padded fold number, e.g. ``split.EW.07``) does not contain the digits of
r (``find ... | grep -v {r}``). For r >= 10 that drops fold r only; for r < 10 it drops the 19 folds with the digit r;
the held-out fold itself stays in training (a slip in the Makefile, but it made the published numbers).

On CoNLL-14 (100 folds, 100 samples, 10 seeds): Expected Wins total order 58.15 with either training (published
58.18); clusters 39.4 +- 0.4 with ``other_folds`` and 40.5 +- 0.3 with ``g15_makefile`` (published 40.12): the G15
reading reproduces it, because its ten runs on 81% of the data widen the rank ranges and so merge clusters, and
merged clusters predict the many ties. TrueSkill 58.35 / 39.4-39.5 with either training (published 58.15 / 39.48).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from gecappraise.plurals import counted
from ranking.core.bootstrap import bootstrap_expected_wins, clusters, rank_ranges, rankable
from ranking.core.expected_wins import run_expected_wins
from ranking.core.pairs import TIE, ExpandedPairs, outcome_counts
from ranking.core.parameters import trimmed_count
from ranking.core.trueskill import bootstrap_trueskill, resampled_cells, trueskill_run_samples

Scorer = Callable[[ExpandedPairs, int, int, np.random.Generator], np.ndarray]
"""``scorer(pairs, n_systems, n_boot, rng)``: n_boot bootstrap score samples, shape (n_boot, S), higher better."""

CellScorer = Callable[[np.ndarray, np.random.Generator], np.ndarray]
"""``scorer(cells, rng)``: one score sample per row of training outcome counts (C, S, S, 3) -> (C, S), higher better;
NaN for a system that the pairs the sample is scored from do not compare (no data in that run)."""

Training = Literal["other_folds", "g15_makefile"]
DEFAULT_TRAINING: Training = "other_folds"


def expected_wins_samples(cells: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Expected Wins (METHODS 5) of one bootstrap resample of each row's pairs (METHODS 7); (C, S, S, 3) -> (C, S).

    NaN for a system that the resample does not compare (G15's ``EW.py`` scores the systems its resample names;
    :func:`ranking.core.expected_wins.run_expected_wins`).

    win(a, b) of a resample is its count of (a, b) pairs with a better: ``cells[a, b, 0]`` for a < b and
    ``cells[b, a, 2]`` for a > b (:func:`ranking.core.pairs.counts_win_matrix`). Same distribution as
    :func:`ranking.core.bootstrap.bootstrap_expected_wins`, not the same draws: the rows may differ (G15 training),
    and ``rng.multinomial`` over every cell (:func:`ranking.core.trueskill.resampled_cells`) draws the last observed
    cell where the bootstrap's draw over the observed cells alone gives it the remainder.
    """
    return run_expected_wins(resampled_cells(cells, rng))


def trueskill_samples(pairs: ExpandedPairs, n_systems: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """TrueSkill bootstrap samples (METHODS 6, 7) of ``pairs`` as a :data:`Scorer` (:func:`bootstrap_trueskill`)."""
    return bootstrap_trueskill(pairs.first, pairs.second, pairs.relation, n_systems, n_boot, rng)


@dataclass(frozen=True)
class RankingMethod:
    """A ranking method's bootstrap score samples, from pairs (``method(pairs, n_systems, n_boot, rng)``) for a
    ranking table, or from training outcome counts (``method.from_cells(cells, rng)``) for cross-validation."""

    name: str
    samples: Scorer
    from_cells: CellScorer

    def __call__(self, pairs: ExpandedPairs, n_systems: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
        return self.samples(pairs, n_systems, n_boot, rng)


SCORERS: dict[str, RankingMethod] = {
    "expected_wins": RankingMethod("expected_wins", bootstrap_expected_wins, expected_wins_samples),
    "trueskill": RankingMethod("trueskill", trueskill_samples, trueskill_run_samples),
}
"""The two ranking methods of G15 Table 4, by name. TrueSkill samples are runs on all pairs, as G15 ran them."""


@dataclass(frozen=True)
class PredictionAccuracy:
    """Cross-validated prediction accuracies (fractions in [0, 1]) and their per-fold values, shape (K,).

    A fold without a pair to score has a NaN accuracy and is left out of the mean; the mean is NaN when every fold
    is (no held-out decisive pair at all, for the total order). ``fold_unpredictable`` (K,) counts each fold's
    held-out pairs left unscored because a system of the pair has no pair in the fold's training data, or is in too
    few of its training runs for a rank range (module docstring); ``unpredictable_pairs`` is their sum."""

    total_order: float
    clusters: float
    fold_total_order: np.ndarray
    fold_clusters: np.ndarray
    fold_unpredictable: np.ndarray
    n_boot: int
    confidence: float
    training: Training

    @property
    def unpredictable_pairs(self) -> int:
        return int(self.fold_unpredictable.sum())


def _mean_of_defined(values: np.ndarray) -> float:
    """The mean of the values that are not NaN; NaN when there is none."""
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if defined.size else float("nan")


def round_robin_folds(n_pairs: int, n_folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold of each pair: shuffle the pairs (``rng.permutation``), then deal them to folds 0, 1, ..., K-1, 0, 1, ...

    Fold sizes differ by at most one. Shape (n_pairs,), int64.
    """
    if n_folds < 2:
        raise ValueError(f"need at least 2 folds, got {n_folds}")
    if n_pairs < n_folds:
        raise ValueError(f"{counted(n_pairs, 'pair')} cannot fill {n_folds} folds")
    fold = np.empty(n_pairs, dtype=np.int64)
    fold[rng.permutation(n_pairs)] = np.arange(n_pairs) % n_folds
    return fold


def g15_makefile_training(n_folds: int, n_boot: int) -> np.ndarray:
    """``train[r, j]``: whether G15's run r trains on fold j, i.e. fold j's name lacks the digits of r; (B, K) bool.

    Fold names are zero-padded to the number of digits of K - 1 (``split -a 2 -d`` for G15's 100 folds).
    """
    width = len(str(n_folds - 1))
    names = [f"{j:0{width}d}" for j in range(n_folds)]
    return np.array([[str(r) not in name for name in names] for r in range(n_boot)])


def predicted_relations(position: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Predicted relation of each pair from a position per system (smaller = better): sign(pos[first] - pos[second]).

    -1 predicts the first system better, +1 the second, 0 a tie (same position, e.g. the same cluster).
    """
    position = np.asarray(position)
    return np.sign(position[first] - position[second]).astype(np.int8)


def total_order_accuracy(order: np.ndarray, first: np.ndarray, second: np.ndarray, relation: np.ndarray) -> float:
    """Share of non-tie pairs whose better system in ``order`` (system indices, best first) was judged better.

    NaN when there is no non-tie pair.
    """
    order = np.asarray(order)
    position = np.empty(order.size, dtype=np.int64)
    position[order] = np.arange(order.size)
    decided = np.asarray(relation) != TIE
    if not decided.any():
        return float("nan")
    predicted = predicted_relations(position, first[decided], second[decided])
    return float(np.mean(predicted == relation[decided]))


def cluster_accuracy(cluster: np.ndarray, first: np.ndarray, second: np.ndarray, relation: np.ndarray) -> float:
    """Share of all pairs, ties included, that clusters (1 = best) predict: ``=`` within a cluster, else the better
    cluster wins. NaN when there is no pair."""
    if np.asarray(relation).size == 0:
        return float("nan")
    return float(np.mean(predicted_relations(cluster, first, second) == relation))


def cross_validated_accuracy(
    pairs: ExpandedPairs,
    n_systems: int,
    method: RankingMethod,
    rng: np.random.Generator,
    n_folds: int = 100,
    n_boot: int = 100,
    confidence: float = 0.95,
    training: Training = DEFAULT_TRAINING,
) -> PredictionAccuracy:
    """K-fold prediction accuracy of a bootstrap-clustered ranking method (G15 §5.3, Table 4; METHODS 9).

    ``method`` is one of :data:`SCORERS`; per fold, its ``from_cells`` gets the training counts of the fold's
    ``n_boot`` samples; systems are ordered by mean sample score (ties keep index order) and clustered with
    :func:`ranking.core.bootstrap.rank_ranges` and :func:`ranking.core.bootstrap.clusters` at ``confidence``.
    ``training`` as in the module docstring. ``rng`` first shuffles the pairs into folds, then serves the method in
    fold order, so one seed fixes the whole result.

    Only the systems that some pair compares are ranked (numbered anew in index order; the analysis's ranking
    tables leave unjudged systems out the same way). A system without a pair has no score to learn: TrueSkill would
    keep it at its initial mu = 0, a fixed rank among the trained systems that splits their clusters (on two
    systems of near scores, a third never judged turned one cluster into two and the cluster accuracy from 0.20
    into 0.11), and Expected Wins would keep it at 0. For the same reason each fold ranks only the systems that
    its training pairs compare (in any of its ``n_boot`` training sets, for ``g15_makefile``), each from the
    samples whose pairs compare it (NaN in the others, :data:`CellScorer`), and only those with enough such
    samples for a rank range (:func:`ranking.core.bootstrap.rankable`); the held-out pairs of the others are
    counted in ``fold_unpredictable`` and scored by neither accuracy.
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    trimmed_count(n_boot, confidence)
    if training not in ("other_folds", "g15_makefile"):
        raise ValueError(f"training must be 'other_folds' or 'g15_makefile', got {training!r}")
    compared = np.zeros(n_systems, dtype=bool)
    compared[pairs.first] = compared[pairs.second] = True
    if not compared.all():
        number = np.cumsum(compared) - 1  # increasing, so each pair keeps first < second
        pairs = ExpandedPairs(number[pairs.first], number[pairs.second], pairs.relation, pairs.judge)
        n_systems = int(compared.sum())
    fold = round_robin_folds(len(pairs), n_folds, rng)
    tests = [pairs.take(fold == k) for k in range(n_folds)]
    per_fold = np.stack([outcome_counts(test, n_systems) for test in tests])
    fold_pairs = per_fold.sum(axis=3)
    appearances = fold_pairs.sum(axis=2) + fold_pairs.sum(axis=1)  # (K, S): each system's pairs in each fold
    if training == "g15_makefile":
        train = g15_makefile_training(n_folds, n_boot).astype(np.int64)
        g15_runs = np.tensordot(train, per_fold, axes=1)
        if np.any(g15_runs.sum(axis=(1, 2, 3)) == 0):
            raise ValueError("a G15 run would train on no pairs")
        trained = np.broadcast_to((train @ appearances > 0).any(axis=0), appearances.shape)
    else:
        trained = appearances.sum(axis=0) - appearances > 0
    fold_total = np.empty(n_folds)
    fold_clusters = np.empty(n_folds)
    fold_unpredictable = np.zeros(n_folds, dtype=np.int64)
    for k, test in enumerate(tests):
        if training == "g15_makefile":
            runs = g15_runs
        else:
            runs = np.broadcast_to(per_fold.sum(axis=0) - per_fold[k], (n_boot, *per_fold.shape[1:]))
        seen = trained[k]
        samples = method.from_cells(runs[:, seen][:, :, seen], rng)
        ranked = seen.copy()
        ranked[seen] = rankable(samples, confidence)
        samples = samples[:, ranked[seen]]
        predictable = ranked[test.first] & ranked[test.second]
        fold_unpredictable[k] = np.count_nonzero(~predictable)
        number = np.cumsum(ranked) - 1
        test = test.take(predictable)
        test = ExpandedPairs(number[test.first], number[test.second], test.relation, test.judge)
        order = np.argsort(-np.nanmean(samples, axis=0), kind="stable")
        lo, hi = rank_ranges(samples, confidence)
        fold_total[k] = total_order_accuracy(order, test.first, test.second, test.relation)
        fold_clusters[k] = cluster_accuracy(clusters(order, lo, hi), test.first, test.second, test.relation)
    return PredictionAccuracy(
        total_order=_mean_of_defined(fold_total),
        clusters=_mean_of_defined(fold_clusters),
        fold_total_order=fold_total,
        fold_clusters=fold_clusters,
        fold_unpredictable=fold_unpredictable,
        n_boot=n_boot,
        confidence=confidence,
        training=training,
    )

