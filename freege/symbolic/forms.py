"""How an exact result is written out (``freege derive --form``): the same expression in one
of three forms, equal as rational functions (theory §3-§5 give the results, not the form).

* ``expanded`` -- as derived: an expanded numerator over an expanded denominator;
* ``factored`` -- :func:`sympy.factor`: ``gK*(theta1 - theta2)**2`` instead of its three
  expanded terms;
* ``collected`` -- the numerator as a sum over the monomials of the main variables
  (``theta1, theta2`` for moments, ``S`` for an S-relation, ``G, z`` for a Cauchy
  polynomial) with each coefficient factored (up to :data:`FACTOR_TERMS_MAX` terms; a
  numerator past :data:`COLLECT_TERMS_MAX` terms is only grouped), over the factored
  denominator: half the
  length of the expanded moments, a tenth of an expanded S-relation, and the structure in
  the variables visible. A closed form with radicals (an explicit ``S(w)``) is kept as
  derived.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from freege.params import DERIVE_FORMS

#: the forms, the default (the most readable) first
FORMS: tuple[str, ...] = DERIVE_FORMS
#: a ``collected`` coefficient of more terms than this is left as it is: factoring the
#: large coefficients of m_10..m_12 took minutes, and they do not factor further
FACTOR_TERMS_MAX = 150
#: a numerator of more terms than this (m_10..m_12 of mha) is only grouped by the powers
#: of the main variables (:func:`sympy.collect`), its coefficients as they are: seconds,
#: not minutes, for an expression no form makes readable
COLLECT_TERMS_MAX = 1000


def in_form(expr: sp.Expr, form: str, variables: Sequence[sp.Symbol]) -> sp.Expr:
    """``expr`` written in ``form`` (:data:`FORMS`), collected in ``variables``; equal to
    ``expr``. ValueError for an unknown form."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {', '.join(FORMS)} (got {form!r})")
    if form == "expanded":
        return expr
    if form == "factored":
        return sp.factor(expr)
    if not expr.is_rational_function():  # a closed form with radicals: kept as derived
        return expr
    # a derived moment is already one product (no together: seconds at order 12)
    numerator, denominator = sp.fraction(expr if expr.is_Mul else sp.together(expr))
    outer, inner = numerator.as_independent(*variables, as_Add=False)
    inner = sp.expand(inner)
    if len(sp.Add.make_args(inner)) > COLLECT_TERMS_MAX:  # beyond reading: grouped only
        terms = sp.collect(inner, list(variables), evaluate=False)
        collected = sp.Add(*(c * monomial for monomial, c in terms.items()))
    else:
        collected = sp.Add(*(
            _factored(c) * sp.Mul(*(v**k for v, k in zip(variables, powers, strict=True)))
            for powers, c in sp.Poly(inner, *variables).terms()))
    return _factored(outer) * collected / _factored(denominator)


def _factored(expr: sp.Expr) -> sp.Expr:
    """``expr`` factored, or as it is when it is a sum of more than
    :data:`FACTOR_TERMS_MAX` terms."""
    return expr if len(sp.Add.make_args(expr)) > FACTOR_TERMS_MAX else sp.factor(expr)
