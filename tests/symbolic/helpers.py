"""Shared checks of the symbolic tests."""

from __future__ import annotations

import sympy as sp

from freege.symbolic.symbols import G, S, lam, w, z


def proportional(a: sp.Poly | sp.Expr, b: sp.Poly | sp.Expr) -> bool:
    """``a = k b`` for a nonzero ``k`` free of the equation's variables."""
    a = a.as_expr() if isinstance(a, sp.Poly) else a
    b = b.as_expr() if isinstance(b, sp.Poly) else b
    ratio = sp.cancel(a / b)
    return ratio != 0 and not ratio.has(G, z, S, w, lam)
