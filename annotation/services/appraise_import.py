"""Appraise XML judgments into and out of a campaign's database rows.

Import maps every ``src-id`` to the campaign's Segment with that line and every ``system="A B C"`` group to the
Candidate of that segment produced by exactly those systems; any mismatch rejects the whole file with a message
naming the item. Each ranking item becomes a Screen (its candidates in the item's order), a submitted Assignment
for its user, and a Judgment keeping the item's id, doc-id, result group and duration, so that export writes the
same file back (``write_appraise_xml`` reproduces the layout of judgments.xml byte for byte).

An import is idempotent: an item is known by its user and id, and an item the campaign holds already (imported
before, or exported from here: judgments made here have their database id as Appraise id) is left out and counted;
one that differs from what the campaign holds is refused, as is a file holding one (user, id) twice. Users are
accounts local to the campaign unless mapped explicitly (``judged_screens``, ``judge_accounts``); only relative
ranking campaigns take Appraise XML, and files are limited to ``settings.MAX_UPLOAD_BYTES``.
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import BinaryIO

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Min, QuerySet
from django.template.defaultfilters import pluralize

from gecappraise.plurals import counted

from ..models import Campaign, Candidate, CandidateJudgment, Judgment, JudgmentSnapshot
from .appraise_xml import (
    AppraiseResults,
    AppraiseXMLError,
    RankingItem,
    appraise_xml_chunks,
    parse_appraise_xml,
)
from .collapsing import candidate_name
from .field_rules import composed, same_name_key
from .judged_screens import (
    JudgeAccountError,
    JudgedCandidate,
    JudgedScreen,
    user_map_problem,
    write_judged_screens,
)
from .outputs import batched, candidate_systems, shared_system_tuples, streamed_by_judgment

FLAG_REASON_IMPORTED = "skipped in Appraise"


@dataclass(frozen=True)
class AppraiseImportSummary:
    """What an import added: rankings (of which ``skipped`` were flagged in Appraise) by ``judges`` judges;
    ``already``: items of the file the campaign held before, left out."""

    rankings: int
    skipped: int
    judges: int
    already: int = 0

    def as_result(self) -> dict[str, int]:
        """The summary as the API answers it and a background job keeps it (``already`` as ``already_imported``)."""
        return {"rankings": self.rankings, "skipped": self.skipped, "judges": self.judges,
                "already_imported": self.already}

    @classmethod
    def from_result(cls, result: Mapping) -> AppraiseImportSummary:
        """The summary of ``as_result``'s dict (a background job's result)."""
        return cls(result["rankings"], result["skipped"], result["judges"], result.get("already_imported", 0))

    def text(self, into: str = "") -> str:
        """The import in the organizer's words, ``into`` (e.g. " into 'toy'") after the judges: "Imported 2 rankings
        (1 skipped) by 2 judges. 3 rankings were imported before and left out." (singular where one)."""
        said = (f"Imported {counted(self.rankings, 'ranking')} ({self.skipped:,} skipped) by "
                f"{counted(self.judges, 'judge')}{into}.")
        if self.already:
            said += (f" {counted(self.already, 'ranking')} {pluralize(self.already, 'was,were')} "
                     "imported before and left out.")
        return said


def candidate_lookup(campaign: Campaign) -> dict[int, dict[frozenset[str], int]]:
    """For every segment line, the candidate id of each set of systems that produced one output, the systems named
    in their composed form (``field_rules.composed``: a file may encode a name's accents otherwise)."""
    systems = candidate_systems(campaign)
    lookup: dict[int, dict[frozenset[str], int]] = defaultdict(dict)
    for candidate_id, line in Candidate.objects.filter(segment__campaign=campaign).values_list("id", "segment__line"):
        lookup[line][frozenset(composed(system) for system in systems[candidate_id])] = candidate_id
    return lookup


