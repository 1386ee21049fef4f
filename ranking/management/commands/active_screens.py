"""Add up to COUNT screens to a campaign, chosen where the judgments so far leave the system ranking most uncertain.
Relative ranking: each of a different sentence, from a running TrueSkill belief per system, the contested pairs (those
the Expected Wins bootstrap reverses in some samples but in fewer than 30%), and the pairs each sentence's candidates
separate. PRWS: EASL, every candidate once, then the candidates of the most uncertain score (a Beta belief each) with
partners of similar mean. The screens get the campaign's redundancy and are served like sampled ones. Run it again as
judgments come in. A campaign of which no screen can be made (fewer than two systems, counting the source when it is
judged, or systems whose outputs are the same on every sentence) is refused, saying why."""
from __future__ import annotations

from django.core.management.base import CommandError

from annotation.management.command_helpers import CampaignCommand, whole_number_option
from annotation.models import Campaign
from annotation.services.screens import no_screen_reason
from gecappraise.plurals import counted
from ranking.active_screens import write_active_prws_screens, write_active_screens

MAX_COUNT = 10_000


class Command(CampaignCommand):
    help = __doc__

    def add_campaign_arguments(self, parser):
        parser.add_argument("--count", type=whole_number_option, default=20,
                            help=f"screens to add, 1 to {MAX_COUNT} (default 20)")

    def handle_campaign(self, campaign, **options):
        count = options["count"]
        if not 1 <= count <= MAX_COUNT:
            raise CommandError(f"--count must be between 1 and {MAX_COUNT}, got {count}")
        if (reason := no_screen_reason(campaign)) is not None:
            raise CommandError(f"{campaign.name}: no screen can be made: {reason}")
        try:
            write = write_active_prws_screens if campaign.mode == Campaign.Mode.PRWS else write_active_screens
            numbers = write(campaign, count)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if numbers:
            self.stdout.write(
                f"{campaign.name}: {counted(len(numbers), 'screen')} added ({numbers[0]} to {numbers[-1]})"
            )
        else:
            self.stdout.write(f"{campaign.name}: no sentence has two candidates to rank; nothing added")
