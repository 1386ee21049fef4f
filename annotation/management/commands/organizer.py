"""manage.py organizer: give accounts the organizer role (membership of the organizers group), or take it away."""
from __future__ import annotations

import getpass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.permissions import ORGANIZERS_GROUP


class Command(BaseCommand):
    help = (
        f"Make each USERNAME an organizer (a member of the {ORGANIZERS_GROUP!r} group): they may create campaigns and "
        "manage the ones they own or were added to. An account that does not exist is made, and its password asked "
        "for twice; with --no-input it is made without one (set it later with changepassword). --remove takes the "
        "role away (the campaigns they own stay theirs; an admin still manages every campaign)."
    )

    def add_arguments(self, parser):
        parser.add_argument("usernames", nargs="+", metavar="USERNAME")
        parser.add_argument("--remove", action="store_true", help="take the organizer role away instead")
        parser.add_argument("--no-input", action="store_false", dest="interactive",
                            help="ask nothing: a new account is made without a password")

    def handle(self, *args, usernames: list[str], remove: bool, interactive: bool, **options) -> None:
        users = get_user_model()
        for name in usernames:
            try:
                users._meta.get_field("username").run_validators(name)
            except ValidationError as error:
                raise CommandError(f"username {name!r}: {' '.join(error.messages)}") from None
        existing = {user.username: user for user in users.objects.filter(username__in=usernames)}
        if remove:
            missing = [name for name in usernames if name not in existing]
            if missing:
                raise CommandError(f"no account named {', '.join(map(repr, missing))}; nothing was changed")
        new = {name: self._password(name) if interactive else None for name in usernames if name not in existing}
        with transaction.atomic():
            group, _ = Group.objects.get_or_create(name=ORGANIZERS_GROUP)
            for name in usernames:
                if remove:
                    group.user_set.remove(existing[name])
                    self.stdout.write(f"{name} is no longer an organizer")
                    continue
                user = existing.get(name) or users.objects.create_user(name, password=new[name])
                group.user_set.add(user)
                made = "" if name in existing else (" (account made" + ("" if new[name] else ", without a password")
                                                     + ")")
                self.stdout.write(f"{name} is an organizer{made}")

    def _password(self, username: str) -> str:
        """A password for the new account ``username``, asked twice and checked by the site's validators; a
        CommandError when standard input ends before one is given (no terminal: a script, a pipe, ``< /dev/null``)."""
        candidate = get_user_model()(username=username)
        while True:
            try:
                password = getpass.getpass(f"Password for {username}: ")
                again = getpass.getpass("Password (again): ")
            except EOFError:
                raise CommandError(
                    f"no password for the new account {username!r}: the input ended before one was typed (run it in "
                    "a terminal, or use --no-input to make the account without a password); nothing was changed"
                ) from None
            if password != again:
                self.stderr.write("The passwords differ; try again.")
                continue
            try:
                validate_password(password, candidate)
            except ValidationError as error:
                self.stderr.write(" ".join(error.messages))
                continue
            return password
