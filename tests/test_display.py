"""Notebook display (freege/display.py, issue 42): the LaTeX of algebra expressions and
derived formulas, the HTML summary of numeric laws, readable reprs."""

from __future__ import annotations

import re

import pytest

from freege import algebra, display
from freege.numeric import law
from freege.params import Ratios
from freege.symbolic import moments
from freege.symbolic.expressions import SYMBOLS


@pytest.mark.parametrize(("text", "macros"), [
    ("mp(1/2) * mp(2)", [r"\mathrm{MP}_{1 / 2}", r"\boxtimes", r"\mathrm{MP}_{2}"]),
    ("semicircle(1) + mp(1/2)", [r"\sigma_{1}", r"\boxplus"]),
    ("poisson(1/2)", [r"\pi_{1 / 2}"]),
    ("poisson(2, atoms((1, 1/2), (3, 1/2)))",
     [r"\pi\left(", r"\tfrac{1}{2}\,\delta_{1}", r"\delta_{3}"]),
    ("pushforward(semicircle(1), x^2 - 1)", [r"\mapsto x^{2} - 1", r"_*\,\sigma_{1}"]),
    ("2*mp(1/2) + 1", [r"2\,\mathrm{MP}_{1 / 2} + 1"]),
    ("(mp(1/2) + 1) * mp(2)", [r"\left(\mathrm{MP}_{1 / 2} + 1\right) \boxtimes"]),
])
def test_expression_latex_has_the_macros(text, macros):
    tex = algebra.parse(text)._repr_latex_()
    assert tex.startswith("$") and tex.endswith("$")
    for macro in macros:
        assert macro in tex, (macro, tex)
    assert "⊠" not in tex and "⊞" not in tex


def test_parameters_are_greek():
    e = algebra.marchenko_pastur(SYMBOLS["gK"]) * algebra.free_poisson(SYMBOLS["theta1"])
    tex = e._repr_latex_()
    assert r"\mathrm{MP}_{\gamma_K}" in tex and r"\pi_{\theta_1}" in tex
    assert "gK" not in tex and "theta" not in tex.replace(r"\theta", "")


def test_data_expression_latex():
    e = algebra.parse("mp(1/2)") * algebra.empirical([1.0, 3.0, 3.0, 3.0])
    tex = e._repr_latex_()
    assert tex == (r"$\mathrm{MP}_{1 / 2} \boxtimes \left(\tfrac{1}{4}\,\delta_{1} + "
                   r"\tfrac{3}{4}\,\delta_{3}\right)$")
    big = 2 * algebra.empirical(list(range(1, 20))) - 1
    assert big._repr_latex_() == r"$2\,\mathrm{emp}_{19} - 1$"


def test_derived_formula_in_greek():
    m2 = moments("attention", 2)[1]
    tex = display.sympy_latex(m2)
    assert r"\gamma_K" in tex and r"\theta_1" in tex
    assert not re.search(r"\bgK\b|g_\{K\}", tex)


def _numbers(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


def _row(page: str, name: str) -> str:
    match = re.search(rf"<th[^>]*>{re.escape(name)}</th><td[^>]*>(.*?)</td>", page)
    assert match, (name, page)
    return match.group(1)


@pytest.mark.parametrize("which", ["case", "expression"])
def test_law_html_shows_its_own_numbers(which):
    the_law = (law("mha", Ratios(beta=1, h=4, gK="1/2", gV="1/2", gO="3/8"))
               if which == "case" else algebra.parse("mp(2) * mp(1/2)").law())
    page = the_law._repr_html_()
    assert _row(page, "kind") == type(the_law).__name__
    lo, hi = the_law.support()
    assert _numbers(_row(page, "support")) == pytest.approx([lo, hi], rel=1e-9)
    assert _numbers(_row(page, "mean")) == pytest.approx([the_law.mean()], rel=1e-9)
    assert _numbers(_row(page, "variance")) == pytest.approx([the_law.var()], rel=1e-9)
    (at, mass), = the_law.atoms().items()
    assert _numbers(_row(page, "atoms")) == pytest.approx([mass, at])
    if which == "case":
        assert "&gamma;<sub>K</sub>" in page and "&beta;" in page


def test_law_html_never_fails_and_starts_nothing_slow():
    """A law from data has not found its support yet: n/a with the reason, the moments
    shown; a law whose summary raises shows n/a too."""
    data_law = (algebra.parse("mp(1/2)") * algebra.empirical([1.0, 3.0, 3.0, 3.0])).law()
    page = data_law._repr_html_()
    assert "n/a" in _row(page, "support") and "law.intervals()" in _row(page, "support")
    assert _numbers(_row(page, "mean")) == pytest.approx([2.5])

    class Broken:
        dps = None
        describe = {"law": "broken"}

        def mean(self):
            raise ValueError("no mean")

        var = intervals = atoms = support = mean
        equation = None

    page = display.law_html(Broken())
    assert _row(page, "mean").startswith("n/a") and "no mean" in _row(page, "mean")


def test_reprs_name_the_law():
    case = law("mha", Ratios(beta=1, h=4, gK="1/2", gV="1/2", gO="3/8"))
    data_law = (algebra.parse("mp(1/2)") * algebra.empirical([1.0, 3.0])).law()
    texts = [repr(case), repr(case.s_relation), repr(algebra.parse("mp(2)").law().s_relation),
             repr(data_law.s_relation)]
    for text in texts:
        assert "object at 0x" not in text, text
    assert "mha" in texts[1] and "m1=" in texts[1]
    assert "DataLaw(" in texts[3]
