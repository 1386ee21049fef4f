"""Decompression bombs and the upload limit: an archive may not unpack to more than MAX_UPLOAD_BYTES, whatever its
headers declare, and reading stops at the limit (issue 7, item 4).

The bombs are built here, not stored: compressed streams of a run of zeros, concatenated (gzip, bzip2 and xz
readers inflate concatenated streams as one), so that a few kilobytes unpack to a gigabyte.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable

import pytest
from django.conf import settings
from django.test import override_settings

from annotation.services.importing import split_archive
from annotation.services.textfiles import MAX_ARCHIVE_ENTRIES, InputFileError, NamedFile, read_archive

from .test_importing import SOURCE, SYSTEMS, _zip

GB = 1 << 30
CHUNK = 8 << 20
COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


def _tar_member(name: str, data: bytes) -> bytes:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    padding = -len(data) % tarfile.BLOCKSIZE
    return info.tobuf(format=tarfile.GNU_FORMAT) + data + bytes(padding)


def tar_bomb(compress: Callable[[bytes], bytes], hidden: int = GB) -> bytes:
    """A compressed tar whose first member is a hidden file of ``hidden`` zero bytes (skipped by the import, so
    that only the bytes inflated can stop it), followed by a valid test set."""
    info = tarfile.TarInfo(".padding")
    info.size = hidden
    zeros = compress(bytes(CHUNK))
    test_set = b"".join(_tar_member(name, data) for name, data in {"source": SOURCE, **SYSTEMS}.items())
    return (
        compress(info.tobuf(format=tarfile.GNU_FORMAT)) + zeros * (hidden // CHUNK)
        + compress(test_set + bytes(2 * tarfile.BLOCKSIZE))
    )


def zip_with_lying_sizes(name: bytes, total: int, declared: int) -> bytes:
    """A zip of one deflated member of ``total`` zero bytes whose headers declare ``declared`` bytes."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
    deflated = block * (total >> 20) + compressor.flush(zlib.Z_FINISH)
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, 0, len(deflated), declared, len(name), 0)
    central = struct.pack(
        "<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, 0, len(deflated), declared, len(name), 0, 0, 0, 0, 0, 0
    )
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central) + len(name),
                      len(local) + len(name) + len(deflated), 0)
    return local + name + deflated + central + name + end


#: The readers of compressed data that an import may read from: what their ``read`` returns is inflated.
INFLATING = (gzip.GzipFile, bz2.BZ2File, lzma.LZMAFile, zipfile.ZipExtFile)


def refused_having_inflated(archive: NamedFile, message: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """Refuse ``archive`` with ``message``; the bytes inflated meanwhile (what the decompressing readers returned:
    the work a bomb can cause, whatever the machine's speed)."""
    inflated = []
    for reader in INFLATING:
        def counted(self, *args, _read=reader.read, **kwargs):
            data = _read(self, *args, **kwargs)
            inflated.append(len(data))
            return data

        monkeypatch.setattr(reader, "read", counted)
    with pytest.raises(InputFileError) as error:
        split_archive(archive)
    assert message in str(error.value)
    return sum(inflated)


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_a_tar_bomb_is_refused_once_it_inflated_the_limit(kind, monkeypatch):
    bomb = tar_bomb(COMPRESSORS[kind])
    assert len(bomb) < 2 << 20 and settings.MAX_UPLOAD_BYTES < GB
    inflated = refused_having_inflated(
        NamedFile(f"bomb.tar.{kind}", bomb),
        f"bomb.tar.{kind} (uncompressed): over the upload limit of 50.0 MB (unpacking stopped there)", monkeypatch)
    assert settings.MAX_UPLOAD_BYTES < inflated <= settings.MAX_UPLOAD_BYTES + CHUNK


def test_the_bomb_archive_is_a_valid_test_set_when_small():
    source, systems, _ = split_archive(NamedFile("small.tar.bz2", tar_bomb(bz2.compress, hidden=CHUNK)))
    assert source.data == SOURCE and sorted(f.name for f in systems) == ["alpha", "beta", "gamma", "source"]


def test_a_zip_whose_headers_understate_its_size_is_refused_after_what_they_declare(monkeypatch):
    inflated = refused_having_inflated(
        NamedFile("liar.zip", zip_with_lying_sizes(b"source", GB, 100)), "liar.zip: a damaged archive", monkeypatch)
    assert inflated <= 100


def test_a_zip_bomb_with_true_headers_is_refused_before_inflating(monkeypatch):
    inflated = refused_having_inflated(NamedFile("bomb.zip", zip_with_lying_sizes(b"source", GB, GB)),
                                       "bomb.zip (uncompressed): 1024.0 MB is over the upload limit of 50.0 MB",
                                       monkeypatch)
    assert inflated == 0


@override_settings(MAX_UPLOAD_BYTES=65536)
def test_a_tar_member_declaring_more_than_the_limit_is_refused_from_its_header():
    archive = NamedFile("big.tar.gz", gzip.compress(_tar_member("source", bytes(100_000)) + bytes(1024)))
    with pytest.raises(InputFileError, match=r"big.tar.gz \(uncompressed\): 100000 bytes is over the upload limit"):
        read_archive(archive, settings.MAX_UPLOAD_BYTES)


@override_settings(MAX_UPLOAD_BYTES=4096)
def test_the_limit_counts_every_member_of_a_zip_in_total():
    files = {"source": b"x\n" * 1000, "alpha": b"y\n" * 1000, "beta": b"z\n" * 1000}
    with pytest.raises(InputFileError, match=r"six.zip \(uncompressed\): 6000 bytes is over the upload limit"):
        split_archive(NamedFile("six.zip", _zip(files)))


def test_an_archive_with_too_many_entries_is_refused():
    files = {f"sys{k}": b"x\n" for k in range(MAX_ARCHIVE_ENTRIES + 1)}
    with pytest.raises(InputFileError, match=f"many.zip: more than {MAX_ARCHIVE_ENTRIES} entries"):
        split_archive(NamedFile("many.zip", _zip(files)))
    tarred = b"".join(_tar_member(name, data) for name, data in files.items()) + bytes(1024)
    with pytest.raises(InputFileError, match=f"many.tar: more than {MAX_ARCHIVE_ENTRIES} entries"):
        split_archive(NamedFile("many.tar", tarred))


def test_an_encrypted_zip_member_is_refused_by_name():
    data = bytearray(_zip({"source": SOURCE}))
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.index(signature) + offset
        data[at] |= 1
    with pytest.raises(InputFileError, match="locked.zip: 'source' is encrypted"):
        split_archive(NamedFile("locked.zip", bytes(data)))


def test_tar_bomb_builder_unpacks_to_what_it_says():
    stream = bz2.BZ2File(io.BytesIO(tar_bomb(bz2.compress, hidden=2 * CHUNK)))
    with tarfile.open(fileobj=stream, mode="r|") as archive:
        sizes = {member.name: member.size for member in archive}
    assert sizes[".padding"] == 2 * CHUNK and sizes["source"] == len(SOURCE)


def test_a_zip_whose_directory_offset_is_wrong_is_refused_as_damaged():
    """zipfile raises ValueError ("negative seek value") here; found by tests/annotation/test_import_fuzzing.py."""
    data = bytearray(_zip({"source": SOURCE}))
    end = data.rindex(b"PK\x05\x06")
    struct.pack_into("<L", data, end + 16, struct.unpack_from("<L", data, end + 16)[0] + 256)
    with pytest.raises(InputFileError, match="moved.zip: a damaged archive"):
        split_archive(NamedFile("moved.zip", bytes(data)))
