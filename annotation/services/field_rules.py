"""What the fields of an imported test set may hold, checked before anything reaches the database.

Each check raises ``InputFileError`` with a message that names the field (and the caller adds the file and line),
so that a bad upload is a clear message and never a database error. The limits are the model's column sizes.
"""
from __future__ import annotations

import string
import unicodedata
from collections import Counter

from ..models import Campaign, Document, System
from .textfiles import InputFileError

SYSTEM_NAME_MAX = System._meta.get_field("name").max_length
DOCUMENT_ID_MAX = Document._meta.get_field("name").max_length
CAMPAIGN_NAME_MAX = Campaign._meta.get_field("name").max_length

#: The rule for system names, as messages and the README state it. Systems are named by their file names, and
#: Appraise XML writes a collapsed output's systems as one attribute separated by spaces (``system="A B"``), so a
#: name may hold no whitespace; it may hold no path separator, and may not start with "." (a hidden file).
SYSTEM_NAME_RULE = (
    f"1 to {SYSTEM_NAME_MAX} letters, digits and ASCII punctuation other than / and \\, not starting with '.' "
    "(no spaces: Appraise XML separates the systems of a collapsed output by spaces)"
)
_NAME_PUNCTUATION = frozenset(string.punctuation) - {"/", "\\"}


def _allowed_in_name(char: str) -> bool:
    return char in _NAME_PUNCTUATION or unicodedata.category(char)[0] in "LMN"


def check_system_name(name: str) -> None:
    """Refuse a system name outside SYSTEM_NAME_RULE."""
    if len(name) > SYSTEM_NAME_MAX:
        raise InputFileError(f"system name {name!r}: {len(name)} characters, over the limit of {SYSTEM_NAME_MAX}")
    if not name or name.startswith(".") or not all(_allowed_in_name(char) for char in name):
        raise InputFileError(f"system name {name!r}: a system name has {SYSTEM_NAME_RULE}")


def composed(name: str) -> str:
    """``name`` with its accents composed (Unicode NFC): two names that look the same are equal in this form,
    whichever encoding of the accents each was written in (macOS saves file names decomposed)."""
    return unicodedata.normalize("NFC", name)


def same_name_key(name: str) -> str:
    """What two system names share when they are the same name to a reader: equal once Unicode-normalised and
    case-folded (``Zürich`` composed and decomposed, ``AMU`` and ``amu``)."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())


def check_distinct_system_names(names: list[str]) -> None:
    """Refuse two systems of one name: the same file name twice, or two names equal ignoring letter case and
    Unicode normalisation (naming both)."""
    repeated = sorted(name for name, count in Counter(names).items() if count > 1)
    if repeated:
        raise InputFileError(f"duplicate system names: {', '.join(repeated)} (systems are named by file name)")
    first: dict[str, str] = {}
    for name in names:
        other = first.setdefault(same_name_key(name), name)
        if other != name:
            raise InputFileError(
                f"system names {other!r} and {name!r} are the same name {_how_names_differ(other, name)} "
                "(systems are named by file name)"
            )


def _how_names_differ(first: str, second: str) -> str:
    """How two names of one ``same_name_key`` differ, for the message."""
    if unicodedata.normalize("NFC", first) == unicodedata.normalize("NFC", second):
        return "with its accents encoded differently (Unicode composed and decomposed forms)"
    if first.casefold() == second.casefold():
        return "in other letter case"
    return "in other letter case and with its accents encoded differently"


def document_id_problem(doc_id: str) -> str | None:
    """What is wrong with a (stripped, non-empty) document id, or None: at most DOCUMENT_ID_MAX printable
    characters (spaces inside are allowed; tabs and control characters are not)."""
    if len(doc_id) > DOCUMENT_ID_MAX:
        return f"the document id has {len(doc_id)} characters, over the limit of {DOCUMENT_ID_MAX}"
    bad = next((char for char in doc_id if not char.isprintable()), None)
    if bad is not None:
        return f"the document id holds the non-printable character U+{ord(bad):04X}"
    return None


def check_campaign_name(name: str) -> None:
    """Refuse a campaign name that is too long or holds a non-printable character (a space is printable)."""
    if len(name) > CAMPAIGN_NAME_MAX:
        raise InputFileError(f"campaign name: {len(name)} characters, over the limit of {CAMPAIGN_NAME_MAX}")
    bad = next((index for index, char in enumerate(name) if not char.isprintable()), None)
    if bad is not None:
        raise InputFileError(f"campaign name: the non-printable character U+{ord(name[bad]):04X} at column {bad + 1}")
