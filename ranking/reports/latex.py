"""The LaTeX report: G15's tables in the paper's layout, as tabular environments to ``\\input`` or as a standalone
document that compiles on its own.

Tables: 1 (pairs per judge, ties in parentheses), 2 (agreement with its degree, and the per-judge kappa matrix,
upper triangle, stars where too few comparisons), 3b and 3c (Expected Wins and TrueSkill rankings, a rule between
clusters), 3d (head-to-head in Expected Wins order with the sign-test marks), 4 (prediction accuracy) when the
analysis has it, 5 (metric correlations) when it has metrics, C5a and C5b (Table 5 of the metrics computed from
the campaign's references, ``metrics_computed``, against the Expected Wins and the TrueSkill scores) when it has
those, 6 and 7 (per-judge correlations and rankings) when it has them (Table 6, when the analysis has no judge
correlations, with the reason), for PRWS campaigns the systems' mean scores
(Napoles et al. 2019, Table 6) with the distribution of their sentence scores and the split-half reliability (N19
Table 7), and the raters rater quality control excluded, with their numbers. The tabulars need the ``booktabs``
and ``graphicx`` packages. System and judge names are escaped. A number the analysis left undefined prints as
"--" with a letter whose reason the table's note gives.

The standalone document is set for pdfLaTeX (T1 fonts), which stops with an error at a character its fonts lack. Its
text is therefore composed (Unicode NFC: a file name saved decomposed, ``Zu`` + U+0308 + ``rich``, prints as
``Zürich``), and each character still outside T1 (Cyrillic, Greek, CJK, a few Latin letters such as ``Ħ``) is
declared to print as its code point, ``[U+041C]``, with a note saying so. The tabulars to ``\\input`` are composed
too; a document's preamble is not theirs to set, so when their names hold characters outside T1 their header says
so and gives the two ways to print them: XeLaTeX or LuaLaTeX with ``fontspec`` and a font that has them, or
pdfLaTeX with the standalone document's ``\\DeclareUnicodeCharacter`` lines, written out to copy.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gecappraise.p_values import shown_p_value
from gecappraise.plurals import counted
from ranking.contract import head_to_head_order
from ranking.contract_schema import DISTRIBUTION_KEYS
from ranking.core.significance import significance_mark

from .computed_metrics import NAMES
from .formatting import NoteLetters, beta, fixed, matrix_reason, percent, rank_range, reason_for, short
from .provenance import METHOD_NAMES, provenance
from .tables import (
    TABLE_4_ROWS,
    agreement_degree,
    clusters,
    judges,
    metric_rows,
    too_few_comparisons,
    unpredictable_pairs,
)

LATEX_SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_SPECIAL = re.compile("|".join(re.escape(c) for c in LATEX_SPECIALS))

MARKS = {"⋆": r"$^{\star}$", "†": r"$^{\dagger}$", "‡": r"$^{\ddagger}$"}
"""G15 Table 3d's significance marks (``ranking.core.significance``) as LaTeX symbols."""

PACKAGES = ("booktabs", "graphicx")

NOT_IN_T1 = frozenset("\u0126\u0127\u0138\u013f\u0140\u0149\u0166\u0167\u017f")
"""The letters of Latin-1 Supplement and Latin Extended-A (U+00A0-U+017F) that pdfLaTeX's T1 fonts lack (Ħ ħ ĸ Ŀ ŀ ŉ
Ŧ ŧ ſ); T1 has the others."""

PUNCTUATION_IN_T1 = frozenset("\u2013\u2014\u2018\u2019\u201a\u201c\u201d\u201e\u2020\u2021\u2022\u2026"
                              "\u2030\u2039\u203a\u20ac\u2122")
"""The characters above U+017F that LaTeX's UTF-8 input prints with the T1 and TS1 (textcomp) fonts and that names
typed on a keyboard hold: dashes, curly quotes, daggers, bullet, ellipsis, per mille, guillemets, euro, trade mark.
No other character above U+017F is assumed to print."""

HUMAN_SCORES = {
    "expected_wins": "Expected Wins scores (the bootstrap means of Table 3b, as printed)",
    "trueskill": "TrueSkill scores (the bootstrap means of Table 3c, as printed)",
}
"""The human scores a Table 5 correlates the metrics with, by ranking method (``core.analysis.metric_correlations``)."""
COMPUTED_TABLES = (("C5a", "expected_wins"), ("C5b", "trueskill"))
"""The numbers of the Table 5 of the computed metrics (``metrics_computed``) against each human ranking."""

