"""Metric score files: a folder of ``scores.<metric>`` files in the text form of G15's release (``metrics/``), read
and checked against a campaign before an analysis is recorded (``manage.py analyze --metrics``, ``export_report
--run --metrics``).

One line per system: ``SYSTEM value [value ...]``, separated by spaces or tabs; blank lines are skipped. A file
``scores.<metric>.csv`` is CSV with a header instead (PRODUCT.md "Data in"): a header row (``system,score`` or
``system,f0.5,precision,recall``: its names are not read), then ``SYSTEM,value[,value...]`` rows.
``scores.m2`` and ``scores.m2.<k>`` hold F0.5, precision and recall; ``scores.bleu``, ``scores.meteor``,
``scores.iwacc`` one value. The analysis reads any file of three values a line so (Table 5 correlates the first,
the F-beta sweep of Figure 3 is computed from the other two), so their precision and recall must be fractions
from 0 to 1. The lines are read as the test-set files are (``textfiles.decode_lines``: UTF-8, split
at line feeds only, a CRLF's carriage return dropped, no control characters but tab), so a message's line is the
line an editor shows; a value follows the number rule of every score file (``plain_number``: not ``1_0``, ``inf``
or ``nan``, nor a number a float does not hold, such as 1e400 or 1e-400). Every system of the campaign needs a line
in every file. Each refusal is a ``MetricFileError`` naming the file, and the line or the system.
"""
from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from pathlib import Path

from annotation.services.field_rules import composed
from annotation.services.textfiles import InputFileError, NamedFile, NumberError, decode_lines, plain_number, shown
from gecappraise.plurals import counted

PREFIX = "scores."
CSV_SUFFIX = ".csv"
"""A metric file whose name ends so is CSV with a header row."""
_FIELD_SEPARATOR = re.compile(r"[ \t]+")

MetricScores = dict[str, tuple[float, ...]]

PRECISION_RECALL_WIDTH = 3
"""Values a line of a file of F, precision and recall has (``scores.m2``), the files of the F-beta sweep."""


class MetricFileError(ValueError):
    """A metric score file cannot be used; the message names the file and the line or system."""


def parse_metric_scores(name: str, data: bytes) -> MetricScores:
    """``{system: values}`` from the ``SYSTEM value...`` lines of the file ``name`` (its bytes ``data``), each system
    named with its accents composed (``field_rules.composed``: a tool on macOS writes them decomposed).

    Raises MetricFileError naming the file and line when the file is not UTF-8 text of lines, a value is not a
    plain finite number, a line has no value, lines have different numbers of values or a system occurs twice.
    """
    try:
        lines = decode_lines(NamedFile(name, data))
    except InputFileError as exc:
        raise MetricFileError(str(exc)) from None
    rows = [(number, fields) for number, fields in enumerate(_fields(name, lines), start=1) if fields != [""]]
    if name.endswith(CSV_SUFFIX):
        rows = _csv_rows(name, rows)
    scores: MetricScores = {}
    for number, fields in rows:
        _add_line(scores, f"{name}: line {number}", fields)
    if not scores:
        layout = "a header, then rows 'SYSTEM,value...'" if name.endswith(CSV_SUFFIX) else "a line is 'SYSTEM value...'"
        raise MetricFileError(f"{name}: no metric scores ({layout})")
    return scores


def _fields(name: str, lines: list[str]) -> list[list[str]]:
    """The fields of each line: separated by commas in a CSV file (``csv``'s quoting, within the line), else by
    spaces or tabs."""
    if name.endswith(CSV_SUFFIX):
        return [[field.strip(" \t") for field in next(csv.reader([line]), [])] or [""] for line in lines]
    return [_FIELD_SEPARATOR.split(line.strip(" \t")) for line in lines]


