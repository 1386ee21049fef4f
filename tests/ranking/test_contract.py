"""The analysis JSON's one writer (ranking.contract): the rule for undefined values, the schema's order, strictness."""
from __future__ import annotations

import csv
import io
import json

import jsonschema
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranking.contract import (
    EXCLUDED_RATERS_ONLY,
    FEW_SAMPLES,
    NEVER_JUDGED,
    NO_DECISIVE_COMPARISON,
    NO_M2_SCORES,
    NO_METRIC_SCORES,
    NOT_PRWS,
    SAMPLES_COMPARE,
    SAMPLES_WIN,
    WILLIAMS_PERFECT,
    analysis_json,
    bare_matrix,
    contract_order,
    dumps,
    fields,
)
from ranking.core.analysis import AnalysisParameters, analyze, bootstrap_samples
from ranking.core.pairs import expanded_pairs
from ranking.core.rankings import Rankings

from .contract_checks import assert_contract, assert_reports_render
from .reports.test_json import jsonb_order

SNAPSHOT = {"judgments": 3, "last_judgment_at": "2025-01-01T00:00:00+00:00", "last_judgment_id": 3,
            "ignored_judgments": {}}
FAST = AnalysisParameters(bootstrap=10, seed=2)


def test_undefined_numbers_are_null_with_their_reason():
    assert fields({"share": 0.5, "wins": 2}, {"share": "x"}) == {"share": 0.5, "wins": 2}
    assert fields({"share": float("nan"), "p_value": float("inf"), "wins": 0}, {"share": "none", "p_value": "none"}) \
        == {"share": None, "p_value": None, "wins": 0, "reason": "none"}
    assert fields({"inter": None, "intra": np.nan}, {"inter": "one judge", "intra": "no repeats"})["reason"] \
        == "inter: one judge; intra: no repeats"
    with pytest.raises(ValueError, match="undefined kappa without a reason"):
        fields({"kappa": np.nan}, {})
    with pytest.raises(ValueError, match="undefined p_value without a reason"):
        fields({"share": np.nan, "p_value": None}, {"share": "none", "p_value": " "})


#: The keys PRODUCT.md says the analysis JSON has at least ("Command line and JSON contract").
CONTRACT_KEYS = ("campaign", "parameters", "pairs", "agreement", "expected_wins", "trueskill", "head_to_head",
                 "metrics", "beta_sweep", "prws")


def test_the_contract_keys_are_there_null_with_their_reason_where_they_do_not_apply():
    """An analysis without metric scores, of a ranking campaign, left out ``metrics``, ``beta_sweep`` and ``prws``,
    three of the keys the contract says it has at least; they are null, and the root's reason says why."""
    items = [("ann", 0, [(("A",), 1), (("B",), 2)])] * 3
    bare = analysis_json(analyze(Rankings.from_items(items), FAST), campaign="c", snapshot=SNAPSHOT)
    assert_contract(bare)
    assert set(CONTRACT_KEYS) <= set(bare)
    assert (bare["metrics"], bare["beta_sweep"], bare["prws"]) == (None, None, None)
    assert bare["reason"] == f"metrics: {NO_METRIC_SCORES}; beta_sweep: {NO_METRIC_SCORES}; prws: {NOT_PRWS}"
    without_m2 = analysis_json(analyze(Rankings.from_items(items), FAST, metrics={"gleu": {"A": (0.5,), "B": (0.4,)}}),
                               campaign="c", snapshot=SNAPSHOT)
    assert_contract(without_m2)
    assert without_m2["beta_sweep"] is None and set(without_m2["metrics"]) == {"gleu"}
    assert without_m2["reason"] == f"beta_sweep: {NO_M2_SCORES}; prws: {NOT_PRWS}"


def test_metric_correlations_over_too_few_systems_say_so():
    """The reason of a metric correlation over two systems once read as the PRWS reliability's ("fewer than 3
    systems with a candidate rated twice or more"): both constants had one name, and the second won."""
    items = [("ann", 0, [(("A",), 1), (("B",), 2)])] * 3
    metrics = {"m2": {"A": (0.5,), "B": (0.4,)}}
    analysis = analysis_json(analyze(Rankings.from_items(items), FAST, metrics=metrics), campaign="c",
                             snapshot=SNAPSHOT)
    assert_contract(analysis)
    assert analysis["metrics"]["m2"] == {"spearman": None, "pearson": None,
                                         "reason": "fewer than 3 systems have human scores"}


