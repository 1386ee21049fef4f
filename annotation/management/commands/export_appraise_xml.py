"""manage.py export_appraise_xml: write a campaign's ranking judgments as Appraise XML."""
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.services.appraise_import import export_appraise_xml

from .import_appraise_xml import get_campaign


class Command(BaseCommand):
    help = "Export a campaign's ranking judgments as Appraise XML, in the schema of CoNLL-14's judgments.xml."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="NAME")
        parser.add_argument("--out", required=True, metavar="FILE.xml", help="output file ('-' for stdout)")

    def handle(self, *args, **options):
        text = export_appraise_xml(get_campaign(options["campaign"]))
        if options["out"] == "-":
            self.stdout.write(text, ending="")
            return
        try:
            Path(options["out"]).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"{options['out']}: cannot write ({exc.strerror})") from None
        self.stderr.write(f"Wrote {text.count('<ranking-item')} rankings to {options['out']}.")
