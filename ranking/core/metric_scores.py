"""Automatic metric scores per system, as ``ranking.metric_files`` reads them from G15's ``metrics/scores.<metric>``:
``{system: values}``, one tuple of values per system (F0.5, precision and recall for M2; one value otherwise).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

M2_COLUMNS = ("f0.5", "precision", "recall")
"""Column order of the M2 score files."""


def score_column(scores: dict[str, tuple[float, ...]], systems: Sequence[str], column: int = 0) -> np.ndarray:
    """The values of one column for ``systems`` in that order; raises ``ValueError`` naming missing systems."""
    missing = [system for system in systems if system not in scores]
    if missing:
        raise ValueError(f"no metric score for: {', '.join(missing)}")
    return np.array([scores[system][column] for system in systems], dtype=np.float64)
