"""The seven theory §4 laws as expressions of the algebra (docs/algebra.md).

The same compositions as :mod:`freege.symbolic.cases`, spelled with
:mod:`freege.algebra.expressions` in the parameter symbols ``theta1 theta2 h gK gV gO``:

* ``rho_t = (theta1 - theta2) + theta2 MP_{1/t}``, ``nu_att = rho_{gK} ⊠ MP_{1/h}``;
* ``mu_KV`` is the image of ``pi_{gK/h}`` under ``phi(x) = (theta1 - theta2) x +
  (h/gK) theta2 x^2``; the tied laws are compound free Poisson laws of jump law
  ``mu_KV``.

Bind the parameters with :meth:`~freege.algebra.expressions.LawExpr.subs`.
"""

from __future__ import annotations

from freege.algebra.expressions import (
    LawExpr,
    affine,
    dilation,
    free_poisson,
    marchenko_pastur,
    pushforward,
)
from freege.params import check_case
from freege.symbolic.symbols import gK, gO, gV, h, theta1, theta2


def rho(t: object) -> LawExpr:
    """``rho_t``: the law of ``(theta1 - theta2) + theta2 X``, ``X ~ MP_{1/t}`` (theory §3)."""
    return affine(marchenko_pastur(1 / t), theta2, theta1 - theta2)


def tied_jump() -> LawExpr:
    """``mu_KV = phi_* pi_{gK/h}`` (theory §4)."""
    return pushforward(free_poisson(gK / h), [0, theta1 - theta2, h * theta2 / gK])


def case_expression(case: str, normalized: bool = False) -> LawExpr:
    """The theory §4 law of ``case`` as an expression; ``normalized``: divided by its
    mean (theory §3). A ValueError lists the valid names for an unknown case."""
    case = check_case(case)
    attention = rho(gK) * marchenko_pastur(1 / h)
    built = {
        "attention": lambda: attention,
        "head-average": lambda: rho(gK) * free_poisson(1),
        "head-average-shared-key": lambda: rho(gK / h) * free_poisson(1),
        "value": lambda: attention * free_poisson(gV),
        "mha": lambda: attention * marchenko_pastur(1 / gV) * free_poisson(gO),
        "value-tied": lambda: free_poisson(h, tied_jump()),
        "mha-tied": lambda: dilation(free_poisson(h, tied_jump()) * free_poisson(gO), 1 / gK),
    }[case]()
    return dilation(built, 1 / built.mean) if normalized else built
