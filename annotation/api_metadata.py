"""What the API answers to OPTIONS (``REST_FRAMEWORK["DEFAULT_METADATA_CLASS"]``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import reverse
from rest_framework.metadata import BaseMetadata
from rest_framework.request import Request

if TYPE_CHECKING:  # rest_framework.views reads this class from the settings as it is imported
    from rest_framework.views import APIView


class EndpointMetadata(BaseMetadata):
    """OPTIONS of an endpoint, after the checks its other methods make: the campaign or import of its address must
    be one the user may see (``get_object``: 404 otherwise, as a GET or POST answers), where DRF's metadata answered
    200 for any id. It says what the endpoint is (``name``, ``description``, the media types it ``renders`` and
    ``parses``) and where its requests and answers are described (``schema``, ``/api/schema/``). It has no
    ``actions``: DRF's derived them from the view's serializer, the campaign's for every action (the raters and
    screens actions' POST took, it said, the Campaign model's fields; the campaigns list's, the read-only campaign
    instead of the multipart upload)."""

    def determine_metadata(self, request: Request, view: APIView) -> dict:
        if getattr(view, "detail", False):
            view.get_object()
        return {
            "name": view.get_view_name(),
            "description": view.get_view_description(),
            "renders": [renderer.media_type for renderer in view.renderer_classes],
            "parses": [parser.media_type for parser in view.parser_classes],
            "schema": reverse("schema"),
        }
