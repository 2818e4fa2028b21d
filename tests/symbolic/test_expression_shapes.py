"""The Cauchy polynomial of an expression at numbers from its shape
(:mod:`freege.symbolic.expression_shapes`) is the polynomial derived at the numbers, to
the bit: same terms, same integers, same domain; a special point where the shape's
polynomial factors is left to the derivation at the numbers."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

from freege import algebra
from freege.symbolic import expression_shapes, expressions

#: shapes of the peers' table and around it
TEXTS = (
    "mp(0.523417) * mp(0.712345)",
    "mp(1/3) * mp(1/3)",  # one number twice: one symbol
    "semicircle(0.523417) + mp(0.712345/2)",
)


@pytest.mark.parametrize("text", TEXTS)
def test_shape_route_is_the_derivation_at_the_numbers(text):
    expr = algebra.parse(text)
    found = expression_shapes.specialize(expr)
    direct = expressions._cauchy_at_numbers(expr)
    assert found is not None, "the shape route applies"
    assert found == direct and found.rep == direct.rep and found.domain == direct.domain == sp.ZZ
    assert expr.cauchy_polynomial() == direct


def test_shape_and_numbers():
    shape, values = expression_shapes.shape(algebra.parse("mp(0.25) * mp(1/3) + 1"))
    assert str(shape) == "(mp(theta1) * mp(theta2)) + 1"  # 1 is kept
    assert list(values.values()) == [Fraction(1, 4), Fraction(1, 3)]
    assert expression_shapes.shape(algebra.parse("pushforward(mp(1/2), x^2)")) is None
    assert expression_shapes.shape(algebra.parse("mp(1)")) is None  # no number to share


def test_a_special_point_is_left_to_the_numbers():
    """``2 MP_{1/2} = pi_2`` and ``MP_1 = pi_1``: their sum is ``pi_3``, of degree 2 in G,
    where the shape ``theta2*mp(theta1) + mp(1)`` has degree 3: the specialized
    polynomial factors, the route says None, and the derivation at the numbers answers."""
    expr = algebra.parse("2*mp(1/2) + mp(1)")
    shape, _ = expression_shapes.shape(expr)
    assert expression_shapes.shape_cauchy(shape).degree(0) == 3
    assert expression_shapes.specialize(expr) is None
    poly = expr.cauchy_polynomial()
    assert poly == expressions._cauchy_at_numbers(expr) and poly.degree(0) == 2


def test_a_shape_is_derived_when_it_comes_back_at_other_numbers(tmp_path, monkeypatch):
    """First numbers of a shape: derived at the numbers (None here, the first numbers
    recorded on disk); other numbers: the shape's ``P``; then the first numbers too."""
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(expression_shapes, "_MET", {})
    monkeypatch.setattr(expression_shapes, "_KNOWN", set())
    first, other = algebra.parse("poisson(2/7)"), algebra.parse("poisson(3/7)")
    assert expression_shapes.cauchy_at_numbers(first) is None
    monkeypatch.setattr(expression_shapes, "_MET", {})  # a new process: the disk remembers
    assert expression_shapes.cauchy_at_numbers(first) is None
    assert expression_shapes.cauchy_at_numbers(other) == expressions._cauchy_at_numbers(other)
    assert expression_shapes.cauchy_at_numbers(first) == expressions._cauchy_at_numbers(first)
