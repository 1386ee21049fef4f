"""The LaTeX report: G15's tables, well-formed tabulars, escaped names, a standalone document that compiles."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ranking.contract_schema import DISTRIBUTION_KEYS
from ranking.core.significance import significance_mark
from ranking.reports.formatting import fixed
from ranking.reports.latex import (
    LATEX_SPECIALS,
    MARKS,
    PUNCTUATION_IN_T1,
    escape_latex,
    in_t1,
    latex_p_value,
    latex_tables,
    prws_table,
    reliability_table,
    render_latex,
)

UNESCAPED_AMPERSAND = re.compile(r"(?<!\\)&")
RULES = ("\\toprule", "\\midrule", "\\bottomrule")


def unescape(text: str) -> str:
    inverse = {v: k for k, v in LATEX_SPECIALS.items()}
    return re.sub("|".join(re.escape(v) for v in inverse), lambda m: inverse[m.group()], text)


@given(st.text())
def test_escaping_keeps_every_character_and_leaves_no_special_one_bare(text):
    escaped = escape_latex(text)
    assert unescape(escaped) == text
    commands = re.sub("|".join(re.escape(v) for v in LATEX_SPECIALS.values()), "", escaped)
    assert not set(commands) & set(LATEX_SPECIALS)


def test_a_system_named_like_markup_is_escaped():
    assert escape_latex("A&B_<x>") == r"A\&B\_\textless{}x\textgreater{}"


def tabulars(text: str) -> list[tuple[str, list[str]]]:
    """Each tabular's column specification and its lines."""
    found = re.findall(r"\\begin\{tabular\}(?:\[t\])?\{([^}]*)\}\n(.*?)\\end\{tabular\}", text, flags=re.S)
    return [(spec, body.strip().splitlines()) for spec, body in found]


def assert_well_formed(text: str) -> None:
    """Balanced braces, environments and math; every row of every tabular has as many cells as columns."""
    bare = re.sub(r"\\[{}]", "", text)
    assert bare.count("{") == bare.count("}")
    assert text.count("\\begin{tabular}") == text.count("\\end{tabular}") > 0
    assert len(re.findall(r"(?<!\\)\$", text)) % 2 == 0
    for spec, lines in tabulars(text):
        assert (lines[0] == "\\toprule") == (lines[-1] == "\\bottomrule")
        for line in lines:
            if line in RULES or line.startswith("\\multicolumn"):
                continue
            assert line.endswith(" \\\\"), line
            assert len(UNESCAPED_AMPERSAND.findall(line)) + 1 == len(spec), (spec, line)


def test_every_table_is_well_formed(full_analysis):
    numbers = [t.number for t in latex_tables(full_analysis)]
    assert numbers == ["1", "2a", "2b", "3b", "3c", "3d", "4", "5", "6", "7"]
    for standalone in (False, True):
        assert_well_formed(render_latex(full_analysis, standalone=standalone))


def test_tables_4_and_5_only_with_their_data(plain_analysis):
    assert [t.number for t in latex_tables(plain_analysis)] == ["1", "2a", "2b", "3b", "3c", "3d", "6", "7"]


def test_names_are_escaped_everywhere(full_analysis):
    text = render_latex(full_analysis, standalone=True)
    assert "A&B_<x>" not in text and "cyd & co" not in text
    assert r"A\&B\_\textless{}x\textgreater{}" in text and r"m\$u\$" in text and r"sys\#3" in text
    assert r"cyd \& co" in text


def test_ranking_tables_rows_in_rank_order_with_a_rule_between_clusters(full_analysis):
    table = next(t for t in latex_tables(full_analysis) if t.number == "3b")
    (spec, lines), = tabulars(table.tabular)
    rows = [line for line in lines if line not in RULES][1:]
    systems = full_analysis["expected_wins"]["systems"]
    assert [unescape(row.split(" & ")[3].removesuffix(" \\\\")) for row in rows] == [s["system"] for s in systems]
    n_clusters = systems[-1]["cluster"]
    assert lines.count("\\midrule") == n_clusters  # one under the header, one between each two clusters
    cluster_cells = [row.split(" & ")[0] for row in rows]
    assert [c for c in cluster_cells if c] == [str(k) for k in range(1, n_clusters + 1)]
    first = systems[0]
    score = f"{first['score']:.3f}"
    assert rows[0].startswith(f"1 & {score} & ")


