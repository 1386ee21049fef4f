"""What the API's OpenAPI description adds to drf-spectacular's: the token scheme of ``api_auth``.

Imported with the schema generator (``SPECTACULAR_SETTINGS["DEFAULT_GENERATOR_CLASS"]``), by the schema's views and
``manage.py spectacular``, and not by loading the URLs: drf-spectacular's extension machinery is not light.
"""
from __future__ import annotations

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


class SchemaGenerator(SpectacularGenerator):
    """drf-spectacular's generator as it is: named in the settings so that this module is imported with it."""
