"""Limiting moments of the theory §4 laws at a finite configuration's ratios.

The exact layer is the single source of truth: the moments are the sympy expressions
of :func:`freege.symbolic.moments` (in theta1, theta2, h, gK, gV, gO),
lambdified once per (case, order) and evaluated in float64 at ``theta1 = e^{beta^2} -
1``, ``theta2 = beta^2`` and the exact ratios of the configuration (theory §1.2).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import sympy as sp

from freege.params import Dims
from freege.symbolic import moments
from freege.symbolic.cases import check_case
from freege.symbolic.symbols import gK, gO, gV, h, theta1, theta2

_PARAMETERS = (theta1, theta2, h, gK, gV, gO)


@functools.cache
def _moment_functions(case: str, order: int) -> Callable[..., list[float]]:
    return sp.lambdify(_PARAMETERS, moments(case, order), modules="math")


def limiting_moments(case: str, dims: Dims, order: int = 1) -> list[float]:
    """``[m_1, ..., m_order]`` of the theory §4 law of ``case`` at the ratios of ``dims``."""
    check_case(case)
    if isinstance(order, bool) or not isinstance(order, int) or order < 1:
        raise ValueError(f"order must be an integer >= 1 (got {order!r})")
    r = dims.ratios
    b2 = float(r.beta) ** 2
    values = _moment_functions(case, order)(math.expm1(b2), b2, r.h, float(r.gK),
                                            float(r.gV), float(r.gO))
    return [float(v) for v in values]
