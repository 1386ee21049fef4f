"""manage.py api_token: make an API token for an organizer or admin and print it, or revoke an account's tokens."""
from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from knox.settings import knox_settings

from annotation.api_token_forms import NAME_MAX, NewTokenForm
from annotation.judging_forms import error_text
from annotation.services import api_tokens


class Command(BaseCommand):
    help = (
        "Make a new API token for USERNAME and print it alone on standard output, e.g. TOKEN=$(python manage.py "
        "api_token USERNAME); it cannot be shown again (only its digest is stored). The account must "
        "be active and organize: a member of the organizers group, an organizer or owner of a campaign, or an admin "
        "(superuser); anyone else is refused. The token works for API_TOKEN_DAYS days (now "
        f"{knox_settings.TOKEN_TTL / timedelta(days=1):g}), sent as 'Authorization: Token KEY', and an account holds "
        f"at most API_TOKENS_PER_USER unexpired tokens (now {knox_settings.TOKEN_LIMIT_PER_USER}). --revoke "
        "instead revokes every token of USERNAME, whatever its role; it takes no --name (one token is revoked on its "
        "owner's API tokens page or in /admin/)."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", metavar="USERNAME")
        parser.add_argument("--name", default="", help="what the token is for, shown beside it on the account's "
                            f"API tokens page (one line of at most {NAME_MAX} characters)")
        parser.add_argument("--revoke", action="store_true", help="revoke every token of USERNAME instead")

    def handle(self, *args, username: str, name: str, revoke: bool, **options) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no account named {username!r}")
        if revoke:
            if name:
                raise CommandError(f"--revoke revokes every token of {username}; it takes no --name, and nothing was "
                                   "revoked. Revoke one token on its owner's API tokens page or in /admin/.")
            count = api_tokens.revoke_all(user)
            self.stderr.write(f"revoked every API token of {username} ({count} unexpired)")
            return
        form = NewTokenForm({"name": name})
        if not form.is_valid():
            raise CommandError(f"--name: {error_text(form)}")
        try:
            token, key = api_tokens.create_token(user, form.cleaned_data["name"])
        except api_tokens.TokenRefused as refusal:
            raise CommandError(str(refusal)) from None
        self.stderr.write(f"API token of {username}, valid until {token.expiry:%Y-%m-%d %H:%M} UTC; it is shown only "
                          "once:")
        self.stdout.write(key)
