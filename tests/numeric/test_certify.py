"""Certified enclosures (freege.numeric.certify, theory §3-§5, §7) against independent
routes: freege's own mpmath layer at 50 digits (tracked Cauchy root, discriminant edges,
atom), and mpmath's polynomial solver for w(lam)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from freege import numeric
from freege.errors import DomainError
from freege.numeric import _symbolic
from freege.params import Ratios
from freege.symbolic.symbols import G, theta1, z

certify = pytest.importorskip("freege.numeric.certify")
pytest.importorskip("flint")

REF_DPS = 50
#: the references' own rounding (50 digits) is far below every radius tested here
SLACK = Fraction(1, 10**44)

CASES = {
    "mha-atom": ("mha", Ratios(beta=1, h=4, gK=Fraction(1, 2), gV=Fraction(1, 2),
                               gO=Fraction(1, 2)), True),
    "mha-no-atom": ("mha", Ratios(beta=1, h=12, gK=Fraction(3, 2), gV=Fraction(3, 2),
                                  gO=Fraction(3, 2)), True),
    "attention-two-intervals": ("attention", Ratios(beta=Fraction(1, 2), h=2,
                                                    gK=Fraction(1, 3), gV=1, gO=1), False),
    "value-ratio-one": ("value", Ratios(beta=1, h=3, gK=Fraction(2, 3), gV=1, gO=1), False),
    "mha-ratio-one": ("mha", Ratios(beta=Fraction(3, 2), h=2, gK=Fraction(1, 2), gV=1,
                                    gO=Fraction(3, 2)), True),
    "mha-tied-atom": ("mha-tied", Ratios(beta=1, h=2, gK=Fraction(1, 2), gV=Fraction(1, 2),
                                         gO=Fraction(3, 4), sharing="tied"), True),
    "value-tied": ("value-tied", Ratios(beta=Fraction(3, 4), h=2, gK=Fraction(3, 2),
                                        gV=Fraction(3, 2), gO=1, sharing="tied"), False),
}


def _fraction(value: mpmath.mpf) -> Fraction:
    return certify.exact(value)  # exact, whatever the ambient precision


def encloses(ball: certify.Certified, ref: mpmath.mpf) -> bool:
    """``ball`` contains the 50-digit reference up to the reference's own rounding."""
    scale = max(Fraction(1), abs(ball.mid_exact))
    return abs(_fraction(ref) - ball.mid_exact) <= ball.rad_exact + SLACK * scale


@pytest.fixture(scope="module", params=sorted(CASES))
def pair(request: pytest.FixtureRequest) -> tuple:
    case, ratios, normalized = CASES[request.param]
    return numeric.law(case, ratios, normalized), numeric.law(case, ratios, normalized,
                                                              dps=REF_DPS)


def test_support_and_atoms_enclose_the_50_digit_values(pair: tuple) -> None:
    the_law, ref = pair
    support = certify.certified_support(the_law)
    assert not isinstance(support, certify.Uncertified), support
    with mpmath.workdps(REF_DPS):
        ref_support = ref.intervals()
        ref_atoms = ref.atoms()
    assert len(support) == len(ref_support)
    for (lo, hi), (ref_lo, ref_hi) in zip(support, ref_support, strict=True):
        assert encloses(lo, ref_lo) and encloses(hi, ref_hi), (lo, hi, ref_lo, ref_hi)
    atoms = certify.certified_atoms(the_law)
    assert set(atoms) == {0} if ref_atoms else atoms == {}
    for mass in atoms.values():
        assert encloses(mass, next(iter(ref_atoms.values())))


def test_density_balls_enclose_the_50_digit_density(pair: tuple) -> None:
    the_law, ref = pair
    hi = Fraction(the_law.intervals()[-1][1])
    xs = [Fraction(-1)] + [hi * Fraction(k, 7) for k in (1, 2, 3, 5, 6)] + [hi * 11 / 10]
    balls = certify.certified_pdf(the_law, xs)
    with mpmath.workdps(REF_DPS):
        refs = ref.pdf([mpmath.mpf(x.numerator) / x.denominator for x in xs])
    for x, ball, value in zip(xs, balls, refs, strict=True):
        assert ball.certified, (x, ball)
        assert encloses(ball, value), (x, str(ball), value)
        assert ball.rad_exact <= Fraction(1, 10**20) * max(1, abs(ball.mid_exact))
    assert balls[0].mid_exact == 0 and balls[-1].mid_exact == 0  # outside: exactly 0
    assert all(b.mid_exact > b.rad_exact for b in balls[1:-1])  # inside: certainly > 0


