"""Reading uploaded text files and archives: the checks every import applies before anything is written.

Real files are messy: CRLF and LF line ends are both accepted, trailing whitespace is stripped, a UTF-8 byte
order mark is dropped, and empty lines are kept (an empty line is an empty output). Anything else that is wrong
is an ``InputFileError`` whose message names the file and, where it helps, the line or byte offset.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import stat
import sys
import tarfile
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import BinaryIO

#: Control characters (Unicode category Cc) other than tab and line feed.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: The number rule of every score file (PRWS scores, metric scores): a plain decimal number in ASCII ("55",
#: "65.5", ".5", "1e1"; not "1_0", "٣", "inf" or "nan", which ``float`` also takes), read by ``plain_number``.
PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
#: The sizes a number other than 0 may have: a float holds them with all its digits (below the smallest normal
#: float it keeps fewer, and below 5e-324 none: 1e-400 is 0.0; above the largest it is infinite).
NUMBER_SIZES = (sys.float_info.min, sys.float_info.max)
#: How much of a zip member is inflated at a time.
CHUNK = 1024 * 1024


class InputFileError(ValueError):
    """An uploaded file cannot be used; the message says which file and why."""


class NumberError(ValueError):
    """A field is not a number a file may hold (``plain_number``); the message says why, to follow the field."""


def plain_number(text: str) -> float:
    """The value of ``text``, a ``PLAIN_NUMBER`` that a float holds as written: 0, or between the ``NUMBER_SIZES``
    in size; "-0" is 0 (not the float -0.0, which exports write back as "-0.0"). NumberError otherwise, rather than a
    value other than the file's: 1e400 would be infinite, and 1e-400 would be 0."""
    if not PLAIN_NUMBER.fullmatch(text):
        raise NumberError("is not a number (a plain decimal number, such as 0.35 or 1e-2)")
    value = float(text) + 0.0
    smallest, largest = NUMBER_SIZES
    if abs(value) > largest:
        raise NumberError(f"is too large (a number is at most {largest:.1e} in size, beyond it is infinite)")
    if abs(value) < smallest and _names_other_than_zero(text):
        raise NumberError(
            f"is too close to 0 (a number other than 0 is at least {smallest:.1e} in size: below it a number loses "
            "digits, and below 5e-324 it is 0)"
        )
    return value


def _names_other_than_zero(text: str) -> bool:
    """Whether a ``PLAIN_NUMBER`` has a digit other than 0 before its exponent."""
    return any(char in "123456789" for char in text.lower().partition("e")[0])


@dataclass(frozen=True)
class NamedFile:
    """A file's name (without directories) and its raw bytes."""

    name: str
    data: bytes


def shown(value: str, limit: int = 60) -> str:
    """``value`` quoted for a message, cut after ``limit`` characters (a field of a file may be megabytes long)."""
    return repr(value) if len(value) <= limit else repr(value[:limit]) + f"... ({len(value)} characters)"


def human_size(size: int) -> str:
    """``size`` bytes as a message says it: in MB to one decimal from 1 MB, in bytes below."""
    return f"{size / (1024 * 1024):.1f} MB" if size >= 1024 * 1024 else f"{size} bytes"


def check_size(name: str, size: int, limit: int) -> None:
    """Refuse a file over ``limit`` bytes."""
    if size > limit:
        raise InputFileError(f"{name}: {human_size(size)} is over the upload limit of {human_size(limit)}")


