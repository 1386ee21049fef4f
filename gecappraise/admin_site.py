"""The admin site: Django's, but its password page checks the old password as a login is.

Django's admin password page (``/admin/password_change/``) checks the old password with ``check_password``, which
nothing throttles, so a signed-in staff session could guess the account's password without limit. Here it uses
``ThrottledPasswordChangeForm``, as the judges' password page does: a wrong old password is a failed login of the
account from the request's address (django-axes), and once that pair is locked out the page answers 429 whatever
the password.
"""
from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.views import PasswordChangeView
from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from annotation.forms import ThrottledPasswordChangeForm


class AdminPasswordChangeForm(ThrottledPasswordChangeForm):
    """The throttled password change, its required fields marked as the admin's forms mark them."""

    required_css_class = "required"


class ThrottledPasswordChangeView(PasswordChangeView):
    """Django's password change view, its form given the request (for django-axes) instead of the user alone."""

    form_class = AdminPasswordChangeForm

    def get_form_kwargs(self) -> dict:
        kwargs = super().get_form_kwargs()
        del kwargs["user"]  # the form's user is the request's
        return {"request": self.request, **kwargs}


class AdminSite(admin.AdminSite):
    """Django's admin site with a throttled password page (module docstring)."""

    def password_change(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        request.current_app = self.name
        return ThrottledPasswordChangeView.as_view(
            success_url=reverse("admin:password_change_done", current_app=self.name),
            extra_context={**self.each_context(request), **(extra_context or {})},
        )(request)