@pytest.mark.parametrize("blank", ["", " ", "\t\n"])
def test_the_contract_refuses_a_reason_with_nothing_to_read(blank):
    items = [("ann", 0, [(("A",), 1), (("B",), 1)])]
    analysis = analysis_json(analyze(Rankings.from_items(items), FAST), campaign="c", snapshot=SNAPSHOT)
    assert_contract(analysis)
    analysis["head_to_head"]["A"]["B"]["reason"] = blank
    with pytest.raises(jsonschema.ValidationError, match="does not match"):
        assert_contract(analysis)


def test_bare_matrices_leave_out_the_diagonal_and_keep_reasons_beside():
    matrix, reasons = bare_matrix(np.array([[np.nan, 0.5], [np.nan, np.nan]]), ["a", "b"], "constant")
    assert matrix == {"a": {"b": 0.5}, "b": {"a": None}}
    assert reasons == {"b": {"a": "constant"}}


def test_json_is_strict():
    with pytest.raises(ValueError):
        dumps({"x": float("nan")})
    assert dumps({"x": 1.5, "name": "ü"}) == '{"x": 1.5, "name": "ü"}'


def test_ties_only_and_a_system_never_judged():
    """A and B only ever tie, C beats both, D is never shown: the A-B cell has no share, D no score."""
    items = [("ann", 0, [(("A",), 1), (("B",), 1)]), ("ann", 1, [(("C",), 1), (("A", "B"), 2)])] * 3
    rankings = Rankings.from_items(items, system_names=["A", "B", "C", "D"])
    analysis = analysis_json(analyze(rankings, FAST), campaign="c", snapshot=SNAPSHOT)
    assert_contract(analysis)
    cell = analysis["head_to_head"]["A"]["B"]
    assert cell == {"share": None, "p_value": None, "wins": 0, "losses": 0, "reason": NO_DECISIVE_COMPARISON}
    assert analysis["head_to_head"]["A"]["C"]["share"] == 1.0
    last = analysis["expected_wins"]["systems"][-1]
    assert last == {"system": "D", "score": None, "full_data_score": None, "range": None, "cluster": None,
                    "reason": NEVER_JUDGED}
    assert list(analysis["head_to_head"])[0] == "C" and list(analysis["head_to_head"])[-1] == "D"


@st.composite
def rankings(draw) -> Rankings:
    """Up to 8 screens of up to 4 systems with ranks 1-3 (ties likely), by up to 3 judges, some skipped."""
    systems = ["s0", "s1", "s2", "s3"]
    items = []
    for _ in range(draw(st.integers(0, 8))):
        shown = draw(st.lists(st.sampled_from(systems), unique=True, max_size=4))
        ranks = draw(st.lists(st.integers(1, 3), min_size=len(shown), max_size=len(shown)))
        items.append((draw(st.sampled_from(["j1", "j2", "j3"])), draw(st.integers(0, 2)),
                      [((system,), rank) for system, rank in zip(shown, ranks)]))
    return Rankings.from_items(items, system_names=systems)


@settings(max_examples=60, deadline=None)
@given(data=rankings(), decimals=st.sampled_from([None, 0, 3]))
def test_any_rankings_give_contract_json_in_schema_order(data, decimals):
    metrics = {"m2": {s: (0.1 * k, 0.2, 0.1 * k) for k, s in enumerate(data.system_names)},
               "flat": {s: (0.5,) for s in data.system_names}}
    parameters = AnalysisParameters(bootstrap=10, seed=1, correlation_decimals=decimals)
    analysis = analysis_json(analyze(data, parameters, metrics=metrics), campaign="c", snapshot=SNAPSHOT)
    assert_contract(analysis)
    assert analysis["parameters"]["correlation_decimals"] == decimals
    text = dumps(analysis, indent=2)
    assert dumps(contract_order(jsonb_order(json.loads(text))), indent=2) == text, "the builder writes schema order"
    assert all(value["spearman"] is None and value["reason"] for value in analysis["metrics"].values()
               if value["pearson"] is None)


