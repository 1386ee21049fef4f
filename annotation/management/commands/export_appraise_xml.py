"""Export a campaign's ranking judgments as Appraise XML, in the schema of CoNLL-14's judgments.xml (relative ranking
campaigns only: PRWS scores are exported as CSV or JSON from the campaign page). The file holds the judgments of the
snapshot taken when the command starts, which it names on stderr."""

from collections.abc import Iterator

from django.core.management.base import CommandError
from django.urls import reverse

from annotation.downloads import described_snapshot
from annotation.management.command_helpers import CampaignCommand, write_chunks
from annotation.models import Judgment
from annotation.services.appraise_import import NotARankingCampaign, export_appraise_xml_chunks
from gecappraise.plurals import counted


class Command(CampaignCommand):
    help = __doc__

    def add_campaign_arguments(self, parser):
        parser.add_argument("--out", required=True, metavar="FILE.xml", help="output file ('-' for stdout)")

    def handle_campaign(self, campaign, **options):
        """Writes the chunks of the campaign page's download as they stream (``export_appraise_xml_chunks``), of
        the snapshot taken now, and says on stderr, in one line, what it wrote and of which snapshot (also when it
        wrote to standard output, ``--out -``)."""
        snapshot = Judgment.objects.of_campaign(campaign).snapshot()
        try:
            chunks = export_appraise_xml_chunks(campaign, snapshot)
        except NotARankingCampaign as refused:
            exports = " and ".join(reverse("campaign-judgments-export", args=[campaign.pk, kind])
                                   for kind in ("csv", "json"))
            raise CommandError(f"{refused}: the campaign page's 'Download the judgments' links ({exports}).") from None
        rankings = 0

        def counting() -> Iterator[str]:
            nonlocal rankings
            for chunk in chunks:
                rankings += chunk.count("<ranking-item")
                yield chunk

        target = options["out"] if write_chunks(self, options["out"], counting()) else "standard output"
        self.stderr.write(f"Wrote {counted(rankings, 'ranking')} to {target}: {described_snapshot(snapshot)}.")
