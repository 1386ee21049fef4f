"""manage.py import_appraise_xml: add the rankings of an Appraise XML file to a campaign."""
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Campaign
from annotation.services.appraise_import import import_appraise_xml
from annotation.services.appraise_xml import AppraiseXMLError


def get_campaign(name: str) -> Campaign:
    """The campaign named ``name``, or a CommandError listing the campaigns there are."""
    try:
        return Campaign.objects.get(name=name)
    except Campaign.DoesNotExist:
        known = ", ".join(Campaign.objects.values_list("name", flat=True)) or "none"
        raise CommandError(f"no campaign named {name!r} (campaigns: {known})") from None


class Command(BaseCommand):
    help = (
        "Import relative-ranking judgments in Appraise XML (the schema of CoNLL-14's judgments.xml) into a "
        "campaign: every src-id must be a line of the campaign and every system group one of its outputs, "
        "or nothing is imported."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="NAME")
        parser.add_argument("file", metavar="FILE.xml")

    def handle(self, *args, **options):
        campaign = get_campaign(options["campaign"])
        try:
            data = Path(options["file"]).read_bytes()
        except OSError as exc:
            raise CommandError(f"{options['file']}: cannot read ({exc.strerror})") from None
        try:
            summary = import_appraise_xml(campaign, data)
        except AppraiseXMLError as exc:
            raise CommandError(f"{options['file']}: {exc}") from None
        self.stdout.write(
            f"Imported {summary.rankings} rankings ({summary.skipped} skipped) by {summary.judges} judges "
            f"into {campaign.name!r}."
        )
