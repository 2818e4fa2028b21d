"""Readout accuracy (theory §5, §7): the physical branch of the ridge quadratic against the
Cauchy branch and quadrature, issue reproducers as regressions, two precisions."""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from freege.errors import ConvergenceError
from freege.numeric import dof_point, readout
from freege.numeric.case_law import CaseLaw
from freege.numeric.law_family import Estimate
from freege.params import Ratios


@functools.cache
def get(case: str, ratios: Ratios, dps: int | None = None) -> CaseLaw:
    return CaseLaw(case, ratios, True, dps)


def quad(law: CaseLaw, func):
    """CaseLaw.expect (the quadrature caches the density at its nodes, one per law)."""
    return law.expect(func)


def digits(a: mpmath.mpf, b: mpmath.mpf) -> float:
    """Agreeing significant digits of two mpmath numbers."""
    with mpmath.workdps(80):
        diff = abs(mpmath.mpf(a) - mpmath.mpf(b))
        return float("inf") if diff == 0 else float(-mpmath.log10(diff / abs(mpmath.mpf(b))))


# a grid of independent and tied setups, including equal ratios below 1 and near h
GRID = [
    ("mha", Ratios(beta=1, h=4, gK=Fraction(1, 2), gV=Fraction(1, 2), gO=Fraction(1, 2))),
    ("mha", Ratios(beta=Fraction(4, 5), h=2, gK=Fraction(3, 10), gV=Fraction(3, 10),
                   gO=Fraction(3, 10))),
    ("mha", Ratios(beta=Fraction(1, 4), h=3, gK=2, gV=Fraction(29, 10), gO=Fraction(31, 10))),
    ("mha", Ratios(beta=3, h=1, gK=Fraction(1, 3), gV=1, gO=4)),
    ("value", Ratios(beta=Fraction(3, 2), h=5, gK=Fraction(7, 4), gV=Fraction(1, 5), gO=1)),
    ("attention", Ratios(beta=Fraction(1, 2), h=2, gK=Fraction(1, 10), gV=1, gO=1)),
    ("mha-tied", Ratios(beta=1, h=8, gK=Fraction(1, 2), gV=Fraction(1, 2), gO=Fraction(7, 10),
                        sharing="tied")),
    ("mha-tied", Ratios(beta=Fraction(1, 5), h=1, gK=1, gV=1, gO=Fraction(1, 2),
                        sharing="tied")),
    ("mha-tied", Ratios(beta=2, h=2, gK=2, gV=2, gO=3, sharing="tied")),
    ("value-tied", Ratios(beta=1, h=3, gK=Fraction(1, 2), gV=Fraction(1, 2), gO=1,
                          sharing="tied")),
]


@pytest.mark.parametrize(("case", "ratios"), GRID)
def test_larger_root_is_the_physical_branch(case: str, ratios: Ratios) -> None:
    """lam(w) = larger root of the quadratic: w(lam) equals 1 + lam G(-lam) from the
    tracked Cauchy root (an independent route) to 28 digits at dps 30, and w_max (the
    end of the branch) is 1 - atom."""
    law = get(case, ratios, 30)
    # (lam >= 1e-4: at z = -1e-6 next to a hard edge and the atom's pole the Cauchy root
    # of GRID[1] is off in the 4th digit, a CaseLaw.stieltjes problem; quadrature sides with
    # the ridge quadratic there)
    for lam in ("1e-4", "0.01", "0.7", "30", "1e4"):
        w = readout.dof(law, lam)
        with mpmath.workdps(40):
            lam_mp = mpmath.mpf(lam)
            via_g = 1 + lam_mp * law.stieltjes_batch([-lam_mp])[0].real
        assert digits(w, via_g) >= 28, (lam, w, via_g)
    with mpmath.workdps(40):
        _, w_max = dof_point._Curve(law).setup()
        assert abs(w_max - (1 - law.atom_mass())) < mpmath.mpf(10) ** -28


@pytest.mark.parametrize(("case", "ratios"), GRID[6:8])
def test_dof_and_derivative_match_quadrature(case: str, ratios: Ratios) -> None:
    """Against quadrature of x/(x+lam) and x/(x+lam)^2 (density + atom, CaseLaw.expect)."""
    law = get(case, ratios)
    for lam in (1e-4, 0.5):
        assert readout.dof(law, lam) == pytest.approx(
            quad(law, lambda x, lam=lam: x / (x + lam)), rel=1e-11)
        assert readout.dof_derivative(law, lam) == pytest.approx(
            -quad(law, lambda x, lam=lam: x / (x + lam) ** 2), rel=1e-11)


