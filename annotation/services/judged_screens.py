"""Writing screens that were judged elsewhere (Appraise XML rankings, PRWS score files) as the product's rows.

Each judged screen becomes a Screen of its segment showing its candidates in the given order, a submitted
Assignment of its judge, a Judgment (keeping the source's duration and ids) with one CandidateJudgment per
candidate, or a Flag when the screen was flagged. Judges are accounts by name, local to the campaign unless the
import names an account explicitly (the rules are ``judge_accounts.import_refusal``): a new name becomes an account
without a usable password, made a judge of the campaign, unless it is a judge of the campaign written otherwise
('Ann' where it has 'ann': refused). Callers check their input first and call these inside a transaction.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError

from ..models import Assignment, Campaign, CandidateJudgment, Flag, Judgment, Screen, ScreenCandidate, Segment
from .field_rules import same_name_key
from .judge_accounts import import_refusal, lock_account_names
from .kept_slots import count_written_slots
from .screens import next_screen_number, next_slot_position

#: How a user map is written: NAME=ACCOUNT pairs separated by spaces, commas or line ends.
USER_MAP_SYNTAX = "NAME=ACCOUNT pairs separated by spaces, commas or line ends"


class JudgeAccountError(ValueError):
    """A judge name of an imported file may not be used; ``name`` is that name and ``reason`` says why."""

    def __init__(self, name: str, reason: str):
        self.name, self.reason = name, reason
        super().__init__(f"{name!r} {reason}")

    def refusal(self, where: str, role: str, imported: str, users: Mapping[str, str]) -> str:
        """The import's message at ``where`` (the file and its item or row) for this account, which the file names
        as its ``role`` ("user", "rater"; the accounts it makes are ``imported``, "judges", "raters"): the name in the
        file and the account where the user map ``users`` gave one, otherwise how to give the name an account."""
        mapped = [name for name, account in users.items() if account == self.name]
        if mapped:
            return f"{where}: {role} {mapped[0]!r} is mapped to the account {self.name!r}, which {self.reason}"
        return (
            f"{where}: {role} {self.name!r} {self.reason}. Imported {imported} are accounts of this campaign only: "
            f"map the name to an account explicitly ({self.name}=ACCOUNT in the user map, --map-user "
            f"{self.name}=ACCOUNT on the command line), or rename it in the file"
        )


def parse_user_map(text: str) -> dict[str, str]:
    """Parse ``NAME=ACCOUNT`` pairs (USER_MAP_SYNTAX) into {name in the file: account}; ValueError naming the pair
    that is malformed, holds an invalid username, or maps a name or an account a second time."""
    validate = get_user_model().username_validator
    mapping: dict[str, str] = {}
    for pair in re.split(r"[\s,]+", text.strip()) if text.strip() else []:
        name, equals, account = pair.partition("=")
        if not equals:
            raise ValueError(f"user map: {pair[:160]!r} is not NAME=ACCOUNT")
        for value in (name, account):
            try:
                if not 1 <= len(value) <= 150:
                    raise ValidationError("length")
                validate(value)
            except ValidationError:
                raise ValueError(f"user map: {value[:160]!r} in {pair[:160]!r} is not a valid username") from None
        if name in mapping:
            raise ValueError(f"user map: {name!r} is mapped twice")
        if account in mapping.values():
            raise ValueError(f"user map: two names are mapped to {account!r}")
        mapping[name] = account
    return mapping


@dataclass(frozen=True)
class JudgedCandidate:
    """A shown candidate's rank (ranking) or score and meaning-changed box (PRWS)."""

    candidate: int
    rank: int | None = None
    score: float | None = None
    meaning_changed: bool = False


@dataclass(frozen=True)
class JudgedScreen:
    """One judge's judgment of a screen of the segment at ``line``; ``flag_reason`` set for a flagged screen."""

    line: int
    judge: str
    candidates: Sequence[JudgedCandidate]
    duration: timedelta | None = None
    flag_reason: str | None = None
    external_id: str = ""
    external_doc_id: str = ""
    external_group: str = ""


def user_map_problem(users: Mapping[str, str], names: Collection[str]) -> str | None:
    """What is wrong with giving the judge names of a file (``names``) the accounts ``users`` maps them to: a
    mapped name the file does not have, or an account that is also an unmapped name of the file (two judges would
    become one); None when nothing is."""
    for name, account in users.items():
        if name not in names:
            return f"the user map names {name!r}, but the file has no judge of that name"
        if account in names and account not in users:
            return (
                f"the user map gives {name!r} the account {account!r}, which is also a judge of the file: that "
                "would merge two judges"
            )
    return None