def _resolve(item: RankingItem, lookup: dict[int, dict[frozenset[str], int]], m: int) -> list[int]:
    """The candidate ids the item ranks, in its order; AppraiseXMLError when its line, an output or a rank is not
    the campaign's, or when it ranks more outputs than a screen of the campaign shows (``m``, its max_candidates)."""
    where = item.where()
    if item.src_id not in lookup:
        raise AppraiseXMLError(f"{where}: the campaign has no segment with line {item.src_id}")
    if len(item.translations) > m:
        raise AppraiseXMLError(
            f"{where}: {len(item.translations)} translations, but a screen of the campaign shows at most "
            f"M = {m} outputs"
        )
    candidates = lookup[item.src_id]
    resolved = []
    for systems, rank in item.translations:
        named = {composed(system) for system in systems}
        candidate = candidates.get(frozenset(named))
        if candidate is None or len(named) != len(systems):
            known = "; ".join(sorted(candidate_name(names) for names in candidates))
            raise AppraiseXMLError(
                f"{where}: no output of line {item.src_id} is produced by exactly {' '.join(systems)!r} "
                f"(its outputs come from: {known})"
            )
        if rank > m:
            raise AppraiseXMLError(f"{where}: rank {rank} is above the campaign's M = {m}")
        if candidate in resolved:
            raise AppraiseXMLError(f"{where}: the output of {' '.join(systems)!r} is ranked twice")
        resolved.append(candidate)
    return resolved


def check_takes_appraise_xml(campaign: Campaign) -> None:
    """AppraiseXMLError unless ``campaign`` is a relative ranking campaign: Appraise XML holds rankings."""
    if campaign.mode != Campaign.Mode.RANKING:
        raise AppraiseXMLError(
            f"{campaign.name!r} is a {campaign.get_mode_display().lower()} campaign; Appraise XML holds relative "
            "rankings and goes into relative ranking campaigns"
        )


def import_appraise_xml(
    campaign: Campaign,
    source: bytes | BinaryIO,
    users: Mapping[str, str] | None = None,
    by: AbstractBaseUser | None = None,
) -> AppraiseImportSummary:
    """Add the rankings of an Appraise XML file (bytes or a binary file) to ``campaign``, all or nothing.

    ``users`` maps user names of the file to the accounts that receive their rankings (explicitly: the only way to
    reach an account that is not a judge of this campaign alone); ``by`` is the organizer importing on the web
    (None on the command line). Items the campaign holds already are left out and counted (module docstring).
    Raises AppraiseXMLError naming the item at fault; nothing is written then.
    """
    check_takes_appraise_xml(campaign)
    results = parse_appraise_xml(source, limit=settings.MAX_UPLOAD_BYTES)
    users = dict(users or {})
    items = _mapped(results.items, users)
    lookup = candidate_lookup(campaign)
    resolved = [_resolve(item, lookup, campaign.max_candidates) for item in items]
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        _check_languages(campaign, results.languages)
        new = _not_imported_before(campaign, list(zip(items, resolved)))
        try:
            written = write_judged_screens(
                campaign, [_judged(item, candidates) for item, candidates in new], set(users.values()), by
            )
        except JudgeAccountError as error:
            where = next(item for item in items if item.user == error.name).where()
            raise AppraiseXMLError(error.refusal(where, "user", "judges", users)) from None
        if results.languages:
            campaign.source_language = results.languages.get("source-language", campaign.source_language)
            campaign.target_language = results.languages.get("target-language", campaign.target_language)
            campaign.save(update_fields=["source_language", "target_language"])
    return AppraiseImportSummary(
        rankings=len(new),
        skipped=sum(item.skipped for item, _ in new),
        judges=len(written),
        already=len(items) - len(new),
    )


def _check_languages(campaign: Campaign, languages: Mapping[str, str]) -> None:
    """AppraiseXMLError when the file's languages (its results' ``source-language`` and ``target-language``) are
    not the campaign's and the campaign holds judgments: it keeps one language pair and exports every judgment with
    it, so taking the file's would change the languages of the judgments it holds."""
    held = (campaign.source_language, campaign.target_language)
    wanted = (languages.get("source-language", held[0]), languages.get("target-language", held[1]))
    if wanted != held and Judgment.objects.filter(assignment__campaign=campaign).exists():
        raise AppraiseXMLError(
            f"the file's results are in {'-'.join(wanted)!r}, but {campaign.name!r} holds judgments in "
            f"{'-'.join(held)!r}; a campaign has one language pair (import the file into a campaign of its own)"
        )


