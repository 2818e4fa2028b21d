"""The verified support of ``tau ⊠ nu`` (freege/numeric/mult_support.py; theory §2.3,
"Where the finite-width law lives"; issue 39): folds against an exact law, the
finite-width law's support (one interval from 0 to a cut edge), purity, and the refusal at
``dps`` digits where the edge at the profile's cut is known to float64 only."""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import pytest

from freege.errors import ConvergenceError
from freege.params import Dims

#: a small finite configuration (about 4 s for its support on one core)
SMALL = Dims(n=64, h=1, dK=16, dV=16, dO=64, beta=1)


def _mp_density(c: float) -> Any:
    """The Marchenko-Pastur density of mean 1 and variance ``c`` (freege's ``mp(c)``),
    ``sqrt((hi - x)(x - lo))/(2 pi c x)`` on ``[(1 - sqrt c)^2, (1 + sqrt c)^2]``, for a
    float64 array, an mpmath number (at the ambient precision) or a float."""
    lo, hi = (1 - c**0.5) ** 2, (1 + c**0.5) ** 2

    def f(x: Any) -> Any:
        if isinstance(x, np.ndarray):
            return np.sqrt(np.maximum((hi - x) * (x - lo), 0)) / (2 * np.pi * c * x)
        if isinstance(x, mpmath.mpf):
            cm = mpmath.mpf(c)  # c is a dyadic float here: exact
            lo_mp, hi_mp = (1 - mpmath.sqrt(cm)) ** 2, (1 + mpmath.sqrt(cm)) ** 2
            return mpmath.sqrt(max((hi_mp - x) * (x - lo_mp), 0)) / (2 * mpmath.pi * cm * x)
        return float(f(np.array([float(x)]))[0])

    return f


@pytest.mark.slow
def test_fold_edges_equal_the_exact_product_law() -> None:
    """``mp(1/2)`` as a density operand on ``[a, A]`` times ``mp(1/4)`` (a law operand):
    both edges are folds (the density's ends are square-root edges, no cut), and they
    equal the closed-form law ``mp(1/2) * mp(1/4)``'s to 1e-12 relative. About 9 s on
    one loaded core (most of it the folds' narrowing and the edge equations)."""
    from freege.algebra.grammar import parse
    from freege.numeric import mult_support
    from freege.numeric.density_operand import density
    from freege.numeric.expression_law import expression_law
    from freege.numeric.operands import LawOperand
    from freege.numeric.subordination import FreeMultNode

    c = 0.5
    tau = density(_mp_density(c), (1 - c**0.5) ** 2, (1 + c**0.5) ** 2,
                  name="mp(1/2) density")
    nu = LawOperand(expression_law(parse("mp(1/4)")))
    with mpmath.workdps(30):
        got = mult_support.intervals(FreeMultNode(tau, nu), True)
    want = expression_law(parse("mp(1/2) * mp(1/4)")).intervals()
    assert len(got) == len(want) == 1
    (lo, hi), (lo_x, hi_x) = got[0], want[0]
    assert float(lo) == pytest.approx(float(lo_x), rel=1e-12, abs=0)
    assert float(hi) == pytest.approx(float(hi_x), rel=1e-12, abs=0)


def test_finite_width_support_is_one_interval_with_a_real_g_beyond() -> None:
    """The small configuration's support is ``(0, E)``, ``E`` beyond the plain law's top
    (the profile widens it); past ``E`` the engine's ``G`` is real, and the density on
    ``[1e-14 E, E]`` has mass 1 (the trapezoid rule on a geometric grid: the density is
    like ``x^(-1/2)`` near 0; measured 7e-5 off at 1500 points)."""
    from freege.numeric import law as case_law
    from freege.numeric.finite_width_law import finite_width_law

    law = finite_width_law("attention", SMALL)
    (lo, top), = law.intervals()
    assert lo == 0
    assert top > float(case_law("attention", SMALL).support()[1])
    assert law.support() == (lo, top)
    g = law.root.cauchy_f64(np.array([top * (1 + 1e-8), 2 * top]) + 0j)[0]
    assert np.all(np.isfinite(g))
    assert np.all(np.abs(g.imag) <= 1e-12 * np.abs(g))
    xs = np.geomspace(1e-14 * top, top, 1500)
    p = np.maximum(-law.root.cauchy_f64(xs + 0j)[0].imag / np.pi, 0)
    assert np.trapezoid(p, xs) == pytest.approx(1.0, abs=1e-3)


def test_support_is_a_pure_function_of_the_law() -> None:
    """A law that first answered ``stieltjes`` and ``pdf`` at points (in another order)
    has the same support, to the last bit, as a fresh one."""
    from freege.numeric.finite_width_law import finite_width_law

    used = finite_width_law("attention", SMALL)
    used.stieltjes(np.array([30.0 + 0j, 0.5 + 1j, 3.0 + 0j, 1e-3 + 1e-3j]))
    used.pdf(np.array([10.0, 0.01, 1.0, 3.0]))
    used.pdf(np.array([3.0, 1.0, 0.01, 10.0]))
    fresh = finite_width_law("attention", SMALL)
    assert used.intervals() == fresh.intervals()
    assert used.support() == fresh.support()


def test_refuses_at_dps_where_the_cut_edge_is_known_to_float64_only() -> None:
    """At 20 digits the edge at the profile's cut (where its density is about ``1e-17``
    tail-small) moves by about ``1e-15`` relative: refused, not answered to 15 digits."""
    from freege.numeric.finite_width_law import finite_width_law

    law = finite_width_law("attention", SMALL, dps=20, row="infinite-n")
    with pytest.raises(ConvergenceError, match="profile's cut"):
        law.intervals()


def test_small_dk_answers_with_a_gap_above_the_atom() -> None:
    """dK = 2 (a chi-square of two degrees of freedom: the widest profile allowed at beta
    = 1/2): the lattice profile's cut density moves its mean off its moments' by 1e-6, which
    once put the monotone solves' brackets short of the root (refused at 270 of 1078
    points). Now one interval, away from 0 (the atom at 0 has mass 1 - gK = 31/32 and the
    continuous part starts above it), with a real G below it and beyond it."""
    import numpy as np

    from freege.numeric.finite_width_law import finite_width_law
    from freege.params import Dims

    law = finite_width_law("mha", Dims(n=64, h=1, dK=2, dV=2, dO=64, beta=0.5))
    (lo, hi), = law.intervals()
    assert 0 < float(lo) < float(hi)
    assert law.atoms() == {0.0: 31 / 32}
    g = law.root.cauchy_f64(np.array([float(lo) / 2, float(hi) * 1.5]) + 0j)[0]
    assert np.all(np.abs(g.imag) <= 1e-12 * np.abs(g))
