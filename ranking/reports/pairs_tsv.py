"""Pairwise judgments as TSV (G15 section 4.3): unexpanded (one row per two shown candidates) and expanded (one row
per two systems). Columns: judge, segment (unexpanded only), first, second, relation, where ``<`` means the first is
ranked better, ``=`` a tie and ``>`` the second better; names in lexicographic order, as METHODS 3 keys them.
Cells are written by ``gecappraise.safe_csv`` (quoted when they hold a tab, quote or line break; formula-like names
get a leading ``'``).

Rows follow the rankings in stored order, and each ranking's pairs the order of ``core.pairs``. The rankings come
in batches (``loading.ranking_batches``), a chunk of text per batch, so that a download holds one batch in memory
whatever the number of judgments: on 200,000 rankings of 31 systems the expanded file is 1.8 GB of text.
"""
from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator

from gecappraise.safe_csv import SafeWriter

from ..core.pairs import expanded_pairs, unexpanded_pairs
from ..core.rankings import Rankings

RELATION = {-1: "<", 0: "=", 1: ">"}
UNEXPANDED_HEADER = ("judge", "segment", "first", "second", "relation")
EXPANDED_HEADER = ("judge", "first", "second", "relation")


def _tsv_chunks(
    header: tuple[str, ...], batches: Iterable[Rankings], rows: Callable[[Rankings], Iterable[tuple]]
) -> Iterator[str]:
    """The header and the ``rows`` of each of the ``batches``, a chunk per batch (one without rows adds none)."""
    out = io.StringIO()
    writer = SafeWriter(out, delimiter="\t")
    writer.writerow(header)
    for rankings in batches:
        writer.writerows(rows(rankings))
        if out.tell():
            yield out.getvalue()
            out.seek(0)
            out.truncate()
    if out.tell():
        yield out.getvalue()


def _unexpanded_rows(rankings: Rankings) -> Iterator[tuple]:
    pairs = unexpanded_pairs(rankings)
    names, judges = rankings.candidate_names, rankings.judge_names
    for j, s, a, b, r in zip(pairs.judge.tolist(), pairs.segment.tolist(), pairs.first.tolist(),
                             pairs.second.tolist(), pairs.relation.tolist()):
        yield judges[j], s, names[a], names[b], RELATION[r]


def _expanded_rows(rankings: Rankings) -> Iterator[tuple]:
    pairs = expanded_pairs(rankings)
    names, judges = rankings.system_names, rankings.judge_names
    for j, a, b, r in zip(pairs.judge.tolist(), pairs.first.tolist(), pairs.second.tolist(), pairs.relation.tolist()):
        yield judges[j], names[a], names[b], RELATION[r]


def unexpanded_tsv_chunks(batches: Iterable[Rankings]) -> Iterator[str]:
    """One row per two candidates shown together; candidates named by their systems (``"IITB INPUT IPN"``)."""
    return _tsv_chunks(UNEXPANDED_HEADER, batches, _unexpanded_rows)


def expanded_tsv_chunks(batches: Iterable[Rankings]) -> Iterator[str]:
    """One row per two systems a screen covered (ties within a collapsed candidate included)."""
    return _tsv_chunks(EXPANDED_HEADER, batches, _expanded_rows)


def unexpanded_tsv(rankings: Rankings) -> str:
    """``unexpanded_tsv_chunks`` of ``rankings`` as one text."""
    return "".join(unexpanded_tsv_chunks([rankings]))


def expanded_tsv(rankings: Rankings) -> str:
    """``expanded_tsv_chunks`` of ``rankings`` as one text."""
    return "".join(expanded_tsv_chunks([rankings]))
