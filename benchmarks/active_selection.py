"""Benchmark: how many judgments active selection of the next screen needs against random order (issue 13).

Three experiments, each over several seeds, reading the data from ../shared/data (or $GECAPPRAISE_SHARED_DATA) at
run time:

1. *Replay* of G15's 2,319 CoNLL-14 rankings (``conll14/judgments.xml``): a simulated campaign requests screens one
   by one; a policy may only pick rankings of the pool not yet used (random order: a random permutation; active:
   ``ranking.core.active.select_screen`` on the running TrueSkill belief, the contested pairs of an Expected Wins
   bootstrap weighing fully, ``contested_pairs``). Measured: the rankings until the number of significantly
   separated system pairs (95% Expected Wins bootstrap rank ranges that do not overlap, METHODS 7, 1,000 resamples)
   reaches 95% of its value on all rankings and stays there, checked every ``--step`` rankings. Flagged (empty)
   rankings of the pool carry no structure to score and the active policy serves them last.
2. *Synthetic judges*: systems get Bradley-Terry strengths fitted to the CoNLL-14 expanded pairs (ties left out,
   Hunter's MM algorithm), sentences keep their real collapse structure (``conll14/outputs``), and a simulated judge
   ranks a screen's candidates by noisy strength (Plackett-Luce: a candidate's log-strength, the mean of its
   systems', plus standard Gumbel noise, so two singleton candidates compare exactly as Bradley-Terry says).
   Random order: G15's sampling (METHODS 2, ``diversity``); active: ``select_screen`` over the sentences (each at
   most ``--max-repeats`` times) and ``choose_candidates``. Measured: the judgments until the full-data Expected Wins
   ranking reaches Kendall tau >= 0.95 with the true order and stays there up to the horizon (also printed for
   tau >= 0.9). Caveat: with collapsed candidates, Expected Wins does not converge to the Bradley-Terry order itself
   (a candidate shared by several systems carries their mean strength). The script computes exactly what random
   order converges to (``design_limit``): two pairs away from the true order (RAC/CAMB, IITB/UFC), Kendall tau
   0.9487, so random order cannot stay at tau >= 0.95 however many judgments it gets, and runs that do not reach it
   count at the horizon. That limit itself has near ties (IITB/UFC 0.0006 apart, INPUT/SJTU 0.0011).
   The active policy also changes which sentences and candidates the counts come from, and so the weights of
   Expected Wins' limit.
3. *PRWS* on GMEG-Data dev (fce, wiki): each rating is the released segment mean plus normal noise whose standard
   deviation gives N19 Table 7's sentence-level split-half Pearson r between two groups of 4 raters
   (var_true / (var_true + sd^2 / 4) = r, with var(released mean of 8) = var_true + sd^2 / 8). Uniform order: a
   uniformly random sentence and up to 5 of its candidates; EASL: ``select_prws_screen``. Both estimate a
   candidate's score by its Beta mean and a system's by the mean over its rated sentences. Measured: the ratings
   until the system scores reach Spearman >= 0.95 with the full-coverage scores and stay there up to 8 ratings per
   candidate (N19's budget), over ``--prws-seeds`` seeds (40): single runs range from a few hundred ratings to the
   horizon, because the full-coverage scores hold near ties (fce: four of the 8 systems within 0.7 points), and the
   standard errors printed beside the means say which differences the seeds can tell apart.

A run that never reaches its target is counted at its horizon and marked ``>``. The last line is
``replay: active/random = R; synthetic: active/random = R`` (ratios of the mean over seeds).

Run: .venv/bin/python benchmarks/active_selection.py [--seeds 5] [--step 25] [--horizon 10000] [--tau 0.95]
     [--prws-seeds 40] [--skip-prws]
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import expit
from scipy.stats import kendalltau, spearmanr

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from annotation.services.appraise_xml import parse_appraise_xml  # noqa: E402
from annotation.services.sampling import plan_screens, sampling_weights  # noqa: E402
from ranking.core.active import (  # noqa: E402
    CandidateBeliefs,
    RunningTrueSkill,
    ScreenOptions,
    choose_candidates,
    contested_pairs,
    overlapping_ranges,
    pair_weights,
    select_prws_screen,
    select_screen,
)
from ranking.core.bootstrap import rank_ranges, resample_outcome_counts  # noqa: E402
from ranking.core.expected_wins import counts_expected_wins, expected_wins  # noqa: E402
from ranking.core.pairs import counts_win_matrix, expanded_pairs, win_matrix  # noqa: E402
from ranking.core.rankings import Rankings  # noqa: E402

DATA = Path(os.environ.get("GECAPPRAISE_SHARED_DATA", REPO.parent / "shared" / "data"))
MAX_SHOWN = 5
CONFIDENCE = 0.95
SPLIT_HALF_R = {"fce": 0.603, "wiki": 0.376}
"""N19 Table 7, sentence level, Pearson r between two groups of 4 raters."""


@dataclass(frozen=True)
class Outcome:
    """Judgments one run needed; ``reached`` is False when the target was not met by the horizon."""

    needed: int
    reached: bool

    def __str__(self) -> str:
        return f"{'' if self.reached else '>'}{self.needed}"


def first_stable(points: list[int], ok: list[bool], horizon: int) -> Outcome:
    """The first checkpoint from which every later one meets the target (the horizon if the last one does not)."""
    if not ok or not ok[-1]:
        return Outcome(horizon, False)
    k = len(ok) - 1
    while k > 0 and ok[k - 1]:
        k -= 1
    return Outcome(points[k], True)


def ranges_of(counts: np.ndarray, n_boot: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Expected Wins bootstrap rank ranges (METHODS 7) of the pairs with outcome counts (S, S, 3)."""
    return rank_ranges(counts_expected_wins(resample_outcome_counts(counts, n_boot, rng)), CONFIDENCE)


