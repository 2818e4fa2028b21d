"""Numeric laws that compose where the algebra can (docs/algebra.md, "Composing laws";
theory §3): ``law1 + law2`` is the numeric law of ``expr1 ⊞ expr2``, ``law1 * law2`` of
``expr1 ⊠ expr2``, a number shifts (``+``) or dilates (``*``).

A law composes when its expression is known: an expression law
(:class:`freege.numeric.expression_law.ExpressionLaw`, its ``expr``), a law from data
(:class:`freege.numeric.data_law.DataLaw`, whose spec is a
:class:`freege.algebra.data.DataExpr`'s) or a theory §4 case law, whose recipe
(:mod:`freege.numeric.law_recipe`) names the case and the ratios: its expression is
:func:`freege.symbolic.cases.case_expression` with ``theta1 = exp(beta^2) - 1`` and
``theta2 = beta^2`` exact (theory §2). The operators are every law's
(:class:`freege.numeric.law_family.Law`), so any two of these compose directly, two case
laws included; any other operand (a finite-width law, whose spectrum is computed from its
configuration, not from an expression) is a TypeError saying what composes. The result is
computed at the finer precision of the two (float64 only when both are).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: what a TypeError says composes
COMPOSES = ("numeric laws compose where their expression is known: an expression law "
            "(freege.algebra ... .law()), a law from data or a theory §4 case law, with "
            "another of these or a number (+ shifts, * dilates)")


def expression_of(law: Any) -> Any | None:
    """The expression (:class:`freege.symbolic.expressions.LawExpr`) of ``law``, or None
    when it has none known (module docstring)."""
    expr = getattr(law, "exact", None) or getattr(law, "expr", None)  # constants exact
    if expr is not None and hasattr(expr, "cauchy_polynomial"):
        return expr
    recipe = getattr(law, "recipe", None)
    if recipe is None:
        return None
    try:
        kind, args = recipe()
    except (TypeError, ValueError):
        return None
    if kind == "data":
        if _DATA_EXPRESSION is None:
            raise TypeError("a law from data composes through its expression: import "
                            "freege.algebra first")
        spec, _dps, text = args
        return _DATA_EXPRESSION(spec, text)
    if kind != "law":
        return None
    import sympy as sp

    from freege.symbolic.cases import case_expression

    case, (beta, h, gK, gV, gO, _sharing), normalized, _dps = args
    b2 = sp.Rational(str(beta)) ** 2
    return case_expression(case, normalized).subs(
        {"theta1": sp.exp(b2) - 1, "theta2": b2, "h": h, "gK": gK, "gV": gV, "gO": gO})


def _finer(a: int | None, b: int | None) -> int | None:
    return a if b is None else b if a is None else max(a, b)


#: the algebra's ``(spec, text) -> DataExpr`` (:func:`register_data_expression`)
_DATA_EXPRESSION: Callable[[Any, str], Any] | None = None


def register_data_expression(build: Callable[[Any, str], Any]) -> None:
    """Called by :mod:`freege.algebra.data` on import: the expression of a law from data
    (its recipe's spec and text; the numeric layer does not import the algebra above it)."""
    global _DATA_EXPRESSION
    _DATA_EXPRESSION = build


def compose(law: Any, other: Any, op: Callable[[Any, Any], Any]) -> Any:
    """The numeric law of ``op(expression of law, other's expression or other)``; a
    TypeError (:data:`COMPOSES`) when ``other`` is a law without a known expression or
    not a number."""
    expr = expression_of(law)
    if expr is None:
        raise TypeError(f"{type(law).__name__} has no known expression: {COMPOSES}")
    dps = law.dps
    if hasattr(other, "pdf") or hasattr(other, "recipe"):  # another law
        other_expr = expression_of(other)
        if other_expr is None:
            raise TypeError(f"{type(other).__name__} has no known expression: {COMPOSES}")
        dps = _finer(dps, getattr(other, "dps", None))
        other = other_expr
    elif not isinstance(other, int | float | str) and not hasattr(other, "numerator") \
            and not hasattr(other, "is_number"):
        raise TypeError(f"cannot compose a law with {type(other).__name__}: {COMPOSES}")
    if _is_data(expr) or _is_data(other):
        expr, other = _rational(expr, dps), _rational(other, dps)
    return op(expr, other).law(dps)


def _is_data(x: Any) -> bool:
    return bool(getattr(x, "is_data_expr", False))


def _rational(x: Any, dps: int | None) -> Any:
    """``x`` for a law from data, which takes rational numbers: an expression's exact
    constants rounded as its own numeric law rounds them (``LawExpr.rounded``)."""
    return x.rounded(dps) if hasattr(x, "rounded") and not _is_data(x) else x
