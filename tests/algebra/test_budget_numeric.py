"""The numeric side of the expression budget (docs/algebra.md, Limits; issue 40): the
size of the Cauchy polynomial a numeric law is built from (``MAX_NUMERIC_TERMS``), the
normalized law's exemption from the scales' range (and its text reading back), and the
absurd parameters of the issue refused in one line with no warning. No test times
anything."""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import pytest
import sympy as sp

from freege import algebra
from freege.symbolic import expressions as ex
from tests.cli.helpers import bad


def test_a_dense_cauchy_polynomial_is_refused_before_its_numeric_law(monkeypatch):
    """Over MAX_NUMERIC_TERMS, ``law()`` refuses in one line after P and before the numeric
    law is built (here with the limit lowered to below the 6 terms of semicircle ⊞ MP)."""
    expr = algebra.parse("semicircle(1) + mp(1/2)")
    terms = len(expr.cauchy_polynomial().terms())
    monkeypatch.setattr(ex, "MAX_NUMERIC_TERMS", terms - 1)

    def reached(*_args):
        raise AssertionError("the numeric law was built")

    monkeypatch.setattr(ex, "_NUMERIC_LAW", reached)
    with pytest.raises(ValueError) as info:
        expr.law()
    message = str(info.value)
    assert "\n" not in message
    assert f"has {terms} terms; a numeric law takes at most {terms - 1}" in message
    assert ex.TERMS_COST in message
    assert expr.moments(2)[1] == sp.Rational(5, 2)  # the exact objects stay


def test_the_numeric_term_limit_is_in_the_docs_and_admits_the_degree_25_law():
    doc = (Path(__file__).parents[2] / "docs" / "algebra.md").read_text()
    assert f"`MAX_NUMERIC_TERMS = {ex.MAX_NUMERIC_TERMS}`" in doc
    # the degree-25 law of test_root_clusters (a numeric law in seconds) has 52 terms
    assert 52 <= ex.MAX_NUMERIC_TERMS < 165


@pytest.mark.parametrize(("text", "normalized"), [
    ("mp(1/2) + 1000000", "1/1000001*mp(1/2) + 1000000/1000001"),
    ("1e-6*mp(1/2) + 1000000", "1/1000000000001*mp(1/2) + 1000000000000/1000000000001"),
    ("1000000 - mp(1/2)", "-1/999999*mp(1/2) + 1000000/999999"),
])
def test_a_normalized_law_is_exempt_from_the_scales_range_and_reads_back(text, normalized):
    expr = algebra.parse(text)
    scaled = expr / expr.mean
    assert str(scaled) == normalized and scaled.mean == 1
    assert algebra.parse(normalized) == scaled
    assert algebra.parse(f"({text}) / ({expr.mean})") == scaled
    law = scaled.law()
    assert pickle.loads(pickle.dumps(law)) == law


@pytest.mark.parametrize("text", [
    "1e-7*mp(1/2)", "1e-7*mp(1/2) + 1", "mp(1/2)/1000001", "1/1000001*mp(1/2) + 1",
])
def test_a_small_scale_of_a_law_not_normalized_is_refused(text):
    with pytest.raises(ValueError, match="scale must be 1e-06 to 1e[+]06 in size"):
        algebra.parse(text)


@pytest.mark.parametrize(("text", "reads"), [
    ("2*mp(1/2) + 3", "2*mp(1/2) + 3"), ("mp(1/2)*2 - 3", "2*mp(1/2) - 3"),
    ("3 - 2*mp(1/2)", "-2*mp(1/2) + 3"), ("3 + mp(1/2)/2", "1/2*mp(1/2) + 3"),
    ("1/2 + 1/2*mp(1/2)", "1/2*mp(1/2) + 1/2"),
    ("mp(1/2)*mp(1/2) + 1", "(mp(1/2) * mp(1/2)) + 1"),
    ("2*3 + 4*mp(1/2)", "4*mp(1/2) + 6"),
])
def test_the_grammar_reads_a_scaled_and_shifted_law_as_the_operators_do(text, reads):
    assert str(algebra.parse(text)) == reads


