"""The numeric law of random expressions (depth <= 2, tests/algebra/strategies.py; seeded)
against samples of their random-matrix models (freege.validation.sampling.algebra_models):
the moments of the numeric law (the series at infinity of its Cauchy polynomial, any
order), its support intervals and edges, and its atoms with their masses.

The quadrature (cdf, mass, expect) is checked on the peers' laws
(tests/algebra/test_expression_law.py), not here: on random expressions it can take
seconds per law (hard edges of high-degree Cauchy polynomials, docs/algebra.md, Limits),
more than this file's budget."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

from tests.algebra.strategies import expressions
from tests.validation.test_algebra_models import N, moment_tolerance, sampled

#: edge fluctuations of an n x n model are O(n^(-2/3)) of the support's width
#: (Tracy-Widom); the tolerance allows four times that
EDGE_FACTOR = 4


def distance_to_support(x: np.ndarray, law) -> np.ndarray:
    """Distance of each ``x`` to the law's support (intervals and atoms)."""
    pieces = [(a, b) for a, b in law.intervals()] + [(x0, x0) for x0 in law.atoms()]
    return np.min([np.maximum(np.maximum(a - x, x - b), 0.0) for a, b in pieces], axis=0)


@settings(max_examples=5, deadline=None, derandomize=True)
@given(expressions(depth=2))
def test_numeric_law_agrees_with_samples(expr):
    law = expr.law()
    spectra = sampled(expr)
    for k in (1, 2, 3, 4):
        numeric = law.moment(k)
        got = np.mean([np.mean(ev**k) for ev in spectra])
        tol = moment_tolerance(k, spectra)
        assert abs(got - numeric) <= tol, f"{expr}: m_{k} {got} vs law {numeric}"
    lo, hi = law.support()
    width = max(hi - lo, 1.0)
    tol = EDGE_FACTOR * width * N ** (-2 / 3)
    for ev in spectra:
        assert np.max(distance_to_support(ev, law)) <= tol, (expr, law.intervals())
    everything = np.concatenate(spectra)
    assert abs(everything.min() - lo) <= tol and abs(everything.max() - hi) <= tol, expr
    reach = max(1.0, float(np.max(np.abs(everything))))
    for location, mass in law.atoms().items():
        share = np.mean(np.abs(everything - location) <= 1e-9 * reach)
        assert abs(share - mass) <= 2 / N, (expr, location, mass, share)
