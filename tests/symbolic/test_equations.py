"""Derived equations of the theory §4 cases (theory §3-§5): Cauchy polynomials P(G, z) and ridge
polynomials F(w, lam)."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from freege.symbolic.cases import CASES, TIED_CASES
from freege.symbolic.closed_forms import dof_series, moments, s_relation
from freege.symbolic.equations import (
    cauchy_polynomial,
    ridge_derivatives,
    ridge_polynomial,
    ridge_series,
    tied_ridge_relation,
)
from freege.symbolic.symbols import G, gK, gO, gV, h, lam, theta1, theta2, w, z
from freege.symbolic.transforms import cauchy_series_residual, s_relation_from_cauchy
from tests.symbolic.helpers import proportional

ORDER = 6
PARAMETERS = (theta1, theta2, h, gK, gV, gO)
RATIONAL = st.fractions(min_value=sp.Rational(1, 10), max_value=9, max_denominator=16)
POINTS = st.tuples(*[RATIONAL] * len(PARAMETERS)).map(
    lambda values: {
        s: sp.Rational(v.numerator, v.denominator) for s, v in zip(PARAMETERS, values, strict=True)
    }
)
#: G-degree of each case's Cauchy polynomial (documented in equations.cauchy_polynomial)
DEGREE = {
    "attention": 4,
    "head-average": 4,
    "head-average-shared-key": 4,
    "value": 6,
    "mha": 8,
    "value-tied": 6,
    "mha-tied": 8,
}


def test_unknown_case_is_rejected():
    with pytest.raises(ValueError, match="attention"):
        cauchy_polynomial("softmax")
    with pytest.raises(ValueError, match="mha-tied"):
        ridge_polynomial("nope")


# --- every theory §4 case -------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_cauchy_polynomial_shape(case):
    poly = cauchy_polynomial(case)
    assert poly.gens == (G, z)
    assert poly.degree(G) == DEGREE[case]
    assert all(c.is_polynomial(*PARAMETERS) for c in poly.coeffs())
    # birational round trip back to the (physical factor of the) S relation
    assert proportional(s_relation_from_cauchy(poly), s_relation(case))


@pytest.mark.parametrize("case", CASES)
@settings(max_examples=3)
@given(point=POINTS)
def test_cauchy_polynomial_is_irreducible(case, point):
    """Irreducible at a rational point with the same bidegree implies irreducible."""
    poly = cauchy_polynomial(case)
    special = sp.Poly(poly.as_expr().subs(point), G, z)
    assume(special.degree(G) == poly.degree(G) and special.degree(z) == poly.degree(z))
    _, factors = sp.factor_list(special.as_expr(), G, z)
    assert sum(m for f, m in factors if f.has(G) or f.has(z)) == 1


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("normalized", [False, True])
@settings(max_examples=3)
@given(point=POINTS)
def test_cauchy_polynomial_annihilates_moment_series(case, normalized, point):
    """G = sum m_k z^(-k-1) with core's moments (theory §3): the low orders of P vanish."""
    poly = sp.Poly(cauchy_polynomial(case, normalized).as_expr().subs(point), G, z)
    series = [m.subs(point) for m in moments(case, ORDER, normalized)]
    assert all(c == 0 for c in cauchy_series_residual(poly, series))
    # and a perturbed series does not: the check has teeth
    series[-1] += 1
    assert any(c != 0 for c in cauchy_series_residual(poly, series))


def _spec_ridge(case: str) -> sp.Expr:
    """theory §5 independent form lam^2 w - lam (1 - c w/g) Pi - (c (1-c)/g) Pi^2 (theory §4
    factors: rho_g with g = gK, or gK/h for one shared key; MP_{1/h}, pi_1, pi_gV, MP_{1/gV},
    pi_gO each contribute 1 - w/g_j at -w after normalization)."""
    c = theta2 / theta1
    g = gK / h if case == "head-average-shared-key" else gK
    factors = {
        "attention": [1, h],
        "head-average": [1, 1],
        "head-average-shared-key": [1, 1],
        "value": [1, h, gV],
        "mha": [1, h, gV, gO],
    }[case]
    pi = sp.Mul(*[1 - w / gj for gj in factors])
    return lam**2 * w - lam * (1 - c * w / g) * pi - c * (1 - c) / g * pi**2


@pytest.mark.parametrize("case", [c for c in CASES if c not in TIED_CASES])
def test_ridge_polynomial_matches_spec_form(case):
    assert proportional(ridge_polynomial(case), _spec_ridge(case))


def test_tied_ridge_relation_matches_generic_route():
    """theory §5 tied form (from S_muKV) = the ridge map of D_{1/m}(pi(mu_KV, h) ⊠ pi_gO)."""
    assert proportional(tied_ridge_relation(), ridge_polynomial("mha-tied"))


@pytest.mark.parametrize("case", CASES)
def test_ridge_large_lambda_series(case):
    """The root w ~ 1/lam of F is w = mbar1/lam - mbar2/lam^2 + ... (theory §5), identically,
    with the normalized moments of the law algebra."""
    from_ridge = ridge_series(case, ORDER)
    assert all(
        sp.cancel(a - b) == 0 for a, b in zip(from_ridge, dof_series(case, ORDER), strict=True)
    )


@pytest.mark.parametrize("case", ["mha", "mha-tied", "head-average-shared-key"])
def test_ridge_derivatives_give_w_prime(case):
    """w'(lam) = -F_lam/F_w against a central difference of the solved w(lam) (theory §5)."""
    point = {theta1: mpmath.e - 1, theta2: 1, h: 4, gK: sp.Rational(1, 2), gV: 2, gO: 3}
    f, f_w, f_lam = (
        sp.lambdify((w, lam), p.as_expr().subs(point), "mpmath")
        for p in (ridge_polynomial(case), *ridge_derivatives(case))
    )
    with mpmath.workdps(30):
        lam0, step = mpmath.mpf("0.7"), mpmath.mpf("1e-8")

        def solve(at):
            # the physical branch is w ~ 1/lam at large lam: follow it down to lam0
            value = 1 / mpmath.mpf(1000)
            for x in [1000 * (at / 1000) ** (k / 40) for k in range(1, 41)]:
                value = mpmath.findroot(lambda v, x=x: f(v, x), value)
            return value

        w0 = solve(lam0)
        assert 0 < w0 < 1
        difference = (solve(lam0 + step) - solve(lam0 - step)) / (2 * step)
        derivative = -f_lam(w0, lam0) / f_w(w0, lam0)
        assert derivative < 0
        assert abs(difference / derivative - 1) < mpmath.mpf(10) ** -12
