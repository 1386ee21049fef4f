"""Pairwise judgments as TSV (G15 section 4.3): unexpanded (one row per two shown candidates) and expanded (one row
per two systems). Columns: judge, segment (unexpanded only), first, second, relation, where ``<`` means the first is
ranked better, ``=`` a tie and ``>`` the second better; names in lexicographic order, as METHODS 3 keys them.
Cells are written by ``gecappraise.safe_csv`` (quoted when they hold a tab, quote or line break; formula-like names
get a leading ``'``)."""
from __future__ import annotations

import io

from gecappraise.safe_csv import SafeWriter

from ..core.pairs import expanded_pairs, unexpanded_pairs
from ..core.rankings import Rankings

RELATION = {-1: "<", 0: "=", 1: ">"}


def _tsv(header: tuple[str, ...], rows) -> str:
    out = io.StringIO()
    writer = SafeWriter(out, delimiter="\t")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def unexpanded_tsv(rankings: Rankings) -> str:
    """One row per two candidates shown together; candidates named by their systems (``"IITB INPUT IPN"``)."""
    pairs = unexpanded_pairs(rankings)
    names, judges = rankings.candidate_names, rankings.judge_names
    return _tsv(
        ("judge", "segment", "first", "second", "relation"),
        (
            (judges[j], s, names[a], names[b], RELATION[r])
            for j, s, a, b, r in zip(pairs.judge.tolist(), pairs.segment.tolist(), pairs.first.tolist(),
                                     pairs.second.tolist(), pairs.relation.tolist())
        ),
    )


def expanded_tsv(rankings: Rankings) -> str:
    """One row per two systems a screen covered (ties within a collapsed candidate included)."""
    pairs = expanded_pairs(rankings)
    names, judges = rankings.system_names, rankings.judge_names
    return _tsv(
        ("judge", "first", "second", "relation"),
        (
            (judges[j], names[a], names[b], RELATION[r])
            for j, a, b, r in zip(pairs.judge.tolist(), pairs.first.tolist(), pairs.second.tolist(),
                                  pairs.relation.tolist())
        ),
    )
