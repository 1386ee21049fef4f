"""The site's 403, 404 and 500 answers: pages in the site layout (templates/403.html, 404.html, 500.html) that say
why and where to go, and ``{"detail": ...}`` JSON, as the REST API answers, for the API and the JSON endpoints."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

NOT_FOUND = "Not found."
FORBIDDEN = "You do not have permission to perform this action."
SERVER_ERROR = "A server error occurred."


def wants_json(request: HttpRequest) -> bool:
    """Under /api/ (but its HTML description, /api/docs/) or a ``.json`` address: answered in JSON."""
    path = request.path
    return (path.startswith("/api/") and not path.startswith("/api/docs/")) or path.endswith(".json")


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404: the styled page, or ``{"detail": "Not found."}``."""
    if wants_json(request):
        return JsonResponse({"detail": NOT_FOUND}, status=404)
    return defaults.page_not_found(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """403: the styled page with the refusal's reason, or ``{"detail": reason}``."""
    if wants_json(request):
        return JsonResponse({"detail": str(exception) or FORBIDDEN}, status=403)
    return defaults.permission_denied(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """500: the styled page (rendered without a database query), or ``{"detail": "A server error occurred."}``."""
    if wants_json(request):
        return JsonResponse({"detail": SERVER_ERROR}, status=500)
    return defaults.server_error(request)
