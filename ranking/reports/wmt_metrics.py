"""Metric scores in the WMT metrics task formats (tab-separated, one score per line).

System level: ``METRIC<TAB>LP<TAB>TESTSET<TAB>SYSTEM<TAB>SCORE``; segment level:
``METRIC<TAB>LP<TAB>TESTSET<TAB>SYSTEM<TAB>SEGMENT<TAB>SCORE`` with segments numbered from 1. Metric names are
lower case; the language pair is the campaign's ``source-target`` (``err-cor`` by default), the test set its name.
"""
from __future__ import annotations

from collections.abc import Mapping

from ..automatic_metrics import MetricScores


def _field(value: str) -> str:
    return value.replace("\t", " ").replace("\n", " ")


def system_level(scores: Mapping[str, MetricScores], language_pair: str, test_set: str) -> str:
    """All system scores of all metrics, metrics in the given order and systems by name."""
    lines = [
        f"{metric.lower()}\t{_field(language_pair)}\t{_field(test_set)}\t{system}\t{value:.6f}"
        for metric, result in scores.items()
        for system, value in sorted(result.system.items())
    ]
    return "".join(line + "\n" for line in lines)


def segment_level(scores: Mapping[str, MetricScores], language_pair: str, test_set: str) -> str:
    """All sentence scores of all metrics, by metric, system and segment number."""
    lines = [
        f"{metric.lower()}\t{_field(language_pair)}\t{_field(test_set)}\t{system}\t{number}\t{value:.6f}"
        for metric, result in scores.items()
        for system, values in sorted(result.segments.items())
        for number, value in enumerate(values, 1)
    ]
    return "".join(line + "\n" for line in lines)
