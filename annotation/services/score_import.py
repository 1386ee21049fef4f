"""PRWS scores from CSV into a campaign's database rows (``manage.py import_scores``; N19 §4.2, METHODS 11).

Two layouts, UTF-8 (a byte order mark is dropped):

- *long*: one rating per row, ``rater,segment,system,score[,meaning_changed]``; ``segment`` is the 0-based line
  number of the source, ``score`` a number from 0 to 100, ``meaning_changed`` one of 1/0, true/false, yes/no or
  empty (false). A first row ``rater,segment,system,score[,meaning_changed]`` is a header and is skipped, and so
  are blank rows.
- *wide* (GMEG-Data's ``*-segment-scores.csv``): a header of system names, then one row per segment in line
  order, one column per system; an empty cell is not rated. Every rating belongs to one rater, ``WIDE_RATER``
  unless another is named.

How ratings become rows: every (rater, segment) gets one Screen of that segment showing the candidates the rater
scored, in the order of the file, with a submitted Assignment of the rater and one Judgment whose
CandidateJudgments carry the scores and the meaning-changed boxes. A system's rating is the rating of its
candidate, the collapsed output it shares with the systems that produced the same sentence (METHODS 1): one
candidate rated through several systems by one rater must get the same score and box every time, and counts once.

Raters are accounts of this campaign only (a new account without a usable password, or one that judges this
campaign and nothing else), unless the import maps a name to an account explicitly (``users``: ``--map-user``, the
campaign page's user map); on the web (``by``: the organizer importing) a map reaches only the accounts
``judge_accounts.import_refusal`` allows that organizer. The rater of a wide file is named explicitly (``rater``,
``--rater``). Only PRWS campaigns take scores (``check_takes_scores``).

The file is checked whole before anything is written; any error (a file over ``MAX_UPLOAD_BYTES``, bad encoding,
wrong column count, unknown system, a line number that is not ASCII digits or out of range, a score that is not a
plain decimal number from 0 to 100, a rater name that is not a valid username, one rater's name written in two
letter cases ('Bob' and 'bob'), a rating given twice, a rater who already has scores for that segment or whose name
belongs to another account) raises ``ScoreImportError`` naming the row, and nothing is stored. With
``skip_unknown`` a column (wide) or row (long) naming no system of the campaign is skipped instead, and the summary
says how many cells were skipped.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction

from gecappraise.plurals import counted

from ..models import Campaign, Judgment, Output, Segment
from .field_rules import composed, same_name_key
from .judged_screens import (
    JudgeAccountError,
    JudgedCandidate,
    JudgedScreen,
    user_map_problem,
    write_judged_screens,
)
from .textfiles import InputFileError, NumberError, check_size, plain_number, shown

WIDE_RATER = "gmeg-mean"
"""The rater of a wide file's ratings unless another is named: GMEG-Data releases each output's mean rating."""
LONG_COLUMNS = ("rater", "segment", "system", "score", "meaning_changed")
TRUE_WORDS, FALSE_WORDS = frozenset({"1", "true", "yes"}), frozenset({"", "0", "false", "no"})
#: A line number: ASCII digits only (``int`` also takes "٣", "1_0" and " 7"), at most 9 of them.
_LINE = re.compile(r"[0-9]{1,9}")


class ScoreImportError(InputFileError):
    """A scores file cannot be imported; the message names the file and the row."""


@dataclass(frozen=True)
class Rating:
    """One cell of the file: ``row`` is its 1-based row in the file."""

    row: int
    rater: str
    line: int
    system: str
    score: float
    meaning_changed: bool


@dataclass(frozen=True)
class ParsedRatings:
    """The ratings of a file, and the cells left out because they name no system of the campaign (with
    ``skip_unknown``): how many, and the names they gave."""

    ratings: list[Rating]
    skipped: int = 0
    unknown: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScoreImportSummary:
    """What an import added, and the cells it skipped with the unknown names they gave (``skip_unknown``: whether
    the import was asked to skip them)."""

    ratings: int
    screens: int
    raters: int
    skipped: int = 0
    unknown: tuple[str, ...] = ()
    skip_unknown: bool = False

    def as_result(self) -> dict:
        """The summary as the API answers it and a background job keeps it."""
        return {"ratings": self.ratings, "screens": self.screens, "raters": self.raters, "skipped": self.skipped,
                "unknown": list(self.unknown), "skip_unknown": self.skip_unknown}

    @classmethod
    def from_result(cls, result: Mapping) -> ScoreImportSummary:
        """The summary of ``as_result``'s dict (a background job's result)."""
        return cls(result["ratings"], result["screens"], result["raters"], result.get("skipped", 0),
                   tuple(result.get("unknown", ())), result.get("skip_unknown", False))

    def sentences(self, into: str = "") -> list[str]:
        """The import in the organizer's words, ``into`` (e.g. " into 'fce'") after the raters: "Imported 6 ratings
        on 3 screens by 2 raters." and, when the import was asked to skip unknown systems, "Skipped 2 cells naming
        no system of the campaign (ref)." (singular where one)."""
        said = [f"Imported {counted(self.ratings, 'rating')} on {counted(self.screens, 'screen')} by "
                f"{counted(self.raters, 'rater')}{into}."]
        if self.skip_unknown:
            said.append(f"Skipped {counted(self.skipped, 'cell')} naming no system of the campaign "
                        f"({', '.join(map(shown, self.unknown)) or 'none'}).")
        return said

    def text(self, into: str = "") -> str:
        """The summary as one text (``sentences``)."""
        return " ".join(self.sentences(into))


