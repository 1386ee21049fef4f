"""The site's 400, 403, 404 and 500 answers: pages in the site layout (templates/400.html, 403.html, 404.html,
500.html, and 403_csrf.html for a form refused by the CSRF check) that say why and where to go, and
``{"detail": ...}`` JSON, as the REST API answers, for the API and the JSON endpoints; and the REST API's own
answer to a 404 raised in its views."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views import defaults
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import exception_handler

from annotation.upload_names import UnreadablePart

NOT_FOUND = "Not found."
FORBIDDEN = "You do not have permission to perform this action."
SERVER_ERROR = "A server error occurred."


def wants_json(request: HttpRequest) -> bool:
    """Under /api/ (but its HTML description, /api/docs/) or a ``.json`` address: answered in JSON."""
    path = request.path
    return (path.startswith("/api/") and not path.startswith("/api/docs/")) or path.endswith(".json")


def _bad_request_reason(exception: Exception) -> str:
    """What was wrong with a request Django refused while reading it (its own messages name no limit)."""
    if isinstance(exception, TooManyFilesSent):
        return f"A request may carry at most {settings.DATA_UPLOAD_MAX_NUMBER_FILES:,} files; nothing was read."
    if isinstance(exception, TooManyFieldsSent):
        return f"A request may carry at most {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} fields; nothing was read."
    if isinstance(exception, DisallowedHost):
        return "This server does not answer to that host name."
    if isinstance(exception, UnreadablePart):
        return str(exception)
    if isinstance(exception, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1024 / 1024
        return f"The request's fields other than files are larger than {limit:g} MB in all; nothing was read."
    return "The server could not read this request."


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """400: the styled page with the reason, or ``{"detail": reason}``."""
    reason = _bad_request_reason(exception)
    if wants_json(request):
        return JsonResponse({"detail": reason}, status=400)
    return render(request, "400.html", {"reason": reason}, status=400)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404: the styled page, or ``{"detail": "Not found."}``."""
    if wants_json(request):
        return JsonResponse({"detail": NOT_FOUND}, status=404)
    return defaults.page_not_found(request, exception)


def api_exception_handler(exception: Exception, context: dict) -> Response | None:
    """DRF's answer to an exception in an API view (``REST_FRAMEWORK["EXCEPTION_HANDLER"]``), a 404 saying
    ``NOT_FOUND`` alone, as the site's does: DRF kept the message of Django's ``get_object_or_404`` ("No Campaign
    matches the given query."), which named the product's models to whoever asked for an id not theirs."""
    if isinstance(exception, Http404):
        exception = NotFound(NOT_FOUND)
    return exception_handler(exception, context)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """403: the styled page with the refusal's reason, or ``{"detail": reason}``."""
    if wants_json(request):
        return JsonResponse({"detail": str(exception) or FORBIDDEN}, status=403)
    return defaults.permission_denied(request, exception)


CSRF_EXPIRED = ("The page that sent it was opened before your last log-in or log-out, in another tab or long ago, so "
                "its security token no longer matches.")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """403 for a POST the CSRF check refused (settings.CSRF_FAILURE_VIEW): most often a page opened before the user
    logged in or out elsewhere; the styled page says so and how to go on, or ``{"detail": ...}``."""
    if wants_json(request):
        return JsonResponse({"detail": f"CSRF check failed: {reason}"}, status=403)
    return render(request, "403_csrf.html", {"reason": CSRF_EXPIRED}, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    """500: the styled page (rendered without a database query), or ``{"detail": "A server error occurred."}``."""
    if wants_json(request):
        return JsonResponse({"detail": SERVER_ERROR}, status=500)
    return defaults.server_error(request)