def decode_lines(file: NamedFile, *, keep_trailing_whitespace: bool = False) -> list[str]:
    """Decode a one-sentence-per-line UTF-8 file into its lines, trailing whitespace stripped (unless
    ``keep_trailing_whitespace``: then only a CRLF's carriage return is dropped).

    A final line end does not start another line; every other empty line is kept. A line ends at a line feed or
    a carriage return and line feed. A line may hold no control character other than tab (PostgreSQL cannot store
    NUL, XML cannot carry the others, and a carriage return inside a line would split it elsewhere), wherever it
    is: one at the end of a line is refused too, never stripped as whitespace (U+000B, U+000C, U+001C-U+001F,
    U+0085); the error names the line, the column and the character.
    """
    if not file.data:
        raise InputFileError(f"{file.name}: the file is empty")
    try:
        text = file.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = file.data.count(b"\n", 0, exc.start) + 1
        raise InputFileError(
            f"{file.name}: not UTF-8 text: byte 0x{file.data[exc.start]:02x} at byte offset {exc.start} "
            f"(line {line}) cannot be decoded"
        ) from None
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines:
        raise InputFileError(f"{file.name}: the file has no lines")
    lines = [line.removesuffix("\r") for line in lines]
    if _CONTROL.search(text):
        _refuse_control_characters(file.name, lines)
    return lines if keep_trailing_whitespace else [line.rstrip() for line in lines]


def blank_lines_at_the_end(name: str, lines: Sequence[str], other_name: str, other_lines: Sequence[str]) -> str:
    """For a line count that differs between the file ``name`` (its ``lines``) and ``other_name``, the note to add
    to the message of the counts where the longer one's extra lines, at its end, are all empty ('; the last line of
    beta is empty (...)'), else ''. A blank line an editor left at the end of one file is an empty sentence there,
    and the bare counts did not tell which line was the odd one."""
    longer, extra = (name, lines[len(other_lines):]) if len(lines) > len(other_lines) else (
        other_name, other_lines[len(lines):])
    if not extra or any(line.strip() for line in extra):
        return ""
    last = "the last line" if len(extra) == 1 else f"the last {len(extra)} lines"
    return (f"; {last} of {longer} {'is' if len(extra) == 1 else 'are'} empty (a blank line at the end of a file is "
            "an empty sentence: remove it, or end every file so)")


def _refuse_control_characters(name: str, lines: list[str]) -> None:
    for number, line in enumerate(lines, 1):
        found = _CONTROL.search(line)
        if found:
            raise InputFileError(
                f"{name}: line {number}: the control character U+{ord(found.group()):04X} at column "
                f"{found.start() + 1} (a line may hold no control characters other than tab)"
            )


def _member_name(archive_name: str, path: str) -> str | None:
    """The base name of an archive member worth reading, or None for hidden and metadata files.

    Members are named by their base name (an archive of a folder holds ``run/source``); a path that leaves the
    archive's folder (absolute, or through ``..``) is refused.
    """
    posix = path.replace("\\", "/")
    parts = PurePosixPath(posix).parts
    if posix.startswith("/") or ".." in parts:
        raise InputFileError(f"{archive_name}: the member {path!r} leaves the archive's folder")
    if not parts or any(part.startswith(".") or part == "__MACOSX" for part in parts):
        return None
    return parts[-1]


class _Budget:
    """The bytes an archive may unpack to; spending more refuses the archive at once (so a decompression bomb
    costs at most ``limit`` bytes of inflating, whatever its headers declare)."""

    def __init__(self, archive_name: str, limit: int):
        self.archive_name = archive_name
        self.limit = limit
        self.spent = 0

    def spend(self, count: int) -> None:
        self.spent += count
        if self.spent > self.limit:
            raise InputFileError(
                f"{self.archive_name} (uncompressed): over the upload limit of {human_size(self.limit)} "
                "(unpacking stopped there)"
            )


class _BoundedStream:
    """A binary stream that charges every byte read to a budget (what ``tarfile``'s stream mode reads from)."""

    def __init__(self, stream: BinaryIO, budget: _Budget):
        self.stream = stream
        self.budget = budget

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.budget.spend(len(data))
        return data