def _rows(name: str, data: bytes) -> list[list[str]]:
    check_size(name, len(data), settings.MAX_UPLOAD_BYTES)
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        row = data.count(b"\n", 0, exc.start) + 1
        raise ScoreImportError(
            f"{name}: row {row}: not UTF-8 text (byte 0x{data[exc.start]:02x} at byte offset {exc.start})"
        ) from None
    rows = _csv_rows(name, text)
    if not rows:
        raise ScoreImportError(f"{name}: the file is empty")
    return rows


def _csv_rows(name: str, text: str) -> list[list[str]]:
    """The rows of CSV text, read strictly: a quote never closed would otherwise take the rest of the file into
    one cell, so it is refused naming the row that opens it; any other CSV error names its row too."""
    rows: list[list[str]] = []
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        for row in reader:
            rows.append(row)
    except csv.Error as exc:
        row = len(rows) + 1
        if "end of data" in str(exc):
            raise ScoreImportError(
                f"{name}: row {row} opens a quote (\") that is never closed, so the rest of the file would be one "
                "cell"
            ) from None
        raise ScoreImportError(f"{name}: row {row}: not CSV ({exc})") from None
    return rows


def _score(text: str, where: str) -> float:
    """The score of a cell, a plain number from 0 to 100 that a float holds as written (``plain_number``: not
    1e-400, which would be 0); "-0" (or "-0.0") is 0."""
    if text.lower() in ("nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"):
        raise ScoreImportError(f"{where}: score {shown(text)} is outside 0-100")
    try:
        value = plain_number(text)
    except NumberError as error:
        raise ScoreImportError(f"{where}: score {shown(text)} {error}") from None
    if not 0 <= value <= 100:
        raise ScoreImportError(f"{where}: score {shown(text)} is outside 0-100")
    return value


def _line(text: str, where: str, n_lines: int) -> int:
    if text.startswith("-") and _LINE.fullmatch(text[1:]):
        raise ScoreImportError(f"{where}: line {text} is out of range (the campaign has lines 0 to {n_lines - 1})")
    if not _LINE.fullmatch(text):
        raise ScoreImportError(f"{where}: segment {shown(text)} is not a line number (0-based)")
    line = int(text)
    if not 0 <= line < n_lines:
        raise ScoreImportError(f"{where}: line {line} is out of range (the campaign has lines 0 to {n_lines - 1})")
    return line


