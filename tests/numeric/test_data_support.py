"""Support intervals of a subordination node (freege.numeric.data_support): the explicit
route of ``(a pi_t) ⊠ empirical`` against the polynomial route and against ``phi``
sampled densely."""

from __future__ import annotations

import numpy as np
import pytest

from freege import algebra
from freege.numeric import data_support
from freege.numeric.data_law import DataLaw, spec_of_expression


@pytest.mark.parametrize("text", [
    "mp(1/20) * atoms((1,1/3),(5,1/3),(20,1/3))",  # three components (the scan failed)
    "atoms((1,1/2),(6,1/2)) * mp(3/2)",  # the other order; an atom at 0
])
def test_explicit_route_agrees_with_the_polynomial_route(text: str, monkeypatch) -> None:
    """No scan runs (it would raise); the intervals pass the law's mass check, which
    solves the engine inside every component, and agree with the Cauchy polynomial's."""

    def no_scan(*args: object) -> None:
        raise AssertionError("the scan ran")

    monkeypatch.setattr(data_support, "scan", no_scan)
    expr = algebra.parse(text)
    law = DataLaw(spec_of_expression(expr))
    got = [e for ab in law.intervals() for e in ab]
    ref = [e for ab in expr.law().intervals() for e in ab]
    assert len(got) == len(ref)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_critical_points_against_phi_sampled_densely() -> None:
    """Clustered atoms with unequal weights: every gap where ``phi`` dips below ``t`` on a
    dense grid holds exactly two ends, at which ``phi = t``, and no other gap holds any
    (the pruning by the two atoms beside a gap leaves none out)."""
    rng = np.random.default_rng(3)
    x = np.sort(np.concatenate([rng.uniform(1, 2, 60), rng.uniform(4, 4.5, 30),
                                rng.uniform(9, 12, 10)]))
    p = rng.uniform(0.5, 1.5, x.size)
    p /= p.sum()
    t = 300.0  # 14 gaps open
    ends, right = data_support._critical_points(x, p, t)
    q = p * x * x
    frac = np.linspace(0, 1, 402)[1:-1]
    grid = x[:-1, None] + frac[None, :] * np.diff(x)[:, None]
    phi = (q[None, None, :] / (grid[:, :, None] - x[None, None, :]) ** 2).sum(axis=2)
    dips = np.flatnonzero(phi.min(axis=1) < t)
    inner = np.array(ends[1:-1])
    assert inner.size == 2 * dips.size
    assert np.array_equal(np.searchsorted(x, inner) - 1, np.repeat(dips, 2))
    assert right == [False] + [True, False] * dips.size + [True]
    at = np.array(ends)
    phi_at = (q / (at[:, None] - x[None, :]) ** 2).sum(axis=1)
    np.testing.assert_allclose(phi_at, t, rtol=1e-9)
