"""Finite-width row coefficients and the moments they give (theory §2.3).

At a finite per-head key width ``dK`` the score row of query ``q_i`` has variance
``v_i = |q_i|^2 / dK`` with ``dK v_i`` chi-square with ``dK`` degrees of freedom, so row
``i`` carries its own coefficients ``theta1_i = e^{beta^2 v_i} - 1``,
``theta2_i = beta^2 v_i``. Everything here follows from the chi-square moment generating
function ``M(t) = E e^{t v} = (1 - 2t/dK)^{-dK/2}`` (``t < dK/2``) and its derivative
``M'(t) = E v e^{t v} = (1 - 2t/dK)^{-dK/2 - 1}``:

* the mean coefficient ``theta1_bar = M(beta^2) - 1`` (``theta2`` keeps its mean
  ``beta^2``, since ``E v = 1``);
* the row load ``l(v)``: a row's expected share of the trace of the Gram, up to a
  constant factor, ``e^{beta^2 v} - 1`` untied and ``e^{beta^2 v} - 1 + beta^2 v h/gK``
  tied (values equal to keys), with its mean and variance;
* the first two moments of the finite-width law: the theory §4 moments at
  ``theta1 = theta1_bar`` with ``m2`` raised by ``m1^2 Var(l) / (h E[l]^2)``.
"""

from __future__ import annotations

import sympy as sp

from freege.symbolic.symbols import beta, gK, h, theta1

#: the per-head key width (a symbol: the formulas hold for every dK above their bound)
dK = sp.Symbol("dK", positive=True)

#: the cases whose rows concatenate per-head blocks (theory §2.3 derives these only)
CASES: tuple[str, ...] = ("attention", "value", "mha", "value-tied", "mha-tied")


def chi2_mgf(t: sp.Expr, derivative: int = 0) -> sp.Expr:
    """``E v^k e^{t v}`` for ``v = chi2_dK / dK`` and ``k = derivative`` in {0, 1}:
    ``(1 - 2t/dK)^{-dK/2 - k}`` (finite for ``t < dK/2``)."""
    if derivative not in (0, 1):
        raise ValueError(f"derivative must be 0 or 1 (got {derivative!r})")
    return (1 - 2 * t / dK) ** (-dK / 2 - derivative)


def theta1_mean() -> sp.Expr:
    """``theta1_bar = E theta1_i = (1 - 2 beta^2/dK)^{-dK/2} - 1`` (needs ``dK > 2 beta^2``)."""
    return chi2_mgf(beta**2) - 1


def _check_case(case: str) -> bool:
    if case not in CASES:
        raise ValueError(f"case must be one of {', '.join(CASES)} (got {case!r})")
    return case.endswith("-tied")


def row_load(case: str) -> tuple[sp.Expr, sp.Expr]:
    """``(E l, Var l)`` of the row load ``l(v)`` of ``case`` (module docstring). With
    ``E v = 1``, ``Var v = 2/dK`` and ``kappa = beta^2 h/gK`` (tied; 0 untied):
    ``Var l = M(2 beta^2) - M(beta^2)^2 + 2 kappa (M'(beta^2) - M(beta^2)) + 2 kappa^2/dK``
    (needs ``dK > 4 beta^2``)."""
    kappa = beta**2 * h / gK if _check_case(case) else sp.Integer(0)
    m, m2 = chi2_mgf(beta**2), chi2_mgf(2 * beta**2)
    mean = m - 1 + kappa
    var = m2 - m**2 + 2 * kappa * (chi2_mgf(beta**2, 1) - m) + 2 * kappa**2 / dK
    return mean, var


def moments(case: str) -> list[sp.Expr]:
    """``[m1, m2]`` of the finite-width law of ``case`` (theory §2.3) in ``beta, dK, h,
    gK, gV, gO``: the theory §4 moments with ``theta1 = theta1_bar`` and ``theta2 =
    beta^2``; ``m2`` plus ``m1^2 Var(l) / (h E[l]^2)``."""
    from freege.symbolic.closed_forms import moments as limit_moments
    from freege.symbolic.symbols import THETA_IN_BETA, theta2

    _check_case(case)
    m1, m2 = (e.subs({theta1: theta1_mean(), theta2: THETA_IN_BETA[theta2]})
              for e in limit_moments(case, 2))
    mean, var = row_load(case)
    return [m1, m2 + m1**2 * var / (h * mean**2)]