def test_judges_sharing_fewer_than_three_systems_have_no_correlation():
    """D3: j2 only ever judged A and B: with j1 (and with the rest, j1 again) it shares two systems, too few to
    correlate; j1 and j3 share all four."""
    full = [(("A",), 1), (("B",), 2), (("C",), 3), (("D",), 4)]
    items = [("j1", 0, full), ("j3", 0, full[::-1]), ("j2", 0, [(("B",), 1), (("A",), 2)])] * 2
    analysis = analysis_json(analyze(Rankings.from_items(items), FAST), campaign="c", snapshot=SNAPSHOT)
    assert_contract(analysis)
    table = analysis["per_judge"]["correlations"]
    assert table["spearman"]["j1"]["j2"] is None and table["pearson"]["j2"]["j1"] is None
    assert table["reasons"]["j1"]["j2"] == "fewer than 3 systems judged by both judges (2)"
    assert table["spearman"]["j1"]["j3"] is not None and "j3" not in table["reasons"].get("j1", {})
    assert table["rest"]["j2"] == {"spearman": None, "pearson": None, "shared_systems": 2,
                                   "reason": "fewer than 3 systems judged by both this judge and the others (2)"}


def test_each_judge_correlation_says_how_many_systems_it_covers():
    """Table 6's correlations are each over the systems both sides judged: j2 never judged D, so it shares three
    systems with j1, with j3 and with the rest, where j1 and j3 share all four; the counts sit beside the matrices,
    keyed like them (no diagonal), and in each judge's ``rest`` entry, for defined correlations (j1 with j3, j2 with
    the rest) as for undefined ones."""
    full = [(("A",), 1), (("B",), 2), (("C",), 3), (("D",), 4)]
    items = [("j1", 0, full), ("j3", 0, [(("B",), 1), (("A",), 2), (("C",), 3), (("D",), 4)]),
             ("j2", 0, [(("A",), 1), (("C",), 2), (("B",), 3)])] * 2
    analysis = analysis_json(analyze(Rankings.from_items(items), FAST), campaign="c", snapshot=SNAPSHOT)
    assert_contract(analysis)
    table = analysis["per_judge"]["correlations"]
    assert table["shared_systems"] == {"j1": {"j2": 3, "j3": 4}, "j2": {"j1": 3, "j3": 3}, "j3": {"j1": 4, "j2": 3}}
    assert {judge: rest["shared_systems"] for judge, rest in table["rest"].items()} == {"j1": 4, "j2": 3, "j3": 4}
    assert table["spearman"]["j1"]["j3"] is not None and table["rest"]["j2"]["spearman"] is not None

    stored_before = {key: value for key, value in table.items() if key != "shared_systems"}
    stored_before["rest"] = {judge: {key: value for key, value in rest.items() if key != "shared_systems"}
                             for judge, rest in table["rest"].items()}
    assert_contract({**analysis, "per_judge": {**analysis["per_judge"], "correlations": stored_before}})


def test_a_judge_who_tied_everything_is_left_out_of_the_weighted_means():
    """D4: j3's only ranking ties all four systems, so its correlation with the rest is undefined; the weighted means
    are those of j1 and j2 (weighted by their expanded pairs, 6 each), naming j3, and every report says so."""
    ranks = {"j1": (1, 2, 3, 4), "j2": (1, 3, 2, 4), "j3": (1, 1, 1, 1)}
    items = [(judge, 0, [((s,), rank) for s, rank in zip("ABCD", r)]) for judge, r in ranks.items()]
    analysis = analysis_json(analyze(Rankings.from_items(items), FAST), campaign="c", snapshot=SNAPSHOT)
    assert_contract(analysis)
    table = analysis["per_judge"]["correlations"]
    assert table["rest"]["j3"]["spearman"] is None
    mean = table["weighted_mean_rest"]
    assert mean["left_out"] == ["j3"] and "reason" not in mean
    rest = {judge: table["rest"][judge]["spearman"] for judge in ("j1", "j2")}
    assert mean["spearman"] == pytest.approx((rest["j1"] + rest["j2"]) / 2)
    reports = assert_reports_render(analysis)
    assert "The means leave out j3" in reports["html"]
    assert "leaving out j3" in reports["latex"]
    rows = list(csv.DictReader(io.StringIO(reports["csv"])))
    (left_out,) = [row for row in rows if row["section"] == "judge_correlation_mean_left_out"]
    assert (left_out["judge"], left_out["reason"]) == ("j3", table["rest"]["j3"]["reason"])


def williams_rankings() -> Rankings:
    """Five systems s0 > s1 > ... > s4 with a few upsets, by one judge."""
    order = [f"s{k}" for k in range(5)]
    items = [("j1", line, [((s,), rank) for rank, s in enumerate(order, start=1)]) for line in range(4)]
    items += [("j1", 9, [(("s3",), 1), (("s1",), 2)]), ("j1", 10, [(("s4",), 1), (("s2",), 2)])]
    return Rankings.from_items(items)


