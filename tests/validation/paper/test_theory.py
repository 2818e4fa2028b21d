"""Theory curves refined where they bend (freege.validation.paper.theory.refined_curve)."""

from __future__ import annotations

import math

import numpy as np

from freege.validation.paper import theory


def test_a_curve_is_refined_where_it_bends_to_the_tolerance():
    calls = []

    def f(x: float) -> float:
        calls.append(x)
        return 1 / x

    x, y = theory.refined_curve(f, [0.25, 0.75, 1.5])
    assert y == [1 / v for v in x] and len(calls) == len(x)  # f's own values, each once
    fine = np.linspace(0.25, 1.5, 2001)
    span = 4 - 1 / 1.5
    assert np.max(np.abs(np.interp(fine, x, y) - 1 / fine)) < 2 * theory.CURVE_TOLERANCE * span
    gaps = np.diff(x)  # finer where 1/x bends most, at small x
    assert gaps[0] < gaps[-1] / 4


def test_a_straight_curve_gets_one_round_of_midpoints_only():
    x, _ = theory.refined_curve(lambda v: 2 * v + 1, [0.0, 1.0, 2.0])
    assert x == [0.0, 0.5, 1.0, 1.5, 2.0]
    # exp is straight in log y
    x, _ = theory.refined_curve(math.exp, [0.0, 4.0, 8.0], log_y=True)
    assert len(x) == 5
    x, _ = theory.refined_curve(math.exp, [0.0, 4.0, 8.0])
    assert len(x) > 5
