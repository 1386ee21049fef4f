"""The analysis JSON (PRODUCT.md "Command line and JSON contract"): the one place that writes it.

:func:`analysis_json` turns the core's :class:`~ranking.core.analysis.Analysis` into the contract's dict, in the
order of its schema (``ranking.contract_schema``); :func:`contract_order` restores that order in a result read back
from PostgreSQL's jsonb; :func:`dumps` serialises strictly (``allow_nan=False``), so that a NaN that slipped through
fails loudly instead of writing ``NaN``, which is no JSON.

One rule for undefined values: a number that the data leave undefined (NaN in the core) is ``null``, and the
object holding it gets a ``reason``: one short string, or ``"field: reason; ..."`` when its fields are undefined for
different reasons. In a matrix of bare numbers (judge correlations, Williams p-values) the reasons go into the
sibling object ``reasons``, keyed like the matrix, and the diagonal, which does not apply, is left out; the reasons
of the Williams test's bare correlations (``correlations``, by metric) go into ``correlation_reasons``. A statistic
that could not be computed at all keeps its key with ``null`` (or, as before, ``skipped`` with its reason).

This module imports no NumPy: it reads the core's arrays element by element.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from .contract_schema import DISTRIBUTION_KEYS, SCHEMA, Schema
from .core.parameters import METHODS, AnalysisParameters

if TYPE_CHECKING:
    from .core.analysis import Analysis, MetricCorrelations, MetricSignificance, PerJudge
    from .core.bootstrap import RankedSystem, RankingResult
    from .core.prws import PrwsReport
    from .loading import Snapshot

NO_JUDGMENTS = "no judgments yet"
NEVER_JUDGED = "no judgment of this system"
NOT_BY_JUDGE = "no judgment of this system by the selected judge (parameters.judge)"
NO_PAIRWISE = "no pairwise comparison of this system (it was judged, but never beside another system)"
EXCLUDED_RATERS_ONLY = "every rater who judged this system was excluded by rater QC"
IGNORED_JUDGES_ONLY = "every judge who judged this system is an ignored judge (parameters.ignored_judges)"
IGNORED_OR_EXCLUDED_ONLY = ("every judge who judged this system is an ignored judge (parameters.ignored_judges) or "
                            "was excluded by rater QC")
FEW_SAMPLES = ("ranked in {n} of the {total} bootstrap samples, too few for a rank range at confidence {confidence:g} "
               "({rule})")
SAMPLES_COMPARE = "a sample ranks only the systems its pairs compare, as G15's cluster.py does"
SAMPLES_WIN = "a sample ranks only the systems that beat another in it, as G15's EW.pl does"
NO_DECISIVE_COMPARISON = "no decisive comparison"
NO_SHARED_PAIR = "no pair judged by both"
NO_REPEATED_PAIR = "no pair judged twice"
ONE_RELATION = "every relation was the same, so chance agreement is 1"
ONE_JUDGE = "fewer than two judges"
NO_INTER_SHARED = "no two judges judged a pair in common"
NO_INTER = "no two judges share {n} comparisons or more"
NO_INTER_KAPPA = ("every pair of judges with {n} comparisons or more gave one relation throughout, so chance "
                  "agreement is 1 and kappa is undefined")
NO_INTRA_REPEATED = "no judge judged a pair twice"
NO_INTRA = "no judge repeated {n} comparisons or more"
NO_INTRA_KAPPA = ("every judge with {n} repeated comparisons or more gave one relation throughout, so chance "
                  "agreement is 1 and kappa is undefined")
CONSTANT = "one of the score vectors is constant"
FEW_SHARED_JUDGES = "fewer than {n} systems judged by both judges ({shared})"
FEW_SHARED_REST = "fewer than {n} systems judged by both this judge and the others ({shared})"
NO_JUDGE_IN_MEAN = "every judge's correlation with the rest is undefined"
FEW_SYSTEMS = "fewer than {n} systems have human scores"
NO_DECISIVE_HELD_OUT = "no held-out pair was decisive"
NO_HELD_OUT = "no held-out pair"
NO_PREDICTABLE_DECISIVE = "no decisive held-out pair between two systems that its fold's training runs rank"
NO_PREDICTABLE = "no held-out pair between two systems that its fold's training runs rank"
FEW_CANDIDATES = "fewer than {n} candidates with two ratings or more"
FEW_RATED_SYSTEMS = "fewer than {n} systems with a candidate rated twice or more"
CONSTANT_HALVES = "the halves' means are constant in every split"
NO_RATING = "no rating of this system"
EXCLUDED_RATINGS_ONLY = "rated only by raters whom the quality check excluded"
IGNORED_RATINGS_ONLY = "every rater who rated this system is an ignored judge (parameters.ignored_judges)"
NO_RATING_BY_JUDGE = "no rating of this system by the selected judge (parameters.judge)"
NO_CONTROL_SCREEN = "no screen showed both Source and Source+error"
WILLIAMS_PERFECT = ("the two metrics correlate perfectly with each other (|r| = 1: one is an affine function of the "
                    "other), where the Williams test is undefined")
CONSTANT_METRIC = "the scores of {names} are constant, so {whose} correlation with the human scores is undefined"
NO_METRIC_SCORES = "no metric scores were given to the analysis (analyze --metrics DIR)"
NO_M2_SCORES = "the metric scores have no M2 precision and recall per system (scores.m2) to sweep beta over"
NOT_PRWS = "a relative-ranking campaign has no PRWS scores"
WILLIAMS_UNDEFINED = "the Williams statistic is 0/0 for these correlations"


def dumps(value: Any, indent: int | None = None) -> str:
    """``value`` as JSON text; raises ``ValueError`` on NaN or an infinity."""
    return json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False)


def render(analysis: Mapping) -> str:
    """The analysis as indented JSON in contract order, ending with a newline (the JSON report)."""
    return dumps(contract_order(analysis), indent=2) + "\n"


def number(value: float | int | None) -> float | None:
    """A finite number as float; NaN, an infinity or None as None (undefined)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def defined(value: float | int) -> float:
    """A number that is never undefined, as float; raises ``ValueError`` if it is not finite."""
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"a value that is always defined is {value}")
    return value


