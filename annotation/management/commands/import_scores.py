"""Import PRWS scores (0-100) into a PRWS campaign. Long layout: rows rater,segment,system,score[,meaning_changed] with
segment the 0-based line number. --wide: a header of system names, then one row per sentence of the source in line
order, one column per system, empty cells not rated (GMEG-Data's *-segment-scores.csv). Each rater's ratings of one
sentence become one judged screen; nothing is imported if any row is wrong. Each rater is an account of this campaign
only (created when new; an existing account only if it judges this campaign and no other, with no other role) unless
--map-user gives it an account; the --wide rater is named explicitly. The file may have at most MAX_UPLOAD_MB."""
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from annotation.management.command_helpers import CampaignCommand, user_map
from annotation.services.score_import import WIDE_RATER, ScoreImportError, import_scores
from annotation.services.textfiles import InputFileError, check_size


class Command(CampaignCommand):
    help = __doc__

    def add_campaign_arguments(self, parser):
        parser.add_argument(
            "--wide", action="store_true", help="one row per sentence of the source (line order), one column per system"
        )
        parser.add_argument(
            "--rater", default=WIDE_RATER, metavar="USER",
            help=f"with --wide: the rater the ratings are stored under (default {WIDE_RATER})",
        )
        parser.add_argument(
            "--map-user", action="append", default=[], metavar="NAME=ACCOUNT",
            help="long files: give the ratings of the file's rater NAME to the account ACCOUNT (created when new; an "
            "existing account is used as it is); repeat for more raters",
        )
        parser.add_argument(
            "--skip-unknown", action="store_true",
            help="skip a column (--wide) or row naming no system of the campaign, such as GMEG's ref column, instead "
            "of refusing the file; says how many cells were skipped",
        )
        parser.add_argument("file", metavar="FILE.csv")

    def handle_campaign(self, campaign, **options):
        users = user_map(options)
        path = Path(options["file"])
        try:
            check_size(path.name, path.stat().st_size, settings.MAX_UPLOAD_BYTES)
            data = path.read_bytes()
        except InputFileError as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(f"{options['file']}: cannot read ({exc.strerror})") from None
        try:
            summary = import_scores(
                campaign, data, wide=options["wide"], name=path.name, rater=options["rater"], users=users,
                skip_unknown=options["skip_unknown"],
            )
        except ScoreImportError as exc:
            raise CommandError(str(exc)) from None
        for sentence in summary.sentences(into=f" into {campaign.name!r}"):
            self.stdout.write(sentence)
