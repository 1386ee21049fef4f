"""Reproduction of G15's published tables from the raw CoNLL-14 data (judgments.xml and metrics/scores.*).

Everything is computed from the files through the product's parser and the ranking core; the constants below are
the numbers printed in the paper (Grundkiewicz et al. 2015, Tables 1, 2, 3b, 3d, 5, 6, 7). Table 4 lives in
``test_accuracy*.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from annotation.services.appraise_xml import parse_appraise_xml
from ranking.core.agreement import annotator_agreement
from ranking.core.bootstrap import bootstrap_expected_wins, bootstrap_ranking
from ranking.core.correlation import beta_sweep, correlate, fbeta
from ranking.core.expected_wins import expected_wins
from ranking.core.metric_scores import score_column
from ranking.core.pairs import ExpandedPairs, expanded_pairs, pair_statistics, unexpanded_pairs, win_matrix
from ranking.core.per_judge import judge_correlations, judge_rankings, judge_scores, leave_one_out_scores
from ranking.core.rankings import Rankings
from ranking.core.significance import head_to_head, significance_mark
from ranking.metric_files import parse_metric_scores

from ..published_ranges import LOWEST, assert_ranges_match_published
from ..published_tables import published_table

JUDGES = tuple(f"annotator0{n}" for n in range(1, 9))

# Table 1: per judge 1..8 and in total, rankings, unexpanded pairwise judgments and expanded ones (ties among each).
*TABLE_1, TABLE_1_TOTAL = [tuple(counts) for _, *counts in published_table("""
judge  ranks  unexpanded  ties  expanded  ties
1      400    3525        1022  18400     10166
2      299    2684        1099  13657     8429
3      400    3523        914   18912     9684
4      201    1750        550   9478      5539
5      349    3099        766   17107     8972
6      400    3474        517   19313     9209
7      70     646         145   3383      1593
8      200    1815        681   8848      5525
Total  2319   20516       5694  109098    59117
""")]

# Table 2b: kappa per pair of judges, intra-annotator on the diagonal; * = star (too few overlapping judgments).
# Kept: the upper triangle incl. the diagonal, row by row (row i from column i on).
TABLE_2B = [cells[judge - 1:] for judge, *cells in published_table("""
judge  1    2    3    4    5    6    7    8
1      .42  .26  .30  .37  .34  .26  .31  .24
2      –    .30  .25  .28  .23  .20  .10  .20
3      –    –    .50  .35  .44  .34  .46  .26
4      –    –    –    .34  .34  .30  .20  .26
5      –    –    –    –    .60  .36  .34  .32
6      –    –    –    –    –    .44  .35  .25
7      –    –    –    –    –    –    *    *
8      –    –    –    –    –    –    –    .48
""")]

# Table 3b: (system, score, range, cluster) in rank order.
TABLE_3B = published_table("""
system  score  range  cluster
AMU     0.628  1-1    1
RAC     0.566  2-3    2
CAMB    0.561  2-4    2
CUUI    0.550  3-5    2
POST    0.539  4-5    2
UFC     0.513  6-8    3
PKU     0.506  6-8    3
UMC     0.495  7-9    3
IITB    0.485  7-10   3
SJTU    0.463  10-11  3
INPUT   0.456  9-12   3
NTHU    0.437  11-12  3
IPN     0.300  13-13  4
""")
# Table 3b's range ends on a tail (tests/ranking/published_ranges.py): over seeds 0-19 and 2015 of 1,000 resamples,
# SJTU's lowest rank is 9 instead of 10 for 10 seeds and INPUT's is 10 instead of 9 for 6 (both for seeds 3, 18 and
# 19, so two ranges can differ at once); every other end is the published one for every seed.
TABLE_3B_ENDS_ON_A_TAIL = {("SJTU", LOWEST), ("INPUT", LOWEST)}

# Table 3d: row -> cells in the column order of Table 3b ("–" on the diagonal); "?" in the text is the star mark.
TABLE_3D = """
AMU – .44‡ .47⋆ .46† .44‡ .34‡ .40‡ .37‡ .32‡ .34‡ .32‡ .31‡ .24‡
RAC .56‡ – .53 .48 .48 .40‡ .45† .44‡ .39‡ .38‡ .38‡ .43‡ .28‡
CAMB .53⋆ .47 – .49 .45‡ .43‡ .43‡ .42‡ .42‡ .43‡ .42‡ .43‡ .34‡
CUUI .54† .52 .51 – .49 .42‡ .47 .46† .42‡ .41‡ .41‡ .42‡ .32‡
POST .56‡ .52 .55‡ .51 – .45‡ .47 .46⋆ .44‡ .44‡ .43‡ .42‡ .29‡
UFC .66‡ .60‡ .57‡ .58‡ .55‡ – .54⋆ .50 .49 .44⋆ .27† .42‡ .21‡
PKU .60‡ .55† .57‡ .53 .53 .46⋆ – .50 .47 .46⋆ .46⋆ .46† .35‡
UMC .63‡ .56‡ .58‡ .54† .54⋆ .50 .50 – .48 .47 .48 .45‡ .35‡
IITB .68‡ .61‡ .58‡ .58‡ .56‡ .51 .53 .52 – .48 .43 .43‡ .27‡
SJTU .66‡ .62‡ .57‡ .59‡ .56‡ .56⋆ .54⋆ .53 .52 – .53 .46⋆ .30‡
INPUT .68‡ .62‡ .58‡ .59‡ .57‡ .73† .54⋆ .52 .57 .47 – .43‡ .22‡
NTHU .69‡ .57‡ .57‡ .58‡ .58‡ .58‡ .54† .55‡ .57‡ .54⋆ .57‡ – .41‡
IPN .76‡ .72‡ .66‡ .68‡ .71‡ .79‡ .65‡ .65‡ .73‡ .70‡ .78‡ .59‡ –
"""

# Table 5: metric -> (Spearman, Pearson).
TABLE_5_M2 = {1.0: (0.648, 0.610), 0.5: (0.692, 0.627), 0.25: (0.720, 0.680), 0.1: (0.670, 0.652)}
TABLE_5_M2_BEST = (0.18, 0.758, 0.701)
TABLE_5_OTHER = {"iwacc": (-0.154, -0.098), "bleu": (-0.346, -0.240), "meteor": (-0.374, -0.241)}
#: How far Pearson's r of a new bootstrap run may fall from Table 5's: r is taken from the bootstrap means rounded to
#: three decimals (G15's pipeline), so it moves with the draws. Over seeds 1-20 of 1,000 samples, r stayed within
#: 0.0052 of the published values (M2 F0.5 0.6238-0.6275 against 0.627; METEOR -0.2407 to -0.2358 against -0.241),
#: with NumPy 2.4 and 2.5 alike (whose multinomial draws differ for a seed). Spearman's rho does not move.
TABLE_5_PEARSON_NOISE = 0.006

# Table 6: Spearman above the diagonal, Pearson below; judge vs the rest; weighted means.
TABLE_6 = [
    [None, 0.70, 0.31, 0.76, 0.74, 0.19, 0.62, 0.48],
    [0.72, None, 0.77, 0.84, 0.90, 0.57, 0.59, 0.64],
    [0.53, 0.89, None, 0.66, 0.70, 0.58, 0.42, 0.64],
    [0.82, 0.79, 0.69, None, 0.91, 0.42, 0.67, 0.54],
    [0.65, 0.85, 0.82, 0.87, None, 0.63, 0.63, 0.51],
    [0.32, 0.71, 0.67, 0.56, 0.86, None, 0.63, 0.39],
    [0.72, 0.74, 0.57, 0.76, 0.72, 0.63, None, 0.63],
    [0.64, 0.85, 0.86, 0.69, 0.72, 0.57, 0.75, None],
]
TABLE_6_REST_SPEARMAN = [0.70, 0.93, 0.63, 0.91, 0.93, 0.42, 0.76, 0.60]
TABLE_6_REST_PEARSON = [0.67, 0.93, 0.82, 0.87, 0.92, 0.66, 0.80, 0.82]
TABLE_6_MEANS = (0.72, 0.80)

# Table 7 (a)-(h): judge -> comma-separated rows "cluster score lo-hi system" in rank order.
TABLE_7 = {
    "annotator01": (
        "1 0.674 1-2 CAMB, 1 0.658 1-2 AMU, 2 0.573 3-6 CUUI, 2 0.573 3-6 PKU, 2 0.566 3-7 POST, "
        "2 0.553 3-8 RAC, 2 0.544 4-8 NTHU, 2 0.537 5-8 UMC, 3 0.436 9-10 SJTU, 3 0.419 9-11 UFC, "
        "3 0.387 10-12 IITB, 3 0.332 11-12 INPUT, 4 0.276 13-13 IPN"
    ),
    "annotator02": (
        "1 0.640 1-1 AMU, 2 0.559 2-6 CUUI, 2 0.558 2-6 RAC, 2 0.557 2-7 UFC, 2 0.543 2-7 CAMB, "
        "2 0.526 3-9 PKU, 2 0.511 5-10 POST, 2 0.511 4-11 IITB, 2 0.508 5-10 UMC, 2 0.473 7-11 INPUT, "
        "2 0.472 8-11 NTHU, 3 0.398 12-12 SJTU, 4 0.286 13-13 IPN"
    ),
    "annotator03": (
        "1 0.612 1-2 AMU, 1 0.578 2-3 CUUI, 1 0.564 2-5 UFC, 1 0.534 3-7 RAC, 1 0.526 4-7 POST, "
        "1 0.517 4-8 UMC, 1 0.508 4-9 IITB, 1 0.474 5-11 INPUT, 1 0.467 8-12 SJTU, 1 0.464 8-12 PKU, "
        "1 0.463 8-12 CAMB, 1 0.458 9-12 NTHU, 2 0.333 13-13 IPN"
    ),
    "annotator04": (
        "1 0.641 1-2 AMU, 1 0.631 1-2 CAMB, 2 0.581 3-4 RAC, 2 0.578 3-4 CUUI, 3 0.507 5-10 UFC, "
        "3 0.494 5-10 POST, 3 0.490 5-10 UMC, 3 0.488 5-11 SJTU, 3 0.486 5-10 PKU, 3 0.473 5-11 INPUT, "
        "3 0.441 9-12 NTHU, 3 0.378 11-12 IITB, 4 0.313 13-13 IPN"
    ),
    "annotator05": (
        "1 0.613 1-2 AMU, 1 0.608 1-2 RAC, 2 0.568 3-5 CUUI, 2 0.554 3-6 CAMB, 2 0.535 4-7 POST, "
        "2 0.526 4-9 UFC, 2 0.515 5-9 PKU, 2 0.496 6-10 SJTU, 2 0.487 6-11 INPUT, 2 0.472 8-11 IITB, "
        "2 0.461 9-11 UMC, 3 0.375 12-12 NTHU, 4 0.290 13-13 IPN"
    ),
    "annotator06": (
        "1 0.601 1-2 RAC, 1 0.579 1-4 AMU, 1 0.565 1-6 IITB, 1 0.562 2-6 POST, 1 0.548 2-8 INPUT, "
        "1 0.535 3-8 UFC, 1 0.519 6-9 PKU, 1 0.516 6-9 CAMB, 1 0.491 7-10 SJTU, 1 0.474 9-10 CUUI, "
        "2 0.428 11-11 UMC, 3 0.368 12-12 NTHU, 4 0.313 13-13 IPN"
    ),
    "annotator07": (
        "1 0.788 1-1 AMU, 2 0.697 2-2 CAMB, 3 0.553 3-7 RAC, 3 0.544 3-7 UMC, 3 0.537 3-7 POST, "
        "3 0.533 3-10 IITB, 3 0.487 5-10 PKU, 3 0.474 5-12 INPUT, 3 0.462 6-11 CUUI, 3 0.436 6-12 SJTU, "
        "3 0.408 8-12 UFC, 3 0.386 9-12 NTHU, 4 0.303 13-13 IPN"
    ),
    "annotator08": (
        "1 0.660 1-2 AMU, 1 0.625 1-3 CUUI, 1 0.568 2-7 IITB, 1 0.556 3-6 CAMB, 1 0.543 3-7 UMC, "
        "1 0.537 3-7 POST, 1 0.483 5-10 INPUT, 1 0.481 5-10 UFC, 1 0.478 7-11 RAC, 1 0.466 7-11 NTHU, "
        "1 0.420 10-12 PKU, 1 0.419 10-12 SJTU, 2 0.260 13-13 IPN"
    ),
}
# Judges whose published clusters our bootstrap gives for nearly every seed (100 seeds: judges 2, 5, 6, 8 always,
# judge 7 in 95). For judges 1, 3 and 4 a published boundary rests on a range endpoint that flips with the draw
# (68, 55 and 35 of 100 seeds give the published clusters), so for them we require the published clusters among
# a few seeds.
STABLE_TABLE_7_JUDGES = ("annotator02", "annotator05", "annotator06", "annotator07", "annotator08")


def parse_table_7(text: str) -> list[tuple[int, str, tuple[int, int], str]]:
    rows = []
    for row in text.split(", "):
        cluster, score, ranks, system = row.split()
        lo, hi = ranks.split("-")
        rows.append((int(cluster), score, (int(lo), int(hi)), system))
    return rows


@dataclass(frozen=True)
class Data:
    rankings: Rankings
    pairs: ExpandedPairs

    @property
    def names(self) -> tuple[str, ...]:
        return self.rankings.system_names

    def index(self, system: str) -> int:
        return self.names.index(system)


@pytest.fixture(scope="module")
def data(conll14_dir: Path) -> Data:
    results = parse_appraise_xml((conll14_dir / "judgments.xml").read_bytes())
    rankings = Rankings.from_items((item.user, item.src_id, item.translations) for item in results.items)
    return Data(rankings=rankings, pairs=expanded_pairs(rankings))


@pytest.fixture(scope="module")
def full_scores(data: Data) -> np.ndarray:
    return expected_wins(win_matrix(data.pairs, data.rankings.n_systems))


def test_table_1_pairwise_statistics(data: Data):
    stats = pair_statistics(data.rankings)
    assert stats.judges == JUDGES
    columns = np.stack([stats.rankings, stats.unexpanded, stats.unexpanded_ties, stats.expanded, stats.expanded_ties])
    assert columns.T.tolist() == [list(row) for row in TABLE_1]
    assert tuple(stats.total().values()) == TABLE_1_TOTAL


def test_table_2_inter_and_intra_annotator_kappa(data: Data):
    table = annotator_agreement(unexpanded_pairs(data.rankings), data.rankings.judge_names)
    assert round(table.inter, 2) == 0.29
    assert round(table.intra, 2) == 0.46
    for i, row in enumerate(TABLE_2B):
        for offset, published in enumerate(row):
            j = i + offset
            if published is None:
                assert table.too_few[i, j]
            else:
                assert not table.too_few[i, j]
                assert round(float(table.kappa[i, j]), 2) == published, (JUDGES[i], JUDGES[j])


def test_table_3b_full_data_expected_wins(data: Data, full_scores: np.ndarray):
    for system, score, _, _ in TABLE_3B:
        assert round(float(full_scores[data.index(system)]), 3) == score, system


@pytest.mark.parametrize("seed", [1, 2, 3, 2015])
def test_table_3b_bootstrap_ranking(data: Data, full_scores: np.ndarray, seed: int):
    """1,000 resamples at 95%: the order, mean scores and clusters as printed; every rank range as printed but for
    the two ends on a tail (``TABLE_3B_ENDS_ON_A_TAIL``), each of which may be one off (seed 3 moves both)."""
    samples = bootstrap_expected_wins(data.pairs, len(data.names), 1000, np.random.default_rng(seed))
    result = bootstrap_ranking(samples, full_scores, data.names, confidence=0.95)
    assert [row.system for row in result.systems] == [system for system, *_ in TABLE_3B]
    for row, (system, score, _, cluster) in zip(result.systems, TABLE_3B):
        assert row.score == pytest.approx(score, abs=0.002), system
        assert row.cluster == cluster, system
    assert_ranges_match_published([row.system for row in result.systems], [row.range for row in result.systems],
                                  [r for *_, r, _ in TABLE_3B], TABLE_3B_ENDS_ON_A_TAIL)


def test_table_3d_head_to_head(data: Data):
    table = head_to_head(win_matrix(data.pairs, len(data.names)), data.names)
    order = [system for system, *_ in TABLE_3B]
    for line in TABLE_3D.strip().splitlines():
        row, *cells = line.split()
        for column, cell in zip(order, cells):
            if cell == "–":
                assert row == column
                continue
            r, c = data.index(row), data.index(column)
            share, mark = cell[:3], cell[3:]
            assert f"{table.share[r, c]:.2f}".lstrip("0") == share, (row, column)
            assert significance_mark(table.p_value[r, c]) == mark, (row, column)


def table_3b_as_printed(data: Data) -> np.ndarray:
    """G15's human scores for Table 5: Table 3b's three-decimal scores, its bootstrap means as printed (what G15's
    latex_correl.pl read), in system index order."""
    printed = {system: score for system, score, *_ in TABLE_3B}
    return np.array([printed[name] for name in data.names])


def test_table_5_metric_correlations(data: Data, conll14_dir: Path):
    human = table_3b_as_printed(data)
    m2 = parse_metric_scores("scores.m2", (conll14_dir / "metrics" / "scores.m2").read_bytes())
    precision, recall = score_column(m2, data.names, 1), score_column(m2, data.names, 2)
    # The file's F0.5 was computed from unrounded P and R; from the 4-decimal P and R it agrees to 2e-4.
    assert fbeta(precision, recall, 0.5) == pytest.approx(score_column(m2, data.names, 0), abs=2e-4)
    sweep = beta_sweep(human, precision, recall)
    for beta, (rho, r) in TABLE_5_M2.items():
        assert round(sweep.at(beta).spearman, 3) == rho, beta
        assert round(sweep.at(beta).pearson, 3) == r, beta
    best_beta, best_rho = sweep.best_spearman()
    assert (best_beta, round(best_rho, 3)) == TABLE_5_M2_BEST[:2]
    assert round(sweep.best_pearson()[1], 3) == TABLE_5_M2_BEST[2]
    for metric, (rho, r) in TABLE_5_OTHER.items():
        scores = parse_metric_scores(f"scores.{metric}", (conll14_dir / "metrics" / f"scores.{metric}").read_bytes())
        result = correlate(human, score_column(scores, data.names))
        assert (round(result.spearman, 3), round(result.pearson, 3)) == (rho, r), metric


def test_figure_3_combined_gold_standard_correlates_best(data: Data, conll14_dir: Path):
    """G15 §6.3: with both annotators' edits, Spearman's rho peaks higher than with either annotator alone."""
    human = table_3b_as_printed(data)
    peaks = {}
    for name in ("scores.m2", "scores.m2.0", "scores.m2.1"):
        scores = parse_metric_scores(name, (conll14_dir / "metrics" / name).read_bytes())
        sweep = beta_sweep(human, score_column(scores, data.names, 1), score_column(scores, data.names, 2))
        peaks[name] = sweep.best_spearman()[1]
    assert peaks["scores.m2"] > max(peaks["scores.m2.0"], peaks["scores.m2.1"])


def test_table_6_judge_correlations(data: Data):
    n_systems, n_judges = len(data.names), data.rankings.n_judges
    table = judge_correlations(
        judge_scores(data.pairs, n_systems, n_judges),
        leave_one_out_scores(data.pairs, n_systems, n_judges),
        np.bincount(data.pairs.judge, minlength=n_judges),
        data.rankings.judge_names,
    )
    for i in range(8):
        for j in range(8):
            if i == j:
                continue
            matrix = table.spearman if i < j else table.pearson
            assert round(float(matrix[i, j]), 2) == TABLE_6[i][j], (i + 1, j + 1)
    assert np.round(table.rest_spearman, 2).tolist() == TABLE_6_REST_SPEARMAN
    assert np.round(table.rest_pearson, 2).tolist() == TABLE_6_REST_PEARSON
    assert (round(table.mean_rest_spearman, 2), round(table.mean_rest_pearson, 2)) == TABLE_6_MEANS


def published_rounding(score: float) -> str:
    """Table 7 rounds twice: G15's script prints 4 decimals, the LaTeX step 3 of those."""
    return f"{float(f'{score:.4f}'):.3f}"


