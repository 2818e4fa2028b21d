"""The numeric layer's one door into :mod:`freege.symbolic` (theory §3-§5).

Every solver of :mod:`freege.numeric` is lambdified from the exact expressions returned
here, never retyped; keeping the imports in one module keeps the contract in one place.
The symbolic layer caches its derivations (memory and disk); results are also memoised
here per ``(case, normalized)``.
"""

from __future__ import annotations

import functools

import sympy as sp

from freege import symbolic
from freege.symbolic import equations
from freege.symbolic.symbols import S, gK, gO, gV, h, lam, theta1, theta2, w

#: parameter symbols in the order :class:`freege.numeric.law.Law` supplies their values
PARAMETERS: tuple[sp.Symbol, ...] = (theta1, theta2, h, gK, gV, gO)
#: the variables of the ridge polynomial F(w, lam) (theory §5)
RIDGE_VARIABLES: tuple[sp.Symbol, sp.Symbol] = (w, lam)


@functools.cache
def cauchy_polynomial(case: str, normalized: bool) -> sp.Poly:
    """``P(G, z)`` of the case (theory §3 polynomial method), gens ``(G, z)``."""
    return equations.cauchy_polynomial(case, normalized)


@functools.cache
def s_polynomial(case: str, normalized: bool) -> sp.Poly:
    """The S-relation ``E(S, w)`` as a Poly in gens ``(S, w)`` (theory §3), the image of
    :func:`cauchy_polynomial` under ``G = S w``, ``z = (1 + w)/(S w)``."""
    return sp.Poly(equations.s_relation_from_cauchy(cauchy_polynomial(case, normalized)), S, w)


@functools.cache
def moment_expressions(case: str, order: int, normalized: bool) -> tuple[sp.Expr, ...]:
    """Exact ``m_1..m_order`` (theory §3, §4)."""
    return tuple(symbolic.moments(case, order, normalized))


@functools.cache
def ridge_polynomial(case: str) -> sp.Poly:
    """``F(w, lam)`` of the normalized law (theory §5), gens ``(w, lam)``."""
    return equations.ridge_polynomial(case)


@functools.cache
def ridge_derivatives(case: str) -> tuple[sp.Poly, sp.Poly]:
    """``(F_w, F_lam)`` of :func:`ridge_polynomial` (theory §5)."""
    return equations.ridge_derivatives(case)


@functools.cache
def ridge_lambda_coefficients(case: str) -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr]:
    """``(a0, a1, a2, D)`` of ``F = a2 lam^2 + a1 lam + a0`` and ``D = a1^2 - 4 a0 a2``,
    factored, functions of ``w`` and the parameters (theory §5)."""
    return equations.ridge_lambda_coefficients(case)
