"""Polynomial pushforwards of degree above 2 (docs/algebra.md, theory §3): the exact
Cauchy polynomial of ``phi_* mu`` (freege.symbolic.additive.polynomial_image) against
moments and transforms written here by hand, the numeric law against change-of-variables
densities, the random-matrix model ``phi(M)`` against the law's cdf, and the grammar."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from freege import algebra
from freege.symbolic.symbols import G, z
from freege.validation.sampling import algebra_models
from freege.validation.sampling.backend import get_backend

half = sp.Rational(1, 2)


def series_moments(poly: sp.Poly, order: int) -> list[sp.Expr]:
    """``m_1..m_order`` of the root ``G = sum_k m_k z^(-k-1)`` of ``poly``, solved order by
    order in ``u = 1/z``: with ``m_1..m_(k-1)`` known, ``m_k = t`` enters the lowest
    order of ``u`` that still depends on ``t``, linearly (a simple root)."""
    u, t = sp.symbols("u t")
    known: list[sp.Expr] = []
    for k in range(1, order + 1):
        series = 1 + sum(m * u**j for j, m in enumerate(known, start=1)) + t * u**k
        value = sp.Poly(sp.expand(poly.as_expr().subs({G: u * series, z: 1 / u},
                                                      simultaneous=True)
                                  * u ** poly.degree(z)), u, t)
        lowest = min(m[0] for m in value.monoms() if m[1] > 0)
        row = {m[1]: c for m, c in value.terms() if m[0] == lowest}
        assert set(row) <= {0, 1}, "m_k enters its order linearly"
        known.append(-row.get(0, 0) / row[1])
    return known


def narayana_moment(q: int, c: sp.Expr) -> sp.Expr:
    """``m_q(MP_c) = sum_k N(q, k) c^(k-1)`` (Narayana numbers)."""
    return sum(sp.binomial(q, k) * sp.binomial(q, k - 1) / q * c ** (k - 1)
               for k in range(1, q + 1))


def test_moments_of_the_cube_of_mp_from_its_cauchy_polynomial():
    expr = algebra.parse("pushforward(mp(1/2), x^3)")
    direct = [narayana_moment(3 * q, half) for q in range(1, 5)]
    assert series_moments(expr.cauchy_polynomial(), 4) == direct
    assert expr.moments(4) == direct


def test_cube_of_a_semicircle_annihilates_its_cauchy_transform():
    """``G(z0) = int sc(x) / (z0 - x^3) dx`` by quadrature at 30 digits is a root of
    ``P(., z0)``, isolated from the others."""
    poly = algebra.parse("pushforward(semicircle(1), x^3)").cauchy_polynomial()
    with mpmath.workdps(30):
        z0 = mpmath.mpc(1, 2)
        g0 = mpmath.quad(lambda x: mpmath.sqrt(4 - x * x) / (2 * mpmath.pi) / (z0 - x**3),
                         [-2, 0, 2])
        at_z0 = [mpmath.mpc(*(int(v) for v in c.subs(z, 1 + 2 * sp.I).as_real_imag()))
                 for c in sp.Poly(poly.as_expr(), G).all_coeffs()]
        roots = mpmath.polyroots(at_z0, maxsteps=200, extraprec=60)
        distances = sorted(abs(r - g0) for r in roots)
    assert distances[0] < mpmath.mpf(10) ** -20 * abs(g0)
    assert distances[1] > mpmath.mpf(10) ** -3 * abs(g0)


def test_atomic_base_maps_to_merged_atoms():
    """``x^3 - x`` sends -1 and 1 to 0 and 2 to 6."""
    expr = algebra.pushforward(algebra.atomic([(-1, half), (1, sp.Rational(1, 4)),
                                               (2, sp.Rational(1, 4))]), [0, -1, 0, 1])
    image = algebra.atomic([(0, sp.Rational(3, 4)), (6, sp.Rational(1, 4))])
    assert expr.atoms() == image.atoms()
    assert expr.cauchy_polynomial() == image.cauchy_polynomial()
    assert expr.bounds() == (-2 * sp.sqrt(3) / 9, 6)  # phi over the hull [-1, 2]


def test_bounds_use_the_critical_points():
    expr = algebra.parse("pushforward(semicircle(1), x^3 - x)")
    assert expr.critical_points() == (-sp.sqrt(3) / 3, sp.sqrt(3) / 3)
    assert expr.bounds() == (-6, 6)
    inner = algebra.parse("pushforward(semicircle(1/16), x^3 - x)")  # on [-1/2, 1/2]
    assert inner.bounds() == (-sp.Rational(3, 8), sp.Rational(3, 8))


def test_degree_zero_is_a_point_mass_and_degree_one_an_affine_map():
    law = algebra.marchenko_pastur(half)
    assert algebra.pushforward(law, [3, 0, 0, 0]) == algebra.point_mass(3)
    assert algebra.pushforward(law, [1, 2, 0, 0]) == 2 * law + 1


def test_symbolic_coefficients_bind_through_subs():
    from freege.symbolic.symbols import theta1

    cubic = algebra.pushforward(algebra.marchenko_pastur(half), [0, 0, 0, theta1])
    assert cubic.parameters == (theta1,)
    assert cubic.bounds() == (-sp.oo, sp.oo)
    bound = cubic.subs({"theta1": 2})
    assert bound == algebra.pushforward(algebra.marchenko_pastur(half), [0, 0, 0, 2])
    assert cubic.moments(2) == [theta1 * narayana_moment(3, half),
                                theta1**2 * narayana_moment(6, half)]
    assert cubic.subs({"theta1": 0}) == algebra.point_mass(0)


def test_grammar_round_trip_of_a_cubic():
    expr = algebra.parse("pushforward(mp(1/2), x^3 - x)")
    assert str(expr) == "pushforward(mp(1/2), x^3 - x)"
    assert algebra.parse(str(expr)) == expr
    assert expr == algebra.pushforward(algebra.marchenko_pastur(half), [0, -1, 0, 1])
    assert expr.subs({}) == expr


def mp_pdf(x: np.ndarray, c: float) -> np.ndarray:
    a, b = (1 - np.sqrt(c)) ** 2, (1 + np.sqrt(c)) ** 2
    return np.sqrt(np.maximum((b - x) * (x - a), 0.0)) / (2 * np.pi * c * x)


def test_numeric_cube_of_mp_is_the_change_of_variables_density():
    law = algebra.parse("pushforward(mp(1/2), x^3)").law()
    a, b = (1 - np.sqrt(0.5)) ** 2, (1 + np.sqrt(0.5)) ** 2
    lo, hi = law.support()
    assert abs(lo - a**3) <= 1e-12 * a**3 and abs(hi - b**3) <= 1e-12 * b**3
    ys = np.linspace(a**3, b**3, 11)[1:-1]
    expected = mp_pdf(np.cbrt(ys), 0.5) / (3 * np.cbrt(ys) ** 2)
    np.testing.assert_allclose(law.pdf(ys), expected, rtol=1e-12)
    assert abs(law.mass() - 1) <= 1e-12


def sc_preimage_density(ys: np.ndarray, coeffs: list[int]) -> np.ndarray:
    """``sum_i sc(x_i) / |phi'(x_i)|`` over the real preimages ``x_i`` of each ``y``."""
    phi = np.polynomial.Polynomial(coeffs)
    out = []
    for y in ys:
        xs = [r.real for r in (phi - y).roots() if abs(r.imag) < 1e-9]
        out.append(sum(np.sqrt(max(4 - x * x, 0.0)) / (2 * np.pi) / abs(phi.deriv()(x))
                       for x in xs))
    return np.array(out)