def test_head_to_head_cells_carry_the_sign_test_marks(full_analysis):
    table = next(t for t in latex_tables(full_analysis) if t.number == "3d")
    (spec, lines), = tabulars(table.tabular)
    order = [s["system"] for s in full_analysis["expected_wins"]["systems"]]
    body = [line for line in lines if line not in RULES][1:]
    assert len(body) == len(order)
    for row_system, line in zip(order, body):
        cells = line.removesuffix(" \\\\").split(" & ")
        assert unescape(cells[0]) == row_system
        for column, cell in zip(order, cells[1:]):
            if column == row_system:
                assert cell == "--"
                continue
            expected = full_analysis["head_to_head"][row_system][column]
            share = f"{expected['share']:.2f}".lstrip("0")
            bold = f"\\textbf{{{share}}}" if expected["share"] > 0.5 else share
            assert cell == bold + MARKS.get(significance_mark(expected["p_value"]), "")
    assert any(mark in table.tabular for mark in MARKS.values()) and "\\textbf" in table.tabular


def test_the_prws_table_gives_each_systems_score_distribution(prws_unrated_analysis, prws_undistributed_analysis):
    systems = prws_unrated_analysis["prws"]["systems"]
    (spec, lines), = tabulars(prws_table(prws_unrated_analysis["prws"]).tabular)
    head = "System & Mean & $z$ & \\% & changed \\%"
    assert spec == "l" + "r" * 9 and lines[2] == head + " & Min & $Q_1$ & Median & $Q_3$ & Max \\\\"
    body = [line.removesuffix(" \\\\").split(" & ") for line in lines if line not in RULES][2:]
    for cells, expected in zip(body[:-1], systems):
        assert cells[1] == fixed(expected["mean"], 2)
        assert cells[5:] == [fixed(expected["distribution"][key], 1) for key in DISTRIBUTION_KEYS]
    assert body[-1][1].startswith("--") and body[-1][5:] == [""] * len(DISTRIBUTION_KEYS)
    assert_well_formed(render_latex(prws_unrated_analysis, standalone=True))

    (spec, lines), = tabulars(prws_table(prws_undistributed_analysis["prws"]).tabular)
    assert spec == "lrrrr" and lines[2] == head + " \\\\"


def test_the_prws_reliability_table_gives_n19_table_7(prws_analysis):
    """The split-half reliability (N19 Table 7) was in the JSON, the HTML and the CSV report but not in the LaTeX."""
    reliability = prws_analysis["prws"]["reliability"]
    table = next(t for t in latex_tables(prws_analysis) if t.number == "PRWS reliability")
    (spec, lines), = tabulars(table.tabular)
    body = [line.removesuffix(" \\\\").split(" & ") for line in lines if line not in RULES][1:]
    levels = (("sentence", "Sentence", "candidates"), ("system", "System", "systems"))
    assert body == [[label, fixed(reliability[level]["pearson"]), fixed(reliability[level]["spearman"]),
                     str(reliability[level][count])] for level, label, count in levels]
    assert f"averaged over {reliability['splits']} splits" in table.note


def test_undefined_reliability_prints_its_reason():
    reliability = {"splits": 100,
                   "sentence": {"pearson": None, "spearman": None, "candidates": 0,
                                "reason": "fewer than 3 candidates with two ratings or more"},
                   "system": {"pearson": None, "spearman": None, "systems": 3,
                              "reason": "the halves' means are constant in every split"}}
    table = reliability_table(reliability)
    assert "Sentence & --$^{a}$ & --$^{a}$ & 0 \\\\" in table.tabular
    assert "System & --$^{b}$ & --$^{b}$ & 3 \\\\" in table.tabular
    assert table.note.endswith("$^{a}$ fewer than 3 candidates with two ratings or more. $^{b}$ the halves' means "
                               "are constant in every split.")


