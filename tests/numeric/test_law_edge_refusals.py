"""Float64 refusals inside the declared domain (issue 16, item 3), one test per class the
500-law fuzz (``benchmarks/law_fuzz.py``) found.

``value-tied`` at ``beta = h = gK = gO = 1``: a hard edge at 0 of order 2 where *two*
pairs of roots share the leading Puiseux term ``c x^(-2/3)`` and differ only at relative
order ``x^(1/3)``. The mpmath continuation used to jump to the other pair below ~2.5e-6
(the density was 2% high there and jumped, so the Gauss-Legendre levels of ``mass()``
disagreed). Checks: ``x^(2/3) pdf(x)`` is monotone across that scale (the physical branch
is the one continued from the bulk; the other approaches the same limit from above),
``mass()`` is 1 to 1e-12, and ``cdf`` agrees with Gauss-Legendre on ``[0, x]`` alone in
``s = (t/x)^(1/3)`` (another discretisation).

A hard edge with a crossover (``head-average``, ``gK = 0.999``): ``x^(-1/2)`` below about
``1e-11 b``, ``x^(-2/3)`` in appearance above, so the single hard-edge map left a
``v^(-1/3)`` singularity inside its panel and ``mass()`` raised. A spurious edge candidate
at 6e-60 (``mha``, tiny ratios): a complex pair of the discriminant at ``-1.4e-12 +-
3e-11 i`` bracketed its exact root 0.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

from freege.numeric import roots
from freege.numeric.case_law import CaseLaw, law
from freege.numeric.quadrature import CROSSOVER, HardEdge, Panel, panels
from freege.params import Ratios

#: the fuzz's law 25: a hard edge at 0 whose exponent crosses over from 1/2 to ~2/3
CROSSOVER_LAW = Ratios(beta=Fraction(41, 31250), h=107, gK=Fraction(999, 1000),
                       gV=Fraction(189, 20000), gO=Fraction(37, 3125))


@functools.cache
def value_tied() -> CaseLaw:
    return law("value-tied", Ratios(beta=1, h=1, gK=1, gV=1, gO=1, sharing="tied"))


def test_value_tied_hard_edge_density_stays_on_one_branch() -> None:
    L = value_tied()
    xs = 10.0 ** -np.arange(4.0, 10.5, 0.5)
    scaled = xs ** (2 / 3) * L.pdf(xs)
    assert np.all(np.diff(scaled) > 0), scaled


def test_value_tied_hard_edge_mass_and_cdf() -> None:
    L = value_tied()
    assert abs(L.mass() - 1) <= 1e-12
    # cdf (the panel's Legendre series on [0, 13.09]) against Gauss-Legendre on [0, x]
    # alone in x = x0 s^3, where pdf dx/ds is analytic: another discretisation
    x = 1e-6
    s, w = np.polynomial.legendre.leggauss(40)
    s, w = (s + 1) / 2, w / 2
    ref = float(np.sum(w * L.pdf(x * s**3) * 3 * x * s**2))
    assert L.cdf(x) == pytest.approx(ref, rel=1e-13)


def test_hard_edge_reach_tells_a_crossover_from_a_clean_hard_edge() -> None:
    """The exponent's deviation from m/(m+1) at 1e-13 b: the crossover law's series stops
    holding around 1e-9 b (geometric panels), the value-tied edge's holds up to the bulk
    (a single hard-edge panel, as before)."""
    cross = CaseLaw("head-average", CROSSOVER_LAW)
    (a, b), = cross.intervals()
    edge = cross._hard_order(0, b)
    assert edge.order == 1 and edge.reach < 1e-6 * b
    assert len(panels(0.0, b, edge)) > 3
    (a, b), = value_tied().intervals()
    edge = value_tied()._hard_order(0, b)
    assert edge.order == 2 and (edge.reach / (b / 2)) ** (1 / 3) > CROSSOVER
    assert len(panels(0.0, b, edge)) == 2


def test_geometric_panels_of_a_crossover_tile_the_lower_half() -> None:
    edge = HardEdge(1, 1e-9)
    ps = panels(0.0, 2.0, edge)
    assert ps[0].anchor == 0 and ps[0].power == 2 and ps[0].length == pytest.approx(1e-9 / 64)
    ends = [p.bounds() for p in ps[:-1]]
    assert all(u[1] == pytest.approx(v[0], rel=1e-15) for u, v in zip(ends, ends[1:],
                                                                        strict=False))
    assert ends[-1][1] == pytest.approx(1.0, rel=1e-15)
    assert all(p.bounds()[1] <= 21.4 * p.bounds()[0] for p in ps[1:-1])


@pytest.mark.slow
def test_hard_edge_with_a_crossover_has_mass_one() -> None:
    """Was ConvergenceError (Gauss-Legendre levels 1e-6 apart at 2048 nodes); the cdf at
    1e-10 b (bottom and geometric panels) agrees with Gauss-Legendre on ``[0, x]`` in
    ``x = x0 s^2`` (another discretisation)."""
    L = CaseLaw("head-average", CROSSOVER_LAW)
    assert abs(L.mass() - 1) <= 1e-12
    (_, b), = L.intervals()
    x = 1e-10 * b
    s, w = np.polynomial.legendre.leggauss(60)
    s, w = (s + 1) / 2, w / 2
    ref = float(np.sum(w * L.pdf(x * s**2) * 2 * x * s))
    assert L.cdf(x) == pytest.approx(ref, rel=1e-12)


def test_exact_root_at_zero_is_not_bracketed_by_a_nearby_complex_pair() -> None:
    """t (t^2 - 2e-20) ((t + 1.4e-12)^2 + 9e-22) at 17 digits: the pair -1.4e-12 +- 3e-11 i
    passes the tolerance for a real candidate (1e-8); its bracket used to hold 0 (twice
    0 and once 6e-60 came back); now the real roots are exactly -sqrt(2) 1e-10, 0,
    sqrt(2) 1e-10."""
    t = sp.Symbol("t")
    poly = sp.Poly(t * (t**2 - sp.Rational(2, 10**20))
                   * ((t + sp.Rational(14, 10**13))**2 + sp.Rational(9, 10**22)), t)
    found, real = roots.polynomial_roots(poly, 17)
    assert len(found) == 5 and len(real) == 3 and real[1] == 0
    assert [float(r) for r in real[::2]] == pytest.approx([-2**0.5 * 1e-10, 2**0.5 * 1e-10],
                                                          rel=1e-15)


@pytest.mark.slow
def test_tiny_ratios_have_no_spurious_edge() -> None:
    """The fuzz's mha law with tiny ratios: was refused (polyroots failed at the midpoint
    3e-60 of a spurious interval); now an atom at 0, one interval and mass 1."""
    L = CaseLaw("mha", Ratios(beta="0.002816", h=2, gK="0.02105", gV="0.04126", gO="0.0001933"))
    (a, b), = L.intervals()
    assert 0 < a < b and L.support() == (0.0, b) and L.atoms()[0.0] > 0
    assert abs(L.mass() - 1) <= 1e-12
    with mpmath.workdps(30):
        assert all(r == 0 or abs(r) > 1e-12 for r in L.equation.discriminant_real_roots(17))


def test_negative_axis_batch_agrees_with_vertical_tracks() -> None:
    """Real z < 0 near 0 (Stehfest points of a long time) are continued along the axis
    from one tracked point; each value equals the per-point vertical track (another
    route) to the working precision."""
    L = CaseLaw("value-tied", Ratios(beta=1, h=1, gK=1, gV=1, gO=1, sharing="tied"), dps=30)
    eq = L.equation
    with mpmath.workdps(30):
        near = roots.NEAR_ZERO * eq.scale()
        xs = [-near * mpmath.mpf(10) ** -k for k in (0.5, 3, 9)]
        for got, ref in zip(L.stieltjes_batch(xs), [eq.stieltjes_mp(x) for x in xs],
                            strict=True):
            assert got.imag == 0 and abs(got - ref) <= mpmath.mpf(10) ** -29 * abs(ref)


@pytest.mark.slow
def test_dps_flow_loss_at_a_long_time_finishes() -> None:
    """Issue 16 item 3: ``readout loss --dps 40`` on this law did not finish in 90 s (186
    Stehfest points near 0, each tracked down from 4 R = 7e23). At t = 1000 the loss is
    the atom (the rest is e^(-2000 t) small), to the working precision."""
    from freege.numeric import readout

    L = CaseLaw("mha", Ratios(beta=4, h=1000, gK=1000, gV="0.001", gO=1000), dps=40)
    with mpmath.workdps(40):
        assert abs(readout.flow_loss(L, 1000) - L.atom_mass()) <= mpmath.mpf(10) ** -38


def test_track_start_is_the_nearest_root_without_polyroots() -> None:
    """The fuzz's law 164 (value-tied, h = 8139, gK = 1.001) timed out: every vertical
    track began with ``mpmath.polyroots`` at ``4 R`` (2-7 s each; the roots span 30 orders
    of magnitude). The start is now a float64 companion root polished by Newton and
    proven nearest by Smale's gamma; it equals the nearest of all roots, and a start the
    test cannot certify (0.4 of the way between two roots) falls back to all roots."""
    L = CaseLaw("value-tied", Ratios(beta=Fraction(527, 500000), h=8139, gK=Fraction(1001, 1000),
                                 gV=Fraction(1001, 1000), gO=1))
    eq = L.equation
    with mpmath.workdps(30):
        z0 = mpmath.mpc("0.018", 4 * eq.radius())
        everything = eq.all_roots_mp(z0)
        between = everything[0] + (everything[1] - everything[0]) * 0.4
        for start in (1 / z0 + eq.mean / z0**2, between):
            nearest = min(everything, key=lambda r: abs(r - start))
            assert abs(eq._start_mp(z0, start) - nearest) <= mpmath.mpf(10) ** -28 * abs(
                nearest)


def test_panel_halves_cover_the_panel() -> None:
    """A panel's halves in ``u`` map onto its two parts: ends, Jacobians and ``v(x)``."""
    panel = Panel(0.0, 2.0, 1, 2)
    left, right = panel.halves()
    assert left.bounds() == (0.0, 0.5) and right.bounds() == (0.5, 2.0)
    v, w = np.polynomial.legendre.leggauss(20)
    v, w = (v + 1) / 2, w / 2
    parts = [float(np.sum(w * np.cos(p.x(v)) * p.dx(v))) for p in (left, right)]
    assert sum(parts) == pytest.approx(np.sin(2.0), rel=1e-14)
    assert right.v_of(right.x(0.3)) == pytest.approx(0.3, rel=1e-14)


