"""The symbols of the exact layer (theory §1.2, §2, §3).

Laws are derived in ``theta1``, ``theta2`` (kept as symbols: it keeps expressions
small) and the ratios ``h, gK, gV, gO``; :func:`in_beta` expands the thetas in
``beta`` for output (``theta1 = exp(beta^2) - 1``, ``theta2 = beta^2``).
:func:`to_latex` prints them with their mathematical names (gamma_K, theta_1, beta, ...
in LaTeX) and :class:`Derived` shows a derived expression as LaTeX in Jupyter.
"""

from __future__ import annotations

import functools

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

#: LaTeX names of the symbols whose plain names sympy would print wrongly (``gK`` as the
#: product ``g K``, ``theta1`` as ``theta_{1}``); used as ``sympy.latex(symbol_names=...)``
LATEX_NAMES: dict[sp.Symbol, str] = {
    beta: r"\beta", gK: r"\gamma_K", gV: r"\gamma_V", gO: r"\gamma_O",
    theta1: r"\theta_1", theta2: r"\theta_2", lam: r"\lambda",
}

THETA_IN_BETA = {theta1: sp.exp(beta**2) - 1, theta2: beta**2}


def in_beta(expr: sp.Expr) -> sp.Expr:
    """Expand ``theta1``, ``theta2`` in ``beta`` (theory §2)."""
    return sp.sympify(expr).subs(THETA_IN_BETA)


def parse(text: str) -> sp.Expr:
    """Parse an expression string (e.g. from :func:`to_text` or ``freege derive``) back with
    freege's symbols and their assumptions."""
    ours = (*PARAMS, theta1, theta2, S, w, z, G, lam, p)
    expr = sp.sympify(text, locals={s.name: s for s in ours})
    return expr.subs({sp.Symbol(s.name): s for s in ours})


@functools.cache
def _name_is_plain(name: str) -> bool:
    """Whether plain ``sympy.sympify`` reads ``name`` back as a symbol (a pure function of
    the name, so parsed once per name: a derivation prints thousands of symbols)."""
    return isinstance(sp.sympify(name), sp.Symbol)


class _PlainSympifyPrinter(StrPrinter):
    """Prints symbols whose bare name means something else to ``sympy.sympify`` (``beta``
    is the Beta function, ``S`` the singleton registry) as ``Symbol('name')``."""

    def _print_Symbol(self, expr: sp.Symbol) -> str:
        if not _name_is_plain(expr.name):
            return f"Symbol('{expr.name}')"
        return super()._print_Symbol(expr)


def to_text(expr: sp.Expr) -> str:
    """``expr`` as a string that plain ``sympy.sympify`` parses back to the same expression
    (up to symbol assumptions): ``beta`` and ``S`` are written ``Symbol('beta')``,
    ``Symbol('S')``; every other name is written bare."""
    return _PlainSympifyPrinter().doprint(sp.sympify(expr))


def to_latex(expr: sp.Expr) -> str:
    """``expr`` as LaTeX with freege's symbol names (:data:`LATEX_NAMES`): ``gK`` is
    ``\\gamma_K``, ``theta1`` is ``\\theta_1``, ``lam`` is ``\\lambda``. Only the printing
    changes; the symbols themselves keep their names."""
    return sp.latex(sp.sympify(expr), symbol_names=LATEX_NAMES)


class Derived:
    """A derived expression, optionally named (e.g. ``m_2``), that renders as LaTeX in
    Jupyter (``_repr_latex_``, via :func:`to_latex`) and as plain text elsewhere
    (:func:`to_text`, which ``sympy.sympify`` reads back). ``.expr`` is the sympy
    expression itself."""

    def __init__(self, expr: sp.Expr, name: str | None = None) -> None:
        self.expr = sp.sympify(expr)
        self.name = name

    def latex(self) -> str:
        """``name = expression`` (or the expression alone) in LaTeX, without ``$``."""
        body = to_latex(self.expr)
        return body if self.name is None else f"{self.name} = {body}"

    def _repr_latex_(self) -> str:
        return f"${self.latex()}$"

    def __str__(self) -> str:
        body = to_text(self.expr)
        return body if self.name is None else f"{self.name} = {body}"

    def __repr__(self) -> str:
        return f"Derived({to_text(self.expr)!r}, name={self.name!r})"
