"""cdf, mass and expectations at hard and tiny edges (issue 10 findings 2, 3, 8; issue 7
bullet 5; theory §7.1): edge-adapted Gauss-Legendre panels, convergence checked.

Independent routes: float64 (Legendre series of each panel) against dps 30/40 (Gauss-Legendre
per point, different node counts), the total mass against 1 (the atom from the exact
candidates plus the integrated density), and exact moments against quadrature."""

from __future__ import annotations

import functools

import mpmath
import numpy as np
import pytest

from freege.errors import ConvergenceError
from freege.numeric.case_law import CaseLaw
from freege.numeric.quadrature import Panel, Quadrature
from freege.params import Ratios

#: finding 2: a double hard edge at 0 (gK = gV = 1); finding 3: a tiny soft lower edge
DOUBLE_HARD = Ratios(beta=1, h=8, gK=1, gV=1, gO=2)
TINY_EDGE = Ratios(beta="0.7", h=3, gK="0.999", gV="1.001", gO="1.0001")
#: a ratio equal to 1 with an atom (gO < 1) and one equal to 1 without (gV = 1)
HARD_ATOM = Ratios(beta=1, h=4, gK="1.5", gV=1, gO="0.7")


@functools.cache
def get(ratios: Ratios, dps: int | None = None) -> CaseLaw:
    return CaseLaw("mha", ratios, normalized=True, dps=dps)


@pytest.mark.slow
def test_dps_cdf_at_a_double_hard_edge_does_not_crash_and_conserves_mass() -> None:
    """Finding 2's reproducer (raised LinAlgError after minutes): the dps-40 cdf agrees with
    float64 to 1e-13 and cdf(b + 1) == 1 to working precision."""
    L = get(DOUBLE_HARD, 40)
    with mpmath.workdps(40):
        x = mpmath.mpf("2.118358918")
        value = L.cdf(x)
        (_, b), = L.intervals()
        assert abs(L.cdf(b + 1) - 1) <= mpmath.mpf(10) ** -38
    assert abs(float(value) - get(DOUBLE_HARD).cdf(float(x))) <= 1e-13


@pytest.mark.slow
def test_tiny_lower_edge_mass_is_not_cut_off() -> None:
    """Finding 3's reproducer: cdf(b + 1) was 0.99896 at dps 30 and the float64 cdf at
    x = 2.8668 was off by 1e-3; now dps 30 conserves mass to 1e-28 and float64 agrees with
    it to 1e-13."""
    L = get(TINY_EDGE, 30)
    with mpmath.workdps(30):
        (a, b), = L.intervals()
        assert a > 0 and a < 1e-10 * b  # the tiny soft edge
        assert abs(L.cdf(b + 1) - 1) <= mpmath.mpf(10) ** -28
        ref = L.cdf(mpmath.mpf("2.8668"))
    assert abs(get(TINY_EDGE).cdf(2.8668) - float(ref)) <= 1e-13
    assert abs(get(TINY_EDGE).mass() - 1) <= 1e-13


@pytest.mark.slow
def test_dps_cdf_is_monotone() -> None:
    L = get(TINY_EDGE, 30)
    with mpmath.workdps(30):
        (a, b), = L.intervals()
        xs = [a + (b - a) * mpmath.mpf(t) for t in ("1e-9", "1e-6", "1e-3", "0.3", "0.7",
                                                     "0.999")]
        values = [L.cdf(x) for x in xs]
    assert all(u < v for u, v in zip(values, values[1:], strict=False))


@pytest.mark.slow
@pytest.mark.parametrize("ratios", [DOUBLE_HARD, HARD_ATOM])
def test_float64_at_a_ratio_equal_to_one(ratios: Ratios) -> None:
    """Issue 7 bullet 5: float64 density, cdf and mass within 1e-13 at a ratio equal to 1
    (was ~1e-8), against dps 30."""
    f64, ref = get(ratios), get(ratios, 30)
    (a, b), = f64.intervals()
    x = np.array([a + (b - a) * t for t in (1e-12, 1e-8, 1e-4, 0.05, 0.5, 0.9)])
    with mpmath.workdps(30):
        dens = np.array([float(v) for v in ref.pdf([mpmath.mpf(v) for v in x])])
        cdf = np.array([float(v) for v in ref.cdf([mpmath.mpf(v) for v in x])])
    assert np.all(np.abs(f64.pdf(x) - dens) <= 1e-13 * dens)
    assert np.all(np.abs(f64.cdf(x) - cdf) <= 1e-13)
    assert abs(f64.mass() - 1) <= 1e-13
    assert f64.expect(lambda v: v**2) == pytest.approx(f64.moment(2), rel=1e-13)


def test_hard_edge_map_is_exact_in_mpmath() -> None:
    """The dps map inverts with an exact root (no float exponent 1/(2k), finding 8)."""
    panel = Panel(mpmath.mpf(0), mpmath.mpf(3), 1, 3)
    with mpmath.workdps(50):
        v = mpmath.mpf(1) / 7
        assert abs(panel.v_of(panel.x(v)) - v) <= mpmath.mpf(10) ** -49


def test_quadrature_that_does_not_converge_raises() -> None:
    """A density whose singularity the panel map does not match (x^-0.9 at a soft edge)
    raises ConvergenceError instead of returning a truncated mass."""
    quad = Quadrature(lambda: [(0.0, 1.0)], lambda a, b: None,
                      lambda x: 0.1 * np.asarray(x) ** -0.9, lambda xs: xs, {"law": "x^-0.9"})
    with pytest.raises(ConvergenceError, match="mass"):
        quad.mass_f64()
