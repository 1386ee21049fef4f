"""Partial ranking with scalars (PRWS; N19 §4.2, §4.3; METHODS 11) held as flat NumPy arrays.

A PRWS screen shows the source and up to M candidates (collapsed outputs); a rater gives each a score 0..100 and
may tick "meaning changed". One row per rating; a screen with no ratings is a flagged screen.

Layout (N screens, K ratings, C rated candidates, M candidate-system memberships)::

    screen_judge[N], screen_segment[N]             rater index, segment (line)
    rating_screen[K], rating_candidate[K]          the screen a rating is on, the candidate it rates
    rating_score[K], rating_meaning_changed[K]     the score (float) and the checkbox
    candidate_unchanged[C]                         the candidate equals the source (after stripping)
    member_candidate[M], member_system[M]          one row per (candidate, system) membership

``source_systems`` are the systems whose output is the source (*Source*, the input) and ``control_systems`` those
of the negative control (*Source+error*); both index ``system_names``.

Statistics (N19 §4.3):

- Candidate score = mean of its ratings. System score = mean over sentences of its candidate's score; a collapsed
  candidate's rating counts for every system in it. Percent unchanged = share of those sentences whose candidate
  is the source. Percent meaning-changed = share of those sentences whose candidate has "meaning changed" ticked
  in more than half of its ratings (with one rating per candidate: the sentences where it is ticked).
  Score distribution = the lowest, the quartiles and the highest of those sentence scores (the values whose mean
  is the system score; quartiles interpolated linearly, as ``numpy.percentile`` does).
- Quality control: a rater who scores Source+error below Source on fewer than 70% of the screens showing both is
  excluded from every statistic (raters with no such screen are kept).
- Split-half reliability (N19 Table 7): each candidate's ratings are split at random into two equal halves (an odd
  rating left out; 8 -> 4 + 4); Pearson and Spearman between the halves' means over candidates (sentence level)
  and over systems (system level), averaged over 100 splits.
- Per-rater z-normalization (WMT direct assessment): z = (x - mean of the rater) / standard deviation of the rater
  (population; 0 for a rater whose scores are all equal).
- Relative judgments: two candidates on one screen give ``<``, ``=``, ``>`` by their scores (METHODS 11), as the
  ranks 1 + (number of distinct higher scores on the screen), so that the relative-ranking machinery of METHODS
  3-9 runs on PRWS data.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
from scipy import sparse
from scipy.stats import rankdata

from .correlation import pearson_r, unit_scaled
from .rankings import RankingItem, Rankings, SystemsAndJudges

QUALITY_THRESHOLD = 0.7
"""A rater must score Source+error below Source on at least this share of the screens showing both (N19 §4.2)."""
RELIABILITY_SPLITS = 100
"""Random split-halves averaged for the reliability (N19 Table 7)."""
SCORE_RANGE = (0.0, 100.0)
MIN_UNITS = 3
"""The split-half reliability correlates at least this many candidates (sentence level) or systems."""


class ScoredCandidate(NamedTuple):
    """One rating on a screen: the candidate's systems, the score, the checkbox, and whether it is the source."""

    systems: tuple[str, ...]
    score: float
    meaning_changed: bool = False
    unchanged: bool = False


ScoreItem = tuple[str, int, Sequence[ScoredCandidate]]
"""``(rater, segment, ratings)``; an empty rating list is a flagged screen."""