def test_numeric_non_monotone_cubic_on_a_semicircle():
    """``x^3 - 3x`` folds ``[-2, 2]`` three times onto ``[-2, 2]``; its critical values
    are the image's edges."""
    law = algebra.parse("pushforward(semicircle(1), x^3 - 3*x)").law()
    assert law.support() == pytest.approx((-2.0, 2.0), abs=1e-12)
    ys = np.array([-1.99, -1.5, -1.0, -0.3, 0.2, 1.0, 1.7, 1.99])
    np.testing.assert_allclose(law.pdf(ys), sc_preimage_density(ys, [0, -3, 0, 1]),
                               rtol=1e-12)
    assert abs(law.mass() - 1) <= 1e-12


@pytest.mark.parametrize("text", ["pushforward(semicircle(1), x^3 - x)",
                                  "pushforward(semicircle(1), x^3)",
                                  "mp(1/2) + 2*pushforward(semicircle(1), x^3 + 3*x^2)"])
def test_a_critical_value_inside_the_support_is_refused_by_the_numeric_law(text):
    expr = algebra.parse(text)
    with pytest.raises(ValueError, match="critical value .* inside the support") as info:
        expr.law()
    assert "\n" not in str(info.value)
    assert expr.moments(2)  # the exact law is there


#: eigenvalue rigidity: the spectral cdf of an n x n model is within O(log(n)/n) of the
#: limit law's (the n^(-2/3) edge fluctuations cost O(1/n) of mass); twice that
N = 400


def ks_distance(eigenvalues: np.ndarray, law) -> float:
    cdf = law.cdf(np.sort(eigenvalues))
    i = np.arange(1, eigenvalues.size + 1)
    return float(max(np.max(i / eigenvalues.size - cdf),
                     np.max(cdf - (i - 1) / eigenvalues.size)))


def test_matrix_cube_samples_follow_the_law():
    expr = algebra.parse("pushforward(mp(1/2), x^3)")
    backend = get_backend("numpy")
    eigenvalues = algebra_models.eigenvalues(expr, N, backend, np.random.SeedSequence(7))
    tol = 2 * np.log(N) / N
    assert ks_distance(eigenvalues, expr.law()) <= tol
    # negative control: a ratio 1/10 away is rejected
    assert ks_distance(eigenvalues, algebra.parse("pushforward(mp(3/5), x^3)").law()) > tol
