"""The names of uploaded files as the client sent them.

Django's multipart parser cuts a file's name down to its last path component before any view sees it: ``../x``
and ``a/b`` arrive as ``x`` and ``b``. A system is named by its file, so such an upload would silently name a system
after something other than the file sent. ``SentNamesMultiPartParser`` keeps the name as sent on each uploaded file
(``sent_name``), and ``check_sent_name`` refuses an upload whose name the parser changed, or for which it would have
dropped the file (``..``, ``outputs/``): ``SentNamesMiddleware`` has the pages' uploads parsed with it,
``SentNamesParser`` the API's. The parser also skips, without a word, a header line of a part that it cannot read
(not UTF-8, as curl sends a Latin-1 file name; a malformed parameter): a part without its Content-Disposition is
dropped, and a campaign was made without the system sent in it. ``SentNamesMultiPartParser`` refuses such a request
(``UnreadablePartHeader``, a 400 that names the line) before anything is stored. It reads a form field's value that
is not UTF-8 with each such byte replaced by U+FFFD (curl's ``-F 'name=<file'`` sends a file's Latin-1 bytes as
they are: 'café' became the campaign 'caf\ufffd'); such a request is refused too (``NotUtf8Field``, naming the
field), and so is a urlencoded form whose fields are not (``FormEncodingMiddleware``).
"""
from __future__ import annotations

import codecs
from collections.abc import Callable
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MAX_TOTAL_HEADER_SIZE, MultiPartParser, MultiPartParserError
from django.utils.datastructures import ImmutableList
from django.utils.encoding import force_str
from django.utils.http import parse_header_parameters
from rest_framework.exceptions import ParseError
from rest_framework.parsers import DataAndFiles
from rest_framework.parsers import MultiPartParser as RestMultiPartParser

from .services.textfiles import InputFileError


def sent_name(upload) -> str:
    """The uploaded file's name as the client sent it (its name where it came through another parser)."""
    return getattr(upload, "sent_name", upload.name)


#: The name ``SentNamesMultiPartParser`` gives a file whose name Django's parser reduces to nothing (``..``,
#: ``outputs/``): Django drops such a file without a word, so a system sent under it was left out of the campaign.
DROPPED = "(dropped)"


def check_sent_name(upload) -> None:
    """Refuse (InputFileError) an upload whose name was changed on the way in: a path (``../x``, ``a/b``, ``C:\\x``),
    HTML entities, control characters or more than 255 characters, or one that would have been dropped (``..``,
    ``outputs/``)."""
    sent = sent_name(upload)
    if sent != upload.name:
        shown = sent if len(sent) <= 120 else f"{sent[:117]}..."
        became = "would have been left out" if upload.name == DROPPED else f"would have become {upload.name!r}"
        raise InputFileError(
            f"{shown!r}: a file is uploaded under a plain name (no / or \\, no HTML entities or control characters, "
            f"at most 255 characters), as systems and references are named by their files; this one {became}"
        )


class UnreadablePart(MultiPartParserError):
    """A part of a multipart request that Django's parser would not read as sent (``UnreadablePartHeader``,
    ``NotUtf8Field``); the message says which and why, for the 400."""


class UnreadablePartHeader(UnreadablePart):
    """A header line of a multipart part that Django's parser would skip: not UTF-8, or not ``Name: value;
    parameters`` (``parse_boundary_stream``); the message names it."""

    def __init__(self, line: bytes):
        shown = line.decode("utf-8", "backslashreplace")
        shown = shown if len(shown) <= 200 else f"{shown[:197]}..."
        super().__init__(
            f"A part of the upload has a header line that cannot be read ({shown!r}: headers are UTF-8, as browsers "
            "send them, with well-formed parameters); the part would have been left out, so nothing was read."
        )


