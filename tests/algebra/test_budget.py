"""The expression budget of freege.algebra (docs/algebra.md, Limits; issue 40): the size of
every number, the degree of the Cauchy polynomial an expression implies, the number of
atoms, the depth and size of the tree are bounded before any derivation, and every
refusal is one ValueError line (exit 2 from the command line) naming the limit.

No test here times anything: each refusal is shown to come before any derivation by
making every derivation entry point fail if it is reached."""

from __future__ import annotations

import warnings

import pytest
import sympy as sp

from freege import algebra
from freege.symbolic import expressions as ex
from freege.symbolic.symbols import G, z
from tests.cli.helpers import bad

mp = algebra.marchenko_pastur


def nested_power(levels: int) -> str:
    text = "10"
    for _ in range(levels):
        text = f"({text})^4"
    return f"pushforward(mp(1), x*{text})"


def many_atoms(k: int) -> str:
    return "atoms(" + ", ".join(f"({i}, 1/{k})" for i in range(k)) + ")"


#: the texts of issue 40 that ran for minutes or hours, and what their refusal names
REFUSED = [
    (nested_power(14), "at most 512 bits (about 154 digits: the limit"),
    (nested_power(10), "at most 512 bits (about 154 digits: the limit"),
    ("pushforward(pushforward(mp(1), x^4), x^4)", "degree up to 65536"),
    (many_atoms(50), "50 atoms; the limit is 24"),
    (many_atoms(150), "150 atoms; the limit is 24"),
    ("mp(1e308)", r"ratio must be in [0.0001, 10000]"),
    ("mp(1e-400)", r"ratio must be in [0.0001, 10000]"),
    ("semicircle(1e-400)", r"variance must be in [0.0001, 10000]"),
    ("poisson(1e300)", r"rate must be in [0.0001, 10000]"),
    ("mp(1/2) + 1e300", "shift must be in [-1000000, 1000000]"),
    ("1e-400*mp(1/2)", "scale must be 1e-06 to 1e+06 in size"),
    ("mp(1/2)/1e-7", "scale must be in [-1000000, 1000000]"),
    ("atoms((0, 1e-400), (1, 1))", "mass has 1329 bits; the limit is 512 bits"),
    ("point(1e300)", "location must be in [-1000000, 1000000]"),
    ("pushforward(mp(1), 1e300*x^2)", "coefficient 2 must be in [-1000000, 1000000]"),
    ("pushforward(mp(1), (1e300*x)^2)", "this could make one of up to 1996 bits"),
    # operands whose degrees are known without a derivation: refused before their P
    (many_atoms(24) + " + mp(1/2)", "would have degree up to 48 from its operands'"),
    ("semicircle(1) + " + many_atoms(24), "would have degree up to 48 from its operands'"),
]


def reached(*_args, **_kwargs):
    raise AssertionError("a derivation was started before the budget refused it")


@pytest.fixture
def no_polynomial(monkeypatch):
    """The derivations that the degree budget guards fail if reached: ``P(G, z)`` and the
    numeric law (the exact moments, which ``⊠`` and ``--normalized`` ask for to check a
    mean, stay: they cost a polynomial expansion, not an elimination)."""
    monkeypatch.setattr(ex, "_cauchy", reached)
    monkeypatch.setattr(ex, "_NUMERIC_LAW", reached)


@pytest.fixture
def no_derivation(monkeypatch, no_polynomial):
    """Every derivation entry point fails if reached: the exact law too (moments, P, the
    S-relation), on top of :func:`no_polynomial`."""
    monkeypatch.setattr(ex, "_free_law", reached)


@pytest.mark.parametrize(("text", "names"), REFUSED)
def test_issue_40_texts_are_refused_in_one_line_before_any_derivation(no_derivation, text,
                                                                      names):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy (or other) warning leaks either
        with pytest.raises(ValueError) as info:
            algebra.parse(text).law()
    message = str(info.value)
    assert "\n" not in message and names in message, message
    assert "limit" in message or "must be" in message


def test_the_degree_bound_is_read_from_the_tree_alone(no_derivation):
    expr = algebra.parse("pushforward(pushforward(mp(1), x^4), x^4)")
    assert ex.cauchy_degree_bound(expr) == 2**16
    deep = mp(1)
    for _ in range(30):  # 2^(4^30) is not computed: the bound saturates
        deep = algebra.pushforward(deep, [0, 0, 0, 0, 1])
    assert ex.cauchy_degree_bound(deep) == ex.DEGREE_CAP
    for call in (deep.cauchy_polynomial, deep.s_relation, deep.ridge_polynomial, deep.law):
        with pytest.raises(ValueError, match=f"degree up to more than {ex.DEGREE_CAP}"):
            call()


