"""Moments through the operations of the law algebra, as truncated power series at the
ambient precision (theory §3, docs/data-laws.md).

The moments of a law built from data follow from its operands' moments exactly (rounded
once at the working precision): free cumulants add under ⊞ (the moment-cumulant relation
``M(z) = 1 + sum_s kappa_s z^s M(z)^s``), S-transforms multiply under ⊠
(``psi -> chi = psi^{-1} -> S = chi (1 + w)/w``), a compound free Poisson law
``pi(nu, t)`` has cumulants ``t m_q(nu)``, an affine map expands binomially and a
polynomial pushforward ``p`` needs the operand's moments up to ``q deg p``.
"""

from __future__ import annotations

from math import comb
from typing import Any

import mpmath

Series = list[Any]  # coefficients c_0, c_1, ..., c_q


def _mul(a: Series, b: Series, q: int) -> Series:
    out = [mpmath.mpf(0)] * (q + 1)
    for i, x in enumerate(a[:q + 1]):
        if x:
            for j, y in enumerate(b[:q + 1 - i]):
                out[i + j] += x * y
    return out


def moments_to_cumulants(m: list[Any]) -> list[Any]:
    """``[kappa_1..kappa_q]`` from ``[m_1..m_q]``."""
    q = len(m)
    big_m = [mpmath.mpf(1)] + list(m)
    kappa: list[Any] = []
    for n in range(1, q + 1):
        acc = mpmath.mpf(0)
        power = [mpmath.mpf(1)] + [mpmath.mpf(0)] * q  # M^s, s = 1, 2, ...
        for s in range(1, n):
            power = _mul(power, big_m, q)
            acc += kappa[s - 1] * power[n - s]
        kappa.append(big_m[n] - acc)
    return kappa


def cumulants_to_moments(kappa: list[Any]) -> list[Any]:
    """``[m_1..m_q]`` from ``[kappa_1..kappa_q]``."""
    q = len(kappa)
    big_m = [mpmath.mpf(1)] + [mpmath.mpf(0)] * q
    for n in range(1, q + 1):
        acc = mpmath.mpf(0)
        power = [mpmath.mpf(1)] + [mpmath.mpf(0)] * q
        for s in range(1, n + 1):
            power = _mul(power, big_m, q)  # M truncated below n suffices for z^(n-s)
            acc += kappa[s - 1] * power[n - s]
        big_m[n] = acc
    return big_m[1:]


def _inverse(f: Series, q: int) -> Series:
    """The compositional inverse ``g`` of ``f = f_1 z + f_2 z^2 + ...`` (``f_1 != 0``)."""
    g = [mpmath.mpf(0), 1 / f[1]] + [mpmath.mpf(0)] * (q - 1)
    for n in range(2, q + 1):
        # coefficient of w^n in f(g(w)) must vanish; g_n enters only through f_1 g_n
        g[n] = mpmath.mpf(0)
        total = mpmath.mpf(0)
        power = [mpmath.mpf(1)] + [mpmath.mpf(0)] * q
        for k in range(1, n + 1):
            power = _mul(power, g, q)
            total += f[k] * power[n]
        g[n] = -total / f[1]
    return g


def _s_series(m: list[Any], q: int) -> Series:
    """``S(w)`` to order ``q - 1`` from ``m_1..m_q`` (``m_1 != 0``)."""
    chi = _inverse([mpmath.mpf(0)] + list(m[:q]), q)
    # S = chi (1 + w)/w: shift chi down by one and multiply by (1 + w)
    low = chi[1:] + [mpmath.mpf(0)]
    return [low[k] + (low[k - 1] if k else 0) for k in range(q)]


def free_mult_moments(ma: list[Any], mb: list[Any]) -> list[Any]:
    """Moments of ``A ⊠ B`` from those of ``A`` and ``B`` (both of nonzero mean)."""
    q = len(ma)
    s = _mul(_s_series(ma, q), _s_series(mb, q), q - 1)
    # chi = S w/(1 + w): divide S by (1 + w) then shift up
    over = []
    for k in range(q):
        over.append(s[k] - (over[k - 1] if k else 0))
    chi = [mpmath.mpf(0)] + over
    return _inverse(chi, q)[1:]


def free_add_moments(ma: list[Any], mb: list[Any]) -> list[Any]:
    """Moments of ``A ⊞ B``: free cumulants add."""
    ka, kb = moments_to_cumulants(ma), moments_to_cumulants(mb)
    return cumulants_to_moments([a + b for a, b in zip(ka, kb, strict=True)])


def poisson_moments(rate: Any, jump: list[Any]) -> list[Any]:
    """Moments of ``pi(nu, t)``: free cumulants ``t m_q(nu)``."""
    return cumulants_to_moments([rate * x for x in jump])


def affine_moments(scale: Any, shift: Any, m: list[Any]) -> list[Any]:
    """Moments of ``scale X + shift``."""
    full = [mpmath.mpf(1)] + list(m)
    return [mpmath.fsum(comb(n, k) * scale**k * shift**(n - k) * full[k] for k in range(n + 1))
            for n in range(1, len(m) + 1)]


def pushforward_moments(coeffs: list[Any], m: list[Any], q: int) -> list[Any]:
    """``E p(X)^n``, ``n = 1..q``, from ``m = [m_1..m_{q deg p}]``."""
    full = [mpmath.mpf(1)] + list(m)
    out = []
    power = [mpmath.mpf(1)]
    for _ in range(q):
        nxt = [mpmath.mpf(0)] * (len(power) + len(coeffs) - 1)
        for i, a in enumerate(power):
            for j, c in enumerate(coeffs):
                nxt[i + j] += a * c
        power = nxt
        out.append(mpmath.fsum(c * full[k] for k, c in enumerate(power)))
    return out


__all__ = ["affine_moments", "cumulants_to_moments", "free_add_moments", "free_mult_moments",
           "moments_to_cumulants", "poisson_moments", "pushforward_moments"]