class NotUtf8Field(UnreadablePart):
    """A form field (a part without a file name) whose value is not text in the request's encoding (UTF-8 unless
    its Content-Type names another charset): Django's parser would read it with each such byte replaced by U+FFFD
    ('caf\\xe9' became the campaign name 'caf\ufffd'); the message names the field."""

    def __init__(self, name: str, encoding: str, error: UnicodeDecodeError):
        label = "UTF-8" if encoding == "utf-8" else encoding
        super().__init__(
            f"The field {name!r} is not {label} text (the byte 0x{error.object[error.start]:02x}), the encoding of the "
            "request (browsers send UTF-8); it would have been read with that byte replaced, so nothing was read."
        )


def _field_name(headers: list[bytes]) -> str | None:
    """The name of a part whose headers (checked lines) are ``headers`` when it is a form field, read by Django's
    parser as text: a Content-Disposition without a file name, and no Content-Transfer-Encoding; None otherwise."""
    name = None
    for line in headers:
        value, parameters = parse_header_parameters(line.decode())
        header = value.split(":", 1)[0].strip().lower()
        if header == "content-transfer-encoding":
            return None
        if header == "content-disposition":
            if "filename" in parameters or "filename*" in parameters:
                return None
            name = parameters.get("name")
    return name


def check_header_line(line: bytes) -> None:
    """Refuse (``UnreadablePartHeader``) a header line of a part that Django's multipart parser would skip: one that
    is not UTF-8 or that ``parse_header_parameters`` refuses, or without a colon."""
    try:
        value, _ = parse_header_parameters(line.decode())
        value.split(":", 1)[1]
    except (ValueError, IndexError):
        raise UnreadablePartHeader(line) from None


class _HeaderCheckedStream:
    """A multipart request's body as the parser reads it (``read``), each part's header lines checked as they pass
    (``check_header_line``), and the value of each form field (``_field_name``) checked to be text in ``encoding``
    (the request's, as the parser decodes the fields) as it passes (``NotUtf8Field``): the headers are the lines
    between a boundary's delimiter line and the first empty line, the value what follows up to the next delimiter;
    after the close delimiter (``--`` follows the boundary) nothing is checked. Only a possible delimiter's worth of
    body and one part's headers (at most ``header_limit`` bytes; longer ones the parser refuses itself) are held."""

    def __init__(self, stream, boundary: bytes, header_limit: int, encoding: str = "utf-8"):
        self.stream = stream
        self.encoding = codecs.lookup(encoding).name  # the fields' encoding, as the parser decodes them
        self.delimiter = b"\r\n--" + boundary
        self.header_limit = header_limit
        self.pending = b"\r\n"  # the body starts with the first delimiter, without its line break
        self.closed = False
        self.field: tuple[str, codecs.IncrementalDecoder] | None = None  # the form field being read, if any

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self._check(data)
        return data

    def _check(self, data: bytes) -> None:
        if self.closed:
            return
        self.pending += data
        while (at := self.pending.find(self.delimiter)) >= 0:
            self._field_value(self.pending[:at], final=True)
            start = at + len(self.delimiter)
            if self.pending[start:start + 2] == b"--":  # the close delimiter: what follows is no part
                self.closed, self.pending = True, b""
                return
            end = self.pending.find(b"\r\n\r\n", start)
            if end < 0 or len(self.pending) < start + 2:
                held = len(self.pending) - start <= self.header_limit
                self.pending = self.pending[at:] if held else self.pending[start:]
                return
            headers = self.pending[start:end].split(b"\r\n")[1:]
            for line in headers:
                check_header_line(line)
            name = _field_name(headers)
            self.field = None if name is None else (name, codecs.getincrementaldecoder(self.encoding)())
            self.pending = self.pending[end + 4:]
        keep = len(self.delimiter)
        self._field_value(self.pending[:-keep], final=False)
        self.pending = self.pending[-keep:]

    def _field_value(self, data: bytes, final: bool) -> None:
        """Check ``data``, the next bytes of the current part, when it is a form field (``final``: its last)."""
        if self.field is None:
            return
        name, decoder = self.field
        try:
            decoder.decode(data, final=final)
        except UnicodeDecodeError as error:
            raise NotUtf8Field(name, self.encoding, error) from None
        if final:
            self.field = None