@pytest.mark.parametrize(("text", "names"), [
    ("mp(1e308)", "ratio must be in [0.0001, 10000]"),
    ("mp(1e-400)", "ratio must be in [0.0001, 10000]"),
])
def test_absurd_parameters_are_one_line_in_the_grammars_words(capsys, text, names):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError) as info:
            algebra.parse(text)
        for value in (1e308, 1e-400, float("inf"), float("nan")):
            with pytest.raises(ValueError, match="ratio must be"):
                algebra.marchenko_pastur(value)
    message = str(info.value)
    assert "\n" not in message and names in message and "got about" in message
    err = bad(capsys, "law", "--expr", text)
    assert names in err and "Warning" not in err and "infs or NaNs" not in err


#: issue 40's pushforwards that took 23 to 64 s to derive P before MAX_NUMERIC_TERMS
#: refused them, and their estimates (terms 165 and 247)
COSTLY = [
    ("pushforward(mp(1/2) + atoms((0,1/3),(1,1/3),(2,1/3)), x^2)", 374),
    ("pushforward(poisson(2, atoms((1,3/4),(3,1/4))) + atoms((-1,2/3),(2,1/3)), x^2)", 546),
]


@pytest.mark.parametrize(("text", "cost"), COSTLY)
def test_a_costly_numeric_law_is_refused_before_its_elimination(monkeypatch, text, cost):
    """The estimate comes from the operands' polynomials (a fraction of a second here): the
    root's own elimination is never started."""
    expr = algebra.parse(text)
    derived = ex._cauchy

    def only_the_operands(node):
        assert node != expr, "the costly elimination was started"
        return derived(node)

    monkeypatch.setattr(ex, "_cauchy", only_the_operands)
    with pytest.raises(ValueError) as info:
        expr.law()
    message = str(info.value)
    assert "\n" not in message
    assert f"about {cost} terms" in message and f"at most {ex.MAX_NUMERIC_COST}" in message
    assert ex.COST_COST in message


@pytest.mark.parametrize("text", [
    "semicircle(1) + mp(1/2)", "mp(1/2) + atoms((0,1/3),(1,1/3),(2,1/3))",
    "poisson(2, atoms((1,3/4),(3,1/4))) + atoms((-1,2/3),(2,1/3))",
    "atoms((0, 3/4), (1, 1/4)) + atoms((0, 1/2), (5, 1/2))",
    "pushforward(mp(1/2), x^2)", "pushforward(mp(1/2), x^3)", "pushforward(mp(1/2), x^2 + 1)",
    "pushforward(semicircle(1), x^3 - x)", "pushforward(mp(1/2) + 3, x^2)",
    "pushforward(poisson(2, atoms((1,3/4),(3,1/4))), x^2)",
    "pushforward(pushforward(mp(1/2), x^2), x^2)",
    "pushforward(mp(1/2), x^2) + atoms((0,1/3),(1,1/3),(2,1/3))",
    "pushforward(mp(1/2), x^3) + poisson(2, atoms((1,3/4),(3,1/4)))",
])
def test_the_estimate_bounds_the_terms_and_admits_the_accepted_laws(text):
    expr = algebra.parse(text)
    estimate = ex.terms_estimate(expr, [c.cauchy_polynomial() for c in ex._children(expr)])
    assert len(expr.cauchy_polynomial().terms()) <= estimate <= ex.MAX_NUMERIC_COST


def test_the_cost_limit_is_in_the_docs():
    doc = (Path(__file__).parents[2] / "docs" / "algebra.md").read_text()
    assert f"`MAX_NUMERIC_COST = {ex.MAX_NUMERIC_COST}`" in doc
    assert ex.MAX_NUMERIC_COST < min(cost for _, cost in COSTLY)