@pytest.mark.slow
def test_issue7_h4_ridge_error_regression() -> None:
    """Issue 7: h = 4, gK = gV = gO = 0.5, lam = 1e-4, sigma2 = 0.1 had 6 right digits.
    Against the theory §5 integral form by quadrature, and dps 30 against dps 60."""
    ratios = GRID[0][1]
    f64 = get("mha", ratios)
    direct = 1 - 2 + quad(f64, lambda x: (1e-8 / 0.5 + 0.1 * x) / (x + 1e-4) ** 2)
    assert readout.ridge_error(f64, 1e-4, 0.1) == pytest.approx(direct, rel=1e-11)
    a = readout.ridge_error(get("mha", ratios, 30), "1e-4", "0.1")
    b = readout.ridge_error(get("mha", ratios, 60), "1e-4", "0.1")
    assert digits(a, b) >= 28
    # the old answer 3.01474651069479666161931444014 is wrong from the 7th digit on
    assert digits(a, mpmath.mpf("3.01474651069479666161931444014")) < 7


@pytest.mark.slow
def test_issue7_equal_ratios_below_one_regression() -> None:
    """Issue 7: beta = 0.8, h = 2, gK = gV = gO = 0.3, lam = 1e-4: dof was 1e-4 off and
    the ridge error 4% off; now both equal quadrature."""
    f64 = get("mha", GRID[1][1])
    assert readout.dof(f64, 1e-4) == pytest.approx(
        quad(f64, lambda x: x / (x + 1e-4)), rel=1e-11)
    assert readout.dof_derivative(f64, 1e-4) == pytest.approx(
        -quad(f64, lambda x: x / (x + 1e-4) ** 2), rel=1e-10)
    direct = 1 - 1 / 0.3 + quad(f64, lambda x: (1e-8 / 0.3 + 0.1 * x) / (x + 1e-4) ** 2)
    assert readout.ridge_error(f64, 1e-4, 0.1) == pytest.approx(direct, rel=1e-10)
    a = readout.dof(get("mha", GRID[1][1], 30), "1e-4")
    b = readout.dof(get("mha", GRID[1][1], 60), "1e-4")
    assert digits(a, b) >= 28


def test_tiny_lam_keeps_full_precision() -> None:
    """w -> w_max (lam = 1e-40): dps 30 and dps 60 agree to 28 digits in w, w' and E."""
    ratios = GRID[0][1]
    lo, hi = get("mha", ratios, 30), get("mha", ratios, 60)
    for fn, args in ((readout.dof, ("1e-40",)), (readout.dof_derivative, ("1e-40",)),
                     (readout.ridge_error, ("1e-40", "0.1"))):
        assert digits(fn(lo, *args), fn(hi, *args)) >= 28


@pytest.mark.parametrize(("case", "ratios"), [
    GRID[0],
    # w_max = 1 is a root of multiplicity 8 of a0 and a double root of D's extra factor:
    # the terms of F_w cancel there (float64 used to be 2e47 times off at lam = 1e-300)
    ("mha-tied", Ratios(beta=Fraction(1, 10), h=1, gK=1, gV=1, gO=1, sharing="tied")),
])
def test_extreme_lam_two_precisions_and_float64(case: str, ratios: Ratios) -> None:
    laws = [get(case, ratios, d) for d in (None, 30, 60)]
    for lam in ("1e-300", "1e300"):
        f64, lo, hi = (readout.ridge_error(law, lam, "0.1") for law in laws)
        assert digits(lo, hi) >= 28
        assert digits(mpmath.mpf(f64), hi) >= 12
        f64, lo, hi = (readout.dof(law, lam) for law in laws)
        assert digits(lo, hi) >= 28 and digits(mpmath.mpf(f64), hi) >= 12


def test_issue10_finding7_float_inputs_are_decimal() -> None:
    """A float lam/sigma2 on a dps law means its decimal value, not the binary double."""
    law = get("mha", GRID[0][1], 40)
    from_float = readout.ridge_error(law, 1e-4, 0.1)
    from_text = readout.ridge_error(law, "1e-4", "0.1")
    assert from_float == from_text
    with mpmath.workdps(60):  # the binary doubles give another answer at 40 digits
        binary = readout.ridge_error(law, mpmath.mpf(1e-4), mpmath.mpf(0.1))
        assert binary != from_text
    assert readout.flow_loss(get("mha", GRID[0][1], 20), 0.1) == readout.flow_loss(
        get("mha", GRID[0][1], 20), Fraction(1, 10))