DISTRIBUTION_HEADS = {"min": "Min", "q1": "$Q_1$", "median": "Median", "q3": "$Q_3$", "max": "Max"}
"""The PRWS table's heads of the points of a system's score distribution (``DISTRIBUTION_KEYS``)."""


def escape_latex(text: str) -> str:
    """``text`` with LaTeX's special characters replaced by commands that print them."""
    return _SPECIAL.sub(lambda match: LATEX_SPECIALS[match.group()], str(text))


class Notes(NoteLetters):
    """The reasons of a table's undefined numbers, each with a letter: a cell prints ``--`` and its letter."""

    def undefined(self, reason: str) -> str:
        """``--`` with the letter of ``reason`` (the next letter when it is new)."""
        return f"--$^{{{self.letter(reason)}}}$"

    def shown(self, holder: Mapping, key: str, text: str) -> str:
        """``text`` (a formatted number), or ``--`` with the letter of the reason where ``holder[key]`` is None."""
        return self.undefined(reason_for(holder, key)) if holder.get(key) is None else _number(text)

    def note(self, text: str) -> str:
        """``text`` followed by the letters' reasons."""
        return text + "".join(f" $^{{{letter}}}$ {escape_latex(reason)}." for reason, letter in self.reasons.items())


@dataclass(frozen=True)
class LatexTable:
    """One table: its G15 number, a title, a note explaining it and its tabular."""

    number: str
    title: str
    note: str
    tabular: str


def render_latex(analysis: Mapping, standalone: bool = False) -> str:
    """G15's tables of ``analysis``: tabulars with their captions as comments, or (``standalone``) a complete
    article with the provenance, a heading and a note per table."""
    tables = latex_tables(analysis)
    lines = provenance(analysis, worded=True)
    if not standalone:
        body = unicodedata.normalize("NFC", "\n\n".join(
            f"% Table {t.number}: {t.title}. {t.note}\n{t.tabular}" for t in tables
        ))
        header = [f"% gecappraise report, G15's tables. Needs \\usepackage{{{','.join(PACKAGES)}}}."]
        header += fonts_needed(sorted({char for char in body if not in_t1(char)}))
        header += [f"% {label}: {' '.join(value.split())}" for label, value in lines]
        return unicodedata.normalize("NFC", "\n".join(header)) + "\n\n" + body + "\n"
    facts = "\n".join(f"{escape_latex(label)} & {escape_latex(value)} \\\\" for label, value in lines)
    body = "\n\n".join(
        f"\\subsection*{{Table {t.number}: {t.title}}}\n\\begin{{center}}\n{t.tabular}\n\\end{{center}}\n"
        f"{{\\small {t.note}\\par}}"
        for t in tables
    )
    text = unicodedata.normalize(
        "NFC",
        f"\\section*{{Human evaluation of {escape_latex(analysis.get('campaign', ''))}}}\n"
        f"\\begin{{tabular}}{{ll}}\n{facts}\n\\end{{tabular}}\n\n{body}\n",
    )
    missing = sorted({char for char in text if not in_t1(char)})
    if missing:
        text += (f"\n{{\\small Characters that the fonts of this document lack are shown as their code points "
                 f"({code_point(missing[0])}).\\par}}\n")
    return (
        "\\documentclass[10pt]{article}\n"
        "\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage[margin=2cm]{geometry}\n"
        + "".join(f"\\usepackage{{{package}}}\n" for package in PACKAGES)
        + "".join(f"\\DeclareUnicodeCharacter{{{ord(char):04X}}}{{{code_point(char)}}}\n" for char in missing)
        + f"\\begin{{document}}\n{text}\\end{{document}}\n"
    )


def fonts_needed(missing: Sequence[str]) -> list[str]:
    """The header comments of the tabulars to ``\\input`` whose text holds ``missing``, characters outside pdfLaTeX's
    T1 fonts: what to compile them with, and the declarations that print each as its code point with pdfLaTeX (the
    standalone document's). None for none."""
    if not missing:
        return []
    shown = ", ".join(f"{char} U+{ord(char):04X}" for char in missing)
    return [
        f"% Names here hold characters that pdfLaTeX's T1 fonts lack ({shown}).",
        "% Compile with XeLaTeX or LuaLaTeX and \\usepackage{fontspec} with a main font that has them, or with",
        "% pdfLaTeX (\\usepackage[T1]{fontenc}) and these lines in the preamble, which print each as its code point",
        "% (as the standalone report does):",
        *(f"% \\DeclareUnicodeCharacter{{{ord(char):04X}}}{{{code_point(char)}}}" for char in missing),
    ]


