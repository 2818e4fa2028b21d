"""LaTeX output uses the theory's symbol names (docs/theory.md §1.2, §2): ``gK`` is
``\\gamma_K`` (not the product ``g K``), ``theta1`` is ``\\theta_1``, ``beta`` is ``\\beta``."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from freege.symbolic.symbols import (
    LATEX_NAMES,
    Derived,
    beta,
    gK,
    gO,
    gV,
    h,
    lam,
    theta1,
    theta2,
    to_latex,
    to_text,
)
from tests.cli.helpers import run_cli

#: what sympy prints for the bare names (the wrong renderings this module guards against)
PLAIN_RENDERINGS = ("g_{K}", "g_{V}", "g_{O}", "gK", "gV", "gO", r"\theta_{1}", r"\theta_{2}",
                    "lam")


def test_every_parameter_has_its_mathematical_name() -> None:
    expr = beta * theta1 / (gK * gV) + theta2 * gO + h / lam
    tex = to_latex(expr)
    for name in (r"\beta", r"\gamma_K", r"\gamma_V", r"\gamma_O", r"\theta_1", r"\theta_2",
                 r"\lambda"):
        assert name in tex, (name, tex)
    for wrong in PLAIN_RENDERINGS:
        assert wrong not in tex.replace(r"\lambda", ""), (wrong, tex)
    # the symbols themselves are unchanged: only printing differs
    assert {s.name for s in expr.free_symbols} == {"beta", "theta1", "gK", "gV", "theta2",
                                                   "gO", "h", "lam"}
    assert set(LATEX_NAMES) <= expr.free_symbols


def test_sympy_default_would_print_a_product() -> None:
    """The reason for LATEX_NAMES: sympy's default prints ``gK`` as ``gK``, which LaTeX
    typesets as the product of g and K."""
    assert sp.latex(gK) == "gK"
    assert to_latex(gK) == r"\gamma_K" and to_latex(theta1) == r"\theta_1"


def test_derived_wrapper_renders_latex_and_text() -> None:
    d = Derived(theta1**2 * (1 + 1 / h) + theta2**2 / gK, name="m_2")
    latex = d._repr_latex_()
    assert latex.startswith("$m_2 = ") and latex.endswith("$")
    assert r"\gamma_K" in latex and r"\theta_1" in latex
    # the text form is what plain sympify reads back (the JSON contract)
    name, text = str(d).split(" = ", 1)
    assert name == "m_2" and text == to_text(d.expr)
    back = sp.sympify(text)
    values = {"theta1": sp.Rational(3, 2), "theta2": sp.Rational(1, 3), "h": 4, "gK": 5}
    assert back.subs(values) == d.expr.subs({s: values[s.name] for s in d.expr.free_symbols})


@pytest.mark.parametrize(("case", "gamma"), [("mha", r"\gamma_O"), ("value", r"\gamma_V")])
def test_derive_latex_uses_the_names(capsys: pytest.CaptureFixture, case: str,
                                     gamma: str) -> None:
    """``freege derive moments --format latex``: the mean line is the theory's
    ``m_1 = gamma theta_1`` (theory §4 table: mha gO theta1, value gV theta1), and no line
    carries sympy's default rendering of a parameter."""
    code, out, err = run_cli(capsys, "derive", "moments", "--case", case, "--order", "2",
                             "--format", "latex")
    assert code == 0, err
    lines = out.splitlines()
    starts = [line for line in lines if line.startswith("m_{")]  # long ones continue
    assert starts[0] == f"m_{{1}} = {gamma} \\theta_1"
    assert starts[1].startswith("m_{2} = ") and len(starts) == 2
    body = "\n".join(lines[2:])
    for wrong in PLAIN_RENDERINGS:
        assert wrong not in body, (wrong, body)
    assert re.search(r"\\gamma_K", lines[-1])
