"""Views whose module is imported with their first request, not with the URLconf.

drf-spectacular's views (the API schema and its Swagger page) import its schema generator, ~0.1 s that every
process would otherwise spend on loading the URLs (``manage.py check``, each command, each web worker), though few
requests ever ask for the schema.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string


def lazy_view(dotted_path: str, **initkwargs: Any) -> Callable[..., HttpResponse]:
    """A view function that imports the class-based view at ``dotted_path`` on its first request and serves it as
    ``ViewClass.as_view(**initkwargs)``, the same view from then on."""

    @cache
    def view() -> Callable[..., HttpResponse]:
        return import_string(dotted_path).as_view(**initkwargs)

    def lazy(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return view()(request, *args, **kwargs)

    lazy.csrf_exempt = True  # as DRF's views are; the view itself enforces what it needs
    return lazy