@pytest.mark.parametrize("name", ["mha-atom", "value-ratio-one"])
def test_density_next_to_the_atom_and_the_hard_edge(name: str) -> None:
    """x -> 0 where u = x G(x) tends to a multiple root (the atom's mass) or G blows up
    (a ratio equal to 1): the continuation still certifies, and agrees at 50 digits."""
    case, ratios, normalized = CASES[name]
    the_law = numeric.law(case, ratios, normalized)
    xs = [Fraction(1, 10**8), Fraction(1, 10**4)]
    balls = certify.certified_pdf(the_law, xs)
    with mpmath.workdps(REF_DPS):
        refs = the_law.with_dps(REF_DPS).pdf([mpmath.mpf(x.numerator) / x.denominator
                                              for x in xs])
    for ball, value in zip(balls, refs, strict=True):
        assert ball.certified and encloses(ball, value), (str(ball), value)
        assert ball.rad_exact <= Fraction(1, 10**10) * ball.mid_exact


def test_radii_shrink_as_precision_grows() -> None:
    the_law = numeric.law(*CASES["mha-atom"])
    x = Fraction(3)
    low, high = (certify.certified_pdf(the_law, [x], prec=p, max_prec=p)[0] for p in (64, 256))
    assert low.certified and high.certified
    assert high.rad_exact < low.rad_exact * Fraction(1, 2**100)
    assert abs(high.mid_exact - low.mid_exact) <= low.rad_exact + high.rad_exact
    w_low, w_high = (certify.certified_dof(the_law, Fraction(1, 2), prec=p, max_prec=p)
                     for p in (64, 256))
    assert w_high.rad_exact < w_low.rad_exact * Fraction(1, 2**100)


def test_certificate_refused_where_roots_cannot_be_isolated() -> None:
    """At x = 0 (atom, hard edge) and at a point 1e-50 from a soft edge with too little
    precision to separate the near-double root: refused, not a wrong ball."""
    the_law = numeric.law(*CASES["mha-atom"])
    with mpmath.workdps(REF_DPS):
        edge = _fraction(the_law.with_dps(REF_DPS).intervals()[-1][1])
    at_zero, at_edge = certify.certified_pdf(the_law, [Fraction(0), edge], prec=128,
                                             max_prec=128)
    assert isinstance(at_zero, certify.Uncertified) and "x = 0" in at_zero.reason
    assert isinstance(at_edge, certify.Uncertified), at_edge
    # with more precision the same point may be decided, and then the ball is right
    decided = certify.certified_pdf(the_law, [edge])[0]
    if decided.certified:
        assert decided.contains(0) or decided.mid_exact - decided.rad_exact < Fraction(1, 10**20)