def test_computed_metrics_get_table_5_against_each_human_ranking(computed_analysis, prws_computed_analysis):
    """``metrics_computed``'s correlations in G15 Table 5's layout (M2 F-beta rows from the sweep, then the other
    metrics), once against the Expected Wins scores (C5a) and once against the TrueSkill scores (C5b)."""
    computed = computed_analysis["metrics_computed"]
    tables = latex_tables(computed_analysis)
    assert [t.number for t in tables] == ["1", "2a", "2b", "3b", "3c", "3d", "5", "C5a", "C5b", "6", "7"]
    for number, method, human in (("C5a", "expected_wins", "Expected Wins"), ("C5b", "trueskill", "TrueSkill")):
        table = next(t for t in tables if t.number == number)
        (spec, lines), = tabulars(table.tabular)
        cells = {line.split(" & ")[0].split(" (max.")[0]: line.removesuffix(" \\\\").split(" & ")[1:]
                 for line in lines if line not in RULES}
        official = next(point for point in computed[method]["beta_sweep"] if point["beta"] == 0.5)
        assert cells["M$^2$ F$_{0.5}^{*}$"] == [fixed(official["spearman"]), fixed(official["pearson"])]
        metrics = computed[method]["metrics"]
        for name, shown in (("gleu", "GLEU"), ("chrf", "chrF++")):
            assert cells[shown] == [fixed(metrics[name]["spearman"]), fixed(metrics[name]["pearson"])]
        assert "M2" not in cells and human in table.title + table.note
    numbers = [t.number for t in latex_tables(prws_computed_analysis)]
    assert numbers.index("3d") < numbers.index("C5a") < numbers.index("C5b") < numbers.index("PRWS")
    for standalone in (False, True):
        assert_well_formed(render_latex(computed_analysis, standalone=standalone))


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_standalone_document_compiles(full_analysis, prws_analysis, computed_analysis, prws_computed_analysis,
                                          tmp_path):
    for analysis in (full_analysis, prws_analysis, computed_analysis, prws_computed_analysis):
        (tmp_path / "report.tex").write_text(render_latex(analysis, standalone=True), encoding="utf-8")
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-3000:]
        assert (tmp_path / "report.pdf").stat().st_size > 0
        assert "Overfull" not in done.stdout, [line for line in done.stdout.splitlines() if "Overfull" in line]


def test_characters_outside_the_t1_fonts_print_as_code_points(non_latin_analysis, plain_analysis):
    text = render_latex(non_latin_analysis, standalone=True)
    body = text[text.index("\\begin{document}"):]
    assert "Z\u00fcrich" in body and "\u0308" not in text
    missing = {char for char in body if not in_t1(char)}
    assert missing >= set("Москва系统ΕλλάδαĦ")
    for char in missing:
        assert f"\\DeclareUnicodeCharacter{{{ord(char):04X}}}{{\\texttt{{[U+{ord(char):04X}]}}}}" in text
    assert "shown as their code points" in body
    assert "code points" not in render_latex(plain_analysis, standalone=True)
    typed = render_latex({**plain_analysis, "campaign": "Kim\u2019s test \u2013 \u201cround 2\u201d \u2026"},
                         standalone=True)
    assert "Kim\u2019s test \u2013 \u201cround 2\u201d \u2026" in typed and "DeclareUnicodeCharacter" not in typed


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_standalone_document_compiles_with_names_outside_the_t1_fonts(non_latin_analysis, tmp_path):
    """Names outside T1 print as code points; the punctuation taken as printable (``PUNCTUATION_IN_T1``) prints
    without a missing glyph."""
    analysis = {**non_latin_analysis, "campaign": "".join(sorted(PUNCTUATION_IN_T1))}
    (tmp_path / "report.tex").write_text(render_latex(analysis, standalone=True), encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]
    log = (tmp_path / "report.log").read_text(encoding="utf-8", errors="replace")
    assert "Missing character" not in log


