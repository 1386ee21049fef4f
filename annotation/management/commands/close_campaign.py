"""Close the campaign now, as its page's "Close the campaign" does: judges get and submit no more screens, and a crowd
study takes no new work while each crowd session with a submitted screen gets its completion code at once (in the
crowd-workers CSV). With --reopen, open the closed campaign again: judges are served screens again; a crowd session
that got its code at the close stays complete, and its worker goes on in a new session. Closing a closed campaign, or
opening an open one, is refused and changes nothing."""
from django.core.management.base import CommandError

from annotation.management.command_helpers import CampaignCommand
from annotation.services import campaign_closing


class Command(CampaignCommand):
    help = __doc__

    def add_campaign_arguments(self, parser):
        parser.add_argument("--reopen", action="store_true", help="open the closed campaign again")

    def handle_campaign(self, campaign, **options):
        try:
            if options["reopen"]:
                campaign_closing.reopen(campaign)
            else:
                completed = campaign_closing.close(campaign)
        except campaign_closing.ClosingRefused as refused:
            raise CommandError(str(refused)) from None
        if options["reopen"]:
            self.stdout.write(campaign_closing.reopened_summary(campaign))
        else:
            self.stdout.write(campaign_closing.closed_summary(campaign, completed))
