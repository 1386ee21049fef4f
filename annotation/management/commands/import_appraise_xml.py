"""Import relative-ranking judgments in Appraise XML (the schema of CoNLL-14's judgments.xml) into a campaign: every
src-id must be a line of the campaign and every system group one of its outputs, or nothing is imported. Items the
campaign holds already (same user and id) are left out and counted. Each user of the file is an account of this campaign
only (created when new; an existing account only if it judges this campaign and no other, with no other role) unless
--map-user gives it an account. The file may have at most MAX_UPLOAD_MB."""
from django.core.management.base import CommandError

from annotation.management.command_helpers import CampaignCommand, user_map
from annotation.services.appraise_import import import_appraise_xml
from annotation.services.appraise_xml import AppraiseXMLError


class Command(CampaignCommand):
    help = __doc__

    def add_campaign_arguments(self, parser):
        parser.add_argument(
            "--map-user", action="append", default=[], metavar="NAME=ACCOUNT",
            help="give the rankings of the file's user NAME to the account ACCOUNT (created when new; an existing "
            "account is used as it is); repeat for more users",
        )
        parser.add_argument("file", metavar="FILE.xml")

    def handle_campaign(self, campaign, **options):
        users = user_map(options)
        try:
            with open(options["file"], "rb") as source:
                summary = import_appraise_xml(campaign, source, users)
        except OSError as exc:
            raise CommandError(f"{options['file']}: cannot read ({exc.strerror})") from None
        except AppraiseXMLError as exc:
            raise CommandError(f"{options['file']}: {exc}") from None
        self.stdout.write(summary.text(into=f" into {campaign.name!r}"))