#: Most entries an archive may list (files, folders, links), as Django's DATA_UPLOAD_MAX_NUMBER_FILES for forms.
MAX_ARCHIVE_ENTRIES = 1000
#: Leading bytes of the compressed tar formats, and how to inflate each.
_TAR_COMPRESSIONS = (
    (b"\x1f\x8b", lambda buffer: gzip.GzipFile(fileobj=buffer, mode="rb")),
    (b"BZh", bz2.BZ2File),
    (b"\xfd7zXZ\x00", lzma.LZMAFile),
)
#: What inflating and parsing a damaged archive can raise (besides ``InputFileError``): the standard library's
#: zip, tar, gzip, bz2 and xz readers each have their own.
_DAMAGED = (
    zipfile.BadZipFile, zipfile.LargeZipFile, tarfile.TarError, NotImplementedError, EOFError, OSError,
    zlib.error, lzma.LZMAError, ValueError,
)


def read_archive(file: NamedFile, limit: int) -> list[NamedFile]:
    """The regular files of a zip or tar(.gz/.bz2/.xz) archive, by base name, read into memory.

    The archive may not unpack to more than ``limit`` bytes: zip members' declared sizes are checked before
    anything is inflated, and every byte inflated (of a tar: its headers, skipped members and padding too) is
    counted, reading stops at the limit. At most MAX_ARCHIVE_ENTRIES entries; two members with one base name
    are an error.
    """
    check_size(file.name, len(file.data), limit)
    budget = _Budget(file.name, limit)
    buffer = io.BytesIO(file.data)
    try:
        if zipfile.is_zipfile(buffer):
            members = _read_zip(file.name, buffer, budget)
        else:
            members = _read_tar(file.name, file.data, budget)
    except InputFileError:
        raise
    except _DAMAGED as exc:
        raise InputFileError(f"{file.name}: a damaged archive ({exc})") from None
    if not members:
        raise InputFileError(f"{file.name}: the archive holds no files")
    names = [member.name for member in members]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise InputFileError(f"{file.name}: several files are named {', '.join(duplicates)}")
    return members


def _check_entries(archive_name: str, count: int) -> None:
    if count > MAX_ARCHIVE_ENTRIES:
        raise InputFileError(
            f"{archive_name}: more than {MAX_ARCHIVE_ENTRIES} entries (a test set is a source, its systems and "
            "a document index)"
        )


def _check_zip_name(archive_name: str, info: zipfile.ZipInfo) -> None:
    """Refuse a zip member whose name the zip reader changed: it cuts a name at its first NUL character
    (``ab\\x00c`` would be read as ``ab``), and a member's name is the name of a system."""
    if info.orig_filename != info.filename:
        raise InputFileError(
            f"{archive_name}: the member {info.orig_filename!r} would have become {info.filename!r} (a zip reader "
            "cuts a name at a NUL character); a member is named as stored, with no control characters, as systems "
            "are named by their files"
        )


#: The flag of a zip entry whose name is UTF-8 (APPNOTE's "language encoding flag", bit 11); without it the zip
#: format's default is the code page cp437, which is what Python's reader takes.
_ZIP_UTF8_FLAG = 0x800


def _zip_path(archive_name: str, info: zipfile.ZipInfo) -> str:
    """The path a zip member is stored under, as its maker wrote it. A name without the UTF-8 flag that is not ASCII
    is read as UTF-8 (macOS's Archive Utility writes UTF-8 names without the flag: read as cp437, the system 'あ'
    was 'πüé'), and refused when it is not UTF-8: the archive does not say which code page it is in (Windows'
    compressed folders write the computer's own: 'Zürich' in cp1252 was the system 'Zⁿrich')."""
    if info.flag_bits & _ZIP_UTF8_FLAG or info.filename.isascii():
        return info.filename
    stored = info.filename.encode("cp437")
    try:
        return stored.decode("utf-8")
    except UnicodeDecodeError:
        raise InputFileError(
            f"{archive_name}: the name of the member '{stored.decode('ascii', 'backslashreplace')}' is not UTF-8, and "
            "the archive does not say in which code page it is written; make the archive with a tool that writes UTF-8 "
            "names (7-Zip, Info-ZIP's zip, macOS), or name the file in ASCII letters"
        ) from None


