"""What a judge sees of a screen (G15 section 4.2, Figure 2a; METHODS 1).

The source sentence with one preceding and one following sentence of the same document (none across a document
boundary), and the candidates in their stored order, each as ``(op, text)`` diff spans against the source.
Nothing here carries a system name: candidates are known to the page by their display position and, on a
served screen, by a key (``candidate_key``) that names the candidate for that serving only; the page posts the
keys back with the judgment, so that ranks go to the candidates the judge saw (``queue`` checks them).
Templates escape every span's text; no HTML is built here.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db.models import QuerySet
from django.utils.crypto import salted_hmac

from ..models import Segment
from .collapsing import diff_spans

#: Hex digits of a candidate key (80 bits).
KEY_LENGTH = 20


@dataclass(frozen=True)
class ShownCandidate:
    """A candidate at display ``position`` (0-based) as diff spans (op in ``collapsing.SPAN_OPS``), with its key on
    a served screen (``candidate_key``; empty on a training screen)."""

    position: int
    spans: list[tuple[str, str]]
    key: str = ""

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


def candidate_key(token: uuid.UUID, candidate_id: int) -> str:
    """The key of candidate ``candidate_id`` on the screen served as ``token``: an HMAC of both under SECRET_KEY.

    Unlike the candidate's id, it tells a judge nothing (ids follow the systems' order at import) and differs
    between servings, so a page can only post keys of the serving it shows.
    """
    return salted_hmac(
        "annotation.candidate-key", f"{token}:{candidate_id}", algorithm="sha256"
    ).hexdigest()[:KEY_LENGTH]


def _key(token: uuid.UUID | None, candidate_id: int) -> str:
    return candidate_key(token, candidate_id) if token else ""


def context_of(segment: Segment) -> tuple[str | None, str | None]:
    """The sentences before and after ``segment`` in its document (None at a document's start or end)."""
    around = dict(
        Segment.objects.filter(
            document_id=segment.document_id, position__in=[segment.position - 1, segment.position + 1]
        ).values_list("position", "source")
    )
    return around.get(segment.position - 1), around.get(segment.position + 1)


def display(
    segment: Segment, slots: QuerySet, token: uuid.UUID | None = None, *, show_replaced: bool = False
) -> ScreenDisplay:
    """The display of ``segment`` with the candidates of ``slots`` (ScreenCandidate or TrainingCandidate rows), keyed
    for the serving ``token`` when given; with ``show_replaced`` (``Campaign.show_replaced_words``) each substitution
    shows the source words it replaces first (``diff_spans``)."""
    before, after = context_of(segment)
    candidates = [
        ShownCandidate(position, diff_spans(segment.source, text, show_replaced=show_replaced), _key(token, pk))
        for position, pk, text in slots.order_by("position").values_list("position", "candidate_id", "candidate__text")
    ]
    return ScreenDisplay(before=before, source=segment.source, after=after, candidates=candidates)
