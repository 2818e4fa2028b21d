"""Readout predictions (theory §5) against quadrature of the density, precision, bad input."""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from freege.numeric import readout
from freege.numeric.case_law import CaseLaw
from freege.params import Ratios

CONFIGS = {
    "mha": ("mha", Ratios(beta=1, h=8, gK=Fraction(1, 2), gV=2, gO=Fraction(7, 10))),
    "mha-tied": ("mha-tied", Ratios(beta=1, h=8, gK=Fraction(1, 2), gV=Fraction(1, 2),
                                    gO=Fraction(7, 10), sharing="tied")),
}


@functools.cache
def get(name: str, dps: int | None = None, normalized: bool = True) -> CaseLaw:
    case, ratios = CONFIGS[name]
    return CaseLaw(case, ratios, normalized, dps)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_dof_and_derivative_match_the_density(name: str) -> None:
    """w(lam) = int x/(x+lam) dnubar and w'(lam) = -int x/(x+lam)^2 dnubar (theory §5);
    the ridge-polynomial solve also equals 1 + lam G(-lam) (Cauchy branch)."""
    L = get(name)
    for lam in (1e-3, 0.3, 5.0):
        w = readout.dof(L, lam)
        assert w == pytest.approx(L.expect(lambda x, lam=lam: x / (x + lam)), rel=1e-11)
        assert w == pytest.approx(1 + lam * L.stieltjes(-lam).real, rel=1e-11)
        assert readout.dof_derivative(L, lam) == pytest.approx(
            -L.expect(lambda x, lam=lam: x / (x + lam) ** 2), rel=1e-10)
    # a raw law is normalized first
    assert readout.dof(get(name, normalized=False), 0.3) == pytest.approx(readout.dof(L, 0.3),
                                                                          rel=1e-14)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_ridge_error_matches_its_integral_form(name: str) -> None:
    """E = 1 - 1/gO + int (lam^2/gO + s2 x)/(x+lam)^2 dnubar (theory §5, first form)."""
    L = get(name)
    g_o = float(L.ratios.gO)
    for lam, s2 in ((1e-4, 0.1), (0.5, 0.0), (3.0, 2.0)):
        direct = 1 - 1 / g_o + L.expect(
            lambda x, lam=lam, s2=s2: (lam**2 / g_o + s2 * x) / (x + lam) ** 2)
        assert readout.ridge_error(L, lam, s2) == pytest.approx(direct, rel=1e-10)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_stehfest_loss_equals_quadrature(name: str) -> None:
    L = get(name)
    ts = np.array([0.02, 0.5, 4.0, 60.0])
    loss = readout.flow_loss(L, ts)
    for t, value in zip(ts, loss, strict=True):
        assert value == pytest.approx(L.expect(lambda x, t=t: np.exp(-2 * t * x)), rel=1e-12)
    assert readout.flow_loss(L, 0) == 1.0


@pytest.mark.slow
def test_quadrature_loss_matches_mpmath_invertlaplace_and_high_precision() -> None:
    """float64 L(t) (quadrature) against mpmath's own Stehfest inversion of -G(-p); the
    dps 30 L(t) (degree-controlled Stehfest) against dps 40 quadrature."""
    L = get("mha")
    with mpmath.workdps(20):  # F(p) = -G(-p) at the (raised) ambient precision
        direct = mpmath.invertlaplace(lambda p: -L.stieltjes_batch([-p])[0].real, 2,
                                      method="stehfest")
    assert readout.flow_loss(L, 1.0) == pytest.approx(float(direct), rel=1e-14)
    hi = get("mha", dps=30)
    with mpmath.workdps(40):
        quad = get("mha", dps=40).expect(lambda x: mpmath.exp(-2 * x))
    assert abs(readout.flow_loss(hi, 1) - quad) < mpmath.mpf(10) ** -29


@pytest.mark.parametrize("name", list(CONFIGS))
def test_dps30_and_dps50_agree_to_25_digits(name: str) -> None:
    a, b = get(name, dps=30), get(name, dps=50)
    tol = mpmath.mpf(10) ** -25
    for fn, args in ((readout.dof, (mpmath.mpf(1) / 10,)),
                     (readout.ridge_error, (mpmath.mpf(1) / 10**4, mpmath.mpf(1) / 10))):
        u, v = fn(a, *args), fn(b, *args)
        assert isinstance(u, mpmath.mpf)
        assert abs(u - v) <= tol * abs(v)


def test_arrival_time_hits_the_level() -> None:
    L = get("mha")
    t = readout.arrival_time(L, 0.6)
    assert readout.flow_loss(L, t) == pytest.approx(0.6, rel=1e-12)
    floor = L.atoms()[0.0]
    with pytest.raises(ValueError, match="level must be in"):
        readout.arrival_time(L, floor)
    with pytest.raises(ValueError, match="level must be in"):
        readout.arrival_time(L, 1.0)


def test_crossover() -> None:
    L = get("mha")
    lam = readout.crossover(lambda v: readout.dof(L, v), 1e-3, 1e3, g=lambda v: 0.3)
    assert readout.dof(L, lam) == pytest.approx(0.3, rel=1e-12)
    root = readout.crossover(lambda v: v**2, 1, 2, g=lambda v: 2 + 0 * v, dps=40)
    with mpmath.workdps(40):
        assert abs(root - mpmath.sqrt(2)) < mpmath.mpf(10) ** -38
    with pytest.raises(ValueError, match="sign change"):
        readout.crossover(lambda v: v**2 + 1, -1, 1)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: readout.dof(get("mha"), 0), "lam must be a finite number > 0"),
        (lambda: readout.dof(get("mha"), -1), "lam must be"),
        (lambda: readout.ridge_error(get("mha"), 1, -0.1), "sigma2"),
        (lambda: readout.flow_loss(get("mha"), -1.0), "t must be"),
        (lambda: readout.crossover(abs, 0, 1, dps=5), "dps must be"),
        (lambda: readout.dof("not a law", 1.0), "law must be"),
    ],
)
def test_bad_input(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
