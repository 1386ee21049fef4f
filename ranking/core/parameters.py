"""The parameters of an analysis and how its bootstrap is cut into chunks: plain Python, no NumPy or SciPy, so that
forms, views and task dispatch can validate and store parameters without importing the numeric stack."""
from __future__ import annotations

import math
from dataclasses import dataclass

METHODS = ("expected_wins", "trueskill")
"""Ranking methods, in the order of their index in chunk seeds."""

IGNORED_JUDGES = ("admin",)
"""Judges whose judgments an analysis leaves out unless told otherwise: G15's test user (METHODS 3)."""
CORRELATION_DECIMALS = 3
"""Decimals of the human scores correlated with metrics: G15 correlated Table 3b as printed (METHODS 10)."""
MAX_DECIMALS = 15
MIN_BOOTSTRAP = 3
"""The fewest bootstrap samples: a rank range of any confidence below 1 drops at least one sample at each end
(``trimmed_count``), so 2 leave none, whatever the confidence."""
MAX_BOOTSTRAP = 100_000
"""The most bootstrap samples per method: 100 times G15's 1,000 (a run of a billion was accepted and never ended)."""
MAX_ACCURACY_FOLDS = 1000
"""The most cross-validation folds (G15 Table 4 used 100)."""
MAX_SEED = 2**63 - 1
"""The largest random seed: runs store their seed in a 64-bit column (the analysis form and commands take 0 to it)."""


def _dropped(n_samples: int, confidence: float) -> int:
    """ceil((B - confidence * B) / 2) for B = ``n_samples``, after checking that ``confidence`` is in (0, 1]."""
    if not 0.0 < confidence <= 1.0:
        raise ValueError(f"confidence must be in (0, 1], got {confidence}")
    # Rounding first keeps float noise (e.g. 1000 - 0.9 * 1000 = 99.99999999999999) from changing the ceiling.
    return math.ceil(round((n_samples - confidence * n_samples) / 2.0, 9))


def has_rank_range(n_samples: int, confidence: float) -> bool:
    """Whether ``n_samples`` ranks leave one after :func:`trimmed_count` are dropped at each end (3 or more at 0.95)."""
    return 2 * _dropped(n_samples, confidence) < n_samples


def trimmed_count(n_samples: int, confidence: float) -> int:
    """Number of ranks dropped at each end: ceil((B - confidence * B) / 2) (G15 §5.2: 25 of 1,000 at 0.95)."""
    if not has_rank_range(n_samples, confidence):
        raise ValueError(f"{n_samples} samples are too few for a {confidence} rank range")
    return _dropped(n_samples, confidence)


@dataclass(frozen=True)
class AnalysisParameters:
    """The parameters of an analysis; stored with its result so that it can be recomputed exactly.

    ``correlation_decimals``: the human scores (Expected Wins bootstrap means) are rounded to this many decimals
    before they are correlated with metrics (None: not rounded). ``ignored_judges``: the judgments of these users
    are left out of the analysis (a list is stored as a tuple).
    """

    bootstrap: int = 1000
    confidence: float = 0.95
    seed: int = 1
    judge_confidence: float = 0.90
    chunk_size: int = 100
    accuracy_folds: int = 0
    accuracy_bootstrap: int = 100
    correlation_decimals: int | None = CORRELATION_DECIMALS
    ignored_judges: tuple[str, ...] = IGNORED_JUDGES

    def __post_init__(self) -> None:
        object.__setattr__(self, "ignored_judges", tuple(self.ignored_judges))
        if not MIN_BOOTSTRAP <= self.bootstrap <= MAX_BOOTSTRAP:
            raise ValueError(f"bootstrap must be from {MIN_BOOTSTRAP} to {MAX_BOOTSTRAP:,}, got {self.bootstrap}")
        for name in ("confidence", "judge_confidence"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(f"{name} must be between 0 and 1, got {getattr(self, name)}")
        if not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"seed must be a whole number from 0 to {MAX_SEED} (2**63 - 1), got {self.seed}")
        if self.chunk_size < 1:
            raise ValueError(f"chunk_size must be at least 1, got {self.chunk_size}")
        if self.accuracy_folds == 1 or not 0 <= self.accuracy_folds <= MAX_ACCURACY_FOLDS:
            raise ValueError(
                f"accuracy_folds must be 0 (skip) or from 2 to {MAX_ACCURACY_FOLDS:,}, got {self.accuracy_folds}"
            )
        if self.correlation_decimals is not None and not 0 <= self.correlation_decimals <= MAX_DECIMALS:
            raise ValueError(
                f"correlation_decimals must be from 0 to {MAX_DECIMALS} (or none), got {self.correlation_decimals}"
            )
        if not all(isinstance(judge, str) and judge for judge in self.ignored_judges):
            raise ValueError("ignored_judges must be user names")
        trimmed_count(self.bootstrap, self.confidence)
        trimmed_count(self.bootstrap, self.judge_confidence)
        if self.accuracy_folds:
            trimmed_count(self.accuracy_bootstrap, self.confidence)


def chunk_sizes(n_samples: int, chunk_size: int) -> list[int]:
    """Sizes of the bootstrap chunks: ``chunk_size`` each, the last one the remainder."""
    full, rest = divmod(n_samples, chunk_size)
    return [chunk_size] * full + ([rest] if rest else [])
