"""``python -m annotation.run_job {screens|background} JOB_ID``: do one queued screen job or background job in this
process.

The embedded mode's worker for jobs (``ANALYSIS_EXECUTION = "process"``, ``gecappraise.child_process``):
``annotation.services.screen_jobs`` and ``background_jobs`` start it once the request that recorded the job has
committed, so that request answers at once and the job's page follows the job, as with Celery workers.
"""
from __future__ import annotations

import sys

from gecappraise import child_process


def main(argv: list[str]) -> None:
    child_process.setup()
    from annotation.services import background_jobs, screen_jobs

    kind, job_id = argv[1], int(argv[2])
    if kind == "screens":
        screen_jobs.run_job(job_id)
    elif kind == "background":
        background_jobs.run_background_job(job_id)
    else:
        sys.exit(f"unknown kind of job {kind!r}: screens or background")


if __name__ == "__main__":
    main(sys.argv)
