"""Limiting moments of the SPEC §4 laws at a finite configuration's ratios.

Temporary: only the SPEC §4 mean column (m1), until ``freege.symbolic.moments`` lands
and becomes the single source of truth.
"""

from __future__ import annotations

import math

from freege.params import Dims
from validation.sample import CASES


def limiting_moments(case: str, dims: Dims, order: int = 1) -> list[float]:
    """``[m_1, ..., m_order]`` of the SPEC §4 law of ``case`` at the ratios of ``dims``."""
    if case not in CASES:
        raise ValueError(f"case must be one of {', '.join(CASES)} (got {case!r})")
    if order != 1:
        raise NotImplementedError("higher limiting moments come from freege.symbolic")
    r = dims.ratios
    t1, t2 = math.expm1(float(r.beta) ** 2), float(r.beta) ** 2
    h, gK, gV, gO = r.h, float(r.gK), float(r.gV), float(r.gO)
    m1 = {
        "attention": t1, "head-average": t1, "head-average-shared-key": t1,
        "value": gV * t1, "mha": gO * t1, "value-tied": gK * t1 + h * t2,
        "mha-tied": gO * (t1 + h * t2 / gK),
    }[case]
    return [m1]