def test_table_7_per_judge_scores(data: Data):
    scores = judge_scores(data.pairs, len(data.names), data.rankings.n_judges)
    for j, judge in enumerate(JUDGES):
        published = parse_table_7(TABLE_7[judge])
        for _, score, _, system in published:
            assert published_rounding(scores[j, data.index(system)]) == score, (judge, system)
        order = np.argsort(-scores[j], kind="stable")
        assert [data.names[s] for s in order] == [system for *_, system in published], judge


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_table_7_per_judge_ranges_and_clusters(data: Data, seed: int):
    result = judge_rankings(data.pairs, data.names, data.rankings.judge_names, 1000, np.random.default_rng(seed))
    for judge in JUDGES:
        published = {system: (cluster, ranks) for cluster, _, ranks, system in parse_table_7(TABLE_7[judge])}
        for row in result[judge].systems:
            lo, hi = published[row.system][1]
            assert abs(row.range[0] - lo) <= 1 and abs(row.range[1] - hi) <= 1, (judge, row.system, row.range)
        if judge in STABLE_TABLE_7_JUDGES:
            assert [row.cluster for row in result[judge].systems] == [
                published[row.system][0] for row in result[judge].systems
            ], judge


def test_table_7_boundary_clusters_are_among_the_bootstrap_outcomes(data: Data):
    rng = np.random.default_rng(7)
    unstable = [judge for judge in JUDGES if judge not in STABLE_TABLE_7_JUDGES]
    hit = {judge: False for judge in unstable}
    for _ in range(8):
        result = judge_rankings(data.pairs, data.names, data.rankings.judge_names, 1000, rng)
        for judge in unstable:
            published = [cluster for cluster, *_ in parse_table_7(TABLE_7[judge])]
            hit[judge] |= [row.cluster for row in result[judge].systems] == published
    assert all(hit.values()), hit