def test_the_tabulars_to_input_say_what_their_names_need(non_latin_analysis, plain_analysis):
    """The tabulars to \\input (no --standalone) asked for booktabs and graphicx only, while their Cyrillic, CJK,
    Greek and Maltese names stop pdfLaTeX, and a name saved decomposed ("Zu" + U+0308 + "rich") stops it even with
    fonts for every script. The text is composed, and the header names the characters outside T1, how to compile
    them and the declarations that print them with pdfLaTeX."""
    text = render_latex(non_latin_analysis)
    header, body = text.split("\n\n", 1)
    assert "Z\u00fcrich" in body and "\u0308" not in text
    missing = sorted({char for char in body if not in_t1(char)})
    assert set(missing) >= set("Москва系统ΕλλάδαĦ")
    assert "XeLaTeX or LuaLaTeX and \\usepackage{fontspec}" in header
    assert f"lack ({', '.join(f'{char} U+{ord(char):04X}' for char in missing)})" in header
    declared = [line[2:] for line in header.splitlines() if line.startswith("% \\DeclareUnicodeCharacter")]
    assert declared == [f"\\DeclareUnicodeCharacter{{{ord(char):04X}}}{{\\texttt{{[U+{ord(char):04X}]}}}}"
                        for char in missing]
    assert "fontspec" not in render_latex(plain_analysis)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_tabulars_to_input_compile_as_their_header_says(non_latin_analysis, tmp_path):
    """A pdfLaTeX document that \\inputs the tabulars with the packages and the declarations their header names
    compiles; without the declarations it stops at the first name outside T1."""
    text = render_latex(non_latin_analysis)
    (tmp_path / "tables.tex").write_text(text, encoding="utf-8")
    declarations = [line[2:] for line in text.splitlines() if line.startswith("% \\DeclareUnicodeCharacter")]

    def compile_with(preamble: list[str]) -> subprocess.CompletedProcess:
        (tmp_path / "report.tex").write_text("\n".join([
            "\\documentclass{article}", "\\usepackage[T1]{fontenc}", "\\usepackage{booktabs,graphicx}", *preamble,
            "\\begin{document}", "\\input{tables}", "\\end{document}", ""]), encoding="utf-8")
        return subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)

    refused = compile_with([])
    assert refused.returncode != 0 and "not set up for use with LaTeX" in refused.stdout
    done = compile_with(declarations)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "Missing character" not in (tmp_path / "report.log").read_text(encoding="utf-8", errors="replace")


@pytest.mark.slow
def test_the_conll14_tables_are_well_formed(conll14_analysis):
    for standalone in (False, True):
        assert_well_formed(render_latex(conll14_analysis, standalone=standalone))


def test_table_6_says_why_the_judges_have_no_correlations(full_analysis, tmp_path):
    """With the judge correlations null (fewer than two judges, or too few systems), the LaTeX report left Table 6
    out without a word, where the HTML report and the JSON give the reason; it now prints the table's means
    undefined with the reason in its note."""
    reason = "judge correlations need two judges with pairwise judgments"
    analysis = {**full_analysis, "per_judge": {**full_analysis["per_judge"], "correlations": None, "reason": reason}}
    (table,) = [table for table in latex_tables(analysis) if table.number == "6"]
    assert "Judges & --$^{a}$ & --$^{a}$ \\\\" in table.tabular.splitlines()
    assert table.note.endswith(f"are undefined. $^{{a}}$ {reason}.")
    assert reason in render_latex(analysis) and reason in render_latex(analysis, standalone=True)
    if shutil.which("pdflatex"):
        (tmp_path / "report.tex").write_text(render_latex(analysis, standalone=True), encoding="utf-8")
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-3000:]


@pytest.mark.parametrize(("p_value", "shown"), [(0.45253, "0.4525"), (0.00004, "$<$0.0001"), (None, "")])
def test_rater_qc_p_values_read_as_in_the_other_reports(p_value, shown):
    """A tiny p-value printed "0.0000", where the Rater QC page, the dashboard and the HTML report say "< 0.0001"."""
    assert latex_p_value(p_value) == shown