def _meaning_changed(text: str, where: str) -> bool:
    word = text.strip().lower()
    if word not in TRUE_WORDS | FALSE_WORDS:
        raise ScoreImportError(f"{where}: meaning_changed {shown(text)} is not 1/0, true/false or yes/no")
    return word in TRUE_WORDS


def _rater(text: str, where: str) -> str:
    rater = text.strip()
    if not rater or len(rater) > 150:
        raise ScoreImportError(f"{where}: rater {shown(text)} must have 1 to 150 characters")
    try:
        get_user_model().username_validator(rater)
    except ValidationError:
        raise ScoreImportError(
            f"{where}: rater {shown(text)} is not a valid user name (letters, digits, @.+-_)"
        ) from None
    return rater


def _by_composed(systems: set[str]) -> dict[str, str]:
    """The campaign's system names by their composed form (``field_rules.composed``), so that a file naming a system
    with its accents encoded otherwise names that system."""
    return {composed(system): system for system in systems}


def _system(text: str, where: str, systems: dict[str, str]) -> str:
    """The campaign's name of the system ``text`` names (``systems``: ``_by_composed``)."""
    name = systems.get(composed(text.strip()))
    if name is None:
        raise ScoreImportError(
            f"{where}: unknown system {shown(text.strip())} "
            f"(the campaign's systems: {', '.join(sorted(systems.values()))})"
        )
    return name


def parse_long(
    name: str, data: bytes, systems: set[str], n_lines: int, skip_unknown: bool = False
) -> ParsedRatings:
    """The ratings of a long file (``rater,segment,system,score[,meaning_changed]``), checked cell by cell; with
    ``skip_unknown`` a row naming no system of the campaign is skipped (and counted) instead of refused."""
    rows = _rows(name, data)
    known = _by_composed(systems)
    start = 1 if [cell.strip().lower() for cell in rows[0]] in (list(LONG_COLUMNS[:4]), list(LONG_COLUMNS)) else 0
    ratings = []
    unknown: list[str] = []
    for number, row in enumerate(rows[start:], start=start + 1):
        where = f"{name}: row {number}"
        if not any(cell.strip() for cell in row):
            continue
        if len(row) not in (4, 5):
            raise ScoreImportError(
                f"{where}: {counted(len(row), 'column')}; expected rater,segment,system,score[,meaning_changed]"
            )
        if skip_unknown and composed(row[2].strip()) not in known:
            unknown.append(row[2].strip())
            continue
        ratings.append(
            Rating(
                number,
                _rater(row[0], where),
                _line(row[1].strip(), where, n_lines),
                _system(row[2], where, known),
                _score(row[3].strip(), where),
                _meaning_changed(row[4], where) if len(row) == 5 else False,
            )
        )
    return ParsedRatings(ratings, len(unknown), tuple(sorted(set(unknown))))


def parse_wide(
    name: str, data: bytes, systems: set[str], n_lines: int, rater: str = WIDE_RATER, skip_unknown: bool = False
) -> ParsedRatings:
    """The ratings of a wide file: a header of system names, then row i + 2 holds line i's scores. With
    ``skip_unknown`` a column whose header names no system of the campaign is skipped (its non-empty cells
    counted) instead of refused."""
    rows = _rows(name, data)
    rater = _rater(rater, f"{name}: rater")
    known = _by_composed(systems)
    unknown = sorted({cell.strip() for cell in rows[0] if composed(cell.strip()) not in known}) if skip_unknown else []
    header = [
        None if cell.strip() in unknown else _system(cell, f"{name}: row 1, column {k + 1}", known)
        for k, cell in enumerate(rows[0])
    ]
    repeated = sorted({system for system in header if system is not None and header.count(system) > 1})
    if repeated:
        raise ScoreImportError(f"{name}: row 1: system {repeated[0]!r} has two columns")
    body = rows[1:]
    if len(body) != n_lines:
        raise ScoreImportError(
            f"{name}: {counted(len(body), 'row')} of scores, but the campaign has "
            f"{counted(n_lines, 'sentence')} (one row per sentence of the source, in line order)"
        )
    ratings = []
    skipped = 0
    for line, row in enumerate(body):
        number = line + 2
        if row and len(row) != len(header):
            raise ScoreImportError(f"{name}: row {number}: {counted(len(row), 'column')}; the header has {len(header)}")
        for system, cell in zip(header, row):
            if cell.strip() and system is None:
                skipped += 1
            elif cell.strip():
                where = f"{name}: row {number}, column {system!r}"
                ratings.append(Rating(number, rater, line, system, _score(cell.strip(), where), False))
    return ParsedRatings(ratings, skipped, tuple(unknown))