class SentNamesMultiPartParser(MultiPartParser):
    """Django's multipart parser, which also sets ``sent_name`` on each file: its name before sanitizing. A file
    whose name sanitizing reduces to nothing is kept under ``DROPPED`` (Django's parser skips it), for
    ``check_sent_name`` to refuse; a part with a header line the parser would skip is refused
    (``UnreadablePartHeader``)."""

    _sent_name = ""

    def parse(self):
        self._input_data = _HeaderCheckedStream(self._input_data, self._boundary, MAX_TOTAL_HEADER_SIZE,
                                                self._encoding)
        return super().parse()

    def sanitize_file_name(self, file_name):
        self._sent_name = file_name
        return super().sanitize_file_name(file_name) or DROPPED

    def handle_file_complete(self, old_field_name, counters):
        field = force_str(old_field_name, self._encoding, errors="replace")
        before = len(self._files.getlist(field))
        super().handle_file_complete(old_field_name, counters)
        files = self._files.getlist(field)
        if len(files) > before:
            files[-1].sent_name = self._sent_name


def _parse_file_upload(request: HttpRequest, META, post_data):
    """``HttpRequest.parse_file_upload`` with ``SentNamesMultiPartParser``."""
    request.upload_handlers = ImmutableList(
        request.upload_handlers, warning="You cannot alter upload handlers after the upload has been processed."
    )
    return SentNamesMultiPartParser(META, post_data, request.upload_handlers, request.encoding).parse()


class SentNamesMiddleware:
    """Parses a page's multipart request with ``SentNamesMultiPartParser`` (Django's request builds its parser in
    ``parse_file_upload``, which this replaces on the request before anything reads ``POST`` or ``FILES``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.content_type == "multipart/form-data":
            request.parse_file_upload = lambda META, post_data: _parse_file_upload(request, META, post_data)
        return self.get_response(request)


def check_form_encoding(body: bytes, encoding: str) -> None:
    """Refuse (``NotUtf8Field``, naming the field) a urlencoded body with a field name or value that is not text in
    ``encoding`` once its %-escapes are undone: Django's ``QueryDict`` reads it with each such byte replaced by
    U+FFFD."""
    encoding = codecs.lookup(encoding).name
    for pair in body.split(b"&"):
        name, _, value = pair.partition(b"=")
        for part in (name, value):
            try:
                unquote_to_bytes(part.replace(b"+", b" ")).decode(encoding)
            except UnicodeDecodeError as error:
                shown_name = unquote_to_bytes(name.replace(b"+", b" ")).decode(encoding, "replace")
                raise NotUtf8Field(shown_name, encoding, error) from None


class FormEncodingMiddleware:
    """Refuses (a 400) a urlencoded request whose fields are not text in its encoding (``check_form_encoding``),
    before anything reads them: a page's form posted by a script in Latin-1 had its accents replaced by U+FFFD.
    Runs after ``RequestSizeLimitMiddleware``, which decides whether the body may be read at all."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.content_type == "application/x-www-form-urlencoded":
            check_form_encoding(request.body, request.encoding or settings.DEFAULT_CHARSET)
        return self.get_response(request)


class SentNamesParser(RestMultiPartParser):
    """DRF's multipart parser (as ``rest_framework.parsers.MultiPartParser.parse`` does it) with
    ``SentNamesMultiPartParser``."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        request = parser_context["request"]
        meta = {**request.META, "CONTENT_TYPE": media_type}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        try:
            data, files = SentNamesMultiPartParser(meta, stream, request.upload_handlers, encoding).parse()
        except MultiPartParserError as exc:
            raise ParseError(f"Multipart form parse error - {exc}") from exc
        return DataAndFiles(data, files)
