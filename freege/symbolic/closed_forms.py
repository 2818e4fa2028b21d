"""Closed forms of the theory §4 laws: moments, free cumulants, S-transforms, dof series.

Every function takes a case name of :data:`freege.symbolic.cases.CASES`, works in the
symbols ``theta1, theta2, h, gK, gV, gO`` (expand with
:func:`freege.symbolic.symbols.in_beta` for output in ``beta``) and is cached in memory
and on disk (:mod:`freege.symbolic.cache`). Results are exact: moments are derived as
rational functions by the law algebra (:mod:`freege.symbolic.laws`) and returned
factored.
"""

from __future__ import annotations

import sympy as sp

from freege.params import MAX_ORDER, positive_int
from freege.symbolic.cache import cached
from freege.symbolic.cases import case_law, check_case
from freege.symbolic.symbols import S, lam


def check_order(order: object) -> int:
    """``order`` as an integer in ``[1, MAX_ORDER]``, else a ValueError naming the range."""
    try:
        q = positive_int("order", order)
    except ValueError:
        q = 0
    if not 1 <= q <= MAX_ORDER:
        raise ValueError(f"order must be an integer in [1, {MAX_ORDER}] (got {order!r})")
    return q


@cached
def moments(case: str, order: int, normalized: bool = False) -> list[sp.Expr]:
    """Moments ``m_1..m_order`` of the theory §4 law of ``case`` (of ``nubar`` when
    ``normalized``, theory §3), exact, factored."""
    check_case(case)
    return case_law(case, normalized).moments(check_order(order))


@cached
def cumulants(case: str, order: int, normalized: bool = False) -> list[sp.Expr]:
    """Free cumulants ``kappa_1..kappa_order`` of the theory §4 law of ``case`` (theory §3)."""
    check_case(case)
    return case_law(case, normalized).cumulants(check_order(order))


@cached
def dof_series(case: str, order: int) -> list[sp.Expr]:
    """Large-``lam`` series of the effective degrees of freedom (theory §5):
    ``w(lam) = sum_{k=1}^{order} c_k lam^{-k} + O(lam^{-order-1})`` with
    ``c_k = (-1)^(k+1) mbar_k``, the moments of the normalized law ``nubar``. Returns
    ``[c_1, ..., c_order]`` (``c_1 = 1``); :func:`dof_expression` sums them."""
    mbar = moments(case, order, True)
    return [(-1) ** (k - 1) * m for k, m in enumerate(mbar, start=1)]


def dof_expression(case: str, order: int) -> sp.Expr:
    """``sum_k c_k lam^{-k}`` of :func:`dof_series`, an expression in ``lam``."""
    return sp.Add(*[c / lam**k for k, c in enumerate(dof_series(case, order), start=1)])


@cached
def s_relation(case: str, normalized: bool = False) -> sp.Expr:
    """The S-relation ``E(S, w)`` of ``case`` (theory §3, §4): a polynomial whose root with
    ``S(0) = 1/m_1`` is the S-transform (exact; tied cases by resultants)."""
    return case_law(check_case(case), normalized).s_relation


@cached
def s_transform(case: str, normalized: bool = False) -> sp.Expr:
    """The S-transform of ``case`` (theory §3, §4): the explicit ``S(w)`` on the branch
    ``S(0) = 1/m_1`` when the relation is of degree <= 2 in ``S`` (every independent
    case), else the relation ``E(S, w)`` (to be read ``E = 0``; it contains the symbol
    ``S``, the explicit form never does)."""
    explicit = case_law(check_case(case), normalized).s_explicit
    return explicit if explicit is not None else s_relation(case, normalized)


def is_relation(expr: sp.Expr) -> bool:
    """Whether an :func:`s_transform` result is a relation ``E(S, w)`` (else explicit)."""
    return expr.has(S)