def _mp_ridge(case: str, ratios: Ratios, lam: Fraction, sigma2: Fraction, dps: int) -> tuple:
    """w(lam) and E(lam) by mpmath.polyroots on F(., lam) (an independent route): the real
    root in (0, w_max) on the larger lam branch (2 a2 lam + a1 > 0), theory §5."""
    from freege.symbolic.symbols import lam as lam_s
    from freege.symbolic.symbols import w as w_s

    poly = _symbolic.ridge_polynomial(case)
    with mpmath.workdps(dps):
        beta2 = mpmath.mpf(Fraction(ratios.beta).numerator) / Fraction(ratios.beta).denominator
        beta2 = beta2**2
        values = dict(zip(_symbolic.PARAMETERS, (
            mpmath.expm1(beta2), beta2, *(mpmath.mpf(Fraction(getattr(ratios, n)).numerator)
                                          / Fraction(getattr(ratios, n)).denominator
                                          for n in ("h", "gK", "gV", "gO"))), strict=True))
        lam_mp = mpmath.mpf(lam.numerator) / lam.denominator

        def coeffs(expr):  # coefficients in w, highest first, at the parameter values
            p = __import__("sympy").Poly(expr, w_s)
            return [mpmath.mpf(c.subs(values).subs(lam_s, lam_mp).evalf(dps + 20))
                    for c in p.all_coeffs()]

        f = coeffs(poly.as_expr())
        roots = mpmath.polyroots(f, maxsteps=400, extraprec=4 * dps)
        atom = next(iter(numeric.law(case, ratios, True).atoms().values()), 0.0)
        quad = __import__("sympy").Poly(poly.as_expr(), lam_s)
        a2, a1 = (quad.coeff_monomial(lam_s**2), quad.coeff_monomial(lam_s))
        picked = []
        for r in roots:
            if abs(mpmath.im(r)) > mpmath.mpf(10) ** (-dps // 2) or not 0 < mpmath.re(r) < 1 - atom:
                continue
            wv = mpmath.re(r)
            slope = 2 * mpmath.polyval(coeffs(a2), wv) * lam_mp + mpmath.polyval(coeffs(a1), wv)
            if slope > 0 and mpmath.polyval(coeffs(a2), wv) > 0:
                picked.append(wv)
        assert len(picked) == 1, picked
        wv = picked[0]
        fw = mpmath.polyval(coeffs(poly.diff(w_s).as_expr()), wv)
        flam = mpmath.polyval(coeffs(poly.diff(lam_s).as_expr()), wv)
        g_o = values[_symbolic.PARAMETERS[5]]
        s2 = mpmath.mpf(sigma2.numerator) / sigma2.denominator
        err = 1 - wv / g_o + (lam_mp / g_o - s2) * (-flam / fw)
        return wv, err


@pytest.mark.parametrize("name, lam", [("mha-atom", Fraction(1, 10**4)),
                                       ("mha-tied-atom", Fraction(1, 100))])
def test_dof_and_ridge_error_enclose_an_independent_solve(name: str, lam: Fraction) -> None:
    case, ratios, _ = CASES[name]
    the_law = numeric.law(case, ratios, True)
    sigma2 = Fraction(1, 10)
    w_ball = certify.certified_dof(the_law, lam)
    e_ball = certify.certified_ridge_error(the_law, lam, sigma2)
    assert w_ball.certified and e_ball.certified, (w_ball, e_ball)
    w_ref, e_ref = _mp_ridge(case, ratios, lam, sigma2, REF_DPS)
    assert encloses(w_ball, w_ref), (str(w_ball), w_ref)
    assert encloses(e_ball, e_ref), (str(e_ball), e_ref)


def test_dof_encloses_the_50_digit_numeric_layer_at_a_benign_penalty() -> None:
    the_law = numeric.law(*CASES["mha-no-atom"])
    lam = Fraction(1, 2)
    with mpmath.workdps(REF_DPS):
        ref = numeric.dof(the_law.with_dps(REF_DPS), mpmath.mpf(lam.numerator) / lam.denominator)
    assert encloses(certify.certified_dof(the_law, lam), ref)


def test_float_ratios_are_read_by_their_exact_binary_value() -> None:
    exact_law = numeric.law(*CASES["mha-atom"])
    float_law = numeric.law("mha", Ratios(beta=1.0, h=4, gK=0.5, gV=0.5, gO=0.5), True)
    a, b = (certify.certified_pdf(L, [Fraction(3)])[0] for L in (exact_law, float_law))
    assert a.mid_exact == b.mid_exact and a.rad_exact == b.rad_exact


@given(st.fractions(min_value=-10**6, max_value=10**6),
       st.fractions(min_value=0, max_value=1).map(lambda r: r / 10**30))
def test_printed_ball_encloses_the_exact_ball(mid: Fraction, rad: Fraction) -> None:
    ball = certify.Certified(mid, rad)
    lo, hi = Fraction(ball.mid) - Fraction(ball.rad), Fraction(ball.mid) + Fraction(ball.rad)
    assert lo <= mid - rad and mid + rad <= hi


def test_missing_python_flint_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(certify, "flint", None)
    with pytest.raises(DomainError, match="needs python-flint"):
        certify.certified_atoms(numeric.law(*CASES["mha-atom"]))


# ---------------------------------------------------------------------- issue 16
def test_smooth_point_next_to_an_edge_gives_a_ball() -> None:
    """value-tied, beta 1, h 4, gK 1/2: a point 4e-5 above the lower edge used to be
    refused ("neither certainly real nor certainly non-real": the isolation balls of a
    conjugate pair overlapped); now a ball that encloses the 50-digit density."""
    the_law = numeric.law("value-tied", Ratios(beta=1, h=4, gK="0.5", gV="0.5", gO=1,
                                               sharing="tied"))
    x = Fraction("0.421556798371955186978889996702")
    ball = certify.certified_pdf(the_law, [x])[0]
    assert ball.certified, ball
    with mpmath.workdps(REF_DPS):
        ref = the_law.with_dps(REF_DPS).pdf([mpmath.mpf(x.numerator) / x.denominator])[0]
    assert encloses(ball, ref), (str(ball), ref)
    assert ball.rad_exact <= Fraction(1, 10**30) * ball.mid_exact


def _discriminant_sign(disc: sp.Expr, x: Fraction, t1: mpmath.mpf) -> int:
    """Sign of the sympy-route discriminant ``disc(z, theta1)`` at the exact ``x``."""
    poly = sp.Poly(disc.subs(z, sp.Rational(x.numerator, x.denominator)), theta1)
    value = mpmath.polyval([mpmath.mpf(c.p) / c.q for c in poly.all_coeffs()], t1)
    return int(mpmath.sign(value))


def test_wide_coefficient_edges_reach_30_digits_by_default() -> None:
    """mha, beta 4 (theta1 = e^16 - 1), h = gK = gO = 1000, gV = 1e-3: at 128 bits the
    edge balls have 7 digits; by default the precision is raised until the relative radius
    is <= 1e-30. Checked against an independent route: the discriminant in G computed
    by sympy (not FLINT) changes sign across each edge ball, at 300 digits."""
    ratios = Ratios(beta=4, h=1000, gK=1000, gV="0.001", gO=1000)
    the_law = numeric.law("mha", ratios)
    loose = certify.certified_support(the_law, prec=128, max_prec=128, rtol=None)
    edges = certify.certified_support(the_law)
    assert len(loose) == len(edges) == 1
    assert any(e.rad_exact > Fraction(1, 10**20) * e.mid_exact for e in loose[0])
    params = dict(zip(_symbolic.PARAMETERS[1:], (16, 1000, 1000, sp.Rational(1, 1000), 1000),
                      strict=True))
    disc = sp.Poly(sp.expand(_symbolic.cauchy_polynomial("mha", False).as_expr()
                             .subs(params)), G).discriminant()
    with mpmath.workdps(300):
        t1 = mpmath.expm1(16)
        for edge, coarse in zip(edges[0], loose[0], strict=True):
            assert edge.certified and edge.rad_exact <= certify.EDGE_RTOL * edge.mid_exact
            assert abs(edge.mid_exact - coarse.mid_exact) <= edge.rad_exact + coarse.rad_exact
            lo, hi = edge.mid_exact - edge.rad_exact, edge.mid_exact + edge.rad_exact
            assert _discriminant_sign(disc, lo, t1) * _discriminant_sign(disc, hi, t1) < 0


def test_requested_relative_radius_is_met_for_density_and_dof() -> None:
    the_law = numeric.law(*CASES["mha-atom"])
    rtol = Fraction(1, 10**70)
    ball = certify.certified_pdf(the_law, [Fraction(3)], rtol=rtol)[0]
    w = certify.certified_dof(the_law, Fraction(1, 2), rtol=rtol)
    for b in (ball, w):
        assert b.certified and b.rad_exact <= rtol * abs(b.mid_exact) and b.prec > 128
    default = certify.certified_pdf(the_law, [Fraction(3)])[0]
    assert abs(ball.mid_exact - default.mid_exact) <= ball.rad_exact + default.rad_exact


def test_relative_radius_not_reachable_returns_the_honest_ball() -> None:
    """Below ``max_prec`` the radius asked for cannot be met: the ball comes back as it is
    (its radius says which digits are certified), not a refusal and not a narrower one."""
    the_law = numeric.law(*CASES["mha-atom"])
    ball = certify.certified_pdf(the_law, [Fraction(3)], prec=64, max_prec=64,
                                 rtol=Fraction(1, 10**60))[0]
    assert ball.certified and ball.prec == 64
    assert not certify.narrow(ball, Fraction(1, 10**60))


def _fuzz_law(k: int) -> tuple:
    """Law ``k`` of benchmarks/certify_fuzz.py (seed 16): its first laws, one per case."""
    from benchmarks.certify_fuzz import random_law

    case, params = random_law(16, k)
    return case, Ratios(**params)


@pytest.mark.slow
@pytest.mark.parametrize("k", range(7))
def test_fuzz_slice_edges_have_30_digits_and_agree_with_float64(k: int) -> None:
    """A slice of the edge fuzz (one random law per case over the declared domain): every
    edge certified with relative radius <= 1e-30 by default, and the float64 layer's edges
    (an independent route) inside the balls up to its own 1e-12 relative accuracy; the
    density certainly positive inside, next to the edges too (law 4, mha with h = 25, was
    refused 1e-6 inside its upper edge: arb's root finder failed on ``Q(., x)``)."""
    case, ratios = _fuzz_law(k)
    the_law = numeric.law(case, ratios)
    support = certify.certified_support(the_law)
    assert not isinstance(support, certify.Uncertified), support
    from benchmarks.certify_fuzz import pdf_points

    xs = pdf_points(support)  # the middles, and 1e-6 of the width inside each edge
    for x, ball in zip(xs, certify.certified_pdf(the_law, xs), strict=True):
        assert ball.certified and ball.mid_exact > ball.rad_exact, (float(x), str(ball))
    f64 = the_law.intervals()
    assert len(support) == len(f64)
    for pair, ref in zip(support, f64, strict=True):
        for edge, value in zip(pair, ref, strict=True):
            assert edge.rad_exact <= certify.EDGE_RTOL * abs(edge.mid_exact), str(edge)
            assert abs(Fraction(value) - edge.mid_exact) <= (
                edge.rad_exact + Fraction(1, 10**12) * abs(edge.mid_exact)), (str(edge), value)
