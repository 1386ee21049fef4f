"""Appraise XML judgments into and out of a campaign's database rows.

Import maps every ``src-id`` to the campaign's Segment with that line and every ``system="A B C"`` group to the
Candidate of that segment produced by exactly those systems; any mismatch rejects the whole file with a message
naming the item. Each ranking item becomes a Screen (its candidates in the item's order), a submitted Assignment
for its user, and a Judgment keeping the item's id, doc-id, result group and duration, so that export writes the
same file back (``write_appraise_xml`` reproduces the layout of judgments.xml byte for byte).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction

from ..models import Campaign, Candidate, CandidateJudgment, Judgment
from .appraise_xml import AppraiseResults, AppraiseXMLError, RankingItem, parse_appraise_xml, write_appraise_xml
from .collapsing import candidate_name
from .judged_screens import JudgedCandidate, JudgedScreen, write_judged_screens
from .outputs import candidate_systems

FLAG_REASON_IMPORTED = "skipped in Appraise"


@dataclass(frozen=True)
class AppraiseImportSummary:
    """What an import added."""

    rankings: int
    skipped: int
    judges: int


def candidate_lookup(campaign: Campaign) -> dict[int, dict[frozenset[str], int]]:
    """For every segment line, the candidate id of each set of systems that produced one output."""
    systems = candidate_systems(campaign)
    lookup: dict[int, dict[frozenset[str], int]] = defaultdict(dict)
    for candidate_id, line in Candidate.objects.filter(segment__campaign=campaign).values_list("id", "segment__line"):
        lookup[line][frozenset(systems[candidate_id])] = candidate_id
    return lookup


def _resolve(item: RankingItem, lookup: dict[int, dict[frozenset[str], int]], max_rank: int) -> list[int]:
    where = f"ranking-item id={item.id!r} (user {item.user}, src-id {item.src_id})"
    if item.src_id not in lookup:
        raise AppraiseXMLError(f"{where}: the campaign has no segment with line {item.src_id}")
    candidates = lookup[item.src_id]
    resolved = []
    for systems, rank in item.translations:
        candidate = candidates.get(frozenset(systems))
        if candidate is None or len(set(systems)) != len(systems):
            known = "; ".join(sorted(candidate_name(names) for names in candidates))
            raise AppraiseXMLError(
                f"{where}: no output of line {item.src_id} is produced by exactly {' '.join(systems)!r} "
                f"(its outputs come from: {known})"
            )
        if rank > max_rank:
            raise AppraiseXMLError(f"{where}: rank {rank} is above the campaign's M = {max_rank}")
        if candidate in resolved:
            raise AppraiseXMLError(f"{where}: the output of {' '.join(systems)!r} is ranked twice")
        resolved.append(candidate)
    return resolved


def import_appraise_xml(campaign: Campaign, data: bytes) -> AppraiseImportSummary:
    """Add the rankings of an Appraise XML file to ``campaign``, all or nothing."""
    results = parse_appraise_xml(data)
    lookup = candidate_lookup(campaign)
    resolved = [_resolve(item, lookup, campaign.max_candidates) for item in results.items]
    with transaction.atomic():
        judged = [_judged(item, candidates) for item, candidates in zip(results.items, resolved)]
        users = write_judged_screens(campaign, judged)
        languages = next(iter(results.groups.values()), {})
        if languages:
            campaign.source_language = languages.get("source-language", campaign.source_language)
            campaign.target_language = languages.get("target-language", campaign.target_language)
            campaign.save(update_fields=["source_language", "target_language"])
    return AppraiseImportSummary(
        rankings=len(results.items),
        skipped=sum(item.skipped for item in results.items),
        judges=len(users),
    )


def _judged(item: RankingItem, candidates: list[int]) -> JudgedScreen:
    """An Appraise item as a judged screen, keeping its ids and duration; skipped items are flagged."""
    return JudgedScreen(
        line=item.src_id,
        judge=item.user,
        candidates=[JudgedCandidate(c, rank=rank) for c, (_, rank) in zip(candidates, item.translations)],
        duration=item.duration,
        flag_reason=FLAG_REASON_IMPORTED if item.skipped else None,
        external_id=item.id,
        external_doc_id=item.doc_id,
        external_group=item.group,
    )


def campaign_rankings(campaign: Campaign) -> AppraiseResults:
    """The campaign's submitted ranking judgments as Appraise items, in the order they were stored.

    Imported judgments keep their Appraise ids; judgments made here are numbered by their database id, with the
    document name and line as doc-id and the campaign name as result group.
    """
    names = candidate_systems(campaign)
    ranks: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for judgment_id, candidate_id, rank in (
        CandidateJudgment.objects.filter(judgment__assignment__screen__campaign=campaign, rank__isnull=False)
        .order_by("judgment_id", "position")
        .values_list("judgment_id", "candidate_id", "rank")
    ):
        ranks[judgment_id].append((candidate_id, rank))
    judgments = (
        Judgment.objects.filter(assignment__screen__campaign=campaign)
        .order_by("id")
        .values_list(
            "id",
            "external_id",
            "external_doc_id",
            "external_group",
            "duration",
            "assignment__judge__username",
            "assignment__screen__segment__line",
            "assignment__screen__segment__document__name",
            "flag__id",
        )
    )
    results = AppraiseResults()
    for pk, ext_id, ext_doc, group, duration, user, line, document, flag in judgments:
        if flag is None and not ranks[pk]:
            continue
        group = group or campaign.name
        results.groups.setdefault(
            group, {"source-language": campaign.source_language, "target-language": campaign.target_language}
        )
        results.items.append(
            RankingItem(
                id=ext_id or str(pk),
                doc_id=ext_doc or f"{document}-{line}",
                src_id=line,
                user=user,
                duration=duration,
                skipped=flag is not None,
                translations=[(tuple(sorted(names[c])), rank) for c, rank in ranks[pk]] if flag is None else [],
                group=group,
            )
        )
    return results


def export_appraise_xml(campaign: Campaign) -> str:
    """The campaign's ranking judgments as Appraise XML, in the schema of judgments.xml."""
    return write_appraise_xml(campaign_rankings(campaign))