def _mapped(items: list[RankingItem], users: dict[str, str]) -> list[RankingItem]:
    """The items with their users mapped; AppraiseXMLError for a map that names no user of the file or would merge
    two of its users, for two users (accounts, once mapped) whose names are one name to a reader (``same_name_key``:
    'Ann' and 'ann' would be two accounts, one judge's rankings split between them), and for a (user, id) given
    twice."""
    problem = user_map_problem(users, {item.user for item in items})
    if problem is not None:
        raise AppraiseXMLError(problem)
    mapped = [dataclasses.replace(item, user=users.get(item.user, item.user)) for item in items]
    spelled: dict[str, RankingItem] = {}
    for item in mapped:
        earlier = spelled.setdefault(same_name_key(item.user), item)
        if earlier.user != item.user:
            at = f" of line {earlier.line}" if earlier.line is not None else ""
            raise AppraiseXMLError(
                f"{item.where()}: user {item.user!r} is {earlier.user!r}{at} written otherwise (in letter case, or in "
                "how its accents are encoded); write a user's name the same way in every item, or map one of them to "
                "another account (the user map, --map-user on the command line)"
            )
    first: dict[tuple[str, str], RankingItem] = {}
    for item in mapped:
        earlier = first.setdefault((item.user, item.id), item)
        if earlier is not item:
            at = f" at line {earlier.line}" if earlier.line is not None else ""
            raise AppraiseXMLError(f"{item.where()}: the file has a ranking-item of this user and id already{at}")
    return mapped


def _content(item: RankingItem) -> tuple:
    """What makes two items the same judgment: the sentence, whether skipped, each output's rank."""
    return item.src_id, item.skipped, sorted((tuple(sorted(systems)), rank) for systems, rank in item.translations)


def _not_imported_before(campaign: Campaign, resolved: list[tuple[RankingItem, list[int]]]) -> list:
    """The (item, candidates) pairs the campaign does not hold yet; AppraiseXMLError for an item whose user and id
    the campaign holds with another judgment."""
    held = {(item.user, item.id): item for item in campaign_rankings(campaign).items}
    new = []
    for item, candidates in resolved:
        before = held.get((item.user, item.id))
        if before is None:
            new.append((item, candidates))
        elif _content(before) != _content(item):
            raise AppraiseXMLError(
                f"{item.where()}: {campaign.name!r} holds another judgment of this user with this id (imported "
                "before, with other ranks or another sentence)"
            )
    return new


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


#: Judgments read at a time by the Appraise export (and by a re-import's look at what the campaign holds).
EXPORT_BATCH = 2000


def _items(
    campaign: Campaign, judgments: QuerySet[Judgment], names: dict[int, tuple[str, ...]], chunk_size: int
) -> Iterator[RankingItem]:
    """``judgments`` (of ``campaign``) as Appraise items, one at a time in the order they were stored, with the
    systems of each candidate from ``names`` (``shared_system_tuples``): the judgments and their ranks are two
    queries read as they stream (``chunk_size`` judgments fetched at a time), merged by judgment id. A judgment
    neither flagged nor ranked (it has no item) is left out."""
    rows = judgments.order_by("id").values_list(
        "id", "external_id", "external_doc_id", "external_group", "duration", "assignment__judge__username",
        "assignment__screen__segment__line", "assignment__screen__segment__document__name", "flag__id",
    )
    ranks = (
        CandidateJudgment.objects.filter(judgment__in=judgments).ranked().in_order()
        .values_list("judgment_id", "candidate_id", "rank")
    )
    for row, shown in streamed_by_judgment(rows, ranks, chunk_size):
        pk, ext_id, ext_doc, group, duration, user, line, document, flag = row
        if flag is None and not shown:
            continue
        yield RankingItem(
            id=ext_id or str(pk),
            doc_id=ext_doc or f"{document}-{line}",
            src_id=line,
            user=user,
            duration=duration,
            skipped=flag is not None,
            translations=[(names[candidate], rank) for _, candidate, rank in shown] if flag is None else [],
            group=group or campaign.name,
        )


