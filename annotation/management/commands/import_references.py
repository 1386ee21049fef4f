"""Add references for automatic metrics to a campaign: gold edits in the M2 format (--m2; 'S' lines equal to the
campaign's source lines, one block per line, every annotator's 'A' lines) and/or corrected reference texts aligned line
by line with the source. Reference sets are named after their files. Nothing is written if any file is wrong."""
from django.core.management.base import CommandError

from annotation.management.command_helpers import CampaignCommand
from annotation.management.commands.import_outputs import read_named
from annotation.services.references import import_references, reference_summary
from annotation.services.textfiles import InputFileError


class Command(CampaignCommand):
    help = __doc__

    def add_campaign_arguments(self, parser):
        parser.add_argument("--m2", metavar="GOLD.m2", help="gold edits in the M2 format (one file per campaign)")
        parser.add_argument(
            "reference_files", nargs="*", metavar="REFERENCE_FILE", help="corrected texts, one sentence per line"
        )

    def handle_campaign(self, campaign, **options):
        m2 = read_named(options["m2"]) if options["m2"] else None
        texts = [read_named(path) for path in options["reference_files"]]
        try:
            created = import_references(campaign, m2, texts)
        except InputFileError as exc:
            raise CommandError(str(exc)) from None
        for reference_set in created:
            self.stdout.write(f"Added {reference_set.name!r} to {campaign.name!r}: {reference_summary(reference_set)}.")