def _csv_rows(name: str, rows: list[tuple[int, list[str]]]) -> list[tuple[int, list[str]]]:
    """The rows of a CSV metric file after its header, each with as many fields as the header names; a
    MetricFileError naming the line for a first row of numbers (no header) or a row of another width."""
    if not rows:
        return rows
    (header_line, header), *rows = rows
    if len(header) > 1 and all(_is_number(field) for field in header[1:]):
        raise MetricFileError(f"{name}: line {header_line}: a CSV metric file starts with a header row (such as "
                              f"'system,score'), not with the scores of {shown(header[0])}")
    for number, fields in rows:
        if len(fields) != len(header):
            raise MetricFileError(f"{name}: line {number}: {counted(len(fields), 'field')} where the header (line "
                                  f"{header_line}) has {len(header)}")
    return rows


def _is_number(text: str) -> bool:
    """Whether ``text`` is a number as a metric file writes one (``plain_number``)."""
    try:
        plain_number(text)
    except NumberError:
        return False
    else:
        return True


def _add_line(scores: MetricScores, where: str, fields: list[str]) -> None:
    """Add one line's system and values to ``scores``, checked against the lines before it."""
    system, values = fields[0], fields[1:]
    if not values:
        raise MetricFileError(f"{where}: system {shown(system)} has no value")
    parsed = tuple(_value(value, where) for value in values)
    width = len(next(iter(scores.values()), parsed))
    if len(parsed) != width:
        raise MetricFileError(f"{where}: {counted(len(parsed), 'value')} where earlier lines have {width}")
    if len(parsed) == PRECISION_RECALL_WIDTH and not all(0.0 <= value <= 1.0 for value in parsed[1:]):
        raise MetricFileError(
            f"{where}: precision and recall (the second and third values of a line of F, precision and recall) are "
            f"fractions from 0 to 1, not {values[1]} and {values[2]}"
        )
    system = composed(system)
    if system in scores:
        raise MetricFileError(f"{where}: system {shown(system)} occurs twice")
    scores[system] = parsed


def _value(text: str, where: str) -> float:
    """A value of a line: ``plain_number``, so never infinite, nor 0 for a number that is not."""
    try:
        return plain_number(text)
    except NumberError as error:
        raise MetricFileError(f"{where}: {shown(text)} {error}") from None


def metric_name(file: Path) -> str:
    """The metric a ``scores.<metric>`` (or ``scores.<metric>.csv``) file scores; MetricFileError for a file with
    nothing after the dot."""
    name = file.name.removeprefix(PREFIX).removesuffix(CSV_SUFFIX)
    if not name:
        raise MetricFileError(f"{file}: a metric file is named {PREFIX}<metric>; this one names no metric")
    return name


def read_metric_folder(folder: str, systems: Sequence[str]) -> dict[str, MetricScores]:
    """The scores of every ``scores.<metric>`` (or ``scores.<metric>.csv``) file of ``folder`` by metric, each
    checked to have a line for every one of ``systems`` (the campaign's); MetricFileError naming the file (and line,
    or system) otherwise, and for two files of one metric."""
    path = Path(folder)
    if not path.is_dir():
        raise MetricFileError(f"{folder}: no such folder" if not path.exists() else f"{folder}: not a folder")
    files = sorted(p for p in path.glob(PREFIX + "*") if p.is_file())
    if not files:
        raise MetricFileError(f"{folder}: no {PREFIX}<metric> files found")
    metrics = {}
    for file in files:
        name = metric_name(file)
        if name in metrics:
            raise MetricFileError(f"{file}: metric {name} is in {PREFIX}{name} too; keep one of the two files")
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise MetricFileError(f"{file}: cannot read ({exc.strerror})") from None
        scores = parse_metric_scores(str(file), data)
        missing = [system for system in systems if composed(system) not in scores]
        if missing:
            plural = "s" if len(missing) > 1 else ""
            raise MetricFileError(f"{file}: no line for system{plural} {', '.join(missing)}")
        metrics[name] = _by_campaign_names(scores, systems)
    return metrics


def _by_campaign_names(scores: MetricScores, systems: Sequence[str]) -> MetricScores:
    """``scores`` with each of the campaign's ``systems`` under its name as the campaign writes it; the file's other
    lines as the file names them."""
    ours = {composed(system): system for system in systems}
    return {ours.get(name, name): values for name, values in scores.items()}