def test_python_built_expressions_meet_the_same_budget(no_polynomial):
    with pytest.raises(ValueError, match="25 atoms; the limit is 24"):
        algebra.atomic([(i, sp.Rational(1, 25)) for i in range(25)])
    with pytest.raises(ValueError, match="ratio must be in"):
        mp(10**5)
    with pytest.raises(ValueError, match="has 601 bits; the limit is 512"):
        mp(sp.Rational(2**600 + 1, 2**600))
    with pytest.raises(ValueError, match="shift must be in"):
        mp(1) + 10**4 + 10**4 + 10**6  # composed affine maps are checked too
    law = mp(1)
    with pytest.raises(ValueError, match=f"nests 61 operations; the limit is {ex.MAX_TREE_DEPTH}"):
        for k in range(ex.MAX_TREE_DEPTH + 1):
            law = algebra.free_add(law, mp(1)) if k % 2 else algebra.free_mult(law, mp(1))
    with pytest.raises(ValueError, match=f"more than {ex.MAX_NODES} laws and operations"):
        algebra.free_add(*[algebra.point_mass(k) for k in range(ex.MAX_NODES + 1)])


def test_subs_meets_the_budget():
    with pytest.raises(ValueError, match="ratio must be in"):
        mp(algebra.SYMBOLS["h"]).subs({"h": "1e-400"})


def test_each_elimination_is_bounded_by_its_operands_actual_degrees(monkeypatch):
    """``x^4`` of ``x^2`` of MP: 256 by the tree (under MAX_DEGREE_BOUND), so the inner
    polynomial is derived (degree 4), and the outer elimination, 4^4 = 256, is refused
    before it starts."""
    expr = algebra.parse("pushforward(pushforward(mp(1/2), x^2), x^4)")
    assert ex.MAX_CAUCHY_DEGREE < ex.cauchy_degree_bound(expr) <= ex.MAX_DEGREE_BOUND
    built = ex._free_law

    def only_the_operands(node):
        assert node != expr, "the outer elimination was started"
        return built(node)

    monkeypatch.setattr(ex, "_free_law", only_the_operands)
    for call in (expr.cauchy_polynomial, expr.s_relation, expr.law):
        with pytest.raises(ValueError, match=f"would have degree up to 256 from its operands' "
                           f"polynomials; the limit is {ex.MAX_CAUCHY_DEGREE}"):
            call()


@pytest.mark.parametrize("text", [
    "mp(1/2)", "semicircle(1)", "atoms((1, 1/4), (2, 1/4), (3, 1/2))", "mp(1)*mp(1)*mp(1)",
    "semicircle(1) + mp(1/2)", "poisson(2, atoms((1, 3/4), (3, 1/4)))", "poisson(2, mp(1/2))",
    "atoms((-1, 1/2), (1, 1/2)) + atoms((-1, 1/2), (1, 1/2))", "pushforward(mp(1/2), x^3)",
    "pushforward(atoms((1, 1/4), (2, 3/4)) + semicircle(1), x^2)",
    "mp(1/2)*atoms((1, 1/4), (2, 3/4))", "pushforward(poisson(2, semicircle(2)), x^2)",
    "pushforward(atoms((-1, 1/2), (1, 1/4), (2, 1/4)), x^3 - x)",
])
def test_the_degree_bound_bounds_the_derived_polynomial(text):
    expr = algebra.parse(text)
    poly = expr.cauchy_polynomial()
    assert max(poly.degree(G), poly.degree(z)) <= ex.cauchy_degree_bound(expr)


@pytest.mark.parametrize("text", [
    "mp(2)", "semicircle(3)", "poisson(3)", "point(2)", "2*mp(1/2) + 1",
    "1/3*atoms((1, 1/4), (2, 1/4), (5, 1/2)) - 1",
])
def test_known_degrees_are_the_derived_ones(text):
    """The degrees the budget takes without a derivation (``_known_degrees``, so that a
    node over the limit is refused before its operands' P) are the derived ones."""
    expr = algebra.parse(text)
    poly = expr.cauchy_polynomial()
    assert ex._known_degrees(expr) == (poly.degree(G), poly.degree(z))


def test_limits_are_stated_in_the_docs():
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "algebra.md").read_text()
    for name in ("MAX_BITS", "SCALE_MAX", "REAL_MAX", "MAX_CAUCHY_DEGREE", "MAX_DEGREE_BOUND",
                 "MAX_ATOMS", "MAX_TREE_DEPTH", "MAX_NODES"):
        assert f"`{name} = {getattr(ex, name)}`" in doc, name


@pytest.mark.parametrize(("command", "text", "names"), [
    ("law", "pushforward(pushforward(mp(1), x^4), x^4)", "the limit is 8192"),
    ("law", nested_power(14), "at most 512 bits (about 154 digits: the limit"),
    ("law", many_atoms(50), "the limit is 24"),
    ("law", "mp(1e308)", "ratio must be in"),
    ("law", "mp(1e-400)", "ratio must be in"),
    ("readout", "pushforward(pushforward(mp(1), x^4), x^4)", "the limit is 8192"),
    ("readout", "mp(1e308)", "ratio must be in"),
])
def test_the_command_line_refuses_in_one_line_exit_2(capsys, no_polynomial, command, text,
                                                    names):
    argv = ("readout", "dof", "--lam", "1", "--expr", text) if command == "readout" else (
        "law", "--expr", text)
    assert names in bad(capsys, *argv)