@dataclass(frozen=True)
class Scores(SystemsAndJudges):
    """PRWS ratings as flat arrays; build with :meth:`from_items`. See the module docstring for the layout."""

    source_systems: np.ndarray
    control_systems: np.ndarray
    screen_judge: np.ndarray
    screen_segment: np.ndarray
    rating_screen: np.ndarray
    rating_candidate: np.ndarray
    rating_score: np.ndarray
    rating_meaning_changed: np.ndarray
    candidate_unchanged: np.ndarray
    member_candidate: np.ndarray
    member_system: np.ndarray

    @classmethod
    def from_items(
        cls,
        items: Iterable[ScoreItem],
        system_names: Sequence[str] | None = None,
        source_systems: Sequence[str] = (),
        control_systems: Sequence[str] = (),
    ) -> Scores:
        """Build from ``(rater, segment, [ScoredCandidate, ...])`` items, one per screen.

        Every item is kept (leaving raters out is the caller's selection, as for ``Rankings``). A candidate is
        identified by its segment and its set of systems. Names are sorted; ``system_names`` fixes
        the set of systems (otherwise every system that occurs, with the source and control systems). Raises
        ``ValueError`` (building nothing) when a score is not a finite number in [0, 100], a candidate names no
        system, a system occurs twice on one screen, two candidates of one segment share a system, a candidate is
        and is not the source, or a system is unknown.
        """
        judges: list[str] = []
        segments: list[int] = []
        ratings: list[tuple[int, tuple[int, frozenset[str]], float, bool]] = []
        candidates: dict[tuple[int, frozenset[str]], bool] = {}
        owner: dict[tuple[int, str], frozenset[str]] = {}
        for index, (judge, segment, shown) in enumerate(items):
            where = f"screen #{index + 1} (rater {judge!r}, segment {segment})"
            if not isinstance(segment, (int, np.integer)) or segment < 0:
                raise ValueError(f"{where}: segment must be a non-negative integer")
            seen: set[str] = set()
            for rating in shown:
                systems = frozenset(rating.systems)
                if not systems:
                    raise ValueError(f"{where}: a candidate names no system")
                if seen.intersection(systems) or len(systems) < len(rating.systems):
                    raise ValueError(f"{where}: a system occurs twice on one screen")
                seen.update(systems)
                score = float(rating.score)
                if not SCORE_RANGE[0] <= score <= SCORE_RANGE[1]:
                    raise ValueError(f"{where}: score {rating.score!r} is not a number from 0 to 100")
                key = (int(segment), systems)
                for system in systems:
                    if owner.setdefault((int(segment), system), systems) != systems:
                        raise ValueError(f"{where}: system {system!r} belongs to two candidates of segment {segment}")
                if candidates.setdefault(key, bool(rating.unchanged)) != bool(rating.unchanged):
                    raise ValueError(f"{where}: candidate {' '.join(sorted(systems))!r} is and is not the source")
                ratings.append((len(judges), key, score, bool(rating.meaning_changed)))
            judges.append(str(judge))
            segments.append(int(segment))

        occurring = {system for _, system in owner} | set(source_systems) | set(control_systems)
        names = tuple(sorted(occurring if system_names is None else set(system_names)))
        unknown = occurring.difference(names)
        if unknown:
            raise ValueError(f"systems not in system_names: {', '.join(sorted(unknown))}")
        system_index = {name: i for i, name in enumerate(names)}
        judge_names = tuple(sorted(set(judges)))
        judge_index = {name: i for i, name in enumerate(judge_names)}
        candidate_index = {key: i for i, key in enumerate(candidates)}
        members = [(candidate_index[key], system_index[s]) for key in candidates for s in sorted(key[1])]
        return cls(
            system_names=names,
            judge_names=judge_names,
            source_systems=np.array(sorted(system_index[s] for s in set(source_systems)), dtype=np.int64),
            control_systems=np.array(sorted(system_index[s] for s in set(control_systems)), dtype=np.int64),
            screen_judge=np.array([judge_index[j] for j in judges], dtype=np.int64),
            screen_segment=np.array(segments, dtype=np.int64),
            rating_screen=np.array([r[0] for r in ratings], dtype=np.int64),
            rating_candidate=np.array([candidate_index[r[1]] for r in ratings], dtype=np.int64),
            rating_score=np.array([r[2] for r in ratings], dtype=np.float64),
            rating_meaning_changed=np.array([r[3] for r in ratings], dtype=bool),
            candidate_unchanged=np.array(list(candidates.values()), dtype=bool),
            member_candidate=np.array([m[0] for m in members], dtype=np.int64),
            member_system=np.array([m[1] for m in members], dtype=np.int64),
        )

    @property
    def n_candidates(self) -> int:
        return int(self.candidate_unchanged.size)

    @property
    def n_ratings(self) -> int:
        return int(self.rating_score.size)

    @property
    def rating_judge(self) -> np.ndarray:
        """The rater of each rating, shape (K,)."""
        return self.screen_judge[self.rating_screen]

    def candidates_with(self, systems: np.ndarray) -> np.ndarray:
        """Boolean (C,): the candidates produced by at least one of ``systems`` (indices)."""
        hit = np.isin(self.member_system, systems)
        return np.bincount(self.member_candidate[hit], minlength=self.n_candidates) > 0

    def for_judges(self, keep: np.ndarray) -> Scores:
        """The screens and ratings of the raters marked in the boolean ``keep`` (J,); everything else unchanged."""
        keep_screen = np.asarray(keep, dtype=bool)[self.screen_judge]
        new_screen = np.cumsum(keep_screen) - 1
        keep_rating = keep_screen[self.rating_screen]
        return replace(
            self,
            screen_judge=self.screen_judge[keep_screen],
            screen_segment=self.screen_segment[keep_screen],
            rating_screen=new_screen[self.rating_screen[keep_rating]],
            rating_candidate=self.rating_candidate[keep_rating],
            rating_score=self.rating_score[keep_rating],
            rating_meaning_changed=self.rating_meaning_changed[keep_rating],
        )

    def with_scores(self, values: np.ndarray) -> Scores:
        """The same ratings with other score values (K,), e.g. z-normalized ones."""
        values = np.asarray(values, dtype=np.float64)
        if values.shape != self.rating_score.shape:
            raise ValueError(f"need {self.n_ratings} score values, got shape {values.shape}")
        return replace(self, rating_score=values)


