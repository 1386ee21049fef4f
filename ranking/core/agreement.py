"""Inter- and intra-annotator agreement: Cohen's kappa on unexpanded pairs (G15 §4.4, Table 2; METHODS 4).

Judgments are keyed by (segment, first candidate name, second candidate name). For judges a != b, every relation
of a is compared with every relation of b on each key both judged; for a judge with itself, every two of its
relations on a key it judged more than once are compared (each unordered pair of occurrences once). Agreements C
over comparisons L give P(A) = C / L; P(E) = P(<)^2 + P(=)^2 + P(>)^2 with the proportions taken over the relations
that entered the comparisons (both judges' relations on the shared keys; the repeated keys' relations);
kappa = (P(A) - P(E)) / (1 - P(E)). Cells with L < 50 are too few: starred and left out of the overall values,
which are the L-weighted means of the off-diagonal (inter) and diagonal (intra) cells, each judge pair once.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ranking.core.pairs import UnexpandedPairs

MIN_COMPARISONS = 50
"""G15 Table 2 stars cells with fewer comparisons than this."""


def cohen_kappa(agreements: np.ndarray, comparisons: np.ndarray, relation_counts: np.ndarray) -> np.ndarray:
    """Kappa from agreement and comparison counts and the (..., 3) counts of <, =, > behind P(E) (METHODS 4).

    Elementwise over the leading shape; NaN where there are no comparisons or P(E) = 1.
    """
    agreements = np.asarray(agreements, dtype=np.float64)
    comparisons = np.asarray(comparisons, dtype=np.float64)
    relation_counts = np.asarray(relation_counts, dtype=np.float64)
    total = relation_counts.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_agree = agreements / comparisons
        p_chance = ((relation_counts / total[..., None]) ** 2).sum(axis=-1)
        kappa = (p_agree - p_chance) / (1.0 - p_chance)
    return np.where((comparisons > 0) & (p_chance < 1.0), kappa, np.nan)


@dataclass(frozen=True)
class AgreementTable:
    """G15 Table 2: kappa and comparison count L per judge pair (J, J), and the overall inter/intra values.

    A kappa is NaN without comparisons or when chance agreement P(E) is 1 (every relation the same); ``inter``
    (``intra``) is NaN when no pair of judges (no judge) has ``min_comparisons`` comparisons with a kappa."""

    judges: tuple[str, ...]
    kappa: np.ndarray
    comparisons: np.ndarray
    inter: float
    intra: float
    min_comparisons: int

    @property
    def too_few(self) -> np.ndarray:
        """Cells starred in G15 Table 2 (L below ``min_comparisons``)."""
        return self.comparisons < self.min_comparisons


def _relation_counts_by_key(pairs: UnexpandedPairs, n_judges: int) -> list[sparse.csr_array]:
    """For each relation (<, =, >) a sparse (J, K) count of how often judge j gave it on key k."""
    keys = np.stack([pairs.segment, pairs.first, pairs.second], axis=1)
    _, key = np.unique(keys, axis=0, return_inverse=True)
    key = key.reshape(-1)
    n_keys = int(key.max()) + 1 if key.size else 0
    counts = []
    for relation in (-1, 0, 1):
        chosen = pairs.relation == relation
        ones = np.ones(int(chosen.sum()), dtype=np.int64)
        matrix = sparse.coo_array((ones, (pairs.judge[chosen], key[chosen])), shape=(n_judges, n_keys))
        counts.append(matrix.tocsr())
    return counts


def _occurrence_pairs(counts: sparse.csr_array) -> np.ndarray:
    """Per judge (row): sum over keys of n(n-1)/2, the unordered pairs among n occurrences."""
    pairs = counts.copy()
    pairs.data = pairs.data * (pairs.data - 1) // 2
    return np.asarray(pairs.sum(axis=1)).reshape(-1)


def _weighted_mean(kappa: np.ndarray, comparisons: np.ndarray, keep: np.ndarray) -> float:
    weight = np.where(keep, comparisons, 0).astype(np.float64)
    return float(np.sum(np.where(keep, kappa, 0.0) * weight) / weight.sum()) if weight.sum() > 0 else float("nan")


def annotator_agreement(
    pairs: UnexpandedPairs, judges: Sequence[str], min_comparisons: int = MIN_COMPARISONS
) -> AgreementTable:
    """Pairwise inter- and intra-annotator kappa of all judges (G15 Table 2) from unexpanded pairs.

    ``judges`` names the judge indices used in ``pairs`` (``Rankings.judge_names``).
    """
    n = len(judges)
    by_relation = _relation_counts_by_key(pairs, n)
    total = by_relation[0] + by_relation[1] + by_relation[2]
    judged = (total > 0).astype(np.int64)
    repeated = (total >= 2).astype(np.int64)

    # Inter: every relation of a against every relation of b on each shared key.
    agreements = sum((m @ m.T).toarray() for m in by_relation)
    comparisons = (total @ total.T).toarray()
    on_shared = np.stack([(m @ judged.T).toarray() for m in by_relation], axis=-1)
    relation_counts = on_shared + np.swapaxes(on_shared, 0, 1)

    # Intra: every two occurrences of a judge's relations on a key it judged more than once.
    diagonal = np.arange(n)
    agreements[diagonal, diagonal] = sum(_occurrence_pairs(m) for m in by_relation)
    comparisons[diagonal, diagonal] = _occurrence_pairs(total)
    relation_counts[diagonal, diagonal] = np.stack(
        [np.asarray(m.multiply(repeated).sum(axis=1)).reshape(-1) for m in by_relation], axis=-1
    )

    kappa = cohen_kappa(agreements, comparisons, relation_counts)
    enough = (comparisons >= min_comparisons) & ~np.isnan(kappa)
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    return AgreementTable(
        judges=tuple(judges),
        kappa=kappa,
        comparisons=comparisons,
        inter=_weighted_mean(kappa, comparisons, enough & upper),
        intra=_weighted_mean(kappa, comparisons, enough & np.eye(n, dtype=bool)),
        min_comparisons=min_comparisons,
    )
