"""Hard edges away from 0 (docs/algebra.md "Numbers", theory §7.1): laws whose density
blows up at an end ``c != 0`` of the support are answered through the law of ``s (X - c)``
(freege/numeric/edge_move.py). Checked against references written here, independent of
freege's code path:

* Marchenko-Pastur with ratio 1: density ``sqrt((4 - y)/y) / (2 pi)`` on ``[0, 4]``, cdf
  ``(2/pi) (asin(sqrt(y)/2) + (sqrt(y)/2) sqrt(1 - y/4))`` (``y = 4 sin^2 t``), Cauchy
  transform ``(w - sqrt(w (w - 4)))/(2w)``;
* ``MP_1 ⊠ MP_1`` (Fuss-Catalan, density ``~ y^(-2/3)`` at 0): the closed form of Penson
  and Zyczkowski (Phys. Rev. E 83, 2011), itself checked here against the all-roots
  solve of the hand-typed Cauchy equation (tests/algebra/peer_references.py), and its cdf
  by tanh-sinh quadrature of that closed form in ``y = x s^3`` (smooth in ``s``).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from freege import algebra
from tests.algebra.peer_references import _all_roots_density, product_polynomial

#: digits of the references
REF_DPS = 40
#: a point this far inside the hard edge
DELTA = 1e-10
#: float64: density relative error (as tests/algebra/test_expression_law.py), cdf absolute
#: error (the quadrature's double-precision floor), |mass - 1|
PDF_RTOL, CDF_ATOL, MASS_TOL = 1e-13, 1e-15, 1e-14
#: dps = 30: the same, 5 digits short of the working precision
PDF_RTOL_30, CDF_ATOL_30, MASS_TOL_30 = 1e-25, 1e-25, 1e-25


def mp1_density(y):
    return mpmath.sqrt((4 - y) / y) / (2 * mpmath.pi) if 0 < y < 4 else mpmath.mpf(0)


def mp1_stieltjes(w):
    """``(w - sqrt(w) sqrt(w - 4))/(2w)`` off ``[0, 4]`` (principal roots: the product is
    analytic off the cut and ``~ w`` at infinity)."""
    return (w - mpmath.sqrt(w) * mpmath.sqrt(w - 4)) / (2 * w)


def mp1_cdf(y):
    r = mpmath.sqrt(y) / 2
    return 2 / mpmath.pi * (mpmath.asin(r) + r * mpmath.sqrt(1 - r**2))


def fuss_catalan_density(y):
    """MP_1 ⊠ MP_1 on ``(0, 27/4]``."""
    a = 27 + 3 * mpmath.sqrt(81 - 12 * y)
    return (mpmath.cbrt(2) * mpmath.sqrt(3) / (12 * mpmath.pi)
            * (mpmath.cbrt(2) * a ** (mpmath.mpf(2) / 3) - 6 * mpmath.cbrt(y))
            / (y ** (mpmath.mpf(2) / 3) * mpmath.cbrt(a)))


def fuss_catalan_cdf(y):
    return mpmath.quad(lambda s: 3 * y * s**2 * fuss_catalan_density(y * s**3), [0, 1])


#: (text, a, b): the law of a Y + b for Y ~ MP_1; its hard edge is b
SHIFTED_MP1 = [("mp(1) + 2", 1, 2), ("3*mp(1) - 1", 3, -1), ("2 - mp(1)", -1, 2)]


def reference(a, b, x, kind):
    """pdf or cdf of ``a MP_1 + b`` at the (exact) point ``x``, at REF_DPS digits."""
    with mpmath.workdps(REF_DPS):
        y = (mpmath.mpf(x) - b) / a
        if kind == "pdf":
            return mp1_density(y) / abs(a)
        return mp1_cdf(y) if a > 0 else 1 - mp1_cdf(y)


@pytest.mark.parametrize(("text", "a", "b"), SHIFTED_MP1, ids=[t for t, _, _ in SHIFTED_MP1])
def test_shifted_mp1_hard_edge_float64(text, a, b):
    law = algebra.parse(text).law()
    inward = 1 if a > 0 else -1
    lo, hi = sorted((b, 4 * a + b))
    assert law.support() == (lo, hi) and law.intervals() == [(lo, hi)]
    xs = np.array([b + inward * DELTA, b + inward * 1e-4, b + 2 * a, 4 * a + b - inward * 1e-6])
    pdf, cdf = law.pdf(xs), law.cdf(xs)
    for x, p, f in zip(xs, pdf, cdf, strict=True):
        assert abs(p / float(reference(a, b, x, "pdf")) - 1) <= PDF_RTOL, (text, x, p)
        assert abs(f - float(reference(a, b, x, "cdf"))) <= CDF_ATOL, (text, x, f)
    assert abs(law.mass() - 1) <= MASS_TOL
    assert law.sf(xs[0]) == pytest.approx(1 - cdf[0], abs=1e-16)
    # the quantile inverts the cdf next to the edge: cdf ~ (2/pi) sqrt(y), so the edge
    # distance comes back to the cdf's relative accuracy, squared
    back = law.ppf(cdf[0])
    assert abs((back - b) / (xs[0] - b) - 1) <= 1e-8, (text, back)
    est = law.estimate("pdf", xs[0])
    assert est.error <= PDF_RTOL * est.value
    assert law.expect(lambda x: x) == pytest.approx(a + b, rel=1e-14, abs=1e-14)
    # off the axis, both half planes: G(z) = G_MP1((z - b)/a)/a
    for z in (b + 2 * a + 0.5j, b + a - 0.25j):
        with mpmath.workdps(REF_DPS):
            ref = mp1_stieltjes((mpmath.mpc(z) - b) / a) / a
        assert abs(law.stieltjes(z) - complex(ref)) <= 1e-14 * abs(ref), (text, z)
    # samples: inside the support, mean within 6 standard errors (variance a^2)
    draws = law.rvs(4000, random_state=0)
    assert lo <= draws.min() and draws.max() <= hi
    assert abs(draws.mean() - (a + b)) <= 6 * abs(a) / np.sqrt(draws.size)


@pytest.mark.parametrize(("text", "a", "b"), SHIFTED_MP1[:2], ids=[t for t, _, _ in
                                                                   SHIFTED_MP1[:2]])
def test_shifted_mp1_hard_edge_dps30(text, a, b):
    law = algebra.parse(text).law(dps=30)
    with mpmath.workdps(30):
        x = mpmath.mpf(b) + mpmath.mpf(DELTA)
        assert law.intervals() == [(b, 4 * a + b)]
        assert abs(law.pdf(x) / reference(a, b, x, "pdf") - 1) <= PDF_RTOL_30
        assert abs(law.cdf(x) - reference(a, b, x, "cdf")) <= CDF_ATOL_30
        assert abs(law.mass() - 1) <= MASS_TOL_30


def test_fuss_catalan_reference_is_the_all_roots_density():
    """The closed form used below is the density of the hand-typed Cauchy equation of
    MP_1 ⊠ MP_1 (all roots, the unique one with Im G < 0)."""
    equation = product_polynomial((1, 1))
    with mpmath.workdps(REF_DPS):
        for y in ("1e-10", "1e-3", "0.5", "6.7"):
            closed = fuss_catalan_density(mpmath.mpf(y))
            assert abs(closed / _all_roots_density(equation, mpmath.mpf(y)) - 1) < 1e-25


def test_shifted_product_hard_edge():
    """``MP_1 ⊠ MP_1 + 1``: density ``~ (x - 1)^(-2/3)``, against the closed form; the
    unshifted law agrees at the same distances from its edge 0."""
    shifted = algebra.parse("mp(1)*mp(1) + 1").law()
    plain = algebra.parse("mp(1)*mp(1)").law()
    assert shifted.intervals() == [(1.0, 1 + 27 / 4)]
    ys = np.array([DELTA, 1e-4, 0.5, 6.7])
    xs = 1 + ys
    with mpmath.workdps(REF_DPS):
        steps = [mpmath.mpf(x) - 1 for x in xs]  # the exact distances of the float points
        pdf_ref = [float(fuss_catalan_density(y)) for y in steps]
        cdf_ref = [float(fuss_catalan_cdf(y)) for y in steps]
    pdf, cdf = shifted.pdf(xs), shifted.cdf(xs)
    assert np.max(np.abs(pdf / pdf_ref - 1)) <= PDF_RTOL, pdf
    assert np.max(np.abs(cdf - cdf_ref)) <= CDF_ATOL, cdf
    exact_ys = np.array([float(y) for y in steps])
    assert np.max(np.abs(plain.pdf(exact_ys) / pdf_ref - 1)) <= PDF_RTOL
    assert np.max(np.abs(plain.cdf(exact_ys) - cdf_ref)) <= CDF_ATOL
    assert abs(shifted.mass() - 1) <= MASS_TOL


def test_quartic_root_edge_of_a_pushforward():
    """``(X + 1)^2 - 1`` for ``X`` a semicircle of radius 1: ``X + 1`` runs over
    ``[0, 2]`` with density ``~ sqrt(X + 1)`` at 0, so the image has ``pdf ~ (y +
    1)^(-1/4)`` at its edge -1 (no ``m/(m+1)`` exponent: the map ``x = L v^4``).
    Reference: ``pdf(y) = f(sqrt(t) - 1)/(2 sqrt(t))``, ``cdf(y) = F(sqrt(t) - 1)``,
    ``t = y + 1``, with the semicircle's ``f(x) = (2/pi) sqrt(1 - x^2)``, ``F(x) = 1/2
    + (x sqrt(1 - x^2) + asin(x))/pi``."""
    law = algebra.parse("pushforward(semicircle(1/4), x^2 + 2*x)").law()
    assert law.intervals() == [(-1.0, 3.0)]
    xs = np.array([-1 + DELTA, -0.5, 1.0, 3 - 1e-6])
    with mpmath.workdps(REF_DPS):
        ts = [mpmath.mpf(x) + 1 for x in xs]
        pdf_ref = [float(2 / mpmath.pi * mpmath.sqrt(1 - (mpmath.sqrt(t) - 1) ** 2)
                         / (2 * mpmath.sqrt(t))) for t in ts]
        cdf_ref = [float(mpmath.mpf(1) / 2 + (u * mpmath.sqrt(1 - u**2) + mpmath.asin(u))
                         / mpmath.pi) for u in (mpmath.sqrt(t) - 1 for t in ts)]
    assert np.max(np.abs(law.pdf(xs) / pdf_ref - 1)) <= PDF_RTOL
    assert np.max(np.abs(law.cdf(xs) - cdf_ref)) <= CDF_ATOL
    assert abs(law.mass() - 1) <= MASS_TOL
