"""Create a one-time invite link for each USERNAME (creating judge accounts that do not exist) and print
'USERNAME<TAB>LINK' per judge. A link works once and adds its judge to the campaign; it logs in only a judge account
without a password, and asks any other existing account (one with a password, or in the organizers group) to log in with
its own credentials first (noted on stderr). Staff accounts, organizers of a campaign and crowd workers' accounts cannot
be invited. The invites are made by --by, or else by the campaign's owner (a campaign created by import_outputs has
none: give --by). If any username cannot be invited, no invite is created."""
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.core.validators import URLValidator
from django.db import transaction
from django.urls import reverse

from annotation.management.command_helpers import CampaignCommand, whole_number_option
from annotation.permissions import can_manage
from annotation.services.invites import INVITE_VALIDITY, InviteError, create_invite, link_logs_in


def base_url(value: str) -> str:
    """The site's address without a trailing slash; a CommandError unless it is an http(s) URL."""
    try:
        URLValidator(schemes=["http", "https"])(value)
    except ValidationError:
        raise CommandError(
            f"--base-url {value!r} is not an http(s) address such as https://judge.example.org"
        ) from None
    return value.rstrip("/")


class Command(CampaignCommand):
    help = __doc__

    def add_campaign_arguments(self, parser):
        parser.add_argument("usernames", nargs="+", metavar="USERNAME")
        parser.add_argument(
            "--base-url", default="http://127.0.0.1:8000", help="the site's address (default http://127.0.0.1:8000)"
        )
        parser.add_argument(
            "--by",
            metavar="USERNAME",
            help="the organizer or admin creating the invites (default: the campaign's owner)",
        )
        parser.add_argument(
            "--days", type=whole_number_option, default=INVITE_VALIDITY.days,
            help=f"days a link works (default {INVITE_VALIDITY.days})",
        )

    def _creator(self, campaign, username: str | None):
        if username is None:
            if campaign.owner is None:
                raise CommandError(f"campaign {campaign.name!r} has no owner; name an organizer or admin with --by")
            username = campaign.owner.username
        creator = get_user_model().objects.filter(username=username).first()
        if creator is None:
            raise CommandError(f"--by: no user named {username!r}")
        if not can_manage(creator, campaign):
            raise CommandError(
                f"{creator.username!r} does not manage campaign {campaign.name!r}; name one who does with --by"
            )
        return creator

    def handle_campaign(self, campaign, **options):
        site = base_url(options["base_url"])
        if not 1 <= options["days"] <= 365:
            raise CommandError(f"--days must be from 1 to 365, not {options['days']}")
        repeated = sorted({name for name in options["usernames"] if options["usernames"].count(name) > 1})
        if repeated:
            raise CommandError(f"each judge once, please: {', '.join(repeated)} given more than once")
        creator = self._creator(campaign, options["by"])
        links = []
        try:
            with transaction.atomic():
                for username in options["usernames"]:
                    invite, secret = create_invite(
                        campaign, username, creator, valid_for=timedelta(days=options["days"])
                    )
                    links.append((invite, site + reverse("invite", args=[secret])))
        except InviteError as error:
            raise CommandError(f"{username}: {error} No invite was created.") from None
        for invite, link in links:
            name = invite.judge.username
            self.stdout.write(f"{name}\t{link}")
            if not link_logs_in(invite):
                self.stderr.write(f"{name}: an existing account; its link asks to log in as {name} first")