def fields(values: Mapping[str, Any], reasons: Mapping[str, str]) -> dict:
    """``values`` with undefined numbers as None and, if there is one, the ``reason`` key (module docstring).

    ``reasons`` gives the reason each field has when it is undefined; an undefined field without one (or with a
    blank one) is a bug and raises ``ValueError``.
    """
    result = {key: number(value) if isinstance(value, float) or value is None else value
              for key, value in values.items()}
    undefined = {key: reasons.get(key) for key, value in result.items() if value is None}
    if not undefined:
        return result
    unexplained = [key for key, reason in undefined.items() if reason is None or not reason.strip()]
    if unexplained:
        raise ValueError(f"undefined {', '.join(unexplained)} without a reason")
    result["reason"] = joined_reason(undefined)
    return result


def joined_reason(undefined: Mapping[str, str]) -> str:
    """The ``reason`` of an object whose fields ``undefined`` (field: its reason) are null: the one reason they
    share, or ``"field: reason; ..."``."""
    distinct = set(undefined.values())
    return distinct.pop() if len(distinct) == 1 else "; ".join(f"{k}: {r}" for k, r in undefined.items())


def bare_matrix(values, names: Sequence[str], reason: str | Callable[[int, int], str]) -> tuple[dict, dict]:
    """A (K, K) matrix over ``names`` as ``{row: {column: value}}`` without the diagonal, and the ``reasons`` of its
    undefined cells: ``reason``, or ``reason(i, j)`` for the cell (i, j) when it is a function."""
    matrix, reasons = {}, {}
    why = reason if callable(reason) else (lambda i, j: reason)
    for i, row in enumerate(names):
        matrix[row] = {column: number(values[i][j]) for j, column in enumerate(names) if j != i}
        undefined = {column: why(i, j) for j, column in enumerate(names) if j != i and matrix[row][column] is None}
        if undefined:
            reasons[row] = undefined
    return matrix, reasons


def parameters_json(parameters: AnalysisParameters, judge: str | None = None) -> dict:
    """The ``parameters`` object: the method parameters, the seed and the judge filter."""
    values = asdict(parameters)
    values["ignored_judges"] = list(parameters.ignored_judges)
    return {**values, "judge": judge}


def metrics_parameters_json(uploaded: Iterable[str], computed: Iterable[str], references: Iterable[str]) -> dict:
    """The ``parameters.metrics`` object: the metrics an analysis correlated with the human rankings, ``uploaded``
    (the scores files of ``--metrics DIR``) and ``computed`` from the campaign's ``references`` (the reference sets'
    names; the metrics that could not be computed from them are in ``metrics_computed.skipped``)."""
    return {"uploaded": sorted(uploaded), "computed": list(computed), "references": list(references)}