def judge_accounts(
    campaign: Campaign, names: Iterable[str], explicit: Collection[str] = (), by: AbstractBaseUser | None = None
) -> dict[str, AbstractBaseUser]:
    """The account of each judge name, made judges of ``campaign`` (within a transaction, which holds the lock of
    ``lock_account_names`` to its end); new names become accounts without a usable password. An existing account
    is used only when ``import_refusal`` allows it (``explicit``: the names the import gave explicitly; ``by``:
    the organizer importing on the web, None on the command line); otherwise JudgeAccountError names the first
    refused name, before anything is written."""
    User = get_user_model()
    wanted = list(dict.fromkeys(names))
    lock_account_names()
    existing = {user.username: user for user in User.objects.filter(username__in=wanted)}
    for name in wanted:
        if name in existing:
            reason = import_refusal(existing[name], campaign, name in explicit, by)
            if reason is not None:
                raise JudgeAccountError(name, reason)
    _check_new_names(campaign, [name for name in wanted if name not in existing])
    created = User.objects.bulk_create(
        User(username=name, password=make_password(None)) for name in wanted if name not in existing
    )
    users = {**existing, **{user.username: user for user in created}}
    campaign.judges.add(*users.values())
    return users


def _check_new_names(campaign: Campaign, new: list[str]) -> None:
    """JudgeAccountError for a new name that is a judge of ``campaign`` written otherwise (``same_name_key``: 'Ann'
    where the campaign has 'ann'): it would be a second account, the judge's judgments split between the two."""
    if not new:
        return
    judges = {same_name_key(username): username for username in campaign.judges.values_list("username", flat=True)}
    for name in new:
        judge = judges.get(same_name_key(name))
        if judge is not None:
            raise JudgeAccountError(
                name, f"is the judge {judge!r} of this campaign written otherwise (in letter case, or in how its "
                "accents are encoded)"
            )


def write_judged_screens(
    campaign: Campaign,
    screens: Sequence[JudgedScreen],
    explicit: Collection[str] = (),
    by: AbstractBaseUser | None = None,
) -> dict:
    """Write ``screens`` after the campaign's existing screens; returns the judges by name.

    Takes the campaign's lock, as screen creation does, so that screen numbers and slot positions stay unique;
    the accounts are ``judge_accounts(campaign, ..., explicit, by)`` (JudgeAccountError before anything is
    written).
    """
    Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
    users = judge_accounts(campaign, (screen.judge for screen in screens), explicit, by)
    segments = dict(Segment.objects.filter(campaign=campaign).values_list("line", "id"))
    first, first_position = next_screen_number(campaign), next_slot_position(campaign)
    rows = Screen.objects.bulk_create(
        (Screen(campaign=campaign, segment_id=segments[s.line], number=first + i) for i, s in enumerate(screens)),
        batch_size=5000,
    )
    ScreenCandidate.objects.bulk_create(
        (
            ScreenCandidate(screen=row, candidate_id=shown.candidate, position=position)
            for row, screen in zip(rows, screens)
            for position, shown in enumerate(screen.candidates)
        ),
        batch_size=10000,
    )
    assignments = Assignment.objects.bulk_create(
        (
            Assignment(screen=row, judge=users[screen.judge], position=first_position + i,
                       status=Assignment.Status.SUBMITTED)
            for i, (row, screen) in enumerate(zip(rows, screens))
        ),
        batch_size=5000,
    )
    count_written_slots(campaign, [assignment.pk for assignment in assignments])
    judgments = Judgment.objects.bulk_create(
        (
            Judgment(assignment=assignment, duration=screen.duration, external_id=screen.external_id,
                     external_doc_id=screen.external_doc_id, external_group=screen.external_group)
            for assignment, screen in zip(assignments, screens)
        ),
        batch_size=5000,
    )
    CandidateJudgment.objects.bulk_create(
        (
            CandidateJudgment(judgment=judgment, candidate_id=shown.candidate, position=position, rank=shown.rank,
                              score=shown.score, meaning_changed=shown.meaning_changed)
            for judgment, screen in zip(judgments, screens)
            for position, shown in enumerate(screen.candidates)
        ),
        batch_size=10000,
    )
    Flag.objects.bulk_create(
        Flag(judgment=judgment, reason=screen.flag_reason)
        for judgment, screen in zip(judgments, screens)
        if screen.flag_reason is not None
    )
    return users