def test_a_constant_metric_leaves_the_other_williams_tests_in_place():
    """D5: the flat metric's pairs are null with its reason; the other pair keeps its p-value and correlations."""
    metrics = {"good": {f"s{k}": (1.0 - 0.2 * k,) for k in range(5)},
               "poor": {f"s{k}": (v,) for k, v in enumerate((0.3, 0.5, 0.1, 0.4, 0.2))},
               "flat": {f"s{k}": (0.5,) for k in range(5)}}
    analysis = analysis_json(analyze(williams_rankings(), FAST, metrics=metrics), campaign="c", snapshot=SNAPSHOT)
    assert_contract(analysis)
    williams = analysis["metric_significance"]
    assert "skipped" not in williams
    assert williams["correlations"]["flat"] is None
    flat = "the scores of flat are constant, so its correlation with the human scores is undefined"
    assert williams["correlation_reasons"] == {"flat": flat}
    assert williams["p_values"]["flat"]["good"] is None and williams["reasons"]["good"]["flat"] == flat
    assert williams["p_values"]["good"]["poor"] is not None and "poor" not in williams["reasons"].get("good", {})
    assert williams["p_values"]["good"]["poor"] + williams["p_values"]["poor"]["good"] == pytest.approx(1)
    assert_reports_render(analysis)


def test_perfectly_correlated_metrics_have_no_williams_test_and_say_why():
    """D6: an identical, an affine and a negated copy of a metric: every pair among them is null with one accurate
    reason (the old one claimed the metrics correlate equally with the humans, false for the negated copy)."""
    base = (0.3, 0.5, 0.1, 0.4, 0.2)
    metrics = {"m": {f"s{k}": (v,) for k, v in enumerate(base)},
               "same": {f"s{k}": (v,) for k, v in enumerate(base)},
               "affine": {f"s{k}": (2 * v + 1,) for k, v in enumerate(base)},
               "negated": {f"s{k}": (-v,) for k, v in enumerate(base)},
               "other": {f"s{k}": (v,) for k, v in enumerate((0.9, 0.1, 0.5, 0.3, 0.2))}}
    analysis = analysis_json(analyze(williams_rankings(), FAST, metrics=metrics), campaign="c", snapshot=SNAPSHOT)
    assert_contract(analysis)
    williams = analysis["metric_significance"]
    copies = ("m", "same", "affine", "negated")
    for a in copies:
        for b in copies:
            if a != b:
                assert williams["p_values"][a][b] is None, (a, b)
                assert williams["reasons"][a][b] == WILLIAMS_PERFECT
        assert williams["p_values"][a]["other"] is not None


@pytest.mark.parametrize("lines, reason", [
    (60, "every pair of judges with 50 comparisons or more gave one relation throughout, so chance agreement is 1 "
         "and kappa is undefined"),
    (20, "no two judges share 50 comparisons or more"),
])
def test_the_overall_agreement_says_why_it_is_undefined(lines, reason):
    """D9a: two judges tie A and B on the same lines. With 60 shared comparisons the pair has enough, but P(E) = 1;
    the reason used to be 'no two judges share enough comparisons' either way."""
    items = [(judge, line, [(("A",), 1), (("B",), 1)]) for judge in ("j1", "j2") for line in range(lines)]
    agreement = analysis_json(analyze(Rankings.from_items(items), FAST), campaign="c", snapshot=SNAPSHOT)["agreement"]
    assert agreement["matrix"]["j1"]["j2"]["comparisons"] == lines and agreement["inter"] is None
    assert agreement["reason"] == f"inter: {reason}; intra: no judge judged a pair twice"


def test_the_overall_intra_agreement_says_why_it_is_undefined():
    items = [("j1", line % 30, [(("A",), 1), (("B",), 1)]) for line in range(120)]
    agreement = analysis_json(analyze(Rankings.from_items(items), FAST), campaign="c", snapshot=SNAPSHOT)["agreement"]
    assert agreement["matrix"]["j1"]["j1"]["comparisons"] == 30 * 6
    assert agreement["reason"] == (
        "inter: fewer than two judges; intra: every judge with 50 repeated comparisons or more gave one relation "
        "throughout, so chance agreement is 1 and kappa is undefined"
    )


