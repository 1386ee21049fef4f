"""``python -m ranking.compute_run RUN_ID``: compute one queued analysis run in this process.

The embedded mode's worker (``ANALYSIS_EXECUTION = "process"``, ``gecappraise.child_process``): ``ranking.dispatch``
starts it for each run, so the web process never imports the numeric stack nor spends its CPU or its interpreter
lock on an analysis.
"""
from __future__ import annotations

import sys

from gecappraise import child_process


def main(argv: list[str]) -> None:
    child_process.setup()
    from ranking.dispatch import compute_here

    compute_here(int(argv[1]))


if __name__ == "__main__":
    main(sys.argv)
