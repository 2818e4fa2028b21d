"""The sympy-free exact discriminant and square-free part (issue 41) against sympy's."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from freege.numeric import branch_points, exact_univariate
from freege.numeric.case_law import law
from freege.params import Ratios
from freege.symbolic.symbols import G, z


def _sympy_discriminant(rows: list[list[Fraction]]) -> list[Fraction]:
    expr = sum(sp.Rational(c.numerator, c.denominator) * G**i * z**j
               for i, row in enumerate(rows) for j, c in enumerate(row))
    disc = sp.Poly(sp.discriminant(sp.Poly(expr, G), G), z, domain=sp.QQ)
    return [Fraction(int(c.p), int(c.q)) for c in disc.all_coeffs()[::-1]]


def _random_rows(rng: random.Random, n: int, d: int) -> list[list[Fraction]]:
    rows = [[Fraction(rng.randint(-9, 9), rng.randint(1, 5)) if rng.random() < 0.7 else
             Fraction(0) for _ in range(d + 1)] for _ in range(n + 1)]
    rows[n][rng.randint(0, d)] = Fraction(rng.choice([-3, -1, 2, 5]))  # degree n in G
    return rows


@pytest.mark.parametrize("seed", range(12))
def test_discriminant_equals_sympy(seed: int) -> None:
    rng = random.Random(seed)
    rows = _random_rows(rng, rng.randint(1, 5), rng.randint(0, 3))
    assert exact_univariate.discriminant(rows) == _sympy_discriminant(rows)


def test_discriminant_of_case_laws_equals_sympy() -> None:
    """Both tied and untied MHA laws at a fresh configuration (parameters rationalised
    as the float64 edges are)."""
    for case, ratios in (("mha", Ratios("1.37", 3, "1.5", "1.25", "0.75")),
                         ("mha-tied", Ratios("1.37", 3, "1.5", "1.5", "0.75"))):
        with mpmath.workdps(branch_points.FLOAT64_EDGE_DPS):
            rows = law(case, ratios).equation.exact_rows()
        assert exact_univariate.discriminant(rows) == _sympy_discriminant(rows)


@pytest.mark.parametrize("seed", range(8))
def test_squarefree_part_equals_sympy(seed: int) -> None:
    rng = random.Random(100 + seed)
    x = sp.Symbol("x")
    factors = [sp.Poly([rng.randint(-4, 4) or 1, rng.randint(-4, 4)], x) for _ in range(3)]
    poly = sp.Poly(x ** rng.randint(0, 3), x)
    for f in factors:
        poly *= f ** rng.randint(1, 3)
    coeffs = [Fraction(int(c)) for c in poly.all_coeffs()[::-1]]
    mine = exact_univariate.squarefree_part(coeffs)
    ref = sp.Poly(mine[::-1], x)
    assert sp.Poly(mine[::-1], x).degree() == poly.sqf_part().degree()
    assert sp.rem(poly.sqf_part(), ref).is_zero  # same roots: each divides the other
    assert sp.rem(ref, poly.sqf_part()).is_zero


def test_weierstrass_finds_every_root_polyroots_finds() -> None:
    """The float64-started refinement against ``mpmath.polyroots`` (a cluster included)."""
    coeffs = [1, -3, 1, 5, -2, -4, 1]
    refined = branch_points._weierstrass(coeffs, 30)
    assert refined is not None
    mine, digits = refined
    with mpmath.workdps(digits):
        ref = mpmath.polyroots(coeffs, maxsteps=200, extraprec=40)
        assert len(mine) == len(ref)
        for r in ref:
            assert min(abs(r - m) for m in mine) < mpmath.mpf(10) ** -25


def test_zero_polynomial_is_refused() -> None:
    with pytest.raises(ValueError, match="zero polynomial"):
        exact_univariate.discriminant([[0, 0], [0]])
    with pytest.raises(ValueError, match="zero polynomial"):
        exact_univariate.squarefree_part([0, 0])


def test_resultant_of_sparse_polynomials_equals_sympy() -> None:
    """Zero coefficients make a pseudo-remainder drop more than one degree (the missing
    powers of the leading coefficient must still be applied)."""
    rng = random.Random(7)
    x = sp.Symbol("x")
    for _ in range(150):
        n = rng.randint(2, 7)
        coeffs = [rng.choice([0, 0, 0, 1, -1, 2, -3, 5]) for _ in range(n)]
        coeffs.append(rng.choice([1, -2, 3]))
        f = sp.Poly(coeffs[::-1], x)
        assert exact_univariate._resultant_with_derivative(coeffs) == sp.resultant(
            f, f.diff(x))


def test_discriminant_of_mp_times_mp() -> None:
    """``P = G^3 z^2 - G z + 1`` (MP_1 ⊠ MP_1): the cubic's discriminant ``-4p^3 - 27q^2``
    in ``u = zG`` gives ``disc_G P = 4 z^5 - 27 z^4`` (the edge 27/4)."""
    rows = [[1, 0, 0], [0, -1, 0], [0, 0, 0], [0, 0, 1]]
    assert exact_univariate.discriminant(rows) == [0, 0, 0, 0, -27, 4]