def _result_groups(campaign: Campaign, judgments: QuerySet[Judgment]) -> list[str]:
    """The Appraise result ids of ``judgments`` (of ``campaign``) in the order of their first judgment (a judgment
    made here, or imported without one, is in the group named after the campaign)."""
    first: dict[str, int] = {}
    for group, pk in (
        judgments.values("external_group").annotate(first=Min("id")).order_by().values_list("external_group", "first")
    ):
        name = group or campaign.name
        first[name] = min(pk, first.get(name, pk))
    return sorted(first, key=first.__getitem__)


def _group_judgments(campaign: Campaign, judgments: QuerySet[Judgment], group: str) -> QuerySet[Judgment]:
    """Those of ``judgments`` (of ``campaign``) in the result group ``group`` (``_result_groups``)."""
    stored = [group, ""] if group == campaign.name else [group]
    return judgments.filter(external_group__in=stored)


def campaign_rankings(campaign: Campaign) -> AppraiseResults:
    """The campaign's submitted ranking judgments as Appraise items, in the order they were stored.

    Imported judgments keep their Appraise ids; judgments made here are numbered by their database id, with the
    document name and line as doc-id and the campaign name as result group.
    """
    results = AppraiseResults()
    judgments = Judgment.objects.filter(assignment__campaign=campaign)
    for item in _items(campaign, judgments, shared_system_tuples(campaign), EXPORT_BATCH):
        results.groups.setdefault(
            item.group, {"source-language": campaign.source_language, "target-language": campaign.target_language}
        )
        results.items.append(item)
    return results


class NotARankingCampaign(ValueError):
    """Appraise XML holds relative rankings: a PRWS campaign's scores are exported as CSV or JSON."""


def export_appraise_xml_chunks(campaign: Campaign, snapshot: JudgmentSnapshot | None = None) -> Iterator[str]:
    """The campaign's ranking judgments in ``snapshot`` (by default, the judgments now: those with an id up to its
    last, so judgments stored while the download streams are not in it) as Appraise XML (``campaign_rankings``, in
    the schema of judgments.xml), in chunks of ``EXPORT_BATCH`` items, so that a download streams and holds one
    chunk in memory (200,000 judgments took 1.6 GB as one text); NotARankingCampaign, at once, for a PRWS campaign
    (its file would be empty). Result groups come in the order of their first item, each with its items in stored
    order: two streamed queries a group, beside the one map of the candidates' systems."""
    if campaign.mode != Campaign.Mode.RANKING:
        raise NotARankingCampaign(
            f"{campaign.name!r} is a {campaign.get_mode_display().lower()} campaign: Appraise XML holds relative "
            "rankings, not scores, so nothing was written. Its judgments (scores and meaning-changed boxes) are "
            "exported as CSV or JSON"
        )
    attrs = {"source-language": campaign.source_language, "target-language": campaign.target_language}
    names = shared_system_tuples(campaign)
    judgments = Judgment.objects.of_campaign(campaign)
    held = judgments.up_to(snapshot or judgments.snapshot())
    return appraise_xml_chunks(
        (group, attrs, batched(_items(campaign, _group_judgments(campaign, held, group), names, EXPORT_BATCH),
                               EXPORT_BATCH))
        for group in _result_groups(campaign, held)
    )


def export_appraise_xml(campaign: Campaign, snapshot: JudgmentSnapshot | None = None) -> str:
    """``export_appraise_xml_chunks`` as one text."""
    return "".join(export_appraise_xml_chunks(campaign, snapshot))