def test_a_system_judged_only_by_raters_rater_qc_excluded_says_so():
    """"left" was judged only by raters whom rater QC excluded (their judgments are not in the rankings): its
    reason was 'no judgment of this system', as if nobody had judged it."""
    items = [("j1", 20, [(("A",), 1), (("B",), 2)]), ("j2", 20, [(("B",), 1), (("A",), 2)])]
    rankings = Rankings.from_items(items, system_names=["A", "B", "left", "unseen"])
    analysis = analysis_json(analyze(rankings, FAST, left_out_shown={"A", "left"}), campaign="c", snapshot=SNAPSHOT)
    assert_contract(analysis)
    for method in ("expected_wins", "trueskill"):
        reasons = {row["system"]: row.get("reason") for row in analysis[method]["systems"]}
        assert reasons == {"A": None, "B": None, "left": EXCLUDED_RATERS_ONLY, "unseen": NEVER_JUDGED}
        assert EXCLUDED_RATERS_ONLY == "every rater who judged this system was excluded by rater QC"
    assert {row["system"]: row.get("reason") for row in analysis["per_judge"]["rankings"]["j1"]["systems"]}[
        "left"] == NEVER_JUDGED, "j1 never judged it"


def test_a_system_only_ever_shown_alone_has_no_pairwise_comparison():
    """D9b: "solo" was judged ten times, always alone on its screen, so it is in no pair; "unseen" was never shown.
    The reason used to be 'no judgment of this system' for both."""
    items = [("j1", line, [(("solo",), 1)]) for line in range(10)]
    items += [("j1", 20, [(("A",), 1), (("B",), 2)]), ("j2", 20, [(("B",), 1), (("A",), 2)])]
    rankings = Rankings.from_items(items, system_names=["A", "B", "solo", "unseen"])
    analysis = analysis_json(analyze(rankings, FAST), campaign="c", snapshot=SNAPSHOT)
    assert_contract(analysis)
    for systems in (analysis["expected_wins"]["systems"], analysis["per_judge"]["rankings"]["j1"]["systems"]):
        reasons = {row["system"]: row.get("reason") for row in systems}
        assert reasons["solo"] == "no pairwise comparison of this system (it was judged, but never beside another " \
                                  "system)"
        assert reasons["unseen"] == NEVER_JUDGED and reasons["A"] is None
    reasons = {row["system"]: row.get("reason") for row in analysis["per_judge"]["rankings"]["j2"]["systems"]}
    assert reasons["solo"] == NEVER_JUDGED, "j2 never saw solo"


def test_a_system_in_too_few_bootstrap_samples_has_a_score_but_no_range_and_says_why():
    """X is in 2 of the 10 Expected Wins samples (NaN in the other 8, as a resample that drew none of its pairs
    gives), too few for a range at 0.95 (3 needed): it keeps its mean over those 2 and its full-data score, and its
    range and cluster are null with the reason. In ann's Table 7, X never beat a system: G15's EW.pl ranks a
    resample's systems that beat another, so X is in none of the 10, and EW.pl would not list it at all."""
    items = [("ann", 0, [(("A",), 1), (("B",), 2)])] * 3 + [("ann", 1, [(("B",), 1), (("A",), 2)]),
                                                            ("ann", 2, [(("A",), 1), (("X",), 2)])]
    rankings = Rankings.from_items(items)
    samples = bootstrap_samples(expanded_pairs(rankings), 3, FAST)
    samples["expected_wins"][2:, 2] = np.nan
    analysis = analysis_json(analyze(rankings, FAST, samples=samples), campaign="c", snapshot=SNAPSHOT)
    assert_contract(analysis)
    assert_reports_render(analysis)
    x = analysis["expected_wins"]["systems"][-1]
    assert x["system"] == "X" and x["range"] is None and x["cluster"] is None
    assert x["score"] == pytest.approx(float(np.mean(samples["expected_wins"][:2, 2])))
    assert x["reason"] == FEW_SAMPLES.format(n=2, total="10", confidence=0.95, rule=SAMPLES_COMPARE) == (
        "ranked in 2 of the 10 bootstrap samples, too few for a rank range at confidence 0.95 (a sample ranks only "
        "the systems its pairs compare, as G15's cluster.py does)")
    assert [row["range"] is not None for row in analysis["trueskill"]["systems"]] == [True] * 3
    judged_by_ann = analysis["per_judge"]["rankings"]["ann"]["systems"]
    assert [row["system"] for row in judged_by_ann] == ["A", "B", "X"]
    assert judged_by_ann[-1] == {
        "system": "X", "score": None, "full_data_score": 0.0, "range": None, "cluster": None,
        "reason": FEW_SAMPLES.format(n=0, total="10", confidence=0.9, rule=SAMPLES_WIN),
    }
