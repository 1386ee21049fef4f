"""Score every system of a campaign with automatic metrics computed from the campaign's own references
(import_references): m2 (M2 F0.5 against the M2 gold edits, as the official m2scorer), gleu (GLEU of cnap/gec-ranking
against all reference texts), chrf (sacrebleu's chrF++) and errant (ERRANT F0.5 against the M2 gold edits; needs pip
install -e '.[errant]' and spaCy's en_core_web_sm). Writes the system scores as
METRIC<TAB>LP<TAB>TESTSET<TAB>SYSTEM<TAB>SCORE lines (to --out, or standard output) and, with --segments, the sentence
scores with the segment number (from 1) before the score. A metric whose references are missing is reported and
skipped."""
from __future__ import annotations

from django.core.management.base import CommandError

from annotation.management.command_helpers import STDOUT, CampaignCommand, check_output_path, write_output
from ranking.automatic_metrics import METRICS, compute_metrics
from ranking.metric_loading import load_metric_inputs
from ranking.reports.wmt_metrics import segment_level, system_level


class Command(CampaignCommand):
    help = __doc__

    def add_campaign_arguments(self, parser):
        parser.add_argument(
            "--metric", action="append", choices=METRICS, metavar="METRIC",
            help=f"a metric to compute ({', '.join(METRICS)}); repeat for several; default: all",
        )
        parser.add_argument("--out", metavar="FILE.tsv", default=STDOUT,
                            help="system-level scores ('-', the default, for standard output)")
        parser.add_argument("--segments", metavar="FILE.tsv", help="segment-level scores ('-' for standard output)")

    def handle_campaign(self, campaign, **options):
        for path in (options["out"], options["segments"] or STDOUT):
            check_output_path(path)
        metrics = options["metric"] or list(METRICS)
        scores, unavailable = compute_metrics(load_metric_inputs(campaign), dict.fromkeys(metrics))
        for metric, reason in unavailable.items():
            self.stderr.write(f"{metric}: skipped: {reason}")
        if not scores:
            raise CommandError("no metric could be computed")
        language_pair = f"{campaign.source_language}-{campaign.target_language}"
        write_output(self, options["out"], system_level(scores, language_pair, campaign.name))
        if options["segments"]:
            write_output(self, options["segments"], segment_level(scores, language_pair, campaign.name))