def in_t1(char: str) -> bool:
    """Whether pdfLaTeX's T1 fonts (with ``inputenc``'s UTF-8) print ``char``: ASCII, Latin-1 Supplement and
    Latin Extended-A but ``NOT_IN_T1``, and ``PUNCTUATION_IN_T1``."""
    return (char.isascii() or ("\u00a0" <= char <= "\u017f" and char not in NOT_IN_T1)
            or char in PUNCTUATION_IN_T1)


def code_point(char: str) -> str:
    """``char`` as its code point in typewriter type, ``[U+041C]``: what the standalone document prints for a
    character its fonts lack."""
    return f"\\texttt{{[U+{ord(char):04X}]}}"


def latex_tables(analysis: Mapping) -> list[LatexTable]:
    """The tables the analysis has data for, in G15's order."""
    parameters = analysis.get("parameters") or {}
    confidence = parameters.get("confidence")
    bootstrap = parameters.get("bootstrap")
    tables = [pairs_table(analysis), agreement_table(analysis), agreement_matrix_table(analysis)]
    for number, method in (("3b", "expected_wins"), ("3c", "trueskill")):
        notes = Notes()
        tabular = ranking_tabular(analysis[method]["systems"], "score", notes)
        tables.append(LatexTable(
            number, f"Human {METHOD_NAMES[method]} ranking",
            notes.note(f"Score: mean over {bootstrap} bootstrap samples. Ranges and clusters from bootstrap "
                       f"resampling at confidence {confidence}."),
            tabular,
        ))
    tables.append(head_to_head_table(analysis))
    if analysis.get("accuracy"):
        tables.append(accuracy_table(analysis["accuracy"]))
    if metric_rows(analysis):
        tables.append(metrics_table(analysis))
    computed = analysis.get("metrics_computed") or {}
    for number, method in COMPUTED_TABLES:
        if metric_rows(computed.get(method) or {}):
            tables.append(metrics_table(
                computed[method], number,
                f"Correlation of the computed metrics with the human {METHOD_NAMES[method]} ranking", method, NAMES,
            ))
    per_judge = analysis.get("per_judge") or {}
    if per_judge.get("correlations"):
        tables.append(judge_correlation_table(per_judge["correlations"]))
    elif per_judge.get("reason"):
        tables.append(no_judge_correlation_table(per_judge["reason"]))
    if per_judge.get("rankings"):
        notes = Notes()
        tabular = "\n\\quad\n".join(
            ranking_tabular(per_judge["rankings"][judge]["systems"], "full_data_score", notes, title=judge)
            for judge in judges(analysis) if judge in per_judge["rankings"]
        )
        tables.append(LatexTable(
            "7", "Rankings by individual judges",
            notes.note(f"Score: Expected Wins on the judge's pairs. Rank ranges and clusters from bootstrap "
                       f"resampling at confidence {parameters.get('judge_confidence')}."),
            tabular,
        ))
    if (analysis.get("prws") or {}).get("systems"):
        tables.append(prws_table(analysis["prws"]))
    if (analysis.get("prws") or {}).get("reliability"):
        tables.append(reliability_table(analysis["prws"]["reliability"]))
    if (analysis.get("rater_qc") or {}).get("excluded"):
        tables.append(rater_qc_table(analysis["rater_qc"]))
    return tables


def pairs_table(analysis: Mapping) -> LatexTable:
    """G15 Table 1: rankings, unexpanded and expanded pairs per judge, ties in parentheses, and the total."""
    per_judge = analysis["pairs"]["per_judge"]
    # The counts are plain ("109098 (59117)"), as G15's printed Table 1 has them; the HTML report and the product's
    # pages group thousands ("109,098", formatting.grouped).

    def cells(counts: Mapping) -> str:
        return (f"{counts['rankings']} & {counts['unexpanded']} ({counts['unexpanded_ties']}) & "
                f"{counts['expanded']} ({counts['expanded_ties']}) \\\\")

    rows = [f"{escape_latex(judge)} & {cells(per_judge[judge])}" for judge in judges(analysis)]
    total = [f"Total & {cells(analysis['pairs'])}"]
    body = _tabular("lrrr", ["Judge & Ranks & Unexpanded & Expanded \\\\"], rows, total)
    return LatexTable("1", "Statistics for collected rankings",
                      "Rankings (Ranks), unexpanded and expanded pairwise judgments; ties in parentheses.", body)