@dataclass
class _Screen:
    rater: str
    line: int
    candidates: dict[int, Rating]


def _screens(name: str, ratings: list[Rating], outputs: dict[tuple[int, str], int]) -> list[_Screen]:
    """Group ratings into one screen per (rater, line) in file order; one rating per candidate."""
    screens: dict[tuple[str, int], _Screen] = {}
    rated: dict[tuple[str, int, str], int] = {}
    for rating in ratings:
        key = (rating.rater, rating.line)
        earlier = rated.setdefault((*key, rating.system), rating.row)
        if earlier != rating.row:
            raise ScoreImportError(
                f"{name}: row {rating.row}: {rating.rater} rated system {rating.system!r} on line {rating.line} "
                f"already in row {earlier}"
            )
        screen = screens.setdefault(key, _Screen(rating.rater, rating.line, {}))
        candidate = outputs[(rating.line, rating.system)]
        same = screen.candidates.setdefault(candidate, rating)
        if (same.score, same.meaning_changed) != (rating.score, rating.meaning_changed):
            raise ScoreImportError(
                f"{name}: row {rating.row}: systems {same.system!r} and {rating.system!r} produced the same "
                f"sentence on line {rating.line}, but {rating.rater} gave it {same.score:g} "
                f"(row {same.row}) and {rating.score:g}; one sentence gets one score"
            )
    return list(screens.values())


def _check_not_rated(name: str, campaign: Campaign, screens: list[_Screen]) -> None:
    wanted = {(screen.rater, screen.line) for screen in screens}
    existing = (
        Judgment.objects.filter(assignment__screen__campaign=campaign, items__score__isnull=False)
        .values_list("assignment__judge__username", "assignment__screen__segment__line")
        .distinct()
    )
    for rater, line in existing:
        if (rater, line) in wanted:
            raise ScoreImportError(
                f"{name}: {rater} already has scores for line {line} in {campaign.name!r} (was this file imported "
                "before?)"
            )


def check_takes_scores(campaign: Campaign) -> None:
    """ScoreImportError unless ``campaign`` is a PRWS campaign: scores are PRWS ratings."""
    if campaign.mode != Campaign.Mode.PRWS:
        raise ScoreImportError(
            f"{campaign.name!r} is a {campaign.get_mode_display().lower()} campaign; scores go into PRWS campaigns "
            f"(created in the mode {Campaign.Mode.PRWS.label!r}: import_outputs --mode prws)"
        )


