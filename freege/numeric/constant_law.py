"""The numeric law of an expression holding exact constants (``mp(exp(1) - 1)``;
docs/algebra.md, "Constants"; theory §3, §7).

The numeric machinery (:class:`freege.numeric.expression_law.ExpressionLaw`) solves a
Cauchy polynomial with rational coefficients, so :class:`ConstantExpressionLaw` is the
law of the expression with each number holding a constant rounded to ``dps`` +
:data:`freege.symbolic.open_field.GUARD_DIGITS` significant digits
(:meth:`freege.symbolic.expressions.LawExpr.rounded`), and keeps the exact expression:
another precision (``with_dps``, the independent route of ``estimate`` at ``dps + 10``)
rounds the constants again for it, and the law is named, compared and pickled by the
exact text (which reads back to it).
"""

from __future__ import annotations

from typing import Any

from freege.numeric import law_recipe
from freege.numeric.expression_law import ExpressionLaw
from freege.symbolic.expressions import register_constant_law


class ConstantExpressionLaw(ExpressionLaw):
    """The numeric law of ``exact`` (an expression with constants) at ``dps`` digits
    (None: float64); ``expr`` is the rounded expression it solves, ``exact`` the one it
    stands for."""

    def __init__(self, exact: Any, dps: int | None = None) -> None:
        self.exact = exact
        super().__init__(exact.rounded(dps), dps)

    def __repr__(self) -> str:
        return f"ConstantExpressionLaw({str(self.exact)!r}, dps={self.dps})"

    def __str__(self) -> str:
        return str(self.exact)

    def recipe(self) -> law_recipe.Recipe:
        """``("expression", exact text, dps)``: rebuilt by parsing the exact text."""
        return law_recipe.recipe("expression", str(self.exact), self.dps)

    def _identity(self) -> tuple[Any, ...]:
        return "expression", str(self.exact), self.dps

    def with_dps(self, dps: int | None) -> ConstantExpressionLaw:
        """The same exact law at ``dps``, its constants rounded anew."""
        return ConstantExpressionLaw(self.exact, dps)

    def certify_data(self) -> Any:
        """Refused: certified balls are rigorous for the law they are computed from, and
        this one's constants are rounded (a ValueError of one line)."""
        raise ValueError(f"--certify: {self.exact} holds exact constants, which the numeric "
                         "law rounds; certified balls need rational parameters (bind "
                         "them to rationals)")

    def as_normalized(self) -> ExpressionLaw:
        """The law divided by its exact mean (theory §3); a ValueError for mean 0."""
        mean = self.exact.mean
        if mean == 0:
            raise ValueError(f"{self.exact} has mean 0: no normalized law")
        return self if mean == 1 else (self.exact / mean).law(self.dps)


register_constant_law(ConstantExpressionLaw)

__all__ = ["ConstantExpressionLaw"]
