"""Truncated power series and the moment / free-cumulant / S / R conversions (theory §3).

A series is a list of coefficients ``[a_0, a_1, ..., a_{n-1}]`` (``a_k`` multiplies
``z^k``) over any exact field: :class:`fractions.Fraction`, sympy numbers, or elements of
:data:`FIELD` (rational functions of the theory's parameters, where arithmetic is fast and
canonical). Every routine is exact arithmetic on coefficient lists -- products, powers
by the J. C. P. Miller recurrence and reversion by Lagrange inversion -- never
``sympy.series`` on nested expressions. The transforms (theory §3):

* ``psi(z) = sum_{k>=1} m_k z^k``, ``chi = psi^{-1}``, ``S(w) = chi(w) (1 + w) / w``
  (``S(0) = 1/m_1``);
* ``R(z) = sum_q kappa_q z^{q-1}``; with ``M = 1 + psi`` and ``C(u) = 1 + u R(u)``,
  ``M(z) = C(z M(z))``, so by Lagrange inversion
  ``m_n = [u^n] C(u)^{n+1} / (n + 1)`` and ``kappa_n = [z^{n-1}] M'(z) M(z)^{-n} / n``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from freege.symbolic.symbols import gK, gO, gV, h, theta1, theta2

#: exact rational functions of the theory's parameters: the coefficient field of the laws
FIELD = sp.field([theta1, theta2, h, gK, gV, gO], sp.QQ)[0]

Coeffs = list[Any]


def _zero(a: Sequence[Any]) -> Any:
    return a[0] - a[0]


def _one(a: Sequence[Any]) -> Any:
    """The 1 of the coefficients' field (``a[0] ** 0`` fails when ``a[0] == 0`` in
    :data:`FIELD`, and ``FIELD.zero + 1`` is a Python int there)."""
    zero = _zero(a)
    return zero.field.one if hasattr(zero, "field") else zero + 1


def mul(a: Sequence[Any], b: Sequence[Any], n: int) -> Coeffs:
    """First ``n`` coefficients of the product ``a(z) b(z)``."""
    zero = _zero(a)
    out = []
    for k in range(n):
        acc = zero
        for i in range(max(0, k - len(b) + 1), min(k, len(a) - 1) + 1):
            acc = acc + a[i] * b[k - i]
        out.append(acc)
    return out


def power(a: Sequence[Any], alpha: int, n: int) -> Coeffs:
    """First ``n`` coefficients of ``a(z)^alpha`` (``a_0 != 0``; ``alpha`` any integer).

    J. C. P. Miller's recurrence ``b_k = sum_{j=1}^k ((alpha+1) j - k) a_j b_{k-j} / (k a_0)``,
    exact, O(n^2) operations.
    """
    if a[0] == 0:
        raise ValueError("power needs a series with a nonzero constant term")
    b0 = a[0] ** alpha if alpha >= 0 else 1 / a[0] ** (-alpha)
    out = [b0]
    for k in range(1, n):
        acc = _zero(a)
        for j in range(1, min(k, len(a) - 1) + 1):
            acc = acc + ((alpha + 1) * j - k) * a[j] * out[k - j]
        out.append(acc / (k * a[0]))
    return out[:n]


def compose(a: Sequence[Any], b: Sequence[Any], n: int) -> Coeffs:
    """First ``n`` coefficients of ``a(b(z))`` for ``b_0 = 0`` (Horner's scheme)."""
    if b[0] != 0:
        raise ValueError("compose needs an inner series without constant term")
    zero = _zero(a)
    out = [zero] * n
    for coeff in reversed(a[:n]):
        out = mul(out, b, n)
        out[0] = out[0] + coeff
    return out


def reversion(f: Sequence[Any], n: int) -> Coeffs:
    """First ``n`` coefficients of the compositional inverse ``g`` of ``f`` (``g(f(z)) = z``),
    for ``f_0 = 0``, ``f_1 != 0``: Lagrange inversion ``g_k = [z^{k-1}] (z/f(z))^k / k``."""
    if f[0] != 0 or f[1] == 0:
        raise ValueError("reversion needs f_0 = 0 and f_1 != 0")
    zero = _zero(f)
    shifted = list(f[1:n + 1])  # f(z)/z
    out = [zero]
    for k in range(1, n):
        out.append(power(shifted, -k, k)[k - 1] / k)
    return out


def cumulants_to_moments(kappa: Sequence[Any]) -> Coeffs:
    """Moments ``[m_1..m_N]`` from free cumulants ``[kappa_1..kappa_N]`` (theory §3):
    ``m_n = [u^n] C(u)^{n+1} / (n+1)``, ``C(u) = 1 + sum_q kappa_q u^q``."""
    one = _one(kappa)
    c = [one, *kappa]
    return [power(c, k + 1, k + 1)[k] / (k + 1) for k in range(1, len(kappa) + 1)]


def moments_to_cumulants(m: Sequence[Any]) -> Coeffs:
    """Free cumulants ``[kappa_1..kappa_N]`` from moments ``[m_1..m_N]`` (theory §3):
    ``kappa_n = [z^{n-1}] M'(z) M(z)^{-n} / n`` with ``M = 1 + sum_k m_k z^k``."""
    one = _one(m)
    big_m = [one, *m]
    deriv = [(k + 1) * big_m[k + 1] for k in range(len(m))]
    return [mul(deriv, power(big_m, -k, k), k)[k - 1] / k for k in range(1, len(m) + 1)]


def moments_to_s(m: Sequence[Any]) -> Coeffs:
    """S-transform coefficients ``[s_0..s_{N-1}]`` from moments ``[m_1..m_N]`` (``m_1 != 0``):
    ``chi = psi^{-1}`` by Lagrange inversion, ``S(w) = chi(w) (1 + w) / w`` (theory §3)."""
    zero = _zero(m)
    chi = reversion([zero, *m], len(m) + 1)
    chi_over_w = chi[1:]
    return [chi_over_w[k] + (chi_over_w[k - 1] if k else zero) for k in range(len(m))]


def s_to_moments(s: Sequence[Any]) -> Coeffs:
    """Moments ``[m_1..m_N]`` from S coefficients ``[s_0..s_{N-1}]`` (``s_0 != 0``):
    ``psi = chi^{-1}`` with ``chi(w) = w S(w) / (1 + w)``, so by Lagrange inversion
    ``m_k = [w^{k-1}] ((1 + w) / S(w))^k / k``."""
    one = _one(s)
    ratio = mul([one, one], power(s, -1, len(s)), len(s))
    return [power(ratio, k, k)[k - 1] / k for k in range(1, len(s) + 1)]


def conv_inverse_linear_moments(m: Sequence[Any], a: Any, b: Any) -> Coeffs:
    """Moments of ``nu ⊠ lambda`` from ``[m_1..m_N]`` of ``nu``, for a law ``lambda`` with
    ``S_lambda(w) = 1 / (a + b w)`` (``pi_t``: ``(t, 1)``; ``MP_s``: ``(1, s)``; theory §3).

    ``chi`` is divided by ``a + b w``, so ``u = psi_new(z)`` solves ``u = psi_nu(z (a + b u))``;
    with ``v = z (a + b u)``, ``v = z (a + b psi_nu(v))`` and Lagrange inversion gives
    ``m_n = [v^{n-1}] psi_nu'(v) (a + b psi_nu(v))^n / n``: no division by moments, which
    keeps the rational-function arithmetic small."""
    zero = _zero(m)
    deriv = [(k + 1) * m[k] for k in range(len(m))]
    phi = [a + zero, *[b * mk for mk in m]]
    return [mul(deriv, power(phi, n, n), n)[n - 1] / n for n in range(1, len(m) + 1)]


def s_product_moments(factors: Sequence[Sequence[Any]]) -> Coeffs:
    """Moments of a free multiplicative convolution (theory §3: ``⊠`` multiplies S-transforms)
    from the moment lists ``[m_1..m_N]`` of its factors."""
    n = min(len(f) for f in factors)
    s = moments_to_s(factors[0][:n])
    for other in factors[1:]:
        s = mul(s, moments_to_s(other[:n]), n)
    return s_to_moments(s)