def snapshot_json(snapshot: Snapshot) -> dict:
    """The ``snapshot`` object: what data the analysis saw."""
    return fields(
        {"judgments": snapshot.judgments, "last_judgment_at": snapshot.last_judgment_at,
         "last_judgment_id": snapshot.last_judgment_id, "ignored_judgments": dict(sorted(snapshot.ignored.items()))},
        {"last_judgment_at": NO_JUDGMENTS, "last_judgment_id": NO_JUDGMENTS},
    )


def analysis_json(analysis: Analysis, *, campaign: str, snapshot: Mapping, judge: str | None = None) -> dict:
    """The analysis JSON of ``analysis`` of ``campaign``'s judgments in ``snapshot`` (a :func:`snapshot_json`)."""
    result = {
        "campaign": campaign,
        "parameters": parameters_json(analysis.parameters, judge),
        "snapshot": dict(snapshot),
        "pairs": {**analysis.pairs.total(), "per_judge": analysis.pairs.per_judge()},
        "agreement": _agreement(analysis),
    }
    for method in METHODS:
        ranking = analysis.rankings[method]
        result[method] = {**_ranking(ranking, analysis.shown, analysis.left_out_shown, analysis.ignored_shown,
                                     NOT_BY_JUDGE if judge else NEVER_JUDGED),
                          "bootstrap": ranking.n_samples}
    result["head_to_head"] = _head_to_head(analysis, head_to_head_order(result))
    result["per_judge"] = _per_judge(analysis.per_judge)
    absent: dict[str, str] = {}
    if analysis.metrics is not None:
        result.update(_metrics(analysis.metrics))
    else:
        result["metrics"], absent["metrics"] = None, NO_METRIC_SCORES
    if "beta_sweep" not in result:
        result["beta_sweep"] = None
        absent["beta_sweep"] = NO_METRIC_SCORES if analysis.metrics is None else NO_M2_SCORES
    if analysis.accuracy is not None or analysis.accuracy_skipped is not None:
        result["accuracy"] = _accuracy(analysis)
    if analysis.prws is not None:
        result["prws"] = _prws(analysis.prws, analysis.prws_metrics, analysis.ignored_shown,
                               NO_RATING_BY_JUDGE if judge else NO_RATING)
    else:
        result["prws"], absent["prws"] = None, NOT_PRWS
    if absent:
        result["reason"] = joined_reason(absent)
    dumps(result)
    return result


def head_to_head_order(analysis: Mapping) -> list[str]:
    """The systems of G15 Table 3d's rows and columns: by full-data Expected Wins score, best first, as G15's
    ``head2head.pl`` orders them (ties, and never-judged systems after all others, by name)."""
    rows = analysis["expected_wins"]["systems"]
    return [row["system"] for row in sorted(
        rows, key=lambda row: (row["full_data_score"] is None, -(row["full_data_score"] or 0.0), row["system"])
    )]


def _agreement(analysis: Analysis) -> dict:
    table = analysis.agreement
    judges = table.judges
    matrix = {}
    for i, a in enumerate(judges):
        matrix[a] = {}
        for j, b in enumerate(judges):
            comparisons = int(table.comparisons[i][j])
            empty = NO_REPEATED_PAIR if i == j else NO_SHARED_PAIR
            matrix[a][b] = fields({"kappa": float(table.kappa[i][j]), "comparisons": comparisons},
                                  {"kappa": empty if comparisons == 0 else ONE_RELATION})
    inter = [(int(table.comparisons[i][j]), float(table.kappa[i][j]))
             for i in range(len(judges)) for j in range(i + 1, len(judges))]
    intra = [(int(table.comparisons[i][i]), float(table.kappa[i][i])) for i in range(len(judges))]
    overall = fields(
        {"inter": float(table.inter), "intra": float(table.intra)},
        {"inter": _overall_reason(inter, table.min_comparisons, NO_INTER_SHARED, NO_INTER, NO_INTER_KAPPA)
         if len(judges) > 1 else ONE_JUDGE,
         "intra": _overall_reason(intra, table.min_comparisons, NO_INTRA_REPEATED, NO_INTRA, NO_INTRA_KAPPA)},
    )
    reason = overall.pop("reason", None)
    return {**overall, "matrix": matrix, **({"reason": reason} if reason else {})}


