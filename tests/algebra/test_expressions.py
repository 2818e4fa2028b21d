"""freege.algebra expressions (docs/algebra.md): exact parameters, refusals, structural
equality, hashing, pickling, operators, atoms (Bercovici-Voiculescu) and the Cauchy
polynomial against the moment series."""

from __future__ import annotations

import dataclasses
import pickle
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings

from freege import algebra
from freege.symbolic import expressions as ex
from freege.symbolic.symbols import G, gK, h, z
from freege.symbolic.transforms import cauchy_series_residual
from tests.algebra.strategies import expressions

half = sp.Rational(1, 2)


@pytest.mark.parametrize("value", ["1/2", "0.5", 0.5, Fraction(1, 2), half])
def test_parameters_are_exact(value):
    assert algebra.marchenko_pastur(value) == algebra.MarchenkoPastur(half)


def test_floats_are_read_as_their_shortest_decimal():
    assert algebra.semicircle(0.1).variance == sp.Rational(1, 10)


@pytest.mark.parametrize(("build", "message"), [
    (lambda: algebra.marchenko_pastur(0), r"ratio must be in \[0.0001, 10000\]"),
    (lambda: algebra.marchenko_pastur("-1"), r"ratio must be in \[0.0001, 10000\]"),
    (lambda: algebra.semicircle(float("nan")), "variance"),
    (lambda: algebra.semicircle("abc"), "variance"),
    (lambda: algebra.semicircle(sp.Symbol("z")), "'z' is reserved"),
    (lambda: algebra.point_mass(sp.log(2)), "location must be built from .*log is not read"),
    (lambda: algebra.point_mass(sp.I), "location must be a real exact number"),
    (lambda: algebra.semicircle(1 - sp.E), r"variance must be in \[0.0001, 10000\]"),
    (lambda: algebra.atomic([(0, half)]), "masses must sum to 1"),
    (lambda: algebra.atomic([(0, 0), (1, 1)]), "mass must be in"),
    (lambda: algebra.atomic([1, 2]), "atoms must be"),
    (lambda: algebra.free_mult(algebra.semicircle(1), algebra.marchenko_pastur(1)),
     "factor 1 .* not provably supported on"),
    (lambda: algebra.free_mult(algebra.point_mass(0), algebra.marchenko_pastur(1)),
     "mean 0"),
    (lambda: algebra.affine(algebra.semicircle(1), 0), "scale must not be 0"),
    (lambda: algebra.pushforward(algebra.semicircle(1), [0, 0, 0, 0, 0, 1]),
     "degree 5; at most 4"),
    (lambda: algebra.pushforward(algebra.semicircle(1), []), "at least one coefficient"),
    (lambda: algebra.pushforward(algebra.semicircle(1), 3), "sequence of numbers"),
    (lambda: algebra.free_add(algebra.semicircle(1)), "at least two laws"),
    (lambda: algebra.free_add(algebra.semicircle(1), 3), "must be a law"),
    (lambda: algebra.marchenko_pastur(1) / algebra.marchenko_pastur(1), "not by a law"),
])
def test_bad_input_is_a_one_line_value_error(build, message):
    with pytest.raises(ValueError, match=message) as info:
        build()
    assert "\n" not in str(info.value)


def test_expressions_are_immutable_hashable_picklable_values():
    one = algebra.parse("semicircle(1) + 2*mp(1/2) * poisson(2, atoms((1, 1/4), (3, 3/4)))")
    two = algebra.parse("semicircle(1) + 2*mp(0.5) * poisson(2, atoms((3, 3/4), (1, 1/4)))")
    assert one == two and hash(one) == hash(two) and len({one, two}) == 1
    assert pickle.loads(pickle.dumps(one)) == one
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.terms = ()  # type: ignore[misc]
    assert repr(one) == f"freege.algebra.parse({str(one)!r})"
    assert one != algebra.parse("semicircle(1) + 2*mp(1/2) * poisson(2)")