def agreement_table(analysis: Mapping) -> LatexTable:
    """G15 Table 2a: inter- and intra-annotator kappa with their degree."""
    agreement = analysis["agreement"]
    notes = Notes()
    rows = [
        f"{label} & {notes.shown(agreement, key, fixed(agreement[key], 2))} & {agreement_degree(agreement[key])} \\\\"
        for key, label in (("inter", "Inter-annotator"), ("intra", "Intra-annotator"))
    ]
    return LatexTable("2a", "Inter-annotator and intra-annotator agreement for all judges",
                      notes.note("Cohen's $\\kappa$ on unexpanded pairwise judgments; degrees after Landis and Koch "
                                 "(1977)."),
                      _tabular("lrl", ["Agreement & Value & Degree \\\\"], rows))


def agreement_matrix_table(analysis: Mapping) -> LatexTable:
    """G15 Table 2b: pairwise kappa per judge (upper triangle, intra on the diagonal), ``*`` for too few
    comparisons, ``--`` with the reason's letter for a kappa undefined on enough of them."""
    names = judges(analysis)
    matrix = analysis["agreement"]["matrix"]
    notes = Notes()

    def cell(judge: str, other: str) -> str:
        values = matrix[judge][other]
        return "*" if too_few_comparisons(values) else notes.shown(values, "kappa", short(values["kappa"]))

    rows = [
        " & ".join([escape_latex(judge), *("--" if j < i else cell(judge, other) for j, other in enumerate(names))])
        + " \\\\"
        for i, judge in enumerate(names)
    ]
    header = " & ".join(["", *(_rotated(name) for name in names)]) + " \\\\"
    return LatexTable("2b", "Pairwise inter-annotator and intra-annotator agreement per judge",
                      notes.note("Cohen's $\\kappa$; stars indicate too few overlapping judgments."),
                      _tabular("l" + "r" * len(names), [header], rows))


def ranking_tabular(systems: Sequence[Mapping], score_key: str, notes: Notes, title: str | None = None) -> str:
    """G15 Table 3b/3c/7 layout: cluster number on a cluster's first row, score, rank range, system; a rule
    between clusters. ``score_key`` picks the printed score; ``title`` adds a heading row (Table 7's judge).
    Systems never judged come last, without a cluster, their score and range undefined (``notes``)."""
    head = ([f"\\multicolumn{{4}}{{c}}{{{escape_latex(title)}}} \\\\", "\\midrule"] if title else [])
    head.append("\\# & Score & Range & System \\\\")
    groups = []
    for group in clusters(list(systems)):
        groups.append([
            f"{group[0]['cluster'] if k == 0 and row['cluster'] is not None else ''} & "
            f"{notes.shown(row, score_key, fixed(row[score_key]))} & "
            f"{rank_range(*row['range'], dash='--') if row['range'] else notes.shown(row, 'range', '')} & "
            f"{escape_latex(row['system'])} \\\\"
            for k, row in enumerate(group)
        ])
    return _tabular("rrrl", head, *groups, align="[t]")


