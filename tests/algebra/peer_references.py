"""Independent 30-digit references for the peers' laws of issue 32 (MP_1/2, MP_2 with its
atom 1/2 at 0, MP_1 ⊠ MP_1, MP_1/2 ⊠ MP_1/2, semicircle ⊞ MP_1/2), shared by
tests/algebra/test_expression_law.py and benchmarks/algebra.py.

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

import mpmath

REF_DPS = 30


def _mp_density(c: mpmath.mpf, x: mpmath.mpf) -> mpmath.mpf:
    a, b = (1 - mpmath.sqrt(c)) ** 2, (1 + mpmath.sqrt(c)) ** 2
    return mpmath.sqrt((b - x) * (x - a)) / (2 * mpmath.pi * c * x)


def product_polynomial(ratios: tuple) -> list:
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


def _cases() -> list:
    with mpmath.workdps(REF_DPS):
        half = mpmath.mpf(1) / 2
        mp_half, mp_half_edges = _mp_case(half)
        mp_two, mp_two_edges = _mp_case(mpmath.mpf(2))
        prod1 = product_polynomial((mpmath.mpf(1), mpmath.mpf(1)))
        prod_half = product_polynomial((half, half))
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


#: ``(text, density(x) at REF_DPS, edge candidates, atoms)`` per law
CASES = _cases()
