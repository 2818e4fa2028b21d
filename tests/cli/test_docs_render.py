"""``freege docs`` on a terminal: headings, tables, formulas and code blocks formatted for
reading (:mod:`freege.cli.docs_render`); piped output stays the Markdown as written."""

from __future__ import annotations

import re
import sys

import pytest

from freege.cli import docs
from freege.cli.docs_render import heading, latex_to_text, render, table
from tests.cli.helpers import bad, result_json, run_cli


def test_heading_is_uppercased_and_underlined() -> None:
    assert render("# freege user guide") == "FREEGE USER GUIDE\n================="
    assert heading(2, "§4 The limiting laws") == ["§4 THE LIMITING LAWS", "-" * 20]
    # a deeper level keeps its case; its formula is text (the underline measures that)
    assert heading(3, r"§1.2 Ratios $\gamma_K$") == ["§1.2 Ratios γ_K", "~" * 15]
    # a blank line before a heading that follows text
    assert render("text\n## Two") == "text\n\nTWO\n---"


def test_table_columns_are_aligned() -> None:
    rows = ["| case | matrix |", "|---|---|", r"| `attention` | $\sqrt{n/h} A^\perp$ |",
            r"| `mha` | `[a \| b]` |"]
    out = table(rows)
    assert out == ["case       matrix",
                   "---------  ---------",
                   "attention  √(n/h) A⊥",
                   "mha        [a | b]"]
    # every column starts at the same offset on every line
    starts = {line.index(cell) for line, cell in zip(out[2:], ("√", "["), strict=True)}
    assert starts == {out[0].index("matrix")}
    assert render("\n".join(rows)).splitlines() == out


@pytest.mark.parametrize(("tex", "text"), [
    (r"\beta", "β"),
    (r"\theta_1 = e^{\beta^2} - 1", "θ₁ = e^(β²) - 1"),
    (r"\sqrt{n}", "√n"),
    (r"\sqrt{\theta_1 - \theta_2}", "√(θ₁ - θ₂)"),
    (r"\gamma_K = \frac{h\, d_K}{n}", "γ_K = (h d_K)/n"),
    (r"\frac{\mu_V}{\gamma_V}\Big(1 + \frac 1h\Big)", "(μ_V/γ_V)(1 + 1/h)"),
    (r"\mathbb R^{n\times d_O}", "ℝ^(n × d_O)"),
    (r"K_r^\top", "K_rᵀ"),
    (r"\mathrm{MHA}^\perp", "MHA⊥"),
    (r"\bar m_2 - 1", "m̄₂ - 1"),
    (r"n^{-1/2}", "n^(-1/2)"),
    (r"\rho_{gK} \boxtimes \mathrm{MP}_{1/h}", "ρ_gK ⊠ MP_(1/h)"),
    # a denominator that starts and ends with a bracket is not always one group
    (r"\frac{2}{(1 + u) + \sqrt{u}}", "2/((1 + u) + √u)"),
    (r"\frac{s(w)}{(h + w)(\gamma_O + w)}", "s(w)/((h + w)(γ_O + w))"),
    (r"\frac{1}{\sqrt n} + \sqrt{nh}", "1/√n + √(nh)"),
    (r"\frac 1k\binom{k}{j}", "(1/k)C(k, j)"),
])
def test_latex_as_readable_text(tex: str, text: str) -> None:
    assert latex_to_text(tex) == text


def test_formulas_and_code_in_a_document() -> None:
    markdown = "\n".join([
        r"The ratios $\gamma_O = d_O/n$ and `$HOME` stay as typed in code:",
        r"$$\theta_1 = e^{\beta^2} - 1, \qquad \theta_2 = \beta^2.$$",
        "* **Bold** [theory](theory.md), [Dask](https://distributed.dask.org):",
        r"  $$c = \frac{\theta_2}{\theta_1}$$",
        "```bash",
        "freege law --case mha   # $x$ is not maths here",
        "```",
    ])
    assert render(markdown).splitlines() == [
        "The ratios γ_O = d_O/n and $HOME stay as typed in code:",
        "    θ₁ = e^(β²) - 1,    θ₂ = β².",
        "* Bold theory, Dask <https://distributed.dask.org>:",
        "      c = θ₂/θ₁",
        "    freege law --case mha   # $x$ is not maths here",
    ]


def test_a_formula_over_several_lines_is_one_display() -> None:
    out = render("before\n$$a = \\frac 1n,\\qquad\nb = \\beta^2$$\nafter")
    assert out.splitlines() == ["before", "    a = 1/n,    b = β²", "after"]


def test_shipped_documents_render_without_markdown_left() -> None:
    """Every heading of the guide and the theory is formatted, every table row aligned
    (no ``|---|`` rule or leading bar left), and no formula is left in LaTeX."""
    for name in docs.DOCUMENTS:
        text = docs.text_of(name)
        out = render(text)
        prose = [line for line in out.splitlines() if not line.startswith("    ")]
        assert not any(line.startswith(("#", "|")) for line in prose), name
        # a dollar sign left is one inside code (`$FREEGE_CACHE_DIR`), never a formula's
        assert not any(re.search(r"\$\$|\$[^$`]*\\[A-Za-z]|[_^]\{", line) for line in prose), \
            name
        underlined = [line for line, below in zip(prose, prose[1:], strict=False)
                      if below and len(set(below)) == 1 and below[0] in "=-~"
                      and len(below) == len(line)]
        for number, title in docs.sections(text):
            assert any(re.match(rf"§?{re.escape(number)}\.? ", line) for line in underlined), \
                (name, number, title)


def _tty(monkeypatch: pytest.MonkeyPatch, value: bool) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: value)


def test_cli_renders_on_a_terminal_and_not_when_piped(capsys, monkeypatch) -> None:
    _tty(monkeypatch, True)
    code, on_terminal, err = run_cli(capsys, "docs", "theory", "--section", "1.2")
    assert code == 0, err
    assert on_terminal.splitlines()[:2] == ["§1.2 Dimension ratios", "~" * 21]
    assert "γ_K" in on_terminal and "$" not in on_terminal
    _tty(monkeypatch, False)
    code, piped, _ = run_cli(capsys, "docs", "theory", "--section", "1.2")
    assert piped.startswith("### §1.2 Dimension ratios") and r"$\gamma_K" in piped
    # --raw / --render override the terminal test either way
    assert run_cli(capsys, "docs", "theory", "--section", "1.2", "--render")[1] == on_terminal
    _tty(monkeypatch, True)
    assert run_cli(capsys, "docs", "theory", "--section", "1.2", "--raw")[1] == piped
    # JSON carries the Markdown as written, terminal or not
    code, out, _ = run_cli(capsys, "docs", "theory", "--section", "1.2", "--format", "json")
    assert result_json(out, "docs")["text"] + "\n" == piped


def test_render_and_raw_exclude_each_other(capsys) -> None:
    assert "not allowed with" in bad(capsys, "docs", "guide", "--render", "--raw")
