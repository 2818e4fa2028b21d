"""The numeric layer's one door into :mod:`freege.symbolic` (SPEC §3-§5).

Every solver of :mod:`freege.numeric` is lambdified from the exact expressions returned
here, never retyped; keeping the imports in one module keeps the contract in one place.
All results are memoised per ``(case, normalized)`` (the symbolic layer caches on disk).
"""

from __future__ import annotations

import functools

import sympy as sp

from freege.symbolic import cases, equations
from freege.symbolic.symbols import gK, gO, gV, h, theta1, theta2

#: parameter symbols in the order :func:`freege.numeric.law.Law` supplies their values
PARAMETERS: tuple[sp.Symbol, ...] = (theta1, theta2, h, gK, gV, gO)


@functools.cache
def cauchy_polynomial(case: str, normalized: bool) -> sp.Poly:
    """``P(G, z)`` of the case (SPEC §3 polynomial method), gens ``(G, z)``."""
    law = cases.case_law(case, normalized=normalized)
    return equations.cauchy_from_s_relation(law.s_relation)


@functools.cache
def s_polynomial(case: str, normalized: bool) -> sp.Poly:
    """The S-relation ``E(S, w)`` as a Poly in gens ``(S, w)`` (SPEC §3)."""
    from freege.symbolic.symbols import S, w

    return sp.Poly(equations.s_relation_from_cauchy(cauchy_polynomial(case, normalized)), S, w)


@functools.cache
def moment_expressions(case: str, order: int, normalized: bool) -> tuple[sp.Expr, ...]:
    """Exact ``m_1..m_order`` (SPEC §3, §4)."""
    return tuple(cases.case_law(case, normalized=normalized).moments(order))


@functools.cache
def ridge_polynomial(case: str) -> sp.Poly:
    """``F(w, lam)`` of the normalized law (SPEC §5), gens ``(w, lam)``."""
    return equations.ridge_from_s_relation(cases.case_law(case, normalized=True).s_relation)
