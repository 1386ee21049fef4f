"""manage.py export_appraise_xml: write a campaign's ranking judgments as Appraise XML."""

from django.core.management.base import CommandError
from django.urls import reverse

from annotation.management.command_helpers import CampaignCommand, write_output
from annotation.models import Campaign
from annotation.services.appraise_import import export_appraise_xml


class Command(CampaignCommand):
    help = ("Export a campaign's ranking judgments as Appraise XML, in the schema of CoNLL-14's judgments.xml "
            "(relative ranking campaigns only: PRWS scores are exported as CSV or JSON from the campaign page).")

    def add_campaign_arguments(self, parser):
        parser.add_argument("--out", required=True, metavar="FILE.xml", help="output file ('-' for stdout)")

    def handle_campaign(self, campaign, **options):
        if campaign.mode != Campaign.Mode.RANKING:
            exports = " and ".join(reverse("campaign-judgments-export", args=[campaign.pk, kind])
                                   for kind in ("csv", "json"))
            raise CommandError(
                f"{campaign.name!r} is a {campaign.get_mode_display().lower()} campaign: Appraise XML holds relative "
                f"rankings, not scores, so nothing was written. Its judgments (scores and meaning-changed boxes) "
                f"are exported as CSV or JSON: the campaign page's 'Download the judgments' links ({exports})."
            )
        text = export_appraise_xml(campaign)
        if write_output(self, options["out"], text):
            self.stderr.write(f"Wrote {text.count('<ranking-item')} rankings to {options['out']}.")
