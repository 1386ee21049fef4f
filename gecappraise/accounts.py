"""Account pages: log in and out (failures throttled by django-axes, see settings), and password reset by e-mail,
which exists only when the deployment can send e-mail (``PASSWORD_RESET_ENABLED``, from ``EMAIL_HOST`` or
``EMAIL_BACKEND``): without it the reset pages answer 404 and the login page offers no "Forgot your password?" link,
so no one waits for a message that is never sent. The signed-in organizer's API tokens are at ``api-tokens/``
(``annotation/views/api_tokens.py``)."""
from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path, reverse

from annotation.views import api_tokens
from annotation.views.judge import SESSION_ENDED_PARAMETER


class LoginView(auth_views.LoginView):
    """Django's login page, told whether to link to the password reset, and whether a logged-out visitor was sent
    here from a judge's page (``judge_page``: the page to go back to is under /judge/): it then says how to go back
    (a crowd worker, who has no password, by opening the study link again), and with ``session_ended``
    (``annotation.views.judge.login_first``) that the login session had ended and nothing sent was saved."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        judge_page = not self.request.user.is_authenticated and context.get(self.redirect_field_name, "").startswith(
            reverse("judge-home")
        )
        return {
            **context,
            "password_reset_enabled": settings.PASSWORD_RESET_ENABLED,
            "judge_page": judge_page,
            "session_ended": judge_page and self.request.GET.get(SESSION_ENDED_PARAMETER) == "1",
        }


def if_email_configured(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """``view``, or 404 while the deployment cannot send e-mail."""

    def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not settings.PASSWORD_RESET_ENABLED:
            raise Http404("Password reset by e-mail is not available here: ask an organizer or admin.")
        return view(request, *args, **kwargs)

    return guarded


urlpatterns = [
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api-tokens/", api_tokens.token_list, name="api-tokens"),
    path("api-tokens/new/", api_tokens.token_create, name="api-token-create"),
    path("api-tokens/revoke/", api_tokens.token_revoke, name="api-token-revoke"),
    path("api-tokens/revoke-all/", api_tokens.token_revoke_all, name="api-tokens-revoke-all"),
    path("password_reset/", if_email_configured(auth_views.PasswordResetView.as_view()), name="password_reset"),
    path("password_reset/done/", if_email_configured(auth_views.PasswordResetDoneView.as_view()),
         name="password_reset_done"),
    path("reset/<uidb64>/<token>/", if_email_configured(auth_views.PasswordResetConfirmView.as_view()),
         name="password_reset_confirm"),
    path("reset/done/", if_email_configured(auth_views.PasswordResetCompleteView.as_view()),
         name="password_reset_complete"),
]