def test_vectorised_like_scipy() -> None:
    f64, mp = get("mha", GRID[6][1]), get("mha-tied", GRID[6][1], 20)
    lams = [1e-3, 0.5, 2.0]
    out = readout.dof(f64, np.array(lams))
    assert isinstance(out, np.ndarray) and out.dtype == float and out.shape == (3,)
    assert list(out) == [readout.dof(f64, v) for v in lams]
    err = readout.ridge_error(f64, [[1e-3, 0.5]], 0.1)
    assert err.shape == (1, 2) and err[0, 1] == readout.ridge_error(f64, 0.5, 0.1)
    out = readout.dof(mp, lams)
    assert out.dtype == object and all(isinstance(v, mpmath.mpf) for v in out)
    assert out[1] == readout.dof(mp, 0.5)
    loss = readout.flow_loss(f64, (0.0, 1.0))
    assert loss.dtype == float and loss[0] == 1.0


def test_estimates_compare_independent_routes() -> None:
    ratios = GRID[6][1]
    f64 = get("mha-tied", ratios)
    est = readout.estimate_dof(f64, 0.01)
    assert isinstance(est, Estimate) and est.value == readout.dof(f64, 0.01)
    assert 0 <= est.error < 1e-11
    est = readout.estimate_ridge_error(f64, 1e-4, 0.1)
    assert est.value == readout.ridge_error(f64, 1e-4, 0.1) and est.error < 1e-10
    est = readout.estimate_flow_loss(f64, 2.0)
    assert est.value == readout.flow_loss(f64, 2.0) and est.error < 1e-13
    est = readout.estimate_dof(get("mha-tied", ratios, 20), "0.25")
    assert est.error < 1e-19


def test_branch_off_the_physical_range_raises() -> None:
    """a2 <= 0 (w < 0) or D < 0 is not the physical branch: ConvergenceError, no number."""
    curve = dof_point._Curve(get("mha", GRID[0][1], 20))
    with mpmath.workdps(30), pytest.raises(ConvergenceError, match="not real"):
        curve.branch(mpmath.mpf(-1) / 4)


def test_stehfest_degree_test_raises_when_degrees_disagree(monkeypatch) -> None:
    law = get("mha", GRID[6][1], 20)
    calls = iter(range(1, 100))
    monkeypatch.setattr(readout, "_stehfest", lambda nbar, tau, degree: (
        mpmath.mpf(next(calls)), mpmath.mpf(-1)))
    with pytest.raises(ConvergenceError, match="do not agree"):
        readout.flow_loss(law, 1)


@pytest.mark.slow
def test_issue10_finding1_stehfest_loss_to_48_digits() -> None:
    """Issue 10 finding 1: --t 10 --dps 50 had 44 right digits. The dps 50 L(10)
    (degree-controlled Stehfest) agrees with quadrature against the density (dps 50)."""
    law = get("mha", Ratios(beta=1, h=12, gK=Fraction(3, 2), gV=Fraction(3, 2),
                            gO=Fraction(3, 2)), 50)
    value = readout.flow_loss(law, 10)
    with mpmath.workdps(50):
        quad = law.expect(lambda x: mpmath.exp(-20 * x))
    assert digits(value, quad) >= 48


@pytest.mark.slow
def test_issue10_finding6_arrival_with_an_atom() -> None:
    """Issue 10 finding 6: arrival at dps 20 on a law with an atom raised TypeError. The
    time hits the level by the other route (float64 quadrature of the density)."""
    ratios = Ratios(beta=1, h=32, gK=Fraction(1, 2), gV=Fraction(1, 2), gO=Fraction(1, 2))
    law = CaseLaw("mha", ratios, False, 20)
    assert law.atoms()
    t = readout.arrival_time(law, Fraction(3, 5))
    assert isinstance(t, mpmath.mpf)
    f64 = get("mha", ratios)
    assert quad(f64, lambda x: np.exp(-2 * float(t) * x)) == pytest.approx(0.6, rel=1e-13)
    assert readout.arrival_time(f64, 0.6) == pytest.approx(float(t), rel=1e-11)
