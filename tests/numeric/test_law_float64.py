"""Float64 accuracy of densities and S-transforms (issue 10 finding 5, issue 7 bullet 4):
the coefficient matrix is rounded from a 40-digit evaluation and the error estimate counts
the coefficients' rounding, so the float64 route (with its rescue) stays within 1e-13 of
an independent dps-40 evaluation, next to a soft lower edge too."""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from freege.numeric.case_law import CaseLaw
from freege.params import Ratios

MHA12 = Ratios(beta=1, h=12, gK=Fraction(3, 2), gV=Fraction(3, 2), gO=Fraction(3, 2))


@functools.cache
def mha12(dps: int | None = None) -> CaseLaw:
    return CaseLaw("mha", MHA12, normalized=True, dps=dps)


def chebyshev(a: float, b: float, n: int) -> np.ndarray:
    k = np.arange(n)
    return a + (b - a) * (1 - np.cos((k + 0.5) * np.pi / n)) / 2


def test_normalized_mha_density_at_400_chebyshev_nodes() -> None:
    """The issue's setup (beta = 1, h = 12, gK = gV = gO = 1.5, normalized): float64 within
    1e-13 of the density scale at all 400 Chebyshev nodes (was 1.2e-11)."""
    (a, b), = mha12().intervals()
    x = chebyshev(a, b, 400)
    dens = mha12().pdf(x)
    with mpmath.workdps(40):
        ref = np.array([float(v) for v in mha12(40).pdf([mpmath.mpf(v) for v in x])])
    assert np.max(np.abs(dens - ref)) <= 1e-13 * ref.max()


def test_error_estimate_counts_coefficient_rounding() -> None:
    """The float64 error estimate bounds the actual error of the unrescued float64 root
    next to the soft lower edge (where the rescue has to trigger if anywhere)."""
    L = mha12()
    (a, b), = L.intervals()
    x = a + (b - a) * np.geomspace(1e-9, 1e-2, 40)
    g, err = L.equation.stieltjes_f64(x + 0j)
    with mpmath.workdps(40):
        ref = mha12(40).stieltjes([mpmath.mpf(v) for v in x])
    actual = np.array([abs(complex(r) - gv) for r, gv in zip(ref, g, strict=True)])
    assert np.all(actual <= 4 * err + 4 * np.finfo(float).eps * np.abs(g))


def test_coefficient_matrix_is_rounded_from_40_digits() -> None:
    """Every float64 coefficient is the correctly rounded 40-digit value."""
    eq = mha12().equation
    with mpmath.workdps(40):
        exact = eq.matrix_mp()
    for row_f, row_e in zip(eq.A, exact, strict=True):
        for cf, ce in zip(row_f, row_e, strict=True):
            assert cf == float(ce)


@pytest.mark.parametrize("w", [-0.9, -0.5, -0.05, 0.3])
def test_s_transform_float64_matches_dps40(w: float) -> None:
    nbar = mha12()
    with mpmath.workdps(40):
        ref = mha12(40).s_transform(mpmath.mpf(w))
    assert abs(nbar.s_transform(w) - float(mpmath.re(ref))) <= 1e-13 * abs(float(mpmath.re(ref)))
