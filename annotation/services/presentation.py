"""What a judge sees of a screen (G15 section 4.2, Figure 2a; METHODS 1).

The source sentence with one preceding and one following sentence of the same document (none across a document
boundary), and the candidates in their stored order, each as ``(op, text)`` diff spans against the source.
Nothing here carries a system name: candidates are known to the page only by their display position.
Templates escape every span's text; no HTML is built here.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from ..models import Segment
from .collapsing import diff_spans


@dataclass(frozen=True)
class ShownCandidate:
    """A candidate at display ``position`` (0-based) as diff spans (op in ``collapsing.SPAN_OPS``)."""

    position: int
    spans: list[tuple[str, str]]

    @property
    def number(self) -> int:
        """Its 1-based label on the screen ("Correction 2")."""
        return self.position + 1


@dataclass(frozen=True)
class ScreenDisplay:
    """The context and the candidates of one screen."""

    before: str | None
    source: str
    after: str | None
    candidates: list[ShownCandidate]


def context_of(segment: Segment) -> tuple[str | None, str | None]:
    """The sentences before and after ``segment`` in its document (None at a document's start or end)."""
    around = dict(
        Segment.objects.filter(
            document_id=segment.document_id, position__in=[segment.position - 1, segment.position + 1]
        ).values_list("position", "source")
    )
    return around.get(segment.position - 1), around.get(segment.position + 1)


def display(segment: Segment, slots: QuerySet) -> ScreenDisplay:
    """The display of ``segment`` with the candidates of ``slots`` (ScreenCandidate or TrainingCandidate rows)."""
    before, after = context_of(segment)
    candidates = [
        ShownCandidate(position, diff_spans(segment.source, text))
        for position, text in slots.order_by("position").values_list("position", "candidate__text")
    ]
    return ScreenDisplay(before=before, source=segment.source, after=after, candidates=candidates)