def z_normalized(scores: Scores) -> np.ndarray:
    """Per-rater z-scores of the ratings (K,): (x - rater mean) / rater standard deviation (ddof 0), 0 when it is 0
    (N19 §4.3, WMT direct assessment style).

    Each rater's scores are first scaled by a power of two that brings the largest into [0.5, 1), exactly, which
    leaves z unchanged: subnormal scores (5e-324 to 1e-320 are plain numbers from 0 to 100) lost their digits in the
    mean and fell to 0 when squared, and a rater who scored A above C above B got z = 0 for all three."""
    judge = scores.rating_judge
    count = np.bincount(judge, minlength=scores.n_judges)
    safe = np.maximum(count, 1)
    largest = np.zeros(scores.n_judges)
    np.maximum.at(largest, judge, np.abs(scores.rating_score))
    unit = np.ldexp(scores.rating_score, -np.frexp(largest)[1][judge])
    mean = np.bincount(judge, unit, scores.n_judges) / safe
    centred = unit - mean[judge]
    std = np.sqrt(np.bincount(judge, centred**2, scores.n_judges) / safe)
    return np.divide(centred, std[judge], out=np.zeros_like(centred), where=std[judge] > 0)


def candidate_means(scores: Scores) -> tuple[np.ndarray, np.ndarray]:
    """(mean score, number of ratings) of every candidate, shape (C,); the mean is NaN without ratings."""
    count = np.bincount(scores.rating_candidate, minlength=scores.n_candidates)
    total = np.bincount(scores.rating_candidate, scores.rating_score, scores.n_candidates)
    mean = np.divide(total, count, out=np.full(count.shape, np.nan), where=count > 0)
    return mean, count


