"""Tied-K/V jump law mu_KV (theory §4): moments, Cauchy polynomial, S-relation."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from freege.symbolic.pushforward import (
    free_poisson_moment,
    generic_cauchy_polynomial,
    generic_elimination,
    generic_relation,
    tied_jump_cauchy_polynomial,
    tied_jump_map,
    tied_jump_moments,
    tied_jump_relation,
)
from freege.symbolic.symbols import G, S, gK, h, theta1, theta2, w
from freege.symbolic.transforms import cauchy_series_residual

ORDER = 8
DPS = 30


def pi_t_integral(f, t):
    """``int f dpi_t`` (theory §3 free Poisson): Marchenko-Pastur density plus the atom at 0.

    The density ``sqrt((x - l)(r - x)) / (2 pi x)`` on ``[l, r] = [(1 -+ sqrt t)^2]`` is
    integrated in ``x = mid + half cos(u)``, which makes the integrand smooth, by
    ``mpmath.quad`` (tanh-sinh, interval split in four) at the current working precision;
    the factor ``(x - l)/x`` is taken as 1 when ``l = 0`` (``t = 1``), so no node divides
    by zero whatever nodes earlier quadratures left in mpmath's cache.
    """
    root = mpmath.sqrt(t)
    left, right = (1 - root) ** 2, (1 + root) ** 2
    mid, half = (left + right) / 2, (right - left) / 2

    def integrand(u):
        # (half sin u)^2 = (x - left)(right - x); at t = 1 the left edge is 0 and the
        # ratio (x - left)/x is exactly 1 (a node can round onto x = 0).
        x = mid + half * mpmath.cos(u)
        ratio = 1 if left == 0 else (x - left) / x
        return ratio * (right - x) / (2 * mpmath.pi) * f(x)

    total = mpmath.quad(integrand, mpmath.linspace(0, mpmath.pi, 5))
    return total + (1 - t) * f(mpmath.mpf(0)) if t < 1 else total


def test_free_poisson_moments_are_narayana():
    t = sp.Symbol("t")
    assert [free_poisson_moment(k, t) for k in range(4)] == [1, t, t + t**2, t + 3 * t**2 + t**3]


def test_mean_is_the_spec_tied_value_mean_over_h():
    """theory §4: pi(mu_KV, h) has mean gK theta1 + h theta2 = h m1(mu_KV)."""
    assert sp.simplify(h * tied_jump_moments(1)[0] - (gK * theta1 + h * theta2)) == 0


def test_order_is_validated():
    with pytest.raises(ValueError, match="order"):
        tied_jump_moments(0)


PARAMS = st.tuples(
    st.sampled_from([0.25, 0.5, 1.0, 1.5]),  # beta
    st.sampled_from([1, 2, 8]),  # h
    st.floats(0.1, 6.0),  # gK (t = gK/h on both sides of 1)
)


def _numeric(beta: float, heads: int, g: float) -> dict[sp.Symbol, mpmath.mpf]:
    beta = mpmath.mpf(beta)
    return {theta1: mpmath.expm1(beta**2), theta2: beta**2, h: mpmath.mpf(heads), gK: mpmath.mpf(g)}


def _phi(values: dict[sp.Symbol, float]):
    a = values[theta1] - values[theta2]
    b = values[h] * values[theta2] / values[gK]
    return lambda x: a * x + b * x**2


def _evaluate(expr: sp.Expr, values: dict[sp.Symbol, mpmath.mpf]) -> mpmath.mpf:
    return sp.lambdify(list(values), expr, "mpmath")(*values.values())


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(PARAMS)
@example((1.0, 8, 0.5))  # t = gK/h < 1: the atom at 0
@example((1.0, 1, 3.0))  # t > 1
def test_moments_match_quadrature(params):
    with mpmath.workdps(DPS):
        values = _numeric(*params)
        phi, t = _phi(values), values[gK] / values[h]
        for q, m in enumerate(tied_jump_moments(6), start=1):
            expected = pi_t_integral(lambda x, q=q: phi(x) ** q, t)
            assert abs(_evaluate(m, values) / expected - 1) < mpmath.mpf(10) ** (5 - DPS)


@pytest.mark.slow
def test_cauchy_polynomial_annihilates_the_moment_series():
    residual = cauchy_series_residual(tied_jump_cauchy_polynomial(), tied_jump_moments(ORDER))
    assert all(sp.simplify(c) == 0 for c in residual)
    assert tied_jump_cauchy_polynomial().degree(G) == 4


@settings(max_examples=12, deadline=None)
@given(PARAMS, st.sampled_from([3 + 1j, -2 + 0.5j, 0.5 - 2j, 40j]).map(mpmath.mpc))
@example((1.0, 8, 0.5), mpmath.mpc(3, 1))  # t < 1
@example((1.5, 2, 5.0), mpmath.mpc(-2, 0.5))  # t > 1
def test_cauchy_polynomial_vanishes_at_quadrature_g(params, zval):
    """P_mu(G, z) = 0 for G = int dpi_t/(z - phi(x)) by quadrature (complex z off the axis)."""
    with mpmath.workdps(DPS):
        values = _numeric(*params)
        phi, t = _phi(values), values[gK] / values[h]
        g_val = pi_t_integral(lambda x: 1 / (zval - phi(x)), t)
        terms = [
            _evaluate(c, values) * g_val**i * zval**j
            for (i, j), c in tied_jump_cauchy_polynomial().terms()
        ]
        assert abs(sum(terms)) < mpmath.mpf(10) ** (5 - DPS) * sum(abs(x) for x in terms)


RATIONAL = st.fractions(min_value=sp.Rational(1, 10), max_value=8, max_denominator=12)


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(RATIONAL, RATIONAL, RATIONAL, RATIONAL)
def test_relation_reproduces_the_moments(t1, t2, heads, g):
    """E(S(psi(y)), psi(y)) = O(y^(N+1)) with S = y (1 + psi)/psi (theory §3: chi(psi(y)) = y).

    Exact arithmetic at rational parameter points (the relation is polynomial in them).
    """
    point = {theta1: t1, theta2: t2, h: heads, gK: g}
    y = sp.Symbol("y")
    moments = [m.subs(point) for m in tied_jump_moments(ORDER + 1)]
    psi = sum(m * y ** (k + 1) for k, m in enumerate(moments))
    # 1/(psi/y) by the power-series reciprocal recurrence, then S = (1 + psi) (y/psi)
    inverse = [1 / moments[0]]
    for k in range(1, ORDER + 1):
        inverse.append(-sum(moments[j] * inverse[k - j] for j in range(1, k + 1)) / moments[0])
    s_series = sp.expand((1 + psi) * sum(c * y**k for k, c in enumerate(inverse)))
    value = sp.expand(tied_jump_relation().subs(point).subs({S: s_series, w: psi}))
    assert all(value.coeff(y, k) == 0 for k in range(ORDER + 1))


def test_relation_is_quadratic_and_physical_root_is_inverse_mean():
    relation = sp.Poly(tied_jump_relation(), S)
    assert relation.degree() == 2
    at_zero = sp.Poly(relation.as_expr().subs(w, 0), S)
    assert at_zero.degree() == 1  # the second root has a pole at w = 0
    assert sp.simplify(sp.solve(at_zero, S)[0] * tied_jump_moments(1)[0] - 1) == 0


def test_generic_relation_specialises_to_the_tied_relation():
    """The a, b, t elimination and the tied relation agree under a, b, t -> theory §4 values."""
    specialised = sp.numer(sp.together(generic_relation().subs(tied_jump_map())))
    ratio = sp.cancel(specialised / tied_jump_relation())
    assert ratio != 0 and not ratio.has(S, w)


def test_generic_elimination_has_the_quartic_squared():
    """x1 <-> x2 symmetry: the physical quartic appears squared in the eliminant."""
    quartic = generic_cauchy_polynomial().as_expr()
    assert any(m == 2 and sp.cancel(f / quartic).is_number for f, m in generic_elimination())