def _overall_reason(cells: list[tuple[int, float]], minimum: int, none: str, few: str, one_relation: str) -> str:
    """Why an overall kappa (the L-weighted mean of the cells with L >= ``minimum`` and a kappa, METHODS 4) is
    undefined, from its cells' (L, kappa): no comparison at all, none with enough, or every cell with enough has
    chance agreement 1 (the only way a cell with comparisons has no kappa)."""
    if not any(comparisons for comparisons, _ in cells):
        return none
    if not any(comparisons >= minimum for comparisons, _ in cells):
        return few.format(n=minimum)
    return one_relation.format(n=minimum)


def _ranking(
    ranking: RankingResult, shown: Collection[str] = (), left_out_shown: Collection[str] = (),
    ignored_shown: Collection[str] = (), unjudged: str = NEVER_JUDGED, sampled: str = SAMPLES_COMPARE,
) -> dict:
    """A ranking's systems; one without a score was never in a pair (in ``shown``), was judged only by raters
    rater QC excluded (in ``left_out_shown``), by ignored judges (in ``ignored_shown``) or by both, or has no
    judgment in the selection (``unjudged``: never judged, or, in the analysis of one judge, not by that judge).
    A judged system without a range is in too few bootstrap samples for one (``FEW_SAMPLES``; ``sampled`` says
    which systems a sample ranks)."""
    def reason(row: RankedSystem) -> str:
        if row.judged:
            return FEW_SAMPLES.format(n=row.samples, total=f"{ranking.n_samples:,}", confidence=ranking.confidence,
                                      rule=sampled)
        if row.system in shown:
            return NO_PAIRWISE
        left_out, ignored = row.system in left_out_shown, row.system in ignored_shown
        if left_out or ignored:
            return IGNORED_OR_EXCLUDED_ONLY if left_out and ignored else (
                EXCLUDED_RATERS_ONLY if left_out else IGNORED_JUDGES_ONLY)
        return unjudged

    return {"systems": [
        fields(
            {"system": row.system, "score": row.score, "full_data_score": row.full_data_score,
             "range": list(row.range) if row.ranked else None, "cluster": row.cluster},
            dict.fromkeys(("score", "full_data_score", "range", "cluster"), reason(row)),
        )
        for row in ranking.systems
    ]}


def _head_to_head(analysis: Analysis, order: list[str]) -> dict:
    table = analysis.head_to_head
    index = {name: i for i, name in enumerate(table.systems)}
    return {
        row: {
            column: fields(
                {"share": float(table.share[index[row]][index[column]]),
                 "p_value": float(table.p_value[index[row]][index[column]]),
                 "wins": int(table.wins[index[row]][index[column]]),
                 "losses": int(table.losses[index[row]][index[column]])},
                {"share": NO_DECISIVE_COMPARISON, "p_value": NO_DECISIVE_COMPARISON},
            )
            for column in order if column != row
        }
        for row in order
    }


def _per_judge(per_judge: PerJudge) -> dict:
    result: dict = {"rankings": {judge: _ranking(table, per_judge.shown.get(judge, ()), sampled=SAMPLES_WIN)
                                 for judge, table in per_judge.rankings.items()}}
    table = per_judge.correlations
    if table is None:
        return {**result, "correlations": None, "reason": per_judge.skipped}
    from .core.correlation import MIN_SYSTEMS

    def shared_reason(shared: int, few: str) -> str:
        return few.format(n=MIN_SYSTEMS, shared=shared) if shared < MIN_SYSTEMS else CONSTANT

    def cell_reason(i: int, j: int) -> str:
        return shared_reason(int(table.shared[i][j]), FEW_SHARED_JUDGES)

    spearman, reasons = bare_matrix(table.spearman, table.judges, cell_reason)
    pearson, pearson_reasons = bare_matrix(table.pearson, table.judges, cell_reason)
    for row, cells in pearson_reasons.items():
        reasons.setdefault(row, {}).update(cells)
    correlations = {
        "spearman": spearman,
        "pearson": pearson,
        "shared_systems": {
            judge: {other: int(table.shared[i][j]) for j, other in enumerate(table.judges) if j != i}
            for i, judge in enumerate(table.judges)
        },
        "rest": {
            judge: fields({"spearman": float(s), "pearson": float(p), "shared_systems": int(n)},
                          dict.fromkeys(("spearman", "pearson"), shared_reason(int(n), FEW_SHARED_REST)))
            for judge, s, p, n in zip(table.judges, table.rest_spearman, table.rest_pearson, table.rest_shared)
        },
        "weighted_mean_rest": fields(
            {"spearman": table.mean_rest_spearman, "pearson": table.mean_rest_pearson,
             "left_out": list(table.mean_left_out)},
            dict.fromkeys(("spearman", "pearson"), NO_JUDGE_IN_MEAN),
        ),
    }
    if reasons:
        correlations["reasons"] = reasons
    return {**result, "correlations": correlations}


