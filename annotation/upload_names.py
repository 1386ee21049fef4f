"""The names of uploaded files as the client sent them.

Django's multipart parser cuts a file's name down to its last path component before any view sees it: ``../x``
and ``a/b`` arrive as ``x`` and ``b``. A system is named by its file, so such an upload would silently name a system
after something other than the file sent. ``SentNamesMultiPartParser`` keeps the name as sent on each uploaded file
(``sent_name``), and ``check_sent_name`` refuses an upload whose name the parser changed, or for which it would have
dropped the file (``..``, ``outputs/``): ``SentNamesMiddleware`` has the pages' uploads parsed with it,
``SentNamesParser`` the API's.
"""
from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParser, MultiPartParserError
from django.utils.datastructures import ImmutableList
from django.utils.encoding import force_str
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


class SentNamesMultiPartParser(MultiPartParser):
    """Django's multipart parser, which also sets ``sent_name`` on each file: its name before sanitizing. A file
    whose name sanitizing reduces to nothing is kept under ``DROPPED`` (Django's parser skips it), for
    ``check_sent_name`` to refuse."""

    _sent_name = ""

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