@pytest.mark.slow
def test_near_gap_inside_the_support_is_split_until_it_converges() -> None:
    """The fuzz's law 228: the density nearly vanishes at x ~ 3.5e-3 inside [0, 0.54] (a
    complex branch point next to the axis, two bulks about to separate), so the hard-edge
    panel did not converge at 2048 nodes. It is halved in ``u`` until every piece
    converges: mass 1, and the mean and second moment by ``expect`` (adaptive, another
    discretisation) equal the exact moments."""
    L = CaseLaw("head-average", Ratios(beta=Fraction(513, 2000), h=27, gK=Fraction(3, 5),
                                   gV=Fraction(363, 25), gO=Fraction(83, 500)))
    assert abs(L.mass() - 1) <= 1e-12
    for q in (1, 2):
        assert L.expect(lambda x, q=q: x**q) == pytest.approx(L.moment(q), rel=1e-12)


@pytest.mark.slow
def test_near_gap_inside_the_support_is_split_at_working_precision() -> None:
    """CaseLaw 228 at ``dps = 20``: the panel with the near-gap used to refuse after 2,560
    nodes at working precision (84 s) since only float64 halved it. Its halving now starts
    from the float64 pieces: mass 1 to the working precision, the cdf equal to the
    float64 Legendre-series cdf (another discretisation) to float64's accuracy, and the
    same cdf on a fresh law as after ``mass()`` (no earlier call changes a result)."""
    ratios = Ratios(beta=Fraction(513, 2000), h=27, gK=Fraction(3, 5), gV=Fraction(363, 25),
                    gO=Fraction(83, 500))
    fresh, used = (CaseLaw("head-average", ratios, dps=20) for _ in range(2))
    assert abs(used.mass() - 1) <= mpmath.mpf(10) ** -18
    f64 = CaseLaw("head-average", ratios)
    for x in (0.002, 0.0035, 0.1):
        assert fresh.cdf(x) == used.cdf(x)
        assert float(used.cdf(x)) == pytest.approx(float(f64.cdf(x)), abs=1e-14)
