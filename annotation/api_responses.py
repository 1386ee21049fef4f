"""The API's error responses as its OpenAPI description states them (``/api/schema/``), shared by every endpoint.

- 400: the request changed nothing; an object whose keys are the fields at fault (``__all__`` or
  ``non_field_errors`` for the request as a whole) and whose values are lists of messages, naming the file and line
  (or item) of an upload where the problem is; or ``{"detail": ...}`` for a body that could not be read (a JSON or
  multipart parse error, too many fields or files).
- 401: ``{"detail": ...}`` (and ``WWW-Authenticate: Token``): the API token sent is wrong, expired or revoked.
- 403: ``{"detail": ...}``: not logged in, or not an organizer of this campaign (or of any).
- 404: ``{"detail": ...}``: no campaign with that id among those the user manages.
- 409: ``{"detail": ...}``: the campaign holds nothing of this kind (the Appraise XML of a PRWS campaign).
"""
from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

_DETAIL = inline_serializer("ErrorDetail", {"detail": serializers.CharField()})

VALIDATION_ERROR = OpenApiResponse(
    response={"oneOf": [
        {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]},
    ]},
    description="Nothing was changed: each field at fault (__all__ or non_field_errors: the whole request) with its "
    "messages, naming the file and line or item of an upload; or, for a body that could not be read at all "
    '(malformed JSON or multipart, too many fields), {"detail": ...} saying why.',
)
UNAUTHORIZED = OpenApiResponse(_DETAIL, description="The API token sent (Authorization: Token KEY) is wrong, "
                               "expired or revoked.")
FORBIDDEN = OpenApiResponse(_DETAIL, description="Not logged in, or not an organizer (of this campaign).")
NOT_FOUND = OpenApiResponse(_DETAIL, description="No campaign with this id among those the user manages.")
NOT_RANKINGS = OpenApiResponse(_DETAIL, description="A PRWS campaign: Appraise XML holds rankings, not scores; the "
                               "detail names the judgments' JSON and CSV exports.")
JOB_NOT_FOUND = OpenApiResponse(_DETAIL, description="No campaign with this id among those the user manages, or no "
                                "screen job of this id in it.")

#: The errors of a request that reads a campaign, and of one that changes something.
READ_ERRORS = {401: UNAUTHORIZED, 403: FORBIDDEN, 404: NOT_FOUND}
WRITE_ERRORS = {400: VALIDATION_ERROR, **READ_ERRORS}
