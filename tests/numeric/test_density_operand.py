"""The density operand (freege.numeric.density_operand, docs/data-laws.md): its Cauchy
transform against closed forms near and on the axis, its moments against scipy, and
MP ⊠ uniform against an independent Silverstein-equation reference."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest
import scipy.stats as st

from freege.errors import ConvergenceError
from freege.numeric.data_law import DataLaw
from freege.numeric.density_operand import (
    density,
    density_from_spec,
    from_scipy,
    scipy_spec,
)

# points outside [1, 3] (on the axis and just off it), on it (z + i0) and in C+
POINTS = [0.5, 3.5, 3 + 1e-12, 1 - 1e-10, 0.999, 2 + 1e-10j, 2.0, 1.7, 1.5 + 1j,
          2.7 + 1e-3j, 1.0000001 + 1e-12j, -4 + 2j, 20.0]


def _uniform_g(z: complex) -> complex:
    """G of uniform(1, 3): log((z - 1)/(z - 3))/2, ``z + i0`` on the support."""
    if z.imag == 0 and 1 < z.real < 3:
        return (np.log(abs((z - 1) / (z - 3))) - 1j * np.pi) / 2
    return np.log((z - 1) / (z - 3)) / 2


def test_uniform_float64_matches_the_closed_form() -> None:
    op = from_scipy(st.uniform(1, 2))
    zs = np.array(POINTS, dtype=complex)
    g, dg = op.cauchy_f64(zs)
    ref = np.array([_uniform_g(z) for z in zs])
    dref = (1 / (zs - 1) - 1 / (zs - 3)) / 2
    assert np.max(np.abs(g / ref - 1)) < 1e-13
    assert np.max(np.abs(dg / dref - 1)) < 1e-11
    # the lower half plane by reflection
    assert abs(op.cauchy_f64(np.array([1.5 - 1j]))[0][0] - np.conj(ref[8])) < 1e-14


def test_uniform_mpmath_30_digits() -> None:
    op = from_scipy(st.uniform(1, 2))
    with mpmath.workdps(30):
        for z in POINTS:
            zm = mpmath.mpc(z)
            if mpmath.im(zm) == 0 and 1 < zm.real < 3:
                ref = (mpmath.log(abs((zm - 1) / (zm - 3))) - 1j * mpmath.pi) / 2
            else:
                ref = mpmath.log((zm - 1) / (zm - 3)) / 2
            g, dg = op.cauchy_mp(zm)
            assert abs(g / ref - 1) < mpmath.mpf(10) ** -28, z
            assert abs(dg / ((1 / (zm - 1) - 1 / (zm - 3)) / 2) - 1) < mpmath.mpf(10) ** -26


def _beta22_g(z: Any) -> Any:
    """G of rho = 6x(1-x) on [0, 1], by hand: 6x(1-x)/(z-x) = 6[x - z + 1 + z(1-z)/(z-x)]
    ... integrated: 6[z(1-z) L + z - 1/2] with L = int_0^1 dx/(z-x) = log(z/(z-1))."""
    return 6 * (z * (1 - z) * mpmath.log(z / (z - 1)) + z - mpmath.mpf(1) / 2)


def test_beta22_against_its_cauchy_transform() -> None:
    op = from_scipy(st.beta(2, 2))
    pts = [0.5 + 1e-9j, 1e-6 + 1e-11j, 1.5, -0.25, 0.3 + 0.4j, 1 + 1e-7j]
    g, _ = op.cauchy_f64(np.array(pts))
    with mpmath.workdps(40):
        for z, gf in zip(pts, g, strict=True):
            ref = complex(_beta22_g(mpmath.mpc(z)))
            assert abs(gf - ref) < 1e-13 * abs(ref), z
    with mpmath.workdps(30):
        for z in pts:
            ref = _beta22_g(mpmath.mpc(z))
            assert abs(op.cauchy_mp(z)[0] - ref) < mpmath.mpf(10) ** -28 * abs(ref), z
        # on the support: -Im G/pi is the density
        x = mpmath.mpf("0.3")
        assert abs(-mpmath.im(op.cauchy_mp(x)[0]) / mpmath.pi - 6 * x * (1 - x)) < 1e-28


@pytest.mark.parametrize("dist", [st.gamma(2.5, scale=0.5), st.beta(2, 3), st.norm(1, 2),
                                  st.uniform(1, 2)], ids=["gamma", "beta", "norm", "uniform"])
def test_moments_against_scipy(dist: Any) -> None:
    op = from_scipy(dist)
    with mpmath.workdps(20):
        ms = op.moments_mp(4)
    for k, m in enumerate(ms, start=1):
        assert abs(float(m) - dist.moment(k)) < 1e-12 * max(1.0, abs(dist.moment(k)))


def test_sqrt_end_and_singular_end_converge_float64() -> None:
    # an x^-1/2 end at 0 and a sqrt end at 1: beta(1/2, 3/2) on [0, 1]
    from scipy.integrate import quad

    op = from_scipy(st.beta(0.5, 1.5))
    g = op.cauchy_f64(np.array([0.5 + 0j, 10.0 + 0j, -0.5 + 0j]))[0]
    assert abs(-g[0].imag / np.pi - st.beta(0.5, 1.5).pdf(0.5)) < 1e-12
    for z, got in ((10.0, g[1]), (-0.5, g[2])):
        ref = quad(lambda x, z=z: 1 / (z - x), 0, 1, weight="alg", wvar=(-0.5, 0.5),
                   epsabs=0, epsrel=2e-14)[0] * 2 / np.pi
        assert abs(got - ref) < 1e-12 * abs(ref)


def test_interior_singularity_raises() -> None:
    op = density(lambda x: abs(3 * x - 1) ** -0.5 if not isinstance(x, np.ndarray)
                 else np.abs(3 * x - 1) ** -0.5, Fraction(0), Fraction(1))
    with pytest.raises((ConvergenceError, ValueError)):
        op.cauchy_f64(np.array([0.5 + 1e-3j]))


def test_spec_round_trip_and_refusals() -> None:
    spec = scipy_spec(st.gamma(2.5, scale=0.5))
    assert spec == ("density", "scipy", "gamma", (Fraction(5, 2),),
                    (("scale", Fraction(1, 2)),))
    op = density_from_spec(spec[1:])
    assert "cut at tail mass" in op.describe["law"]
    with pytest.raises(ValueError, match="does not travel"):
        density_from_spec(("function", 1))
    with pytest.raises(ValueError, match="not a scipy.stats continuous"):
        density_from_spec(("scipy", "os", (), ()))
    with pytest.raises(ValueError, match="float64 only"):
        from freege.numeric.density_operand import check_dps

        check_dps(from_scipy(st.weibull_min(1.5)), 30)
    with pytest.raises(ValueError, match=r"\[a, b\]"):
        density(lambda x: 1 + 0 * x, 2, 1)


def _silverstein(z: Any, c: Any, start: Any) -> Any:
    """G of MP_c ⊠ uniform(1, 3) at z: the fixed point G = int dnu(t)/(z - t(1 - c + c z G)),
    integrand by mpmath.quad."""
    def f(g: Any) -> Any:
        u = 1 - c + c * z * g
        return g - mpmath.quad(lambda t: (z - t * u) ** -1 / 2, [1, 2, 3])
    return mpmath.findroot(f, start)


def test_silverstein_identity_on_an_atomic_law() -> None:
    """The fixed point used below, checked against the algebraic route with atoms."""
    from freege.algebra import parse

    law = parse("mp(1/2) * atoms((1,1/4),(3,3/4))").law()
    c = mpmath.mpf(1) / 2
    with mpmath.workdps(30):
        for z in (mpmath.mpc(1, 1), mpmath.mpc("2.5", "0.1")):
            g0 = law.stieltjes(complex(z))
            def fixed(g: Any, z: Any = z) -> Any:
                u = 1 - c + c * z * g
                return g - (mpmath.mpf(1) / 4 / (z - u) + mpmath.mpf(3) / 4 / (z - 3 * u))

            g = mpmath.findroot(fixed, g0)
            assert abs(complex(g) - g0) < 1e-12 * abs(g0)


def test_mp_times_uniform_against_silverstein_30_digits() -> None:
    spec = ("mult", ("mp", Fraction(1, 2)), scipy_spec(st.uniform(1, 2)))
    law = DataLaw(spec)
    law30 = law.with_dps(30)
    c = mpmath.mpf(1) / 2
    for x in ("1.5", "3.25"):
        with mpmath.workdps(40):
            xm = mpmath.mpf(x)
            g = mpmath.mpc(1 / xm)
            for y in ("1", "0.1", "0.01", "0.001", "0"):
                g = _silverstein(mpmath.mpc(xm, mpmath.mpf(y)), c, g)
        with mpmath.workdps(30):
            got = law30.stieltjes(mpmath.mpf(x))
            assert abs(got - g) < mpmath.mpf(10) ** -25 * abs(g), x
            dens = law30.pdf(mpmath.mpf(x))
            assert abs(dens + mpmath.im(g) / mpmath.pi) < mpmath.mpf(10) ** -25
    # float64: the pdf integrates to 1 (Chebyshev-type substitution), the mean is 1 * 2
    lo, hi = law.support()
    nodes, weights = np.polynomial.legendre.leggauss(400)
    theta = (nodes + 1) * np.pi / 2
    xs = lo + (hi - lo) * (1 - np.cos(theta)) / 2
    jac = (hi - lo) * np.sin(theta) / 2 * np.pi / 2
    mass = float(np.sum(weights * law.pdf(xs) * jac))
    assert abs(mass - 1) < 1e-9
    assert abs(law.mean() - 2) < 1e-12
