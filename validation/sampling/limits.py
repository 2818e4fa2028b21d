"""Limiting moments of the theory §4 laws at a finite configuration's ratios.

The exact layer is the single source of truth: the moments are the sympy expressions
of :func:`freege.symbolic.moments` (in theta1, theta2, h, gK, gV, gO), printed once as
plain arithmetic by :mod:`freege.numeric.compiled` (cached on disk, keyed by the symbolic
sources, so a warm run imports no sympy) and evaluated in float64 at ``theta1 =
e^{beta^2} - 1``, ``theta2 = beta^2`` and the exact ratios of the configuration (theory
§1.2).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from freege.params import Dims, check_case


def _moment_function(case: str, order: int) -> Callable[..., list]:
    """``[m_1..m_order]`` of ``case`` as a generated function of the parameters."""
    from freege.numeric import compiled

    def build() -> list:
        from freege.symbolic import moments

        return list(moments(case, order))

    return compiled.function(f"limiting-moments-{case}-{order}", build)


def limiting_moments(case: str, dims: Dims, order: int = 1) -> list[float]:
    """``[m_1, ..., m_order]`` of the theory §4 law of ``case`` at the ratios of ``dims``."""
    check_case(case)
    if isinstance(order, bool) or not isinstance(order, int) or order < 1:
        raise ValueError(f"order must be an integer >= 1 (got {order!r})")
    r = dims.ratios
    b2 = float(r.beta) ** 2
    values = _moment_function(case, order)(math.expm1(b2), b2, float(r.h), float(r.gK),
                                           float(r.gV), float(r.gO), lambda p, q: p / q)
    return [float(v) for v in values]
