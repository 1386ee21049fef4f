"""``python -m ranking.compute_run``: compute the waiting analysis runs in this process, one after another, while
fewer than ``ANALYSIS_PROCESSES`` runs are being computed (``ranking.dispatch.compute_waiting``).

The embedded mode's worker (``ANALYSIS_EXECUTION = "process"``, ``gecappraise.child_process``): ``ranking.dispatch``
starts it when a run is queued, so the web process never imports the numeric stack nor spends its CPU or its
interpreter lock on an analysis.
"""
from __future__ import annotations

from gecappraise import child_process


def main() -> None:
    child_process.setup()
    from ranking.dispatch import compute_waiting

    compute_waiting()


if __name__ == "__main__":
    main()