def head_to_head_table(analysis: Mapping) -> LatexTable:
    """G15 Table 3d: the share of judgments in which the column beat the row, with sign-test marks; rows and
    columns in the order of the full-data Expected Wins scores (as G15's ``head2head.pl``); a share above .5 (the
    column won) in bold; undefined shares (no decisive comparison) ``--`` with a note."""
    order = head_to_head_order(analysis)
    h2h = analysis["head_to_head"]
    notes = Notes()
    rows = []
    for row in order:
        cells = []
        for column in order:
            cell = h2h.get(row, {}).get(column)
            if row == column:
                cells.append("--")
            elif cell is None:
                cells.append("")
            elif cell["share"] is None:
                cells.append(notes.shown(cell, "share", ""))
            else:
                share = short(cell["share"])
                text = f"\\textbf{{{share}}}" if cell["share"] > 0.5 else share
                cells.append(text + MARKS.get(significance_mark(cell["p_value"]), ""))
        rows.append(" & ".join([escape_latex(row), *cells]) + " \\\\")
    header = " & ".join(["", *(_rotated(name) for name in order)]) + " \\\\"
    tabular = _tabular("l" + "c" * len(order), [header], rows)
    return LatexTable(
        "3d", "Head-to-head comparison for Expected Wins",
        notes.note(
            "Each cell: the share of non-tie judgments in which the column system beat the row system (bold: the "
            "column won); sign test at $p \\le 0.10$ ($\\star$), $p \\le 0.05$ ($\\dagger$) and $p \\le 0.01$ "
            "($\\ddagger$). Systems in the order of their full-data Expected Wins scores."
        ),
        "{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n" + tabular + "}",
    )


def accuracy_table(accuracy: Mapping) -> LatexTable:
    """G15 Table 4: cross-validated accuracy (percent) of predicting pairwise judgments, per method."""
    methods = [m for m in METHOD_NAMES if m in accuracy]
    header = " & ".join(["Method", *(METHOD_NAMES[m] for m in methods)]) + " \\\\"
    notes = Notes()
    rows = [
        " & ".join([label, *(notes.shown(accuracy[m], key, percent(accuracy[m][key])) for m in methods)]) + " \\\\"
        for key, label in TABLE_4_ROWS
    ]
    folds = next(iter(accuracy.values())).get("n_folds")
    left_out = unpredictable_pairs(accuracy)
    return LatexTable("4", "Accuracy for ranking-based prediction of pairwise judgments",
                      notes.note(f"Percent, {folds}-fold cross-validation." + (f" {left_out}" if left_out else "")),
                      _tabular("l" + "r" * len(methods), [header], rows))


def metrics_table(
    correlations: Mapping, number: str = "5", title: str = "Correlation of metrics with the human ranking",
    method: str = "expected_wins", names: Mapping[str, str] | None = None,
) -> LatexTable:
    """G15 Table 5: Spearman's rho and Pearson's r of each metric of ``correlations`` (the analysis, or one human
    ranking of its ``metrics_computed``: ``metrics`` and ``beta_sweep``) with the human ranking of ``method``; M2
    F-beta rows first (``tables.metric_rows``), the other metrics shown by their ``names`` where those have them."""
    sweep_rows, other_rows = [], []
    notes = Notes()
    for row in metric_rows(correlations):
        values = {"spearman": row.spearman, "pearson": row.pearson, "reason": row.reason}
        cells = f"{notes.shown(values, 'spearman', fixed(row.spearman))} & " \
                f"{notes.shown(values, 'pearson', fixed(row.pearson))} \\\\"
        if row.beta is None:
            other_rows.append(f"{escape_latex((names or {}).get(row.metric, row.metric))} & {cells}")
        else:
            official = "^{*}" if "official" in row.notes else ""
            sweep_rows.append(f"M$^2$ F$_{{{beta(row.beta)}}}{official}${_maxima(row.notes)} & {cells}")
    groups = [g for g in (sweep_rows, other_rows) if g]
    return LatexTable(
        number, title,
        notes.note(
            f"Human ranking: {HUMAN_SCORES[method]}. M$^2$ F$_\\beta$ from "
            "precision and recall; $^{*}$ marks the CoNLL-2014 choice $\\beta = 0.5$; ``max'' marks the $\\beta$ "
            "with the highest correlation."
        ),
        _tabular("lrr", ["Metric & Spearman's $\\rho$ & Pearson's $r$ \\\\"], *groups),
    )


