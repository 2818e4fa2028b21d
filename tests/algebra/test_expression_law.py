"""The numeric law of an expression (``expr.law()``, docs/algebra.md) on the peers' laws of
issue 32 against the independent 30-digit references of
:mod:`tests.algebra.peer_references` (closed forms; hand-typed Cauchy equations solved for
all roots), and atoms anywhere, negative supports, moments, identity and refusals."""

from __future__ import annotations

import pickle

import mpmath
import numpy as np
import pytest

from freege import algebra
from tests.algebra.peer_references import CASES, REF_DPS, product_polynomial

#: interior points per law (the benchmark, benchmarks/algebra.py, uses 1,000)
POINTS = 50
#: density: relative error; edges: error relative to max(1, |edge|)
PDF_RTOL = 1e-13
EDGE_RTOL = 1e-14


@pytest.mark.parametrize(("text", "density", "edges", "atoms"), CASES,
                         ids=[c[0] for c in CASES])
def test_peer_law_density_edges_atoms(text, density, edges, atoms):
    law = algebra.parse(text).law()
    intervals = law.intervals()
    assert len(intervals) == 1  # one interval, no spurious candidates
    lo, hi = intervals[0]
    for edge in (lo, hi):
        gap = min(abs(edge - float(e)) for e in edges)
        assert gap <= EDGE_RTOL * max(1.0, abs(edge)), (text, edge, edges)
    assert law.atoms() == atoms
    xs = lo + (hi - lo) * (np.arange(1, POINTS + 1) - 0.5) / POINTS
    got = law.pdf(xs)
    with mpmath.workdps(REF_DPS):
        ref = np.array([float(density(mpmath.mpf(float(x)))) for x in xs])
    err = np.abs(got - ref) / ref
    assert err.max() <= PDF_RTOL, (text, err.max(), xs[err.argmax()])
    assert abs(law.mass() - 1) < 1e-12
    assert law.cdf(hi) == 1.0


def test_atoms_anywhere_and_negative_support():
    # 2 MP_2 + 1: atom 1/2 at 1; -MP_1/2 lives on the negative axis
    shifted = algebra.parse("2*mp(2) + 1").law()
    assert shifted.atoms() == {1.0: 0.5}
    assert shifted.support()[0] == 1.0
    assert shifted.cdf(1.0) == pytest.approx(0.5, abs=1e-15)
    assert shifted.ppf(0.25) == 1.0 and shifted.ppf(0.75) > 1.0
    # below a support that lies above 0, the cdf is 0 (float64 and mpmath alike)
    above = algebra.parse("atoms((1, 1/2), (3, 1/2)) + semicircle(1/4)").law()
    assert above.support()[0] > 0.2
    assert list(above.cdf([0.2, -1.0, 4.0])) == [0.0, 0.0, 1.0]
    assert above.with_dps(20).cdf(0.2) == 0
    assert shifted.expect(lambda x: x) == pytest.approx(3.0, rel=1e-12)
    fine = shifted.with_dps(20)
    with mpmath.workdps(20):
        assert fine.ppf(mpmath.mpf(1) / 4) == 1 and fine.cdf(1) == mpmath.mpf(1) / 2
        assert fine.ppf(fine.cdf(5)) == pytest.approx(5, rel=1e-15)
    mirrored = algebra.parse("-mp(1/2)").law()
    plain = algebra.parse("mp(1/2)").law()
    (a, b), = mirrored.intervals()
    assert (a, b) == pytest.approx((-plain.intervals()[0][1], -plain.intervals()[0][0]),
                                   rel=1e-15)
    xs = np.linspace(0.1, 2.9, 7)
    assert np.allclose(mirrored.pdf(-xs), plain.pdf(xs), rtol=1e-13, atol=0)


