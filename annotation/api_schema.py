"""What the API's OpenAPI description adds to drf-spectacular's: the token and HTTP Basic schemes of ``api_auth``, and
request bodies closed to properties they do not name (``closed_request_bodies``).

Imported with the schema generator (``SPECTACULAR_SETTINGS["DEFAULT_GENERATOR_CLASS"]``), by the schema's views and
``manage.py spectacular``, and not by loading the URLs: drf-spectacular's extension machinery is not light.
"""
from __future__ import annotations

from drf_spectacular.authentication import BasicScheme
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.generators import SchemaGenerator as SpectacularGenerator
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from knox.settings import knox_settings


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """``annotation.api_auth.ApiTokenAuthentication`` as a security scheme: ``Authorization: Token KEY``."""

    target_class = "annotation.api_auth.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema) -> dict:
        scheme = build_bearer_security_scheme_object(header_name="Authorization",
                                                     token_prefix=knox_settings.AUTH_HEADER_PREFIX)
        return {**scheme, "description": (
            'An API token, sent as "Authorization: Token KEY". Organizers and admins make one at '
            "/accounts/api-tokens/ (or an admin with manage.py api_token USERNAME); a wrong, expired or revoked "
            "token is answered with 401.")}


class PlainBasicScheme(BasicScheme):
    """``annotation.api_auth.BasicAuthentication`` as drf-spectacular describes DRF's own: HTTP Basic."""

    target_class = "annotation.api_auth.BasicAuthentication"


def closed_request_bodies(result: dict, generator, request, public) -> dict:
    """A postprocessing hook (``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``): every request body's component
    (``...Request``, of ``COMPONENT_SPLIT_REQUEST``) takes no other properties than those it names
    (``additionalProperties: false``), as the endpoints refuse a part or key they do not take (``api.checked_fields``,
    400 naming it); without it, a client or a fuzzer read from the schema that any other field was welcome."""
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request") and component.get("type") == "object":
            component["additionalProperties"] = False
    return result


class SchemaGenerator(SpectacularGenerator):
    """drf-spectacular's generator as it is: named in the settings so that this module is imported with it."""
