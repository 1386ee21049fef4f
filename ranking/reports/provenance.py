"""What every report states so that it can be recomputed exactly (PRODUCT.md "Data in and out"): the campaign,
the data's snapshot (judgment count, last judgment time), the method parameters, the metrics and the random seed."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime

METHOD_NAMES = {"expected_wins": "Expected Wins", "trueskill": "TrueSkill"}
"""Display names of the ranking methods, keyed as in the analysis JSON."""

PARAMETER_LABELS = (
    ("bootstrap", "Bootstrap samples per method"),
    ("confidence", "Rank range confidence"),
    ("judge_confidence", "Per-judge rank range confidence"),
    ("chunk_size", "Bootstrap chunk size"),
    ("accuracy_folds", "Accuracy folds"),
    ("accuracy_bootstrap", "Accuracy bootstrap samples"),
    ("correlation_decimals", "Decimals of the human scores correlated with metrics"),
    ("ignored_judges", "Ignored judges"),
)
"""Method parameters of the analysis JSON with their labels, in the order reports list them (the seed and the
judge filter are listed on their own)."""


COUNTS = ("bootstrap", "chunk_size", "accuracy_folds", "accuracy_bootstrap")
"""The parameters that are counts, written by ``provenance``'s ``count``."""


def provenance(analysis: Mapping, count: Callable[[int], str] = str, worded: bool = False) -> list[tuple[str, str]]:
    """``(label, value)`` lines naming the campaign, the snapshot, the parameters and the seed of ``analysis``.

    Parameters absent from the analysis are left out; unknown ones are listed after the known ones by their key.
    The counts (judgments, ``COUNTS``) are written by ``count``: plain in the CSV and LaTeX reports, grouped in the
    HTML report (``formatting.grouped``); ids and the seed stay plain. ``worded`` (the HTML and LaTeX reports, for
    people; not the CSV report) words the values that are not plain numbers (``_parameter``).
    """
    snapshot = analysis.get("snapshot") or {}
    parameters = dict(analysis.get("parameters") or {})
    ignored = snapshot.get("ignored_judgments") or {}
    lines = [
        ("Campaign", str(analysis.get("campaign", ""))),
        ("Judgments (snapshot)", _text(snapshot.get("judgments"), count=count)),
        *([("Judgments of ignored judges", ", ".join(f"{judge}: {count(n)}" for judge, n in sorted(ignored.items())))]
          if ignored else []),
        ("Last judgment", _time(snapshot.get("last_judgment_at"))),
        ("Last judgment id", _text(snapshot.get("last_judgment_id"))),
        ("Random seed", _text(parameters.pop("seed", None))),
        ("Judge", _text(parameters.pop("judge", None), none="all judges")),
    ]
    for key, label in PARAMETER_LABELS:
        if key in parameters:
            value = parameters.pop(key)
            lines.append((label, _parameter(key, value, count) if worded else _text(value)))
    if "metrics" in parameters:
        lines.append(("Metrics", _metrics(parameters.pop("metrics"))))
    lines.extend((key, _text(value)) for key, value in parameters.items())
    return lines


def _metrics(metrics: Mapping) -> str:
    """``parameters.metrics`` as text: the metrics computed from the campaign's references, and those uploaded."""
    from .computed_metrics import NAMES

    parts = []
    if metrics["computed"]:
        parts.append(f"{', '.join(NAMES.get(name, name) for name in metrics['computed'])} computed from the "
                     f"campaign's references ({', '.join(metrics['references'])})")
    elif metrics["references"]:
        parts.append(f"none computed from the campaign's references ({', '.join(metrics['references'])})")
    if metrics["uploaded"]:
        parts.append(f"{', '.join(metrics['uploaded'])} uploaded (--metrics)")
    return "; ".join(parts) or "none"


def _parameter(key: str, value: object, count: Callable[[int], str]) -> str:
    """A parameter's value as a reader takes it: the decimals of the correlated scores read "none", as if rounded
    to none (they are not rounded), and 0 accuracy folds as a number of folds (Table 4 is not computed)."""
    if key == "correlation_decimals" and value is None:
        return "not rounded"
    if key == "accuracy_folds" and value == 0:
        return "0 (prediction accuracy not computed)"
    return _text(value, count=count if key in COUNTS else str)


def _text(value: object, none: str = "none", count: Callable[[int], str] = str) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(item) for item in value) or none
    return none if value is None else count(value)


def _time(iso: str | None) -> str:
    """An ISO 8601 time as ``2026-11-22 09:24:39 UTC`` (to the second); text that is not one stays as it is."""
    if iso is None:
        return "none"
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if moment.tzinfo is not None:
        return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return moment.strftime("%Y-%m-%d %H:%M:%S")
