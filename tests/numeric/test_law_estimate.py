"""``CaseLaw.estimate`` compares against an independent route, so it can fail (issue 7
deliverable 2, theory §7): a deliberately perturbed computation is flagged."""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from freege.numeric.case_law import CaseLaw
from freege.params import Ratios

RATIOS = Ratios(beta=1, h=8, gK=Fraction(1, 2), gV=2, gO=Fraction(7, 10))


@functools.cache
def get(dps: int | None = None) -> CaseLaw:
    return CaseLaw("mha", RATIOS, normalized=True, dps=dps)


def fresh(dps: int | None = None) -> CaseLaw:
    return CaseLaw("mha", RATIOS, normalized=True, dps=dps)


def interior(L: CaseLaw) -> list[float]:
    (a, b), = L.intervals()
    return [float(a + (b - a) * t) for t in (0.1, 0.5, 0.9)]


def test_float64_pdf_estimate_is_small_and_flags_a_perturbed_root() -> None:
    x = np.array(interior(get()))
    est = get().estimate("pdf", x)
    assert np.all(est.error <= 1e-13 * np.abs(est.value))
    bad = fresh()
    original = bad.equation.stieltjes_f64
    bad.equation.stieltjes_f64 = lambda *a, **k: (original(*a, **k)[0] * (1 + 1e-9),
                                                  original(*a, **k)[1])
    continued = bad.equation.continue_f64  # the route of points inside the support
    bad.equation.continue_f64 = lambda *a: (continued(*a)[0] * (1 + 1e-9), *continued(*a)[1:])
    assert bad.estimate("pdf", x).error > 1e-10 * np.max(est.value)


@pytest.mark.slow
def test_cdf_estimate_uses_another_discretisation_and_can_fail() -> None:
    L = get(30)
    with mpmath.workdps(30):
        x = mpmath.mpf(interior(L)[1])
        est = L.estimate("cdf", x)
        assert est.error < 1e-27
        bad = fresh(30)
        original = bad.quadrature.cdf_mp
        bad.quadrature.cdf_mp = lambda v: original(v) + mpmath.mpf(10) ** -20
        assert bad.estimate("cdf", x).error > 1e-21


def test_moment_estimate_is_quadrature_against_the_exact_moment() -> None:
    L = get(20)
    est = L.estimate("moment", 3)
    assert est.error < 1e-17 * float(est.value)
    bad = fresh(20)
    bad.moment = lambda q: L.moment(q) * (1 + mpmath.mpf(10) ** -12)
    assert bad.estimate("moment", 3).error > 1e-13 * float(est.value)
