"""What the analysis benchmarks share: the CoNLL-14 pairs, a timer, and G15's TrueSkill procedure as a baseline."""
from __future__ import annotations

import math
import os
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from annotation.services.appraise_xml import parse_appraise_xml  # noqa: E402
from ranking.core.pairs import ExpandedPairs, expanded_pairs  # noqa: E402
from ranking.core.rankings import Rankings  # noqa: E402
from ranking.core.trueskill import DRAW_PROBABILITY, MU, SIGMA, beta_for  # noqa: E402

CONLL14 = Path(os.environ.get("GECAPPRAISE_SHARED_DATA", REPO.parent / "shared" / "data")) / "conll14"


def conll14_pairs() -> tuple[Rankings, ExpandedPairs]:
    """The G15 rankings and their expanded pairs; exits with a message when the data are not there."""
    if not (CONLL14 / "judgments.xml").is_file():
        sys.exit(f"CoNLL-14 data not found at {CONLL14}")
    items = parse_appraise_xml((CONLL14 / "judgments.xml").read_bytes()).items
    rankings = Rankings.from_items((item.user, item.src_id, item.translations) for item in items)
    return rankings, expanded_pairs(rankings)


def reference_run(pairs: ExpandedPairs, names: tuple[str, ...], rnd: random.Random) -> dict[str, float]:
    """One run of G15's ``TS.py -n 2 -d 0`` (with ``next_comparison.get``), in Python with the ``trueskill`` package."""
    import trueskill

    comparisons: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for a, b, r in zip(pairs.first.tolist(), pairs.second.tolist(), pairs.relation.tolist()):
        comparisons.setdefault((names[a], names[b]), []).append({-1: (1, 2), 0: (1, 1), 1: (2, 1)}[r])
    n_iterations = len(pairs) + 1
    env = trueskill.TrueSkill(
        mu=MU, sigma=SIGMA, beta=float(beta_for(n_iterations)), tau=0.0, draw_probability=DRAW_PROBABILITY
    )
    rating = {name: env.create_rating() for name in names}
    for _ in range(n_iterations):
        sys_a = max(rating, key=lambda name: (rating[name].sigma ** 2, name))
        candidates = [name for name in rating if name != sys_a]
        weights = [1.0 / math.exp(abs(rating[sys_a].mu - rating[name].mu)) for name in candidates]
        sys_b = rnd.choices(candidates, weights)[0]
        key = tuple(sorted((sys_a, sys_b)))
        ranks = rnd.choice(comparisons[key])
        (x,), (y,) = env.rate([(rating[key[0]],), (rating[key[1]],)], ranks=ranks)
        rating[key[0]], rating[key[1]] = x, y
    return {name: r.mu for name, r in rating.items()}


def timed(function, *args, **kwargs) -> tuple[float, object]:
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return time.perf_counter() - start, value