def test_moments_any_order_and_precision():
    expr = algebra.parse("mp(1/2) * mp(1/2)")
    law = expr.law()
    exact = expr.moments(8)
    for q in (1, 4, 6, 8):
        assert law.moment(q) == pytest.approx(float(exact[q - 1]), rel=1e-14)
    fine = expr.law(dps=30)
    with mpmath.workdps(30):
        assert abs(fine.moment(8) - mpmath.mpf(exact[7].p) / exact[7].q) < mpmath.mpf(10) ** -25
        x = mpmath.mpf(1)
        g = fine.stieltjes(x)
        poly = product_polynomial((mpmath.mpf(1) / 2, mpmath.mpf(1) / 2))(x)
        assert abs(mpmath.polyval(poly, g)) < mpmath.mpf(10) ** -25


def test_identity_and_pickling():
    law = algebra.parse("semicircle(1) + mp(1/2)").law()
    again = pickle.loads(pickle.dumps(law))
    assert again == law and hash(again) == hash(law)
    assert again.pdf(0.5) == law.pdf(0.5)
    assert law != algebra.parse("semicircle(1) + mp(1/2)").law(dps=20)
    assert law.with_dps(20) == algebra.parse("semicircle(1) + mp(1/2)").law(dps=20)
    assert law.with_dps(20).recipe() == ("expression", (law.text, 20))


def test_refusals():
    with pytest.raises(ValueError, match="free parameters"):
        algebra.marchenko_pastur(algebra.SYMBOLS["h"]).law()
    with pytest.raises(ValueError, match="dps"):
        algebra.parse("mp(1)").law(dps=3)
    with pytest.raises(ValueError, match="mean 0"):
        algebra.parse("semicircle(1)").law().s_transform(0.1)


def test_singular_point_inside_the_support():
    """A compound free Poisson law whose jump law reaches 0 has a density singular at 0,
    inside its support: one support interval, and the quadrature cuts its panels there
    (mass 1, the exact second moment)."""
    expr = algebra.parse("poisson(1, 2*semicircle(1/4) - 1)")
    law = expr.law()
    (a, b), = law.intervals()
    assert a < 0 < b
    assert abs(law.mass() - 1) < 1e-12
    assert law.expect(lambda x: x**2) == pytest.approx(float(expr.moments(2)[1]), rel=1e-12)


@pytest.mark.parametrize("text", ["atoms((1, 1/2), (3, 1/2))", "atoms((-2, 1/5), (4, 4/5))"])
def test_samples_of_a_law_of_atoms_away_from_zero(text: str):
    """``rvs`` draws every atom with its exact mass (a law with no continuous part used to
    raise from the sampling table): only atom locations come out, each with a frequency
    within five binomial standard deviations of its mass (seeded)."""
    law = algebra.parse(text).law()
    n = 20_000
    samples = law.rvs(n, random_state=11)
    atoms = law.atoms()
    assert set(np.unique(samples)) == set(atoms)
    for x, p in atoms.items():
        assert abs(np.mean(samples == x) - p) < 5 * np.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("k", [5, 6])
def test_a_far_shift_answers_as_the_unshifted_law(k: int):
    """``mp(1/2) + 10^k`` is answered through ``mp(1/2)`` (a far shift cost a 68 s cdf
    1e-13 off at k = 5): cdf, ppf and pdf equal the unshifted law's at ``x - 10^k`` (exact
    in float64 there), and at 30 digits too."""
    shifted, plain = (algebra.parse(t).law() for t in (f"mp(1/2) + {10**k}", "mp(1/2)"))
    ys = np.array([0.125, 0.5, 1.0, 2.0, 2.875])  # 10^k + y exact in float64
    assert np.array_equal(shifted.cdf(10**k + ys), plain.cdf(ys))
    assert np.array_equal(shifted.pdf(10**k + ys), plain.pdf(ys))
    assert np.array_equal(shifted.ppf([0.1, 0.9]), 10**k + plain.ppf([0.1, 0.9]))
    with mpmath.workdps(30):
        x = 10**k + mpmath.mpf(1) / 3
        assert shifted.with_dps(30).cdf(x) == plain.with_dps(30).cdf(x - 10**k)