def _metrics(metrics: MetricCorrelations) -> dict:
    from .core.correlation import MIN_SYSTEMS

    reason = FEW_SYSTEMS.format(n=MIN_SYSTEMS) if len(metrics.systems) < MIN_SYSTEMS else CONSTANT
    both = dict.fromkeys(("spearman", "pearson"), reason)
    sweeps = {
        name: [
            fields({"beta": defined(b), "spearman": float(s), "pearson": float(p)}, both)
            for b, s, p in zip(sweep.betas, sweep.spearman, sweep.pearson)
        ]
        for name, sweep in metrics.sweeps.items()
    }
    result = {
        "metrics": {
            name: fields({"spearman": c.spearman, "pearson": c.pearson}, both)
            for name, c in metrics.correlations.items()
        },
        "beta_sweeps": sweeps,
        "metric_significance": _significance(metrics.significance),
    }
    if "m2" in sweeps:
        result["beta_sweep"] = sweeps["m2"]
    return result


def _significance(significance: MetricSignificance) -> dict:
    result: dict = {"systems": list(significance.systems)}
    williams = significance.williams
    if williams is None:
        return {**result, "skipped": significance.skipped}
    names = williams.names

    def constant_reason(*indices: int) -> str:
        constant = [names[i] for i in dict.fromkeys(indices) if williams.constant[i]]
        return CONSTANT_METRIC.format(names=" and ".join(constant), whose="its" if len(constant) == 1 else "their")

    def cell_reason(i: int, j: int) -> str:
        if williams.constant[i] or williams.constant[j]:
            return constant_reason(i, j)
        return WILLIAMS_PERFECT if williams.perfectly[i][j] else WILLIAMS_UNDEFINED

    p_values, reasons = bare_matrix(williams.p_value, names, cell_reason)
    correlations = {name: number(r) for name, r in zip(names, williams.correlation)}
    result.update(correlations=correlations, p_values=p_values, df=int(williams.df))
    correlation_reasons = {name: constant_reason(i) for i, name in enumerate(names) if correlations[name] is None}
    if correlation_reasons:
        result["correlation_reasons"] = correlation_reasons
    if reasons:
        result["reasons"] = reasons
    return result


def _accuracy(analysis: Analysis) -> dict:
    from .core.accuracy import DEFAULT_TRAINING

    if analysis.accuracy is None:
        parameters = analysis.parameters
        return {
            method: fields(
                {"total_order": None, "clusters": None, "n_folds": parameters.accuracy_folds,
                 "n_boot": parameters.accuracy_bootstrap, "confidence": parameters.confidence,
                 "training": DEFAULT_TRAINING},
                dict.fromkeys(("total_order", "clusters"), analysis.accuracy_skipped),
            )
            for method in METHODS
        }
    return {
        method: fields(
            {"total_order": accuracy.total_order, "clusters": accuracy.clusters,
             "n_folds": int(accuracy.fold_clusters.size), "n_boot": accuracy.n_boot,
             "confidence": accuracy.confidence, "training": accuracy.training,
             "unpredictable_pairs": accuracy.unpredictable_pairs},
            {"total_order": NO_PREDICTABLE_DECISIVE, "clusters": NO_PREDICTABLE} if accuracy.unpredictable_pairs
            else {"total_order": NO_DECISIVE_HELD_OUT, "clusters": NO_HELD_OUT},
        )
        for method, accuracy in analysis.accuracy.items()
    }


