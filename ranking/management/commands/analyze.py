"""Analyse a campaign's judgments (G15; for PRWS campaigns N19, with the scores also turned into relative judgments):
pair statistics, annotator agreement, Expected Wins and TrueSkill rankings with bootstrap rank ranges and clusters,
head-to-head sign tests, per-judge rankings, PRWS means and rater checks, and with --metrics the correlation of
automatic metrics with the human ranking. Writes the analysis JSON."""
from __future__ import annotations

import sys

from django.core.management.base import CommandError

from annotation.management.command_helpers import (
    CampaignCommand,
    check_output_path,
    signed_whole_number_option,
    whole_number_option,
    write_output,
)
from ranking.core.parameters import (
    CORRELATION_DECIMALS,
    IGNORED_JUDGES,
    MAX_ACCURACY_FOLDS,
    MAX_BOOTSTRAP,
    MAX_DECIMALS,
    MAX_SEED,
    MIN_BOOTSTRAP,
    AnalysisParameters,
)
from ranking.loading import contestant_names
from ranking.metric_files import MetricFileError, read_metric_folder
from ranking.reports.json import render_json
from ranking.runs import create_run, execute_in_process

NO_ROUNDING = -1
"""The ``--correlation-decimals`` that leaves the human scores unrounded."""


def read_metrics(folder: str, campaign) -> dict[str, dict[str, tuple[float, ...]]]:
    """Metric scores from a folder of ``scores.<metric>`` files (``ranking.metric_files``), each with a line for
    every system of ``campaign``; CommandError naming the file (and line, or system) otherwise. Called before the
    run is recorded, so a bad file leaves no run behind."""
    try:
        return read_metric_folder(folder, contestant_names(campaign))
    except MetricFileError as exc:
        raise CommandError(str(exc)) from None


def correlation_decimals(value: int) -> int | None:
    """The rounding of ``--correlation-decimals``: 0 to MAX_DECIMALS decimals, or -1 for none (None)."""
    if value == NO_ROUNDING:
        return None
    if not 0 <= value <= MAX_DECIMALS:
        raise CommandError(
            f"--correlation-decimals must be from 0 to {MAX_DECIMALS}, or {NO_ROUNDING} for no rounding; got {value}"
        )
    return value


class ProgressBar:
    """A one-line progress bar on a terminal (plain lines elsewhere)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.last = ""

    def __call__(self, fraction: float, stage: str) -> None:
        filled = int(30 * fraction)
        line = f"[{'#' * filled}{'.' * (30 - filled)}] {100 * fraction:5.1f}% {stage}"
        if line != self.last:
            self.stream.write(("\r" + line.ljust(70)) if self.stream.isatty() else line + "\n")
            self.stream.flush()
            self.last = line


class Command(CampaignCommand):
    help = __doc__
    # the checks load every URL, view and the admin: ~0.7 s of a cold start, not needed here
    requires_system_checks = []

    def add_campaign_arguments(self, parser):
        parser.add_argument("--bootstrap", type=whole_number_option, default=1000,
                            help=f"bootstrap samples per method, {MIN_BOOTSTRAP} to {MAX_BOOTSTRAP:,} (default 1000)")
        parser.add_argument("--confidence", type=float, default=0.95, help="rank range confidence (default 0.95)")
        parser.add_argument("--seed", type=whole_number_option, default=1,
                            help=f"random seed, 0 to {MAX_SEED} (default 1)")
        parser.add_argument("--judge", metavar="USER", help="analyse this judge's judgments only")
        parser.add_argument(
            "--metrics", metavar="DIR",
            help="folder of scores.<metric> files to correlate, each with a line 'SYSTEM value...' for every system "
                 "of the campaign (or scores.<metric>.csv: CSV with a header row, then rows SYSTEM,value...)",
        )
        parser.add_argument(
            "--accuracy-folds", type=whole_number_option, default=0, metavar="K",
            help=f"also cross-validate the prediction accuracy of both methods with K folds, 2 to "
                 f"{MAX_ACCURACY_FOLDS:,} (G15 Table 4: 100)",
        )
        parser.add_argument(
            "--ignored-judges", default=",".join(IGNORED_JUDGES), metavar="USER,...",
            help="leave these users' judgments out, comma-separated (default: admin, METHODS 3; '' for none); each "
                 "must be a judge of the campaign (but admin); recorded in the parameters, their judgment counts in "
                 "the snapshot",
        )
        parser.add_argument(
            "--correlation-decimals", type=signed_whole_number_option, default=CORRELATION_DECIMALS, metavar="N",
            help=f"round the human scores to N decimals (0 to {MAX_DECIMALS}) before correlating them with metrics "
                 "(default 3, as G15's Table 5 used Table 3b as printed; -1: no rounding)",
        )
        parser.add_argument("--out", required=True, metavar="FILE.json", help="output file ('-' for stdout)")

    def handle_campaign(self, campaign, **options):
        check_output_path(options["out"])
        ignored = tuple(name.strip() for name in options["ignored_judges"].split(",") if name.strip())
        if options["judge"] and not campaign.judges.filter(username=options["judge"]).exists():
            raise CommandError(f"{options['judge']!r} is not a judge of {campaign.name!r}")
        if options["judge"] in ignored:
            raise CommandError(f"{options['judge']!r} is among --ignored-judges: the analysis would hold no judgment "
                               f"(give --ignored-judges '' to analyse them)")
        judges = set(campaign.judges.filter(username__in=ignored).values_list("username", flat=True))
        unknown = sorted(set(ignored) - judges - set(IGNORED_JUDGES))
        if unknown:
            raise CommandError(f"--ignored-judges names no judge of {campaign.name!r}: {', '.join(unknown)}")
        try:
            parameters = AnalysisParameters(
                bootstrap=options["bootstrap"], confidence=options["confidence"], seed=options["seed"],
                accuracy_folds=options["accuracy_folds"],
                correlation_decimals=correlation_decimals(options["correlation_decimals"]),
                ignored_judges=ignored,
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        metrics = read_metrics(options["metrics"], campaign) if options["metrics"] else None
        run = create_run(campaign, parameters, judge=options["judge"], metrics=metrics)
        try:
            run = execute_in_process(run, progress=ProgressBar(sys.stderr))
        except ValueError as exc:
            raise CommandError(f"analysis failed: {exc}") from None
        sys.stderr.write("\n")
        text = render_json(run.result)
        if write_output(self, options["out"], text):
            self.stderr.write(f"Wrote analysis {run.pk} of {campaign.name!r} to {options['out']}.")
