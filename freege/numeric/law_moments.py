"""Moments of any order from the Cauchy polynomial's series at infinity (theory §3, §7).

Outside its branch points the physical branch of ``P(G, z) = 0`` is the Laurent series
``G(z) = sum_{k>=0} m_k z^{-k-1}`` (theory §3: ``m_0 = 1``, the atom included). With
``t = 1/z`` and ``G = t M(t)``, ``M = sum_k m_k t^k`` solves ``Q(M, t) = t^D P(t M, 1/t) =
sum_i c_i(t) M^i = 0``, ``D`` the largest ``j - i`` over the terms ``G^i z^j`` (so the
``c_i`` are polynomials in ``t``). ``M(0) = 1`` is a simple root of ``Q(., 0)`` for every
theory §4 law (the other branches at infinity have other leading terms), and then the
coefficient of ``t^k`` is linear in ``m_k``:

    ``m_k = -[t^k] Q(M_{<k}, t) / Q_M(1, 0)``.

:func:`laurent_moments` runs this recurrence with the powers ``M^i`` updated online
(``O(deg q^2)`` operations for ``m_1..m_q``), at the ambient precision; the caller
checks it at two precisions and against quadrature (:meth:`freege.numeric.law.Law.moment`).
"""

from __future__ import annotations

from collections.abc import Sequence

import mpmath

from freege.errors import ConvergenceError


def laurent_moments(
    rows: Sequence[Sequence[mpmath.mpf]], order: int, describe: dict | None = None
) -> list[mpmath.mpf]:
    """``[m_0, ..., m_order]`` of the branch ``G ~ 1/z`` of ``sum_ij rows[i][j] G^i z^j = 0``
    at the ambient precision. :class:`ConvergenceError` when ``M = 1`` is not a simple
    root of ``Q(., 0)`` (no such branch, or two branches share the leading term)."""
    terms = [(i, j, c) for i, row in enumerate(rows) for j, c in enumerate(row) if c != 0]
    top = max(j - i for i, j, _ in terms)
    degree = max(i for i, _, _ in terms)
    # c[i][e]: coefficient of M^i t^e in Q, e = i - j + top >= 0
    width = max(i - j + top for i, j, _ in terms) + 1
    c = [[mpmath.mpf(0)] * width for _ in range(degree + 1)]
    for i, j, coeff in terms:
        c[i][i - j + top] = coeff
    lead = [c[i][0] for i in range(degree + 1)]
    size = sum(abs(v) for v in lead)
    slope = sum(i * v for i, v in enumerate(lead))
    eps = mpmath.mpf(2) ** (8 - mpmath.mp.prec)
    if abs(sum(lead)) > eps * size or abs(slope) <= mpmath.sqrt(eps) * size:
        raise ConvergenceError("moments from the series at infinity",
                               "M = 1 is not a simple root of Q(M, 0)", describe or {})
    # powers[i][k] = [t^k] M^i for the coefficients known so far
    powers = [[mpmath.mpf(1)] for _ in range(degree + 1)]
    m = [mpmath.mpf(1)]
    for k in range(1, order + 1):
        partial = [mpmath.mpf(0)] * (degree + 1)  # [t^k] M^i with m_k = 0
        for i in range(1, degree + 1):
            prev = powers[i - 1]
            partial[i] = partial[i - 1] + mpmath.fsum(m[a] * prev[k - a] for a in range(1, k))
        total = mpmath.fsum(
            c[i][e] * (partial[i] if e == 0 else powers[i][k - e])
            for i in range(degree + 1) for e in range(min(width, k + 1)) if c[i][e] != 0
        )
        mk = -total / slope
        m.append(mk)
        for i in range(degree + 1):
            powers[i].append(partial[i] + i * mk)
    return m
