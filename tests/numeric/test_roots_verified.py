"""Every solve in roots / s_transform verifies or raises (issue 7 deliverable 1, theory §7):
real roots by a bracketed sign change, Cauchy roots and S-transforms by a residual test,
the atom by a consistency check; failures raise ConvergenceError naming the quantity."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from freege.errors import ConvergenceError
from freege.numeric import branch_points, roots
from freege.numeric.case_law import CaseLaw
from freege.params import Ratios
from freege.symbolic.symbols import G, z

s_sym = sp.Symbol("s", positive=True)
#: Marchenko-Pastur MP_s (theory §3), S(w) = 1/(1 + s w) put through w = zG - 1
MP_POLY = sp.Poly(sp.numer(sp.together(G / (z * G - 1) - 1 / (1 + s_sym * (z * G - 1)))), G, z)


def mp_equation(s: sp.Rational) -> roots.CauchyEquation:
    return roots.CauchyEquation(MP_POLY, (s_sym,), lambda: (mpmath.mpf(s.p) / s.q,),
                                describe={"s": s})


def test_real_roots_are_bracketed_and_complex_pairs_near_the_axis_are_not() -> None:
    """(t - 1/3)(t^2 - 2t + 1 + 10^-50): the pair 1 +- 10^-25 i looks real at 40 digits'
    Durand-Kerner tolerance (10^-20) but has no sign change, so only 1/3 is real."""
    t = sp.Symbol("t")
    poly = sp.Poly((3 * t - 1) * (t**2 - 2 * t + 1 + sp.Rational(1, 10**50)), t)
    found, real = roots.polynomial_roots(poly, 40)
    assert len(found) == 3 and len(real) == 1
    with mpmath.workdps(60):
        assert abs(real[0] - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -41


def test_a_tight_cluster_far_from_1_takes_more_digits_not_polyroots() -> None:
    """Four roots within 3e-4 of 3.74 among 20 others up to 6.5 (the shape of the
    discriminant of issue 40's sum of three atomic laws): the polynomial's own rounding
    noise at the cluster is far above 27 digits' accuracy, so the Weierstrass sweeps go
    on at more digits (before: their tolerance could never be met, and polyroots from
    scratch ran for minutes); every root is the exact rational root it was built from."""
    from fractions import Fraction

    exact_roots = ([Fraction(374, 100) + Fraction(k, 10**4) for k in range(4)]
                   + [Fraction(13 * k - 70, 20) for k in range(20)])
    coeffs = [Fraction(1)]
    for a in exact_roots:  # descending coefficients of prod (z - a)
        coeffs = [c - a * p for c, p in zip([*coeffs, 0], [0, *coeffs], strict=True)]
    common = 1
    for c in coeffs:
        common = common * c.denominator // __import__("math").gcd(common, c.denominator)
    ints = [int(c * common) for c in coeffs]
    refined = branch_points._weierstrass(ints, 27)
    assert refined is not None
    found, digits = refined
    assert digits > 27 and len(found) == len(exact_roots)
    with mpmath.workdps(digits):
        for a in exact_roots:
            nearest = min(found, key=lambda r: abs(r - mpmath.mpf(a.numerator) / a.denominator))
            assert abs(nearest - mpmath.mpf(a.numerator) / a.denominator) < mpmath.mpf(10) ** -25
    with mpmath.workdps(17):
        _, reals = branch_points.polynomial_roots(ints[::-1], 17)
    assert [mpmath.nstr(r, 15) for r in reals] == [
        mpmath.nstr(mpmath.mpf(a.numerator) / a.denominator, 15) for a in sorted(exact_roots)]


def test_polish_returns_the_root_next_to_the_seed_or_raises() -> None:
    """A seed near the physical root polishes to it (residual at rounding level); a seed at
    a critical point of P (P_G = 0) falls back to all roots and still verifies."""
    eq = mp_equation(sp.Rational(1, 2))
    with mpmath.workdps(30):
        x = mpmath.mpf(1)
        g = eq.polish(x, mpmath.mpc(0.5, -0.5), mpmath.mp.prec, True)
        residual = mpmath.polyval(eq.coeffs_mp(x)[::-1], g)
        assert abs(residual) < mpmath.mpf(10) ** -28
        # P(G, 1) = s G^2 + (1 - s) G ... has its critical point at the mean of the roots
        c = eq.coeffs_mp(x)
        critical = -c[1] / (2 * c[2])
        g2 = eq.polish(x, mpmath.mpc(critical), mpmath.mp.prec)
        assert abs(mpmath.polyval(c[::-1], g2)) < mpmath.mpf(10) ** -28


def test_atom_consistency_check_raises_with_the_parameters() -> None:
    """MP_{5/2} has atom candidates 0 and 3/5; a continuous mass that fits neither raises."""
    eq = mp_equation(sp.Rational(5, 2))
    with pytest.raises(ConvergenceError, match=r"atom at 0.*s=5/2"):
        roots.atom_at_zero(eq, 30, continuous_mass=lambda precise: 0.2)
    atom = roots.atom_at_zero(eq, 30, continuous_mass=lambda precise: 0.4)
    with mpmath.workdps(40):
        assert abs(atom - mpmath.mpf(3) / 5) < mpmath.mpf(10) ** -29


def test_s_transform_seed_outside_its_ball_raises() -> None:
    """The mpmath S-transform refuses a polished root that left the float64 seed's error
    ball (a seed on another sheet), naming the quantity and the law."""
    L = CaseLaw("mha", Ratios(beta=1, h=4, gK=2, gV=2, gO=2), normalized=True, dps=30)
    s = L.s_relation
    with mpmath.workdps(30):
        good = s.mp(mpmath.mpf("-0.3"))
        assert abs(good - mpmath.mpf(L.with_dps(None).s_transform(-0.3))) < 1e-13
        with pytest.raises(ConvergenceError, match=r"S-transform.*case=mha"):
            s.mp(mpmath.mpf("-0.3"), seed=complex(good) * 3 + 1)
