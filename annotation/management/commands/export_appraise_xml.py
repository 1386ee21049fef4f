"""manage.py export_appraise_xml: write a campaign's ranking judgments as Appraise XML."""

from annotation.management.command_helpers import CampaignCommand, write_output
from annotation.services.appraise_import import export_appraise_xml


class Command(CampaignCommand):
    help = "Export a campaign's ranking judgments as Appraise XML, in the schema of CoNLL-14's judgments.xml."

    def add_campaign_arguments(self, parser):
        parser.add_argument("--out", required=True, metavar="FILE.xml", help="output file ('-' for stdout)")

    def handle_campaign(self, campaign, **options):
        text = export_appraise_xml(campaign)
        if write_output(self, options["out"], text):
            self.stderr.write(f"Wrote {text.count('<ranking-item')} rankings to {options['out']}.")
