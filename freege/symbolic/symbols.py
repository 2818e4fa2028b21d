"""The symbols of the exact layer (SPEC §1.2, §2, §3).

Laws are derived in ``theta1``, ``theta2`` (kept as symbols: it keeps expressions
small) and the ratios ``h, gK, gV, gO``; :func:`in_beta` expands the thetas in
``beta`` for output (``theta1 = exp(beta^2) - 1``, ``theta2 = beta^2``).
"""

from __future__ import annotations

import sympy as sp
from sympy.printing.str import StrPrinter

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
    """Parse an expression string (e.g. from :func:`to_text` or ``freege derive``) back with
    freege's symbols and their assumptions."""
    ours = (*PARAMS, theta1, theta2, S, w, z, G, lam, p)
    expr = sp.sympify(text, locals={s.name: s for s in ours})
    return expr.subs({sp.Symbol(s.name): s for s in ours})


class _PlainSympifyPrinter(StrPrinter):
    """Prints symbols whose bare name means something else to ``sympy.sympify`` (``beta``
    is the Beta function, ``S`` the singleton registry) as ``Symbol('name')``."""

    def _print_Symbol(self, expr: sp.Symbol) -> str:
        if not isinstance(sp.sympify(expr.name), sp.Symbol):
            return f"Symbol('{expr.name}')"
        return super()._print_Symbol(expr)


def to_text(expr: sp.Expr) -> str:
    """``expr`` as a string that plain ``sympy.sympify`` parses back to the same expression
    (up to symbol assumptions): ``beta`` and ``S`` are written ``Symbol('beta')``,
    ``Symbol('S')``; every other name is written bare."""
    return _PlainSympifyPrinter().doprint(sp.sympify(expr))
