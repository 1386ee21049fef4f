"""Reading uploaded text files and archives: the checks every import applies before anything is written.

Real files are messy: CRLF and LF line ends are both accepted, trailing whitespace is stripped, a UTF-8 byte
order mark is dropped, and empty lines are kept (an empty line is an empty output). Anything else that is wrong
is an ``InputFileError`` whose message names the file and, where it helps, the line or byte offset.
"""
from __future__ import annotations

import io
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath


class InputFileError(ValueError):
    """An uploaded file cannot be used; the message says which file and why."""


@dataclass(frozen=True)
class NamedFile:
    """A file's name (without directories) and its raw bytes."""

    name: str
    data: bytes


def _human_size(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB" if size >= 1024 * 1024 else f"{size} bytes"


def check_size(name: str, size: int, limit: int) -> None:
    """Refuse a file over ``limit`` bytes."""
    if size > limit:
        raise InputFileError(f"{name}: {_human_size(size)} is over the upload limit of {_human_size(limit)}")


def decode_lines(file: NamedFile) -> list[str]:
    """Decode a one-sentence-per-line UTF-8 file into its lines, trailing whitespace stripped.

    A final line end does not start another line; every other empty line is kept.
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
    return [line.rstrip() for line in lines]


def _member_name(path: str) -> str | None:
    """The base name of an archive member worth reading, or None for folders, hidden and metadata files."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if not parts or any(part.startswith(".") or part == "__MACOSX" for part in parts):
        return None
    return parts[-1]


def read_archive(file: NamedFile, limit: int) -> list[NamedFile]:
    """The regular files of a zip or tar(.gz/.bz2/.xz) archive, by base name, read into memory.

    The uncompressed total may not exceed ``limit`` (checked from the headers before anything is inflated,
    and again while reading); two members with one base name are an error.
    """
    check_size(file.name, len(file.data), limit)
    buffer = io.BytesIO(file.data)
    if zipfile.is_zipfile(buffer):
        members = _read_zip(file.name, buffer, limit)
    else:
        buffer.seek(0)
        try:
            with tarfile.open(fileobj=buffer, mode="r:*") as archive:
                members = _read_tar(file.name, archive, limit)
        except tarfile.TarError:
            raise InputFileError(f"{file.name}: not a zip or tar archive") from None
    if not members:
        raise InputFileError(f"{file.name}: the archive holds no files")
    names = [member.name for member in members]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise InputFileError(f"{file.name}: several files are named {', '.join(duplicates)}")
    return members


def _read_zip(archive_name: str, buffer: io.BytesIO, limit: int) -> list[NamedFile]:
    try:
        with zipfile.ZipFile(buffer) as archive:
            infos = [(info, _member_name(info.filename)) for info in archive.infolist() if not info.is_dir()]
            infos = [(info, name) for info, name in infos if name]
            check_size(archive_name + " (uncompressed)", sum(info.file_size for info, _ in infos), limit)
            return [NamedFile(name, archive.read(info)) for info, name in infos]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as exc:
        raise InputFileError(f"{archive_name}: a damaged zip archive ({exc})") from None


def _read_tar(archive_name: str, archive: tarfile.TarFile, limit: int) -> list[NamedFile]:
    files: list[NamedFile] = []
    total = 0
    for member in archive:
        name = _member_name(member.name)
        if not member.isfile() or not name:
            continue
        total += member.size
        check_size(archive_name + " (uncompressed)", total, limit)
        extracted = archive.extractfile(member)
        if extracted is not None:
            files.append(NamedFile(name, extracted.read()))
    return files