def contested_of(counts: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """The pairs active selection contests (``contested_pairs``) on an Expected Wins bootstrap of the counts."""
    return contested_pairs(counts_expected_wins(resample_outcome_counts(counts, n_boot, rng)))


def separated_pairs(counts: np.ndarray, n_boot: int, rng: np.random.Generator) -> int:
    """System pairs whose 95% Expected Wins rank ranges do not overlap."""
    low, high = ranges_of(counts, n_boot, rng)
    n = counts.shape[0]
    return n * (n - 1) // 2 - int(overlapping_ranges(low, high).sum()) // 2


# ---------------------------------------------------------------------------------------------------- replay


@dataclass(frozen=True)
class Pool:
    """The CoNLL-14 rankings as a pool: outcome counts, expanded pairs and shown candidates of each ranking."""

    rankings: Rankings
    counts: np.ndarray
    pair_offsets: np.ndarray
    first: np.ndarray
    second: np.ndarray
    relation: np.ndarray
    options: ScreenOptions


def conll14_pool() -> Pool:
    items = parse_appraise_xml((DATA / "conll14" / "judgments.xml").read_bytes()).items
    rankings = Rankings.from_items((i.user, i.src_id, i.translations) for i in items if i.user != "admin")
    pairs = expanded_pairs(rankings)
    covered = np.bincount(rankings.candidate_ranking[rankings.member_candidate], minlength=rankings.n_rankings)
    offsets = np.r_[0, np.cumsum(covered * (covered - 1) // 2)]
    owner = np.repeat(np.arange(rankings.n_rankings), np.diff(offsets))
    n = rankings.n_systems
    cell = ((owner * n + pairs.first) * n + pairs.second) * 3 + pairs.relation.astype(np.int64) + 1
    counts = np.bincount(cell, minlength=rankings.n_rankings * n * n * 3).reshape(rankings.n_rankings, n, n, 3)
    screens: list[list[list[int]]] = [[] for _ in range(rankings.n_rankings)]
    member_ranking = rankings.candidate_ranking[rankings.member_candidate]
    for c in range(rankings.candidate_ranking.size):
        screens[rankings.candidate_ranking[c]].append([])
    candidate_slot = np.zeros(rankings.candidate_ranking.size, dtype=np.int64)
    for r in range(rankings.n_rankings):
        mine = np.flatnonzero(rankings.candidate_ranking == r)
        candidate_slot[mine] = np.arange(mine.size)
    for m, system in enumerate(rankings.member_system):
        screens[member_ranking[m]][candidate_slot[rankings.member_candidate[m]]].append(int(system))
    return Pool(rankings, counts, offsets, pairs.first, pairs.second, pairs.relation.astype(np.int64),
                ScreenOptions.from_screens(screens))


def replay_order(pool: Pool, policy: str, seed: int, step: int) -> list[int]:
    """The order in which ``policy`` takes the pool's rankings."""
    rng = np.random.default_rng(seed)
    n_rankings = pool.rankings.n_rankings
    if policy == "random":
        return rng.permutation(n_rankings).tolist()
    belief = RunningTrueSkill.start(pool.rankings.n_systems)
    available = np.ones(n_rankings, dtype=bool)
    counts = np.zeros(pool.counts.shape[1:], dtype=np.int64)
    contested = None
    order = []
    for t in range(n_rankings):
        if t % step == 0 and counts.sum():
            contested = contested_of(counts, 200, rng)
        chosen = select_screen(pair_weights(belief, contested), pool.options, available, rng, sample_size=n_rankings)
        available[chosen] = False
        order.append(chosen)
        lo, hi = pool.pair_offsets[chosen], pool.pair_offsets[chosen + 1]
        belief.observe(pool.first[lo:hi], pool.second[lo:hi], pool.relation[lo:hi])
        counts += pool.counts[chosen]
    return order


def replay_needed(pool: Pool, order: list[int], seed: int, step: int) -> Outcome:
    n_rankings = len(order)
    target = 0.95 * separated_pairs(pool.counts.sum(axis=0), 1000, np.random.default_rng(seed))
    cumulative = np.cumsum(pool.counts[np.array(order)], axis=0)
    points = list(range(step, n_rankings, step)) + [n_rankings]
    ok = [separated_pairs(cumulative[p - 1], 1000, np.random.default_rng(seed)) >= target for p in points]
    return first_stable(points, ok, n_rankings)


# ---------------------------------------------------------------------------------------------------- synthetic


def bradley_terry(wins: np.ndarray, iterations: int = 2000) -> np.ndarray:
    """Bradley-Terry strengths (S,), geometric mean 1, from a win matrix by Hunter's (2004) MM algorithm."""
    games = wins + wins.T
    strength = np.ones(wins.shape[0])
    for _ in range(iterations):
        denominator = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        strength = wins.sum(axis=1) / denominator
        strength /= np.exp(np.log(strength).mean())
    return strength


def collapse_labels(folder: Path, systems: tuple[str, ...]) -> np.ndarray:
    """(n, S): the candidate of each system's output of each line, outputs equal after stripping (METHODS 1)."""
    columns = [(folder / name).read_text(encoding="utf-8").splitlines() for name in systems]
    labels = np.zeros((len(columns[0]), len(systems)), dtype=np.int64)
    for line, outputs in enumerate(zip(*columns)):
        seen: dict[str, int] = {}
        labels[line] = [seen.setdefault(text.rstrip(), len(seen)) for text in outputs]
    return labels


def judge_screen(shown_systems: list[np.ndarray], log_strength: np.ndarray, rng: np.random.Generator):
    """Expanded pairs (first, second, relation) of a simulated judge's ranking of the shown candidates."""
    utility = np.array([log_strength[s].mean() for s in shown_systems]) + rng.gumbel(size=len(shown_systems))
    rank = np.empty(len(shown_systems), dtype=np.int64)
    rank[np.argsort(-utility)] = np.arange(len(shown_systems))
    systems = np.concatenate(shown_systems)
    member_rank = np.repeat(rank, [s.size for s in shown_systems])
    a, b = np.triu_indices(systems.size, 1)
    first, second = np.minimum(systems[a], systems[b]), np.maximum(systems[a], systems[b])
    relation = np.sign(np.where(systems[a] < systems[b], member_rank[a] - member_rank[b],
                                member_rank[b] - member_rank[a]))
    return first, second, relation


def design_limit(labels: np.ndarray, log_strength: np.ndarray) -> np.ndarray:
    """The Expected Wins scores (S,) that random order (G15's sampling, METHODS 2) converges to under the simulated
    judge, computed exactly: x's share of wins over y is sum_i pi_i sigma(u_i(x) - u_i(y)) / sum_i pi_i over the
    sentences i where x and y have different candidates, with pi_i = p_i min(1, M (M - 1) / (m_i (m_i - 1))) (drawn
    with G15's p_i, both candidates among the M shown of m_i) and u_i(x) the mean log-strength of the systems that
    share x's candidate (Plackett-Luce orders two candidates as Bradley-Terry does, whatever else is shown)."""
    n_systems = labels.shape[1]
    groups = [np.bincount(row) for row in labels]
    weights = sampling_weights(groups, MAX_SHOWN)
    share = np.zeros((n_systems, n_systems))
    mass = np.zeros((n_systems, n_systems))
    for row, sizes, p in zip(labels, groups, weights):
        if p == 0.0:
            continue
        utility = (np.bincount(row, weights=log_strength) / sizes)[row]
        apart = row[:, None] != row[None, :]
        shown = p * min(1.0, MAX_SHOWN * (MAX_SHOWN - 1) / (sizes.size * (sizes.size - 1)))
        share += shown * apart * expit(utility[:, None] - utility[None, :])
        mass += shown * apart
    return expected_wins(np.divide(share, mass, out=np.zeros_like(share), where=mass > 0))


def synthetic_needed(
    labels: np.ndarray,
    log_strength: np.ndarray,
    policy: str,
    seed: int,
    step: int,
    horizon: int,
    max_repeats: int,
) -> tuple[list[int], list[float]]:
    """Kendall tau of the full-data Expected Wins ranking with the true order, every ``step`` judgments."""
    rng = np.random.default_rng(seed)
    n_systems = labels.shape[1]
    options = ScreenOptions.from_labels(labels)
    groups = [
        [np.flatnonzero(labels[i] == c) for c in np.unique(labels[i])] for i in range(labels.shape[0])
    ]
    counts = np.zeros((n_systems, n_systems, 3), dtype=np.int64)
    true_order = log_strength
    plan = None
    if policy == "random":
        plan = plan_screens([[g.size for g in gs] for gs in groups], horizon, MAX_SHOWN, "diversity", rng)
    belief = RunningTrueSkill.start(n_systems)
    served = np.zeros(labels.shape[0], dtype=np.int64)
    rankable = options.n_candidates >= 2
    contested = None
    points, taus = [], []
    for t in range(horizon):
        if plan is not None:
            sentence = plan[t].segment
            shown = [groups[sentence][c] for c in plan[t].candidates]
        else:
            if t % step == 0 and counts.sum():
                contested = contested_of(counts, 200, rng)
            weights = pair_weights(belief, contested)
            sentence = select_screen(weights, options, rankable & (served < max_repeats), rng)
            shown = [groups[sentence][c] for c in choose_candidates(weights, options, sentence, MAX_SHOWN, rng)]
        served[sentence] += 1
        first, second, relation = judge_screen(shown, log_strength, rng)
        belief.observe(first, second, relation)
        np.add.at(counts, (first, second, relation + 1), 1)
        if (t + 1) % step == 0:
            scores = expected_wins(counts_win_matrix(counts))
            points.append(t + 1)
            taus.append(float(kendalltau(scores, true_order).statistic))
    return points, taus


# ---------------------------------------------------------------------------------------------------- PRWS


@dataclass(frozen=True)
class PrwsData:
    """Candidates of GMEG-Data dev, sentence by sentence, their released mean scores and their systems. Systems
    whose outputs of a sentence are the same text share one candidate; the reference is a candidate of its own."""

    systems: tuple[str, ...]
    """The S columns of the domain's segment-scores file: the systems, ``source`` and ``ref`` among them."""
    sentence_offsets: np.ndarray
    """(n_sentences + 1,): sentence i's candidates are ``sentence_offsets[i]`` up to ``sentence_offsets[i + 1]``."""
    candidate_sentence: np.ndarray
    """(n_candidates,): the sentence of each candidate."""
    true_score: np.ndarray
    """(n_candidates,): the released mean score (0-100) of each candidate, around which simulated raters score."""
    system_candidate: np.ndarray
    """(n_sentences, S): the candidate of each system on each sentence, -1 where not rated."""


def gmeg_data(domain: str) -> PrwsData:
    dev = DATA / "gmeg" / "dev"
    with open(dev / f"{domain}-segment-scores.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    systems = tuple(rows[0])
    texts = {name: (dev / domain / name).read_text(encoding="utf-8").splitlines() for name in systems if name != "ref"}
    offsets, sentence_of, scores, table = [0], [], [], []
    for line, row in enumerate(rows[1:]):
        if not any(cell.strip() for cell in row):
            continue
        seen: dict[str, int] = {}
        mapping = []
        for name, cell in zip(systems, row):
            if not cell.strip():
                mapping.append(-1)
                continue
            key = f"ref:{line}" if name == "ref" else texts[name][line].rstrip()
            if key not in seen:
                seen[key] = len(scores)
                scores.append(float(cell))
                sentence_of.append(len(offsets) - 1)
            mapping.append(seen[key])
        offsets.append(len(scores))
        table.append(mapping)
    return PrwsData(systems, np.array(offsets), np.array(sentence_of), np.array(scores), np.array(table))


def system_scores(data: PrwsData, candidate_score: np.ndarray, rated: np.ndarray) -> np.ndarray:
    """Per system: the mean of its candidates' scores over the sentences where its candidate was rated."""
    table = data.system_candidate
    valid = table >= 0
    value = np.where(valid, candidate_score[np.maximum(table, 0)], 0.0)
    use = valid & rated[np.maximum(table, 0)]
    return (value * use).sum(axis=0) / np.maximum(use.sum(axis=0), 1)


def prws_needed(data: PrwsData, noise: float, policy: str, seed: int, per_candidate: int, checks: int) -> Outcome:
    rng = np.random.default_rng(seed)
    n = data.true_score.size
    full = system_scores(data, data.true_score, np.ones(n, dtype=bool))
    horizon = per_candidate * n
    check_every = max(horizon // checks, 1)
    beliefs = CandidateBeliefs.start(n)
    n_sentences = data.sentence_offsets.size - 1
    ratings = next_check = 0
    points, ok = [], []
    while ratings < horizon:
        if policy == "random":
            sentence = rng.integers(n_sentences)
            members = np.arange(data.sentence_offsets[sentence], data.sentence_offsets[sentence + 1])
            shown = rng.permutation(members)[:MAX_SHOWN]
        else:
            shown = select_prws_screen(beliefs, data.sentence_offsets, data.candidate_sentence, MAX_SHOWN, rng)
        scores = np.clip(data.true_score[shown] + rng.normal(0.0, noise, shown.size), 0.0, 100.0)
        beliefs.observe(shown, scores)
        ratings += shown.size
        if ratings >= next_check:
            next_check += check_every
            estimate = system_scores(data, beliefs.mean, beliefs.ratings > 0)
            points.append(ratings)
            ok.append(np.ptp(estimate) > 0 and spearmanr(estimate, full).statistic >= 0.95)  # constant: undefined
    return first_stable(points, ok, horizon)


def rater_noise(data: PrwsData, split_half_r: float) -> float:
    """sd of one rating: var(mean of 8) = var_true + sd^2 / 8 and var_true / (var_true + sd^2 / 4) = r."""
    observed = data.true_score.var()
    return math.sqrt(observed / (split_half_r / (4.0 * (1.0 - split_half_r)) + 1.0 / 8.0))


# ---------------------------------------------------------------------------------------------------- main


def compare(name: str, run: Callable[[str, int], Outcome], seeds: list[int], unit: str) -> float:
    """Run both policies over the seeds, print the numbers, return mean(active) / mean(random)."""
    results = {policy: [run(policy, seed) for seed in seeds] for policy in ("random", "active")}
    means = {policy: float(np.mean([o.needed for o in outcomes])) for policy, outcomes in results.items()}
    for policy, outcomes in results.items():
        spread = np.std([o.needed for o in outcomes], ddof=1) / math.sqrt(len(outcomes)) if len(outcomes) > 1 else 0.0
        shown = " ".join(map(str, outcomes)) if len(outcomes) <= 10 else f"{sum(not o.reached for o in outcomes)} of " \
            f"{len(outcomes)} not reached"
        print(f"{name}: {policy:6s} {unit} needed per seed: {shown}; mean {means[policy]:.0f} "
              f"(standard error {spread:.0f})")
    ratio = means["active"] / means["random"]
    print(f"{name}: active/random = {ratio:.2f}", flush=True)
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds per policy and experiment (default 5)")
    parser.add_argument("--first-seed", type=int, default=1,
                        help="seeds FIRST.. (default 1; the policy's constants were chosen on seeds 101-106)")
    parser.add_argument("--step", type=int, default=25, help="judgments between checkpoints (default 25)")
    parser.add_argument("--horizon", type=int, default=10000, help="synthetic judgments per run (default 10000)")
    parser.add_argument("--tau", type=float, default=0.95, help="Kendall tau the synthetic runs must reach")
    parser.add_argument("--max-repeats", type=int, default=3, help="times the active policy may serve a sentence")
    parser.add_argument("--prws-seeds", type=int, default=40,
                        help="seeds per policy and domain of the PRWS experiment (default 40: its runs vary widely)")
    parser.add_argument("--skip-prws", action="store_true", help="leave out the PRWS experiment")
    args = parser.parse_args()
    if not (DATA / "conll14" / "judgments.xml").is_file():
        sys.exit(f"CoNLL-14 data not found under {DATA}")
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))

    pool = conll14_pool()
    print(f"replay: {pool.rankings.n_rankings} rankings of {pool.rankings.n_systems} systems", flush=True)
    replay = compare(
        "replay", lambda policy, seed: replay_needed(pool, replay_order(pool, policy, seed, args.step), seed,
                                                     args.step),
        seeds, "rankings",
    )

    pairs = expanded_pairs(pool.rankings)
    log_strength = np.log(bradley_terry(win_matrix(pairs, pool.rankings.n_systems)))
    labels = collapse_labels(DATA / "conll14" / "outputs", pool.rankings.system_names)
    print("synthetic: Bradley-Terry log-strengths "
          + ", ".join(f"{s} {v:+.3f}" for s, v in sorted(zip(pool.rankings.system_names, log_strength),
                                                           key=lambda x: -x[1])), flush=True)
    limit = design_limit(labels, log_strength)
    order = np.argsort(-limit)
    gaps = sorted(zip(-np.diff(limit[order]), order[:-1], order[1:]))[:3]
    print("synthetic: the Expected Wins random order converges to (exact): "
          + ", ".join(f"{pool.rankings.system_names[k]} {limit[k]:.4f}" for k in order)
          + f"; Kendall tau with the true order {kendalltau(limit, log_strength).statistic:.4f}; closest neighbours "
          + ", ".join(f"{pool.rankings.system_names[a]}/{pool.rankings.system_names[b]} {gap:.4f}"
                      for gap, a, b in gaps), flush=True)
    curves = {
        policy: {seed: synthetic_needed(labels, log_strength, policy, seed, args.step, args.horizon, args.max_repeats)
                 for seed in seeds}
        for policy in ("random", "active")
    }
    for policy, runs in curves.items():
        print(f"synthetic: {policy:6s} Kendall tau after {args.horizon} judgments per seed: "
              + " ".join(f"{taus[-1]:.3f}" for _, taus in runs.values()), flush=True)
    ratios = {}
    for bar in sorted({args.tau, 0.9}, reverse=True):
        ratios[bar] = compare(
            f"synthetic (tau >= {bar})",
            lambda policy, seed, bar=bar: first_stable(
                curves[policy][seed][0], [t >= bar for t in curves[policy][seed][1]], args.horizon
            ),
            seeds, "judgments",
        )
    synthetic = ratios[args.tau]

    if not args.skip_prws:
        for domain, r in SPLIT_HALF_R.items():
            data = gmeg_data(domain)
            noise = rater_noise(data, r)
            print(f"prws {domain}: {data.true_score.size} candidates of {data.sentence_offsets.size - 1} sentences, "
                  f"rater sd {noise:.1f}", flush=True)
            compare(f"prws {domain}",
                    lambda policy, seed, data=data, noise=noise: prws_needed(data, noise, policy, seed, 8, 200),
                    list(range(args.first_seed, args.first_seed + args.prws_seeds)), "ratings")

    print(f"replay: active/random = {replay:.2f}; synthetic: active/random = {synthetic:.2f}")


if __name__ == "__main__":
    main()
