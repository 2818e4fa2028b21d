"""The numeric law of an expression (``expr.law()``, docs/algebra.md) on the peers' laws of
issue 32: MP_1/2, MP_2 (atom 1/2 at 0), MP_1 ⊠ MP_1, MP_1/2 ⊠ MP_1/2, semicircle ⊞ MP_1/2.

The references are written here, independently of freege's code path: closed forms for MP
and the semicircle; for products and sums the Cauchy equation typed by hand from the
S-transform ``S_MPc(w) = 1/(1 + c w)`` (so ``z = (1 + w) prod (1 + c_i w) / w``,
``w = zG - 1``) or the R-transform (``R_sc(g) = g``, ``R_MPc(g) = 1/(1 - c g)``, ``z = R(G) +
1/G``), all its roots at 30 digits (``mpmath.polyroots``) and the unique one with
``Im G < 0`` (the Stieltjes transform maps the upper half plane to the lower one; a point
where that does not single out one root fails the test). Edges: ``(1 -+ sqrt c)^2`` for
MP, else the critical values of ``z(w)`` (or ``z(G)``).
"""

from __future__ import annotations

import pickle

import mpmath
import numpy as np
import pytest

from freege import algebra

REF_DPS = 30
#: interior points per law (the benchmark uses 1,000)
POINTS = 50
#: density: relative error; edges: error relative to max(1, |edge|)
PDF_RTOL = 1e-13
EDGE_RTOL = 1e-14


def _mp_density(c: mpmath.mpf, x: mpmath.mpf) -> mpmath.mpf:
    a, b = (1 - mpmath.sqrt(c)) ** 2, (1 + mpmath.sqrt(c)) ** 2
    return mpmath.sqrt((b - x) * (x - a)) / (2 * mpmath.pi * c * x)


def _product_polynomial(ratios: tuple) -> list:
    """Coefficients in G (highest first) of ``w z - (1 + w) prod (1 + c w)`` at fixed z,
    ``w = zG - 1``, as a function of z."""
    def coeffs(z: mpmath.mpc) -> list:
        # polynomial in w: w z - (1 + w) prod(1 + c w)
        poly = [mpmath.mpf(1), mpmath.mpf(1)]  # 1 + w, ascending
        for c in ratios:
            poly = [sum(poly[i] * f for i, f in ((k, 1), (k - 1, c)) if 0 <= i < len(poly))
                    for k in range(len(poly) + 1)]
        poly = [-p for p in poly]
        poly[1] += z
        # substitute w = zG - 1 (ascending in G)
        out = [mpmath.mpc(0)] * len(poly)
        for k, p in enumerate(poly):
            for j in range(k + 1):  # (zG - 1)^k = sum_j C(k, j) (zG)^j (-1)^(k-j)
                out[j] += p * mpmath.binomial(k, j) * z**j * (-1) ** (k - j)
        return out[::-1]
    return coeffs


def _sum_polynomial(z: mpmath.mpc) -> list:
    """semicircle(1) ⊞ MP_1/2: ``z = G + 1/(1 - G/2) + 1/G`` times ``G (1 - G/2)``:
    ``-G^3/2 + (1 + z/2) G^2 + (1/2 - z) G + 1 = 0`` (highest first)."""
    half = mpmath.mpf(1) / 2
    return [-half, 1 + z * half, half - z, mpmath.mpf(1)]


def _all_roots_density(coeffs, x: mpmath.mpf) -> mpmath.mpf:
    roots = mpmath.polyroots(coeffs(mpmath.mpf(x)), maxsteps=200, extraprec=60)
    lower = [r for r in roots if mpmath.im(r) < -mpmath.mpf(10) ** -20]
    assert len(lower) == 1, f"no unique root with Im G < 0 at {x}: {roots}"
    return -mpmath.im(lower[0]) / mpmath.pi


def _critical_values(z_of, dz_coeffs) -> list:
    """``z(t)`` at the real critical points ``t`` (roots of ``dz_coeffs``, highest first)."""
    out = []
    for t in mpmath.polyroots(dz_coeffs, maxsteps=200, extraprec=60):
        if abs(mpmath.im(t)) < mpmath.mpf(10) ** -20 and mpmath.re(t) != 0:
            out.append(z_of(mpmath.re(t)))
    return out


def _product_edges(ratios: tuple) -> list:
    """Critical values of ``z(w) = (1 + w) prod (1 + c w) / w``: ``z'(w) = 0`` is
    ``w f'(w) - f(w) = 0`` with ``f = (1 + w) prod (1 + c w)``."""
    f = [mpmath.mpf(1), mpmath.mpf(1)]
    for c in ratios:
        f = [sum(f[i] * g for i, g in ((k, 1), (k - 1, c)) if 0 <= i < len(f))
             for k in range(len(f) + 1)]
    crit = [(k - 1) * f[k] for k in range(len(f))]  # ascending: w f' - f
    z_of = lambda w: mpmath.polyval(f[::-1], w) / w  # noqa: E731
    return _critical_values(z_of, crit[::-1]) + [mpmath.mpf(0)]


def _sum_edges() -> list:
    """Critical values of ``z(G) = G + 2/(2 - G) + 1/G``: ``1 + 2/(2 - G)^2 - 1/G^2 = 0``,
    times ``G^2 (2 - G)^2``: ``G^2 (2 - G)^2 + 2 G^2 - (2 - G)^2 = 0``."""
    # G^4 - 4G^3 + 4G^2 + 2G^2 - (G^2 - 4G + 4) = G^4 - 4G^3 + 5G^2 + 4G - 4
    z_of = lambda g: g + 2 / (2 - g) + 1 / g  # noqa: E731
    return _critical_values(z_of, [1, -4, 5, 4, -4])


def _mp_case(c):
    def density(x):
        return _mp_density(mpmath.mpf(c), x)
    edges = [(1 - mpmath.sqrt(c)) ** 2, (1 + mpmath.sqrt(c)) ** 2]
    return density, edges


def _cases():
    with mpmath.workdps(REF_DPS):
        half = mpmath.mpf(1) / 2
        mp_half, mp_half_edges = _mp_case(half)
        mp_two, mp_two_edges = _mp_case(mpmath.mpf(2))
        prod1 = _product_polynomial((mpmath.mpf(1), mpmath.mpf(1)))
        prod_half = _product_polynomial((half, half))
        return [
            ("mp(1/2)", mp_half, mp_half_edges, {}),
            ("mp(2)", mp_two, mp_two_edges, {0.0: 0.5}),
            ("mp(1) * mp(1)", lambda x: _all_roots_density(prod1, x),
             _product_edges((mpmath.mpf(1), mpmath.mpf(1))), {}),
            ("mp(1/2) * mp(1/2)", lambda x: _all_roots_density(prod_half, x),
             _product_edges((half, half)), {}),
            ("semicircle(1) + mp(1/2)", lambda x: _all_roots_density(_sum_polynomial, x),
             _sum_edges(), {}),
        ]


CASES = _cases()


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
    assert shifted.expect(lambda x: x) == pytest.approx(3.0, rel=1e-12)
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
        poly = _product_polynomial((mpmath.mpf(1) / 2, mpmath.mpf(1) / 2))(x)
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
