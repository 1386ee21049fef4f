"""The judge's screen's repeated markup as filters: ``{{ candidate.spans|correction_spans }}`` (a correction's diff
spans from ``collapsing.diff_spans``, with the replaced words where the campaign shows them) and
``{{ choices|rank_radios:candidate.position }}`` (a correction's rank buttons).

One ``format_html`` per element instead of template loops: the judge's screen is the page served most, and these
loops were a third of its rendering time (``benchmarks/load.py``).
"""
from collections.abc import Iterable

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_TITLES = {"insert": "inserted", "replace": "replaced"}


def _span(op: str, text: str) -> SafeString:
    if op == "equal":
        return format_html('<span data-op="equal">{}</span>', text)
    if op == "delete":
        return format_html('<del data-op="delete" title="deleted">{}</del>', text)
    if op == "replaced":
        return format_html('<del data-op="replaced" class="replaced" title="replaced">{}</del>', text)
    return format_html('<ins data-op="{}" title="{}">{}</ins>', op, _TITLES.get(op, "replaced"), text)


@register.filter
def correction_spans(spans: Iterable[tuple[str, str]]) -> SafeString:
    """The spans as ``<span>`` (equal), ``<del>`` (deleted, or replaced words shown struck) and ``<ins>`` (inserted
    or replacing) elements with ``data-op``, separated by single spaces; texts escaped."""
    return mark_safe(" ".join(_span(op, text) for op, text in spans))


@register.filter
def rank_radios(choices: Iterable[tuple[int, str, bool]], position: int) -> SafeString:
    """A labelled radio button ``rank_{position}`` per (value, word, checked) choice; a word (e.g. "best") is read
    to screen readers only."""
    return mark_safe("\n".join(
        format_html(
            '<label class="rank"><input type="radio" name="rank_{}" value="{}"{}><span class="rank-value">{}</span>{}'
            "</label>",
            position, value, mark_safe(" checked") if checked else "", value,
            format_html('<span class="visually-hidden"> ({})</span>', word.lower()) if word else "",
        )
        for value, word, checked in choices
    ))