def _prws(
    report: PrwsReport, metrics: MetricSignificance | None, ignored_shown: Collection[str] = (),
    unrated: str = NO_RATING,
) -> dict:
    """The ``prws`` key; a system without a rating was rated only by raters the quality check excluded, or only by
    ignored judges (in ``ignored_shown``), or has no rating in the selection (``unrated``: none, or, in the
    analysis of one judge, none by that judge)."""
    from .core.prws import MIN_UNITS

    def unrated_reason(s: int) -> str:
        if report.excluded_only is not None and report.excluded_only[s]:
            return EXCLUDED_RATINGS_ONLY
        return IGNORED_RATINGS_ONLY if report.stats.system_names[s] in ignored_shown else unrated

    stats, quality = report.stats, report.quality
    raters = [
        {"rater": quality.judge_names[j], "screens": int(quality.screens[j]), "rate": defined(quality.rate[j])}
        for j in report.checked_raters()
    ]
    reliability = report.reliability
    result = {
        "systems": [
            {"system": stats.system_names[s], "mean": defined(stats.mean[s]), "z_mean": defined(report.z_mean[s]),
             "sentences": int(stats.sentences[s]), "ratings": int(stats.ratings[s]),
             "unchanged_pct": defined(stats.unchanged_pct[s]),
             "meaning_changed_pct": defined(stats.meaning_changed_pct[s]), "control": bool(report.control[s]),
             "distribution": dict(zip(DISTRIBUTION_KEYS, map(float, report.distribution[s])))}
            for s in report.ranked_systems()
        ] + [
            fields(
                {"system": stats.system_names[s], "mean": None, "z_mean": None, "sentences": int(stats.sentences[s]),
                 "ratings": int(stats.ratings[s]),
                 "unchanged_pct": None, "meaning_changed_pct": None, "control": bool(report.control[s])},
                dict.fromkeys(("mean", "z_mean", "unchanged_pct", "meaning_changed_pct"), unrated_reason(s)),
            )
            for s in report.unrated_systems()
        ],
        "ratings": int(report.ratings),
        "raters": int(report.raters),
        "excluded_raters": [
            fields({"rater": name, "screens": int(screens), "rate": float(rate) if screens else None},
                   {"rate": NO_CONTROL_SCREEN})
            for name, screens, rate, excluded in zip(quality.judge_names, quality.screens, quality.rate,
                                                     quality.excluded)
            if excluded
        ],
        "quality": {"threshold": defined(quality.threshold), "raters": raters},
        "reliability": {
            "splits": reliability.splits,
            "sentence": _reliability(reliability.sentence_pearson, reliability.sentence_spearman, "candidates",
                                     reliability.candidates, MIN_UNITS, FEW_CANDIDATES),
            "system": _reliability(reliability.system_pearson, reliability.system_spearman, "systems",
                                   reliability.systems, MIN_UNITS, FEW_RATED_SYSTEMS),
        },
    }
    if metrics is not None:
        result["metrics"] = _significance(metrics)
    return result


def _reliability(pearson: float, spearman: float, units: str, count: int, minimum: int, few: str) -> dict:
    """One level of the split-half reliability over ``count`` units: undefined, with the reason ``few`` (formatted
    with ``n=minimum``) when they are fewer than ``minimum``, else for constant halves."""
    reason = few.format(n=minimum) if count < minimum else CONSTANT_HALVES
    return fields({"pearson": float(pearson), "spearman": float(spearman), units: int(count)},
                  dict.fromkeys(("pearson", "spearman"), reason))


def contract_order(analysis: Mapping) -> dict:
    """A copy of ``analysis`` with every object's keys in the contract's order (``contract_schema``): properties as
    the schema lists them, systems keyed by the head-to-head order, other names sorted; keys the schema does not
    know come last, sorted."""
    order = head_to_head_order(analysis) if "expected_wins" in analysis else []
    return _ordered(analysis, SCHEMA, {name: i for i, name in enumerate(order)})


def _ordered(value: Any, schema: Schema, systems: dict[str, int]) -> Any:
    schema = _branch(schema, value)
    if isinstance(value, Mapping):
        properties = schema.get("properties")
        if properties is not None:
            keys = [key for key in properties if key in value] + sorted(key for key in value if key not in properties)
            return {key: _ordered(value[key], properties.get(key, {}), systems) for key in keys}
        item = schema.get("additionalProperties", {})
        if schema.get("x-key-order") == "head_to_head":
            keys = sorted(value, key=lambda name: (name not in systems, systems.get(name, 0), name))
        else:
            keys = sorted(value)
        return {key: _ordered(value[key], item if isinstance(item, dict) else {}, systems) for key in keys}
    if isinstance(value, list):
        return [_ordered(item, schema.get("items", {}), systems) for item in value]
    return value


def _branch(schema: Schema, value: Any) -> Schema:
    """The branch of an ``anyOf`` that describes ``value``'s type (objects and arrays; others need no order)."""
    for option in schema.get("anyOf", ()):
        if option.get("type") == ("object" if isinstance(value, Mapping) else "array"):
            return option
    return schema
