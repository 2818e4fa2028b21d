"""Working-precision quantiles and entropy (issue 28): ``ppf``/``isf`` start from the
float64 quantile and verify the root by a sign change (a poor guess gives the same
root), ``entropy`` is batched tanh-sinh; both checked against the float64 routes (other
discretisations)."""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import pytest

from freege.numeric import quantile
from freege.numeric.case_law import CaseLaw
from freege.params import Ratios

#: issue 28's attention law (no atom, soft edges)
ATTENTION = Ratios(beta=1, h=4, gK=Fraction(1, 2), gV=Fraction(1, 2), gO=2)


@functools.cache
def get(dps: int | None = None) -> CaseLaw:
    return CaseLaw("attention", ATTENTION, dps=dps)


@pytest.mark.parametrize("q", ["0.3", "0.9"])  # from the lower end, and from the upper one
def test_dps_quantile_agrees_with_float64(q: str) -> None:
    with mpmath.workdps(20):
        x = get(20).ppf(mpmath.mpf(q))
        assert get().cdf(float(x)) == pytest.approx(float(q), abs=1e-13)


def test_dps_quantile_does_not_depend_on_its_guess() -> None:
    L = get(20)
    with mpmath.workdps(20):
        q = mpmath.mpf("0.3")
        x = L.ppf(q)
        (a, b), = L.intervals()
        poor = float(a + (b - a) / 4)  # away from the root: the bracket must widen
        y = quantile.ppf_mp(L.quadrature, q, mpmath.mpf(1), poor, L.intervals(),
                            lambda v: L.pdf(v), "ppf", L.describe)
        assert abs(x - y) <= mpmath.mpf(10) ** -17 * x
        assert abs(L.isf(1 - q) - x) <= mpmath.mpf(10) ** -17 * x


def test_dps_entropy_agrees_with_float64() -> None:
    with mpmath.workdps(20):
        assert float(get(20).entropy()) == pytest.approx(get().entropy(), abs=1e-12)
