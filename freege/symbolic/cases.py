"""The limiting laws of theory §4, built from the law algebra (:mod:`freege.symbolic.expressions`).

Each case is the theory §4 table entry written as an expression of the algebra, in the
parameter symbols ``theta1 theta2 h gK gV gO``; its exact law (moments, S-relation,
Cauchy polynomial) is the expression's :attr:`~freege.symbolic.expressions.LawExpr.free_law`:

====================================  =====================================================
``attention``                         ``nu_att = rho_{gK} ⊠ MP_{1/h}``
``head-average``                      ``rho_{gK} ⊠ pi_1``
``head-average-shared-key``           ``rho_{gK/h} ⊠ pi_1``
``value``                             ``nu_att ⊠ pi_{gV}``
``mha`` (independent, GQA, MQA)       ``nu_att ⊠ MP_{1/gV} ⊠ pi_{gO}``
``value-tied``                        ``pi(mu_KV, h)``
``mha-tied``                          ``D_{1/gK}( pi(mu_KV, h) ⊠ pi_{gO} )``
====================================  =====================================================

``rho_t = (theta1 - theta2) + theta2 MP_{1/t}`` and ``mu_KV`` is the image of
``pi_{gK/h}`` under ``phi(x) = (theta1 - theta2) x + (h/gK) theta2 x^2`` (a quadratic
pushforward of the algebra: moments from ``int phi^q``, the Cauchy polynomial by the
exact elimination of :func:`freege.symbolic.additive.polynomial_image`). The
normalized law ``nubar`` (theory §3) is ``D_{1/m_1} nu``. The same expressions print in
the grammar of :mod:`freege.algebra` (``str(case_expression("mha"))``).
"""

from __future__ import annotations

import functools

from freege.params import CASES as CASES
from freege.params import TIED_CASES as TIED_CASES
from freege.params import check_case
from freege.symbolic.expressions import (
    LawExpr,
    affine,
    dilation,
    free_poisson,
    marchenko_pastur,
    pushforward,
)
from freege.symbolic.laws import FreeLaw
from freege.symbolic.symbols import gK, gO, gV, h, theta1, theta2


def rho(t: object) -> LawExpr:
    """``rho_t``: the law of ``(theta1 - theta2) + theta2 X``, ``X ~ MP_{1/t}`` (theory §3)."""
    return affine(marchenko_pastur(1 / t), theta2, theta1 - theta2)


def tied_jump() -> LawExpr:
    """``mu_KV = phi_* pi_{gK/h}`` (theory §4)."""
    return pushforward(free_poisson(gK / h), [0, theta1 - theta2, h * theta2 / gK])


@functools.cache
def case_expression(case: str, normalized: bool = False) -> LawExpr:
    """The theory §4 law of ``case`` as an expression of the algebra; ``normalized``:
    ``nubar``, divided by its mean (theory §3). A ValueError lists the valid names for an
    unknown case."""
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


def tied_jump_law() -> FreeLaw:
    """The exact law of ``mu_KV`` (:func:`tied_jump`)."""
    return tied_jump().free_law


def case_law(name: str, normalized: bool = False) -> FreeLaw:
    """The exact law of case ``name`` (:func:`case_expression`); with ``normalized``,
    ``nubar = D_{1/m_1} nu`` (mean 1, theory §3). A ValueError lists the valid names for
    an unknown case."""
    return case_expression(name, normalized).free_law