def judge_correlation_table(correlations: Mapping) -> LatexTable:
    """G15 Table 6: Spearman between judges above the diagonal, Pearson below; each judge against the rest
    (last column rho, last row r) and the weighted means of those."""
    names = sorted(correlations["rest"])
    rest, mean = correlations["rest"], correlations["weighted_mean_rest"]
    notes = Notes()

    def cell(i: int, j: int) -> str:
        if i == j:
            return "--"
        value = correlations["spearman" if i < j else "pearson"][names[i]][names[j]]
        if value is None:
            return notes.undefined(matrix_reason(correlations, names[i], names[j]))
        return _number(short(value))

    rows = []
    for i, judge in enumerate(names):
        cells = [cell(i, j) for j in range(len(names))]
        cells += [notes.shown(rest[judge], "spearman", short(rest[judge]["spearman"])),
                  notes.shown(mean, "spearman", short(mean["spearman"])) if i == 0 else ""]
        rows.append(" & ".join([escape_latex(judge), *cells]) + " \\\\")
    footer = [
        " & ".join(["$r$", *(notes.shown(rest[judge], "pearson", short(rest[judge]["pearson"])) for judge in names),
                    "--", ""]) + " \\\\",
        " & ".join(["$\\bar{r}$", notes.shown(mean, "pearson", short(mean["pearson"])),
                    *([""] * (len(names) + 1))]) + " \\\\",
    ]
    header = " & ".join(["", *(_rotated(name) for name in names), "$\\rho$", "$\\bar{\\rho}$"]) + " \\\\"
    left_out = mean.get("left_out") or []
    return LatexTable(
        "6", "Inter-annotator correlation",
        notes.note(
            "Spearman's $\\rho$ above the diagonal, Pearson's $r$ below; $\\rho$ and $r$: each judge against the "
            "ranking of all other judges; $\\bar{\\rho}$, $\\bar{r}$: their means weighted by the judges' expanded "
            "pairs"
            + (f", leaving out {escape_latex(', '.join(left_out))} (correlation with the others undefined)."
               if left_out else ".")
        ),
        _tabular("l" + "r" * (len(names) + 2), [header], rows, footer),
    )


def no_judge_correlation_table(reason: str) -> LatexTable:
    """G15 Table 6 when the analysis has no judge correlations (``per_judge.correlations`` null): the means of the
    judges' correlations with the rest, undefined with the JSON's ``reason`` in the note, as the HTML report says
    it."""
    notes = Notes()
    row = f"Judges & {notes.undefined(reason)} & {notes.undefined(reason)} \\\\"
    return LatexTable(
        "6", "Inter-annotator correlation",
        notes.note("No correlations between judges: Spearman's $\\rho$ and Pearson's $r$ of the judges' Expected "
                   "Wins scores are undefined."),
        _tabular("lrr", ["& $\\bar{\\rho}$ & $\\bar{r}$ \\\\"], [row]),
    )


def prws_table(prws: Mapping) -> LatexTable:
    """The PRWS scores of each system (N19 Table 6): mean, mean z-score, unchanged and meaning-changed shares, then
    the distribution of its sentence scores (lowest, quartiles, highest: the HTML report's box plot) when the
    analysis has it (analyses stored before it have not); a system without a rating leaves those cells empty."""
    notes = Notes()
    keys = DISTRIBUTION_KEYS if any("distribution" in row for row in prws["systems"]) else ()

    def spread(row: Mapping) -> str:
        points = row.get("distribution") or {}
        return "".join(f" & {fixed(points.get(key), 1)}" for key in keys)

    rows = [
        f"{escape_latex(row['system'])}{' (control)' if row.get('control') else ''} & "
        f"{notes.shown(row, 'mean', fixed(row.get('mean'), 2))} & "
        f"{notes.shown(row, 'z_mean', fixed(row.get('z_mean')))} & "
        f"{notes.shown(row, 'unchanged_pct', fixed(row.get('unchanged_pct'), 1))} & "
        f"{notes.shown(row, 'meaning_changed_pct', fixed(row.get('meaning_changed_pct'), 1))}{spread(row)} \\\\"
        for row in prws["systems"]
    ]
    # Two-line heads, so that the table with the distribution fits a page's width.
    header = ["& & & Unchanged & Meaning" + " &" * len(keys) + " \\\\",
              "System & Mean & $z$ & \\% & changed \\%" + "".join(f" & {DISTRIBUTION_HEADS[key]}" for key in keys)
              + " \\\\"]
    ratings, raters = prws.get("ratings"), prws.get("raters")
    note = (f"Mean 0--100 score over the sentences, mean of the raters' $z$-scores; {counted(ratings, 'rating')} "
            f"by {counted(raters, 'rater')} who passed the quality check.")
    if keys:
        note += (" Min to Max: the lowest, the quartiles and the highest of the system's sentence scores (each "
                 "sentence's mean rating).")
    return LatexTable("PRWS", "Scores of partial ranking with scalars", notes.note(note),
                      _tabular("lrrrr" + "r" * len(keys), header, rows))


