"""Turns a campaign's test set and references into the inputs of the automatic metrics (``core/m2.py``, GLEU, chrF).

Systems of kind ``control`` are not scored (they are attention checks, not contestants); the source (kind
``input``) is scored like any system, as CoNLL-14's INPUT is.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from annotation.models import GoldEdit, Output, ReferenceSet, ReferenceText, System


@dataclass
class MetricInputs:
    """Per segment line: the source, each system's output, the M2 gold edits (annotator id to that annotator's
    edits in file order, noop annotators with no edits; None without an M2 set) and each reference text."""

    campaign: str
    sources: list[str]
    outputs: dict[str, list[str]]
    gold: list[dict[int, list[tuple[int, int, str, tuple[str, ...]]]]] | None = None
    gold_types: list[dict[int, list[str]]] | None = None
    references: dict[str, list[str]] = field(default_factory=dict)


def load_metric_inputs(campaign, reference_sets: Sequence[ReferenceSet] | None = None) -> MetricInputs:
    """Read a campaign's sources, system outputs and references (``reference_sets``, by default all of the
    campaign's) in line order."""
    if reference_sets is None:
        reference_sets = list(campaign.reference_sets.all())
    segments = list(campaign.segments.order_by("line").values_list("id", "source"))
    line_of = {segment_id: line for line, (segment_id, _) in enumerate(segments)}
    sources = [source for _, source in segments]
    outputs: dict[str, list[str]] = {}
    rows = (
        Output.objects.filter(segment__campaign=campaign)
        .exclude(system__kind=System.Kind.CONTROL)
        .values_list("system__name", "segment_id", "candidate__text")
    )
    for name, segment_id, text in rows:
        outputs.setdefault(name, [""] * len(segments))[line_of[segment_id]] = text
    inputs = MetricInputs(campaign.name, sources, dict(sorted(outputs.items())))
    m2_set = next((r for r in reference_sets if r.kind == ReferenceSet.Kind.M2), None)
    if m2_set is not None:
        gold: list[dict] = [{} for _ in segments]
        types: list[dict] = [{} for _ in segments]
        edits = GoldEdit.objects.filter(reference_set=m2_set).order_by("segment_id", "position")
        for segment_id, annotator, start, end, error_type, corrections in edits.values_list(
            "segment_id", "annotator", "start", "end", "error_type", "corrections"
        ):
            line = line_of[segment_id]
            annotator_edits = gold[line].setdefault(annotator, [])
            annotator_types = types[line].setdefault(annotator, [])
            if start >= 0:
                original = " ".join(sources[line].split()[start:end])
                annotator_edits.append((start, end, original, tuple(corrections)))
                annotator_types.append(error_type)
        for by_annotator, by_annotator_types in zip(gold, types):
            if not by_annotator:
                by_annotator[0] = []
                by_annotator_types[0] = []
        inputs.gold = gold
        inputs.gold_types = types
    for reference_set in sorted((r for r in reference_sets if r.kind == ReferenceSet.Kind.TEXT), key=lambda r: r.name):
        lines = [""] * len(segments)
        for segment_id, text in ReferenceText.objects.filter(reference_set=reference_set).values_list(
            "segment_id", "text"
        ):
            lines[line_of[segment_id]] = text
        inputs.references[reference_set.name] = lines
    return inputs
