"""The exact layer (sympy): the single source of truth for every formula of theory §3-§5.

Public functions (case names from :data:`CASES`; results in ``theta1, theta2, h, gK,
gV, gO``, expand with :func:`in_beta`):

* :func:`moments`, :func:`cumulants` -- ``m_1..m_q``, ``kappa_1..kappa_q`` (theory §3, §4);
* :func:`dof_series` -- large-``lam`` coefficients of ``w(lam)`` (theory §5);
* :func:`s_transform`, :func:`s_relation` -- the S-transform (theory §3, §4).

The building blocks live in :mod:`~freege.symbolic.series` (series, transforms),
:mod:`~freege.symbolic.laws` (the exact law :class:`~freege.symbolic.laws.FreeLaw` and
its constructors), :mod:`~freege.symbolic.additive` (laws carried by their Cauchy
polynomial: semicircle, atomic laws, ``⊞`` by resultants, quadratic images),
:mod:`~freege.symbolic.expressions` (the law algebra's expressions),
:mod:`~freege.symbolic.pushforward` (the tied jump law in generic symbols) and
:mod:`~freege.symbolic.cases` (the theory §4 laws, expressions of the algebra). The
equations the numeric layer solves are in :mod:`~freege.symbolic.equations` (per case),
built with the generic maps of
:mod:`~freege.symbolic.transforms` (S-relation <-> Cauchy polynomial <-> ridge
polynomial). Imports run one way: symbols, cache, series, transforms -> laws ->
additive -> pushforward, expressions -> cases -> closed_forms -> equations. The public,
composable form of the algebra is :mod:`freege.algebra`.
"""

from freege.symbolic.cases import CASES, case_law
from freege.symbolic.closed_forms import (
    MAX_ORDER,
    cumulants,
    dof_expression,
    dof_series,
    moments,
    s_relation,
    s_transform,
)
from freege.symbolic.symbols import in_beta

__all__ = [
    "CASES",
    "MAX_ORDER",
    "case_law",
    "cumulants",
    "dof_expression",
    "dof_series",
    "in_beta",
    "moments",
    "s_relation",
    "s_transform",
]