def sentence_means(scores: Scores, segments: Sequence[int]) -> np.ndarray:
    """Each system's mean score on each of ``segments`` (S, len(segments)): the mean of the ratings of the candidate
    holding the system there (N19 §5.2's sentence-level human score); NaN where it has no rating."""
    mean, count = candidate_means(scores)
    segment_of = np.full(scores.n_candidates, -1, dtype=np.int64)
    segment_of[scores.rating_candidate] = scores.screen_segment[scores.rating_screen]
    column = {int(segment): index for index, segment in enumerate(segments)}
    result = np.full((scores.n_systems, len(segments)), np.nan)
    for candidate, system in zip(scores.member_candidate, scores.member_system):
        if count[candidate] and int(segment_of[candidate]) in column:
            result[system, column[int(segment_of[candidate])]] = mean[candidate]
    return result


@dataclass(frozen=True)
class SystemScores:
    """Per system (S,): mean score, sentences rated, ratings, percent unchanged, percent meaning-changed.

    Systems without a rated sentence have NaN statistics and 0 sentences.
    """

    system_names: tuple[str, ...]
    mean: np.ndarray
    sentences: np.ndarray
    ratings: np.ndarray
    unchanged_pct: np.ndarray
    meaning_changed_pct: np.ndarray


def _per_system(scores: Scores, values: np.ndarray, rated: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over each system's rated sentences of a per-candidate value (C,), and the sentence counts (S,)."""
    use = rated[scores.member_candidate]
    systems = scores.member_system[use]
    count = np.bincount(systems, minlength=scores.n_systems)
    total = np.bincount(systems, values[scores.member_candidate[use]], scores.n_systems)
    return np.divide(total, count, out=np.full(count.shape, np.nan), where=count > 0), count


def system_scores(scores: Scores) -> SystemScores:
    """Each system's PRWS statistics (N19 §4.3, Table 6; see the module docstring for the definitions)."""
    mean, count = candidate_means(scores)
    rated = count > 0
    flagged = np.bincount(scores.rating_candidate, scores.rating_meaning_changed, scores.n_candidates)
    changed = (2 * flagged > count).astype(np.float64)
    system_mean, sentences = _per_system(scores, mean, rated)
    unchanged, _ = _per_system(scores, scores.candidate_unchanged.astype(np.float64), rated)
    meaning, _ = _per_system(scores, changed, rated)
    ratings = np.bincount(scores.member_system, count[scores.member_candidate], scores.n_systems).astype(np.int64)
    return SystemScores(scores.system_names, system_mean, sentences, ratings, 100.0 * unchanged, 100.0 * meaning)


DISTRIBUTION_PERCENTILES = (0, 25, 50, 75, 100)
"""The points of a system's score distribution: lowest, quartiles, highest."""


def score_distribution(scores: Scores) -> np.ndarray:
    """Per system (S, 5): the ``DISTRIBUTION_PERCENTILES`` of its sentence scores (each of its rated
    candidates' mean score, as in ``system_scores``); NaN for a system without a rated sentence."""
    mean, count = candidate_means(scores)
    use = (count > 0)[scores.member_candidate]
    systems = scores.member_system[use]
    values = mean[scores.member_candidate[use]]
    order = np.argsort(systems, kind="stable")
    bounds = np.searchsorted(systems[order], np.arange(scores.n_systems + 1))
    result = np.full((scores.n_systems, len(DISTRIBUTION_PERCENTILES)), np.nan)
    for system in range(scores.n_systems):
        part = values[order[bounds[system]:bounds[system + 1]]]
        if part.size:
            result[system] = np.percentile(part, DISTRIBUTION_PERCENTILES)
    return result


@dataclass(frozen=True)
class RaterQuality:
    """Per rater (J,): screens showing both Source and Source+error, how many scored Source+error lower, the rate
    (NaN without such screens), and whether the rater is excluded (rate below ``threshold``)."""

    judge_names: tuple[str, ...]
    screens: np.ndarray
    passed: np.ndarray
    rate: np.ndarray
    excluded: np.ndarray
    threshold: float


def rater_quality(
    scores: Scores, threshold: float = QUALITY_THRESHOLD, excluded: Collection[str] | None = None
) -> RaterQuality:
    """The Source+error check of every rater (N19 §4.2, METHODS 11).

    A screen counts when it shows one candidate of a source system and another of a control system; it passes
    when the control's score is strictly below the source's. A candidate of both kinds is no check. A rater is
    excluded when their rate is below ``threshold``, or, when ``excluded`` names are given, exactly when named
    there (the product's rater QC decided, with this check among others and the organizer's decisions).
    """
    is_source = scores.candidates_with(scores.source_systems)
    is_control = scores.candidates_with(scores.control_systems)
    n_screens = scores.screen_judge.size
    candidate = scores.rating_candidate
    source_only = is_source[candidate] & ~is_control[candidate]
    control_only = is_control[candidate] & ~is_source[candidate]
    source_score = np.full(n_screens, np.nan)
    control_score = np.full(n_screens, np.nan)
    source_score[scores.rating_screen[source_only]] = scores.rating_score[source_only]
    control_score[scores.rating_screen[control_only]] = scores.rating_score[control_only]
    checked = ~np.isnan(source_score) & ~np.isnan(control_score)
    passed = checked & (control_score < source_score)
    n_checked = np.bincount(scores.screen_judge[checked], minlength=scores.n_judges)
    n_passed = np.bincount(scores.screen_judge[passed], minlength=scores.n_judges)
    rate = np.divide(n_passed, n_checked, out=np.full(scores.n_judges, np.nan), where=n_checked > 0)
    if excluded is None:
        left_out = (n_checked > 0) & (rate < threshold)
    else:
        left_out = np.isin(np.array(scores.judge_names, dtype=object), list(excluded))
    return RaterQuality(scores.judge_names, n_checked, n_passed, rate, left_out, threshold)


def qualified(
    scores: Scores, threshold: float = QUALITY_THRESHOLD, excluded: Collection[str] | None = None
) -> Scores:
    """The ratings of the raters who are not excluded (``rater_quality``)."""
    return scores.for_judges(~rater_quality(scores, threshold, excluded).excluded)


def _pearson_spearman(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Row-wise Pearson and Spearman (Pearson of average ranks), each averaged over the rows (NaN rows skipped;
    NaN when every row is).

    Pearson's r of each row of x with the same row of y is ``correlation.pearson_r`` (scipy's, at any scale of the
    scores): NaN where a row is constant, which is expected here (a split may give equal halves).
    """
    pearson = pearson_r(x, y)
    spearman = pearson_r(rankdata(x, axis=-1), rankdata(y, axis=-1))
    return tuple(float(np.mean(v[~np.isnan(v)])) if not np.all(np.isnan(v)) else np.nan for v in (pearson, spearman))


@dataclass(frozen=True)
class Reliability:
    """Split-half reliability (N19 Table 7): mean Pearson and Spearman over ``splits`` random splits, at sentence
    level (over the ``candidates`` with two ratings or more) and at system level (over the ``systems`` with such a
    candidate).
    A correlation is NaN where it cannot be computed: fewer than ``MIN_UNITS`` units, or constant halves in every
    split."""

    splits: int
    candidates: int
    systems: int
    sentence_pearson: float
    sentence_spearman: float
    system_pearson: float
    system_spearman: float


def split_halves(scores: Scores, rng: np.random.Generator, splits: int) -> tuple[np.ndarray, np.ndarray]:
    """Half-means (splits, C) of every candidate: its ratings shuffled, the first h to half A and the next h to
    half B, h = half its number of ratings (an odd one out); NaN for candidates with fewer than two ratings."""
    candidate = scores.rating_candidate
    count = np.bincount(candidate, minlength=scores.n_candidates)
    half = count // 2
    # Sorting candidate + U[0, 1) orders ratings by candidate and at random within one: a shuffle per group, all
    # splits at once.
    order = np.argsort(candidate[None, :] + rng.random((splits, candidate.size)), axis=1, kind="stable")
    sorted_candidate = candidate[order]
    starts = np.cumsum(count) - count
    within = np.arange(candidate.size)[None, :] - starts[sorted_candidate]
    h = half[sorted_candidate]
    in_a, in_b = within < h, (within >= h) & (within < 2 * h)
    flat = (np.arange(splits)[:, None] * scores.n_candidates + sorted_candidate).ravel()
    values = scores.rating_score[order].ravel()
    size = splits * scores.n_candidates
    sums = [np.bincount(flat, values * mask.ravel(), size).reshape(splits, -1) for mask in (in_a, in_b)]
    with np.errstate(invalid="ignore", divide="ignore"):
        return tuple(np.where(half > 0, total / half, np.nan) for total in sums)


def split_half_reliability(
    scores: Scores, rng: np.random.Generator, splits: int = RELIABILITY_SPLITS
) -> Reliability:
    """Split-half reliability of the ratings (N19 §4.2, Table 7); randomness from ``rng`` only.

    The scores are scaled first by the power of two that brings the largest into [0.5, 1) (``unit_scaled``:
    exact, and no correlation changes), so that the halves' means of subnormal scores keep their digits."""
    if splits < 1:
        raise ValueError(f"splits must be at least 1, got {splits}")
    scores = scores.with_scores(unit_scaled(scores.rating_score))
    a, b = split_halves(scores, rng, splits)
    usable = np.flatnonzero(np.bincount(scores.rating_candidate, minlength=scores.n_candidates) >= 2)
    sentence = _pearson_spearman(a[:, usable], b[:, usable]) if usable.size >= MIN_UNITS else (np.nan, np.nan)
    incidence = sparse.csr_matrix(
        (np.ones(scores.member_candidate.size), (scores.member_candidate, scores.member_system)),
        shape=(scores.n_candidates, scores.n_systems),
    )[usable]
    sentences = np.asarray(incidence.sum(axis=0)).ravel()
    present = np.flatnonzero(sentences > 0)
    system_a, system_b = (
        np.asarray(incidence.T.dot(means[:, usable].T)).T[:, present] / sentences[present] for means in (a, b)
    )
    system = _pearson_spearman(system_a, system_b) if present.size >= MIN_UNITS else (np.nan, np.nan)
    return Reliability(splits, int(usable.size), int(present.size), *sentence, *system)


def scalar_ranks(screen: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Ranks from scores within each screen: 1 + the number of distinct higher scores on the screen, so equal
    scores tie (METHODS 11). ``screen`` and ``score`` are (K,); returns (K,) int64."""
    order = np.lexsort((-score, screen))
    s, v = screen[order], score[order]
    new_value = np.r_[True, (s[1:] != s[:-1]) | (v[1:] != v[:-1])]
    new_screen = np.r_[True, s[1:] != s[:-1]]
    distinct = np.cumsum(new_value)
    first_of_screen = np.maximum.accumulate(np.where(new_screen, distinct, 0))
    ranks = np.empty(score.size, dtype=np.int64)
    ranks[order] = distinct - first_of_screen + 1
    return ranks


def relative_rankings(scores: Scores) -> Rankings:
    """The relative judgments of the scores as core ``Rankings`` (METHODS 11 -> METHODS 3).

    Control systems are quality checks, not contestants: they are dropped from every candidate, and a candidate
    of control systems only is dropped from its screen. A flagged screen is a skipped ranking; a screen with
    nothing left is dropped.
    """
    control = np.zeros(scores.n_systems, dtype=bool)
    control[scores.control_systems] = True
    systems: list[list[str]] = [[] for _ in range(scores.n_candidates)]
    for candidate, system in zip(scores.member_candidate.tolist(), scores.member_system.tolist()):
        if not control[system]:
            systems[candidate].append(scores.system_names[system])
    ranks = scalar_ranks(scores.rating_screen, scores.rating_score)
    shown: list[list[tuple[tuple[str, ...], int]]] = [[] for _ in range(scores.screen_judge.size)]
    for screen, candidate, rank in zip(scores.rating_screen.tolist(), scores.rating_candidate.tolist(), ranks.tolist()):
        if systems[candidate]:
            shown[screen].append((tuple(systems[candidate]), rank))
    rated = np.bincount(scores.rating_screen, minlength=scores.screen_judge.size) > 0
    items: list[RankingItem] = [
        (scores.judge_names[judge], segment, shown[screen])
        for screen, (judge, segment) in enumerate(zip(scores.screen_judge.tolist(), scores.screen_segment.tolist()))
        if shown[screen] or not rated[screen]
    ]
    contestants = [name for i, name in enumerate(scores.system_names) if not control[i]]
    return Rankings.from_items(items, system_names=contestants)


def qualified_rankings(
    scores: Scores, threshold: float = QUALITY_THRESHOLD, excluded: Collection[str] | None = None
) -> Rankings:
    """The relative judgments (``relative_rankings``) of the raters who are not excluded (``rater_quality``): the
    rankings that the EW/TS/bootstrap/agreement analyses of a PRWS campaign use."""
    return relative_rankings(qualified(scores, threshold, excluded))


@dataclass(frozen=True)
class PrwsReport:
    """The PRWS statistics of a campaign (N19 §4.2-4.3, Tables 6, 7): the raters' quality check (``quality``, of
    every rater), then, over the ratings of the raters who pass it, each system's statistics (``stats``) with the
    mean of per-rater z-scores (``z_mean``, (S,)) and the distribution of its sentence scores (``distribution``,
    (S, 5), ``score_distribution``), the number of ``ratings`` and ``raters`` kept, and the split-half
    ``reliability``. ``control`` (S,) marks the control systems; ``excluded_only`` (S,) the systems that have
    ratings, but only by raters the quality check excluded (so none in ``stats``)."""

    quality: RaterQuality
    stats: SystemScores
    z_mean: np.ndarray
    distribution: np.ndarray
    control: np.ndarray
    ratings: int
    raters: int
    reliability: Reliability
    excluded_only: np.ndarray | None = None

    def ranked_systems(self) -> np.ndarray:
        """Indices of the systems with a rated sentence, best mean first (ties by name)."""
        rated = np.flatnonzero(self.stats.sentences > 0)
        return rated[np.lexsort((rated, -self.stats.mean[rated]))]

    def unrated_systems(self) -> np.ndarray:
        """Indices of the systems without a rated sentence (no statistics), in name order."""
        return np.flatnonzero(self.stats.sentences == 0)

    def checked_raters(self) -> np.ndarray:
        """Indices of the raters who had a screen showing both Source and Source+error."""
        return np.flatnonzero(self.quality.screens > 0)


def prws_report(
    scores: Scores,
    rng: np.random.Generator,
    threshold: float = QUALITY_THRESHOLD,
    splits: int = RELIABILITY_SPLITS,
    excluded: Collection[str] | None = None,
) -> PrwsReport:
    """Quality control (``rater_quality``, ``excluded`` as there), then per-system statistics, z-score means and
    the split-half reliability of the kept ratings (see :class:`PrwsReport`); the reliability's random splits
    come from ``rng``."""
    quality = rater_quality(scores, threshold, excluded)
    kept = scores.for_judges(~quality.excluded)
    control = np.zeros(scores.n_systems, dtype=bool)
    control[scores.control_systems] = True
    stats = system_scores(kept)
    return PrwsReport(
        quality=quality,
        stats=stats,
        z_mean=system_scores(kept.with_scores(z_normalized(kept))).mean,
        distribution=score_distribution(kept),
        control=control,
        ratings=kept.n_ratings,
        raters=int(np.unique(kept.screen_judge).size),
        reliability=split_half_reliability(kept, rng, splits),
        excluded_only=(system_scores(scores).sentences > 0) & (stats.sentences == 0),
    )