def test_operators_are_the_constructors():
    a, b, c = algebra.marchenko_pastur(1), algebra.semicircle(2), algebra.point_mass(3)
    assert a + b == algebra.free_add(a, b)
    assert (a + b) + c == a + (b + c) == algebra.free_add(a, b, c)
    assert a * algebra.marchenko_pastur(2) == algebra.free_mult(a, algebra.marchenko_pastur(2))
    assert 2 * a + 3 == algebra.affine(a, 2, 3) == algebra.affine(algebra.dilation(a, 2), 1, 3)
    assert a / 2 == algebra.dilation(a, half) and -b == algebra.affine(b, -1)
    assert b - a == algebra.free_add(b, algebra.affine(a, -1)) and 1 - a == -a + 1
    assert 2 * (a / 2) == a
    assert algebra.pushforward(a, [3, 2]) == 2 * a + 3
    assert algebra.free_poisson(1, [(1, 1)]) == algebra.free_poisson(1)


@pytest.mark.parametrize(("text", "atoms"), [
    ("mp(2)", [(0, half)]),
    ("mp(1/2)", []),
    ("poisson(1/2)", [(0, half)]),
    ("poisson(1/2, atoms((0, 1/2), (2, 1/2)))", [(0, sp.Rational(3, 4))]),
    ("2*mp(4) + 1", [(1, sp.Rational(3, 4))]),
    ("mp(2) * mp(3)", [(0, sp.Rational(2, 3))]),
    ("atoms((0, 3/4), (1, 1/4)) + atoms((0, 1/2), (5, 1/2))", [(0, sp.Rational(1, 4)),
                                                               (5, sp.Rational(1, 4))]),
    ("atoms((0, 3/4), (1, 1/4)) + semicircle(1)", []),
    ("atoms((1, 3/4), (2, 1/4)) * atoms((3, 1/2), (1, 1/2))", [(3, sp.Rational(1, 4)),
                                                               (1, sp.Rational(1, 4))]),
    ("pushforward(atoms((-1, 1/2), (1, 1/2)), x^2)", [(1, 1)]),
])
def test_atoms_follow_from_the_construction(text, atoms):
    assert list(algebra.parse(text).atoms()) == sorted(atoms, key=lambda a: a[0])


def test_atoms_need_numeric_parameters():
    law = algebra.marchenko_pastur(h) * algebra.marchenko_pastur(gK)
    assert law.parameters == (h, gK)
    with pytest.raises(ValueError, match="numeric parameters"):
        law.atoms()


@pytest.mark.parametrize("text", [
    "mp(1/2) * mp(1/2)", "mp(2)", "semicircle(1) + mp(1/2)", "2*mp(1) + 3",
    "poisson(2, atoms((-1, 1/2), (1, 1/2)))", "pushforward(semicircle(1) + point(1), x^2)",
    "atoms((0, 1/4), (1, 3/4)) + semicircle(1/4)", "(mp(1/4) + 1/2) * mp(1/4)",
    "poisson(1, semicircle(1))", "poisson(1/2, mp(2))",
])
def test_cauchy_polynomial_is_irreducible_and_carries_the_moments(text):
    law = algebra.parse(text)
    poly = law.cauchy_polynomial()
    assert poly.gens == (G, z) and poly.domain == sp.ZZ
    assert len(sp.factor_list(poly.as_expr())[1]) == 1
    assert all(c == 0 for c in cauchy_series_residual(poly, law.moments(8)))


def test_closed_forms_of_the_peers_laws():
    """MP_c: c z G^2 - (z + c - 1) G + 1; semicircle: v G^2 - z G + 1; the law of 2X + 3
    has G(z) = G_X((z - 3)/2)/2."""
    for c in (half, 2):
        expected = sp.Poly(sp.numer(sp.together(c * z * G**2 - (z + c - 1) * G + 1)), G, z)
        assert algebra.marchenko_pastur(c).cauchy_polynomial() == expected.primitive()[1]
    assert algebra.semicircle(3).cauchy_polynomial().as_expr() == 3 * G**2 - z * G + 1
    shifted = algebra.parse("2*semicircle(1) + 3").cauchy_polynomial().as_expr()
    assert sp.expand(shifted - (4 * G**2 - (z - 3) * G + 1)) == 0