def reliability_table(reliability: Mapping) -> LatexTable:
    """N19 Table 7: split-half reliability of the PRWS scores, Pearson's r and Spearman's rho between the means of
    two random halves of each candidate's ratings, at sentence and at system level, averaged over the splits; and
    how many candidates (systems) had two ratings or more to split."""
    notes = Notes()
    rows = [
        f"{label} & {notes.shown(reliability[level], 'pearson', fixed(reliability[level]['pearson']))} & "
        f"{notes.shown(reliability[level], 'spearman', fixed(reliability[level]['spearman']))} & "
        f"{reliability[level][count]} \\\\"
        for level, label, count in (("sentence", "Sentence", "candidates"), ("system", "System", "systems"))
        if level in reliability
    ]
    return LatexTable(
        "PRWS reliability", "Split-half reliability of partial ranking with scalars",
        notes.note(f"Correlation between the means of two random halves of each candidate's ratings, averaged over "
                   f"{counted(reliability['splits'], 'split')} (Napoles et al. 2019, Table 7); Compared: the "
                   "candidates with two ratings or more, and the systems with such a candidate."),
        _tabular("lrrr", ["Level & Pearson's $r$ & Spearman's $\\rho$ & Compared \\\\"], rows),
    )


def latex_p_value(p_value: float | None) -> str:
    """A rater-QC p-value as the other reports write it (``shown_p_value``: four decimals, "< 0.0001" below), the
    "<" in math mode (text mode without T1 fonts prints it as an inverted exclamation mark); ``""`` when missing."""
    if p_value is None:
        return ""
    shown = shown_p_value(p_value)
    return f"$<${shown[2:]}" if shown.startswith("<") else shown


def rater_qc_table(qc: Mapping) -> LatexTable:
    """The raters rater QC excluded, with their numbers: control screens where Source+error was judged worse, the
    Mann-Whitney p-value, total and median seconds, and why."""
    notes = Notes()
    rows = []
    for row in qc["excluded"]:
        controls = (f"{row['control_passed']}/{row['control_screens']}" if row["control_rate"] is not None
                    else notes.undefined(reason_for(row, "control_rate")))
        rows.append(
            f"{escape_latex(row['rater'])} & {row['attempt']} & {row['screens']} & {controls} & "
            f"{notes.shown(row, 'p_value', latex_p_value(row['p_value']))} & "
            f"{notes.shown(row, 'total_seconds', fixed(row['total_seconds'], 0))} & "
            f"{notes.shown(row, 'median_seconds', fixed(row['median_seconds'], 1))} & {escape_latex(row['why'])} \\\\"
        )
    rule = qc["rule"]
    header = "Rater & Attempt & Screens & Controls & $p$ & Total s & Median s & Why \\\\"
    return LatexTable(
        "QC", "Raters excluded by quality control",
        notes.note(escape_latex(
            f"Left out of every statistic. Controls: screens where Source+error was judged worse than Source, of "
            f"those showing both (pass at {percent(rule['control_threshold'], 0)}%); p: one-sided Mann-Whitney U "
            f"test of the z-scored judgments of Source+error against the rest (pass at p <= {rule['p_value']:g}); "
            f"time limits {rule['min_total_seconds']:g} s in total and {rule['min_median_seconds']:g} s median per "
            "screen (0: none).")),
        _tabular("lrrrrrrp{5cm}", [header], rows),
    )


def _tabular(columns: str, head: Sequence[str], *groups: Sequence[str], align: str = "") -> str:
    """A booktabs tabular: the head, then each non-empty group of rows with a rule between groups."""
    lines = [f"\\begin{{tabular}}{align}{{{columns}}}", "\\toprule", *head]
    for group in groups:
        if group:
            lines += ["\\midrule", *group]
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines)


def _rotated(name: str) -> str:
    return f"\\rotatebox{{90}}{{{escape_latex(name)}}}"


def _number(text: str) -> str:
    """A printed number with a typeset minus sign."""
    return "$-$" + text[1:] if text.startswith("-") else text


def _maxima(notes: Sequence[str]) -> str:
    """`` (max. rho, r)`` for the betas where a correlation peaks."""
    maxima = [statistic for note, statistic in (("max_spearman", "\\rho"), ("max_pearson", "r")) if note in notes]
    return f" (max.\\ ${', '.join(maxima)}$)" if maxima else ""


