"""Write a report of a campaign's analysis: the latest finished one, the one given by --analysis, or with --run a fresh
one computed here first. Formats: html (one self-contained page with plots), latex (G15's tables; --standalone for a
complete document), json (the analysis JSON) and csv (one table with a 'section' column)."""
from __future__ import annotations

import sys

from django.core.management.base import CommandError

from annotation.management.command_helpers import (
    CampaignCommand,
    check_output_path,
    whole_number_option,
    write_output,
)
from ranking.core.analysis import AnalysisParameters
from ranking.core.parameters import MAX_SEED
from ranking.management.commands.analyze import ProgressBar, read_metrics
from ranking.models import AnalysisRun
from ranking.reports.formats import FORMATS, render_report
from ranking.runs import create_run, execute_in_process

RUN_OPTIONS = ("bootstrap", "confidence", "seed", "metrics")
"""Options that only make sense with --run (they parametrise the fresh analysis)."""


class Command(CampaignCommand):
    help = __doc__

    def add_campaign_arguments(self, parser):
        parser.add_argument("--format", required=True, choices=sorted(FORMATS), help="report format")
        parser.add_argument("--out", required=True, metavar="FILE", help="output file ('-' for stdout)")
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--analysis", type=whole_number_option, metavar="ID",
                           help="report this analysis (default: the latest done)")
        which.add_argument("--run", action="store_true", help="compute a fresh analysis in this process first")
        parser.add_argument("--bootstrap", type=whole_number_option,
                            help="with --run: bootstrap samples per method (default 1000)")
        parser.add_argument("--confidence", type=float, help="with --run: rank range confidence (default 0.95)")
        parser.add_argument("--seed", type=whole_number_option,
                            help=f"with --run: random seed, 0 to {MAX_SEED} (default 1)")
        parser.add_argument("--metrics", metavar="DIR",
                            help="with --run: folder of scores.<metric> files ('SYSTEM value...' lines) or "
                                 "scores.<metric>.csv files (a header row, then SYSTEM,value...)")
        parser.add_argument("--standalone", action="store_true",
                            help="latex: a complete document instead of tabulars to \\input")

    def handle_campaign(self, campaign, **options):
        given = [f"--{name}" for name in RUN_OPTIONS if options[name] is not None]
        if given and not options["run"]:
            raise CommandError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} only with --run")
        if options["standalone"] and options["format"] != "latex":
            raise CommandError("--standalone applies to --format latex only")
        check_output_path(options["out"])
        run = self.fresh_run(campaign, options) if options["run"] else self.stored_run(campaign, options["analysis"])
        text = render_report(run.result, options["format"], standalone=options["standalone"])
        if write_output(self, options["out"], text):
            self.stderr.write(f"Wrote the {options['format']} report of analysis {run.pk} of {campaign.name!r} "
                              f"to {options['out']}.")

    def stored_run(self, campaign, run_id: int | None) -> AnalysisRun:
        """The campaign's done analysis ``run_id``, or its latest done one."""
        done = AnalysisRun.objects.filter(campaign=campaign, status=AnalysisRun.Status.DONE)
        if run_id is None:
            run = done.order_by("-created_at", "-id").first()
            if run is None:
                raise CommandError(
                    f"{campaign.name!r} has no finished analysis; run one with --run (or manage.py analyze)"
                )
            return run
        run = AnalysisRun.objects.filter(campaign=campaign, pk=run_id).first()
        if run is None:
            known = ", ".join(str(pk) for pk in done.values_list("pk", flat=True)) or "none"
            raise CommandError(f"{campaign.name!r} has no analysis {run_id} (finished analyses: {known})")
        if run.status != AnalysisRun.Status.DONE:
            raise CommandError(f"analysis {run_id} of {campaign.name!r} is {run.status}, not done")
        return run

    def fresh_run(self, campaign, options) -> AnalysisRun:
        """A new analysis of the campaign with the given parameters, computed here."""
        defaults = AnalysisParameters()
        try:
            parameters = AnalysisParameters(
                bootstrap=defaults.bootstrap if options["bootstrap"] is None else options["bootstrap"],
                confidence=defaults.confidence if options["confidence"] is None else options["confidence"],
                seed=defaults.seed if options["seed"] is None else options["seed"],
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        metrics = read_metrics(options["metrics"], campaign) if options["metrics"] else None
        run = create_run(campaign, parameters, metrics=metrics)
        try:
            run = execute_in_process(run, progress=ProgressBar(sys.stderr))
        except ValueError as exc:
            raise CommandError(f"analysis failed: {exc}") from None
        sys.stderr.write("\n")
        return run
