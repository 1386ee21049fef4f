"""API tokens of organizers and admins (django-rest-knox; model ``ApiToken``): made, listed and revoked here, by
the account page ``/accounts/api-tokens/`` and ``manage.py api_token`` alike.

A token is 64 random hexadecimal characters; only its SHA-512 digest and its first 15 characters are stored, so it
is shown once, when it is made. It lives ``REST_KNOX["TOKEN_TTL"]`` (``API_TOKEN_DAYS``) from then, however often
it is used, and a user holds at most ``REST_KNOX["TOKEN_LIMIT_PER_USER"]`` (``API_TOKENS_PER_USER``) unexpired
tokens. Only those who may use the API make tokens (``permissions.may_hold_api_tokens``); they revoke their own on
the page, and an admin revokes anyone's with the command or in ``/admin/``.
"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from knox.settings import knox_settings

from ..models import ApiToken
from ..permissions import may_hold_api_tokens


class TokenRefused(Exception):
    """The token was not made; the message says why."""


def live_tokens(user: AbstractBaseUser) -> QuerySet[ApiToken]:
    """``user``'s tokens that have not expired, newest first."""
    return ApiToken.objects.filter(user=user, expiry__gt=timezone.now()).order_by("-created")


def create_token(user: AbstractBaseUser, name: str = "") -> tuple[ApiToken, str]:
    """A new token of ``user`` named ``name``, and the token itself (shown once: it is not stored).

    Raises ``TokenRefused`` when ``user`` may not hold API tokens or already holds the most unexpired ones allowed.
    The user's row is locked meanwhile, so two requests at once cannot pass the cap together; expired tokens are
    deleted on the way."""
    if not may_hold_api_tokens(user):
        raise TokenRefused(f"{user.get_username()} may not have API tokens: only organizers and admins use the API.")
    limit = knox_settings.TOKEN_LIMIT_PER_USER
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        ApiToken.objects.filter(user=user, expiry__lte=timezone.now()).delete()
        held = ApiToken.objects.filter(user=user).count()
        if limit is not None and held >= limit:
            raise TokenRefused(f"{user.get_username()} already has {held} API tokens, the most allowed "
                               f"(API_TOKENS_PER_USER): revoke one first.")
        return ApiToken.objects.create(user, expiry=knox_settings.TOKEN_TTL, name=name)


def revoke_token(user: AbstractBaseUser, digest: str) -> ApiToken | None:
    """Delete ``user``'s token of ``digest``; it no longer authenticates. None when ``user`` has no such token."""
    token = ApiToken.objects.filter(user=user, digest=digest).first()
    if token is not None:
        token.delete()
    return token


def revoke_all(user: AbstractBaseUser) -> int:
    """Delete every token of ``user`` (expired ones included); how many were unexpired."""
    live = live_tokens(user).count()
    ApiToken.objects.filter(user=user).delete()
    return live