def test_mean_zero_laws_have_no_s_transform():
    with pytest.raises(ValueError, match="no S-transform"):
        algebra.parse("semicircle(1) + semicircle(2)").s_relation()
    assert algebra.parse("semicircle(1) + 1").s_relation().has(sp.Symbol("S"))


def test_bounds_enclose_the_support():
    lo, hi = algebra.parse("semicircle(1) + mp(1/4)").bounds()
    assert (lo, hi) == (-2 + sp.Rational(1, 4), 2 + sp.Rational(9, 4))
    assert algebra.parse("semicircle(1) + 2").is_positive
    assert not algebra.parse("semicircle(1) + 1").is_positive


def test_subs_rebuilds_through_the_constructors():
    law = algebra.marchenko_pastur(h) * algebra.marchenko_pastur(1 / gK) + algebra.semicircle(h)
    numeric = law.subs({"h": "1/2", gK: 2})
    assert numeric == algebra.parse("mp(1/2) * mp(1/2) + semicircle(1/2)")
    assert numeric.parameters == () and law.parameters == (h, gK)
    assert [m.subs({h: half, gK: 2}) for m in law.moments(4)] == numeric.moments(4)
    product = algebra.marchenko_pastur(h) * algebra.marchenko_pastur(1 / gK) + 1
    at_values = product.cauchy_polynomial().as_expr().subs({h: half, gK: 2})
    expected = product.subs({h: half, gK: 2}).cauchy_polynomial().as_expr()
    assert not sp.cancel(at_values / expected).free_symbols  # the same curve
    with pytest.raises(ValueError, match=r"ratio must be in \[0.0001, 10000\]"):
        algebra.marchenko_pastur(h).subs({"h": -1})
    with pytest.raises(ValueError, match="'beta' is no symbol of"):
        law.subs({"beta": 1})
    with pytest.raises(ValueError, match="not provably supported"):
        (algebra.affine(algebra.marchenko_pastur(1), h) * algebra.marchenko_pastur(1)).subs(
            {h: -1})


def test_compound_poisson_with_a_point_jump_is_a_dilated_free_poisson():
    assert algebra.parse("poisson(3/2, point(2))").cauchy_polynomial() == \
        algebra.parse("2*poisson(3/2)").cauchy_polynomial()
    assert algebra.parse("poisson(1/2, mp(2))").atoms() == ((0, sp.Rational(3, 4)),)


def test_ridge_polynomial_of_marchenko_pastur():
    """theory §5: lam w = (1 - w) / S(-w) and S_{MP_c}(w) = 1/(1 + c w)."""
    w, lam = sp.symbols("w lam")
    ridge = algebra.parse("mp(1/2)").ridge_polynomial().as_expr()
    assert not sp.cancel(ridge / (lam * w - (1 - w) * (1 - w / 2))).free_symbols
    with pytest.raises(ValueError, match="mean 0"):
        algebra.semicircle(1).ridge_polynomial()


@settings(max_examples=10)
@given(expressions(depth=2))
def test_random_cauchy_polynomials_carry_the_moments(expr):
    """Resultants and substitutions (P) against free cumulants and S-series (moments):
    two independent routes, compared past the order the derivation itself checked; over
    the degree budget, refused in one line before any derivation."""
    try:
        poly = expr.cauchy_polynomial()
    except ValueError as exc:
        message = str(exc)
        assert "\n" not in message and (
            f"the limit is {ex.MAX_DEGREE_BOUND}" in message
            and ex.cauchy_degree_bound(expr) > ex.MAX_DEGREE_BOUND
            or f"the limit is {ex.MAX_CAUCHY_DEGREE}" in message), message
        return
    assert poly.domain == sp.ZZ and len(sp.factor_list(poly.as_expr())[1]) == 1
    assert all(c == 0 for c in cauchy_series_residual(poly, expr.moments(10)))
