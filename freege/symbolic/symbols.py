"""The symbols of the exact layer (SPEC §1.2, §2, §3).

Laws are derived in ``theta1``, ``theta2`` (kept as symbols: it keeps expressions
small) and the ratios ``h, gK, gV, gO``; :func:`in_beta` expands the thetas in
``beta`` for output (``theta1 = exp(beta^2) - 1``, ``theta2 = beta^2``).
"""

from __future__ import annotations

import sympy as sp

beta, h, gK, gV, gO = sp.symbols("beta h gK gV gO", positive=True)
theta1, theta2 = sp.symbols("theta1 theta2", positive=True)

#: transform variables: S-transform value ``S`` at argument ``w``; Cauchy transform ``G``
#: at ``z``; ridge penalty ``lam``; Laplace variable ``p``
S, w, z, G, lam, p = sp.symbols("S w z G lam p")

#: the parameters every law may depend on, in the order the CLI and JSON list them
PARAMS: tuple[sp.Symbol, ...] = (beta, h, gK, gV, gO)
PARAM_NAMES: tuple[str, ...] = tuple(s.name for s in PARAMS)

THETA_IN_BETA = {theta1: sp.exp(beta**2) - 1, theta2: beta**2}


def in_beta(expr: sp.Expr) -> sp.Expr:
    """Expand ``theta1``, ``theta2`` in ``beta`` (SPEC §2)."""
    return sp.sympify(expr).subs(THETA_IN_BETA)


def parse(text: str) -> sp.Expr:
    """Parse an expression string back with freege's symbols (and their assumptions)."""
    names = {s.name: s for s in (*PARAMS, theta1, theta2, S, w, z, G, lam, p)}
    return sp.sympify(text, locals=names)
