"""Branch-tracked Cauchy roots on a law with closed forms: Marchenko-Pastur MP_s
(theory §3: S(w) = 1/(1 + s w), mean 1, variance s), built here with sympy."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from freege.numeric import roots
from freege.symbolic.symbols import G, z

s_sym = sp.Symbol("s", positive=True)
x_sym = sp.Symbol("x", positive=True)

#: theory §3 MP_s put through w = zG - 1, S = G/(zG - 1), denominators cleared
MP_POLY = sp.Poly(
    sp.numer(sp.together(G / (z * G - 1) - 1 / (1 + s_sym * (z * G - 1)))), G, z
)
#: closed forms of MP_s: edges (1 -+ sqrt s)^2, density, mass at 0
LO, HI = (1 - sp.sqrt(s_sym)) ** 2, (1 + sp.sqrt(s_sym)) ** 2
DENSITY = sp.sqrt((HI - x_sym) * (x_sym - LO)) / (2 * sp.pi * s_sym * x_sym)
ATOM = sp.Max(0, 1 - 1 / s_sym)


def mp_equation(s: sp.Rational) -> roots.CauchyEquation:
    return roots.CauchyEquation(MP_POLY, (s_sym,), lambda: (mpmath.mpf(s.p) / s.q,))


@pytest.mark.parametrize("s", [sp.Rational(1, 2), sp.Integer(1), sp.Rational(5, 2)])
def test_edges_and_atom_to_working_precision(s: sp.Rational) -> None:
    eq = mp_equation(s)
    ((a, b),) = roots.support_intervals(eq, 40)
    with mpmath.workdps(40):
        assert abs(a - LO.subs(s_sym, s).evalf(50)) < mpmath.mpf(10) ** -38
        assert abs(b - HI.subs(s_sym, s).evalf(50)) < mpmath.mpf(10) ** -38 * b
    dens = sp.lambdify(x_sym, DENSITY.subs(s_sym, s), "mpmath")
    with mpmath.workdps(20):
        mass_density = float(mpmath.quad(dens, [LO.subs(s_sym, s).evalf(30),
                                                HI.subs(s_sym, s).evalf(30)]))
    atom = roots.atom_at_zero(eq, 40, lambda precise: mass_density)
    assert abs(atom - ATOM.subs(s_sym, s).evalf(50)) < mpmath.mpf(10) ** -38


@pytest.mark.parametrize("s", [sp.Rational(1, 3), sp.Integer(1), sp.Integer(3)])
def test_float64_density_matches_closed_form(s: sp.Rational) -> None:
    eq = mp_equation(s)
    lo, hi = float(LO.subs(s_sym, s)), float(HI.subs(s_sym, s))
    x = np.linspace(lo, hi, 401)[1:-1]
    g, err = eq.stieltjes_f64(x)
    exact = sp.lambdify(x_sym, DENSITY.subs(s_sym, s), "numpy")(x)
    ok = err < roots.FLOAT64_RTOL * np.abs(g)  # the points the law layer does not rescue
    assert ok.mean() > 0.9
    np.testing.assert_allclose(-g.imag[ok] / np.pi, exact[ok], rtol=0, atol=1e-13 * exact.max())
    assert np.all(-g.imag >= 0)


def test_outside_support_is_real_and_branch_is_herglotz() -> None:
    eq = mp_equation(sp.Rational(1, 2))
    g, _ = eq.stieltjes_f64(np.array([-3.0, -0.01, 0.05, 3.5, 40.0]))
    assert np.all(np.abs(g.imag) < 1e-12)
    zs = np.array([0.3 + 1e-3j, 1 + 2j, -1 + 0.5j, 10 + 1e-6j])
    g, _ = eq.stieltjes_f64(zs)
    assert np.all(g.imag < 0)  # G maps the upper half plane to the lower one
    g_lower, _ = eq.stieltjes_f64(zs.conj())
    np.testing.assert_allclose(g_lower, g.conj(), rtol=1e-14)


def test_complex_z_matches_quadrature_of_the_density() -> None:
    s = sp.Rational(1, 2)
    eq = mp_equation(s)
    dens = sp.lambdify(x_sym, DENSITY.subs(s_sym, s), "mpmath")
    a, b = LO.subs(s_sym, s), HI.subs(s_sym, s)
    for zv in (1 + 0.5j, 0.2 + 0.05j, 4 - 1j):
        g, _ = eq.stieltjes_f64(np.array([zv]))
        with mpmath.workdps(30):
            quad = mpmath.quad(lambda t, zv=zv: dens(t) / (zv - t), [a.evalf(40), b.evalf(40)])
        assert abs(complex(quad) - g[0]) < 1e-13


def test_mpmath_polish_to_50_digits() -> None:
    s = sp.Rational(2, 3)
    eq = mp_equation(s)
    x = sp.Rational(3, 2)
    seed = eq.stieltjes_f64(np.array([float(x)]))[0][0]
    with mpmath.workdps(50):
        g = eq.stieltjes_mp(mpmath.mpf(3) / 2, seed)
        exact = DENSITY.subs({s_sym: s, x_sym: x}).evalf(60)
        assert abs(-g.imag / mpmath.pi - mpmath.mpf(str(exact))) < mpmath.mpf(10) ** -48


def test_polynomial_roots_real_and_complex() -> None:
    t = sp.Symbol("t")
    poly = sp.Poly((3 * t - 1) * (t - 2) ** 2 * (t**2 + 1) * t, t)
    found, real = roots.polynomial_roots(poly, 40)
    assert len(found) == 5 and len(real) == 3  # square-free part
    with mpmath.workdps(40):
        for r, e in zip(real, [0, mpmath.mpf(1) / 3, 2], strict=True):
            assert abs(r - e) < mpmath.mpf(10) ** -39


def test_wrong_generators_rejected() -> None:
    with pytest.raises(ValueError, match="generators"):
        roots.CauchyEquation(sp.Poly(G * z - 1, z, G), (s_sym,), lambda: (mpmath.mpf(1),))


def test_all_roots_at_a_non_finite_point_are_nan_not_an_error() -> None:
    """A Newton step of a caller (the ⊠ engine's edge equations) can land on nan: the
    companion roots there are nan, the other points' roots unchanged (it was a
    LinAlgError from eigvals, which reached `freege law --finite-width` at h = 3)."""
    import numpy as np

    from freege.numeric import law
    from freege.params import Ratios

    eq = law("mha", Ratios(beta=1, h=2, gK=1, gV=1, gO=1)).equation
    z = np.array([1.0 + 0.5j])
    both = eq.all_roots_f64(np.array([z[0], complex(np.nan, 0.0)]))
    assert np.array_equal(both[0], eq.all_roots_f64(z)[0])
    assert np.all(np.isnan(both[1]))