def import_scores(
    campaign: Campaign,
    data: bytes,
    *,
    wide: bool = False,
    name: str = "scores.csv",
    rater: str = WIDE_RATER,
    users: Mapping[str, str] | None = None,
    skip_unknown: bool = False,
    by: AbstractBaseUser | None = None,
) -> ScoreImportSummary:
    """Add the PRWS ratings of a long or wide CSV file to ``campaign``, all or nothing (module docstring).

    ``users`` maps rater names of a long file to the accounts that receive their ratings, explicitly; ``by`` is the
    organizer importing on the web (None on the command line), which limits the accounts a map may reach and what a
    refusal says of them (``judge_accounts.import_refusal``). ``skip_unknown`` skips the columns (wide) or rows
    (long) that name no system of the campaign, such as GMEG's ``ref`` column, and counts their cells in the summary.
    """
    check_takes_scores(campaign)
    outputs = {
        (line, system): candidate
        for line, system, candidate in Output.objects.filter(segment__campaign=campaign).values_list(
            "segment__line", "system__name", "candidate_id"
        )
    }
    systems = {system for _, system in outputs}
    n_lines = Segment.objects.filter(campaign=campaign).count()
    users = dict(users or {})
    if wide and users:
        raise ScoreImportError(f"{name}: a wide file has one rater, named with --rater; a user map is for long files")
    if wide:
        parsed = parse_wide(name, data, systems, n_lines, rater, skip_unknown)
        ratings = parsed.ratings
        users = {rater: rater}
    else:
        parsed = parse_long(name, data, systems, n_lines, skip_unknown)
        ratings = _mapped(name, parsed.ratings, users)
        _check_rater_spellings(name, ratings)
    screens = _screens(name, ratings, outputs)
    if not screens:
        raise ScoreImportError(f"{name}: the file holds no scores")
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        _check_not_rated(name, campaign, screens)
        try:
            raters = write_judged_screens(
                campaign, [_judged(screen) for screen in screens], set(users.values()), by
            )
        except JudgeAccountError as error:
            raise ScoreImportError(_refused_account(name, error, ratings, users, wide)) from None
    return ScoreImportSummary(
        ratings=sum(len(screen.candidates) for screen in screens), screens=len(screens), raters=len(raters),
        skipped=parsed.skipped, unknown=parsed.unknown, skip_unknown=skip_unknown,
    )


def _mapped(name: str, ratings: list[Rating], users: dict[str, str]) -> list[Rating]:
    """The ratings with their raters mapped; ScoreImportError for a map that names no rater of the file or would
    merge two of its raters."""
    problem = user_map_problem(users, {rating.rater for rating in ratings})
    if problem is not None:
        raise ScoreImportError(f"{name}: {problem}")
    return [dataclasses.replace(rating, rater=users.get(rating.rater, rating.rater)) for rating in ratings]


def _check_rater_spellings(name: str, ratings: list[Rating]) -> None:
    """ScoreImportError for two raters (accounts, once mapped) whose names are one name to a reader
    (``same_name_key``: 'Bob' and 'bob'), naming the rows: they would be two accounts, one rater's scores split
    between them."""
    first: dict[str, Rating] = {}
    for rating in ratings:
        earlier = first.setdefault(same_name_key(rating.rater), rating)
        if earlier.rater != rating.rater:
            raise ScoreImportError(
                f"{name}: row {rating.row}: rater {rating.rater!r} is {earlier.rater!r} of row {earlier.row} written "
                "otherwise (in letter case, or in how its accents are encoded); write a rater's name the same way on "
                "every row, or map one of them to another account (the user map, --map-user on the command line)"
            )


def _refused_account(
    name: str, error: JudgeAccountError, ratings: list[Rating], users: Mapping[str, str], wide: bool
) -> str:
    """The message for an account the import may not use: a wide file's rater, or the first row of a long file's
    rater (``JudgeAccountError.refusal``)."""
    if wide:
        return f"{name}: rater {error.name!r} {error.reason}; name another rater for the file's ratings"
    row = next(rating.row for rating in ratings if rating.rater == error.name)
    return error.refusal(f"{name}: row {row}", "rater", "raters", users)


def _judged(screen: _Screen) -> JudgedScreen:
    """A rater's scores of one line as a judged screen, the candidates in the order of the file."""
    return JudgedScreen(
        line=screen.line,
        judge=screen.rater,
        candidates=[
            JudgedCandidate(candidate, score=rating.score, meaning_changed=rating.meaning_changed)
            for candidate, rating in screen.candidates.items()
        ],
    )