def _read_zip(archive_name: str, buffer: io.BytesIO, budget: _Budget) -> list[NamedFile]:
    with zipfile.ZipFile(buffer) as archive:
        infos = archive.infolist()
        _check_entries(archive_name, len(infos))
        for info in infos:
            _check_zip_name(archive_name, info)
        wanted = [
            (info, _member_name(archive_name, _zip_path(archive_name, info))) for info in infos
            # hidden and metadata members are skipped by their ASCII parts, whatever the encoding of their names
            if not info.is_dir() and _member_name(archive_name, info.filename)
        ]
        check_size(archive_name + " (uncompressed)", sum(info.file_size for info, _ in wanted), budget.limit)
        files = []
        for info, name in wanted:
            if info.flag_bits & 0x1:
                raise InputFileError(f"{archive_name}: {info.filename!r} is encrypted")
            if stat.S_ISLNK(info.external_attr >> 16):
                raise InputFileError(
                    f"{archive_name}: the member {info.filename!r} is a symbolic link, not a file; an archive holds "
                    "the files themselves (a link, device or pipe is not read)"
                )
            with archive.open(info) as member:
                files.append(NamedFile(name, _read_bounded(member, budget)))
        return files


def _read_bounded(stream: BinaryIO, budget: _Budget) -> bytes:
    chunks = []
    while chunk := stream.read(CHUNK):
        budget.spend(len(chunk))
        chunks.append(chunk)
    return b"".join(chunks)


#: What a tar member that is neither a file nor a folder is, for the message that refuses it: it used to be left out
#: without a word, so a system stored as a link (tar stores a file hard-linked to another one so) was not imported.
#: (A zip stores a symbolic link as a file holding its target, refused as a link too.)
_TAR_KINDS = {
    tarfile.SYMTYPE: "a symbolic link", tarfile.LNKTYPE: "a hard link", tarfile.CHRTYPE: "a character device",
    tarfile.BLKTYPE: "a block device", tarfile.FIFOTYPE: "a named pipe",
}


def _check_tar_name(archive_name: str, name: str) -> None:
    """Refuse a tar member whose (base) name is not UTF-8 (read with ``surrogateescape``, its bytes kept as
    surrogates): a tar does not say its names' encoding, and with the bytes replaced ('Z\ufffdrich') the name would
    be one the file does not have. The folders it is in are ignored, whatever their names."""
    if any("\udc80" <= char <= "\udcff" for char in name):
        shown_name = name.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
        raise InputFileError(
            f"{archive_name}: the name of the member '{shown_name}' is not UTF-8; make the archive where file names "
            "are UTF-8 (as they are on macOS and Linux), or name the file in ASCII letters"
        )


def _read_tar(archive_name: str, data: bytes, budget: _Budget) -> list[NamedFile]:
    buffer = io.BytesIO(data)
    inflate = next((opener for magic, opener in _TAR_COMPRESSIONS if data.startswith(magic)), None)
    stream = _BoundedStream(inflate(buffer) if inflate else buffer, budget)
    files: list[NamedFile] = []
    declared = 0
    try:
        archive = tarfile.open(fileobj=stream, mode="r|", encoding="utf-8", errors="surrogateescape")
    except tarfile.ReadError:
        raise InputFileError(f"{archive_name}: not a zip or tar archive") from None
    with archive:
        for count, member in enumerate(archive, 1):
            _check_entries(archive_name, count)
            name = _member_name(archive_name, member.name)
            if not name or member.isdir():
                continue
            if not member.isfile():
                raise InputFileError(
                    f"{archive_name}: the member {member.name!r} is {_TAR_KINDS.get(member.type, 'a special entry')}, "
                    "not a file; an archive holds the files themselves (a link, device or pipe is not read)"
                )
            _check_tar_name(archive_name, name)
            declared += member.size
            check_size(archive_name + " (uncompressed)", declared, budget.limit)
            extracted = archive.extractfile(member)
            if extracted is not None:
                files.append(NamedFile(name, extracted.read()))
    return files
