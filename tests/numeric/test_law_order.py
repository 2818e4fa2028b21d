"""A float64 law's answers do not depend on what was evaluated before (issue 16 item 1):
the reproducers of the issue, and a property test over random laws and batches with
points 1e-6..1e-12 from the edges (theory §7.1)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from freege.numeric import readout
from freege.numeric.case_law import CaseLaw, law
from freege.params import Ratios

ULP4 = 4 * np.finfo(float).eps


def close(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal to 4 ulp (relative), elementwise."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.all(np.abs(a - b) <= ULP4 * np.maximum(np.abs(a), np.abs(b))))


def test_value_law_point_near_the_upper_edge_first() -> None:
    """``--pdf 0.061285520358029165 0.05 0.06`` gave pdf(0.06) = 0: the point next to the
    upper edge left a badly resolved anchor that later points continued from."""
    ratios = Ratios(beta="0.1", h=100, gK="0.001", gV=1000, gO=1)
    batch = law("value", ratios).pdf([0.061285520358029165, 0.05, 0.06])
    alone = law("value", ratios).pdf([0.06])
    assert alone[0] > 1
    assert close(batch[2], alone[0])


def test_mha_law_point_near_the_upper_edge_first() -> None:
    """``--pdf 1.5619846749202876 0.7819016716917496`` gave 22.78 for 0.3346."""
    ratios = Ratios(beta="0.4972", h=9, gK=7128, gV="5.775", gO="1.2")
    batch = law("mha", ratios).pdf([1.5619846749202876, 0.7819016716917496])
    alone = law("mha", ratios).pdf(0.7819016716917496)
    with mpmath.workdps(40):
        ref = law("mha", ratios, dps=40).pdf(mpmath.mpf(0.7819016716917496))
    assert abs(alone - float(ref)) <= 1e-13 * float(ref)
    assert close(batch[1], alone)


@pytest.mark.slow
def test_mass_after_a_pdf_next_to_the_upper_edge() -> None:
    """After a pdf 1e-7 (b - a) below the upper edge, mass() was 1.168 (mha-tied)."""
    ratios = Ratios(beta="0.05939", h=1, gK="0.04684", gV="0.04684", gO="669.9",
                    sharing="tied")
    used = law("mha-tied", ratios)
    a, b = used.intervals()[-1]
    used.pdf([b - 1e-7 * (b - a)])
    assert abs(used.mass() - 1) <= 1e-12


@pytest.mark.slow
def test_single_points_next_to_the_edges_are_right_to_1e13() -> None:
    """A point within 1e-8 (relative and absolute) of an edge, asked alone, agrees with
    30 digits to 1e-13 relative (the audit saw 1.6e-8 on an mha-tied law)."""
    ratios = Ratios(beta=2, h=2, gK=1000, gV=1000, gO="0.001", sharing="tied")
    (a, b), = law("mha-tied", ratios).intervals()
    ref = law("mha-tied", ratios, dps=30)
    for x in (a * (1 + 1e-8), b * (1 - 1e-8), a + 1e-8, b - 1e-8):
        value = law("mha-tied", ratios).pdf(x)
        with mpmath.workdps(30):
            exact = float(ref.pdf(mpmath.mpf(x)))
        assert abs(value - exact) <= 1e-13 * exact, x


def test_near_zero_route_does_not_depend_on_the_batch() -> None:
    """Points next to a hard edge at 0 (the mpmath continuation along the support):
    batch, reversed batch and single points on fresh Laws agree to 4 ulp."""
    ratios = Ratios(beta=1, h=8, gK=1, gV=1, gO=2)
    (_, b), = law("mha", ratios).intervals()
    xs = np.array([b * 1e-9, b * (1 - 1e-8), b * 1e-7, b * 0.5])
    batch = law("mha", ratios).pdf(xs)
    assert close(batch, law("mha", ratios).pdf(xs[::-1])[::-1])
    assert close(batch, [law("mha", ratios).pdf(float(x)) for x in xs])


# --------------------------------------------------------------------- property
# soft edges here (ratios 1 make hard edges, whose mpmath route the test below covers)
SMALL = st.sampled_from(["0.5", "2", "0.9", "3.7", "40"])
RATIOS = st.builds(
    lambda beta, h, gK, gV, gO, tied: Ratios(
        beta=beta, h=h, gK=gK, gV=gK if tied else gV, gO=gO,
        sharing="tied" if tied else "none"),
    beta=st.sampled_from(["0.3", "1", "2"]), h=st.sampled_from([1, 2, 8]),
    gK=SMALL, gV=SMALL, gO=SMALL, tied=st.booleans())


def near_edge_points(lo: float, hi: float, gaps: list[float]) -> list[float]:
    out = []
    for gap in gaps:
        for d in (gap * (hi - lo), gap * max(abs(lo), abs(hi))):
            if lo + d < hi - d:
                out += [lo + d, hi - d]
    return out


@pytest.mark.slow
@settings(max_examples=2, deadline=None)
@given(ratios=RATIOS, case=st.sampled_from(["mha", "value", "head-average"]),
       gaps=st.lists(st.sampled_from([1e-6, 1e-8, 1e-10, 1e-12]), min_size=1, max_size=2),
       fractions=st.lists(st.floats(0.01, 0.99), min_size=1, max_size=3),
       order=st.randoms(use_true_random=False))
def test_answers_do_not_depend_on_earlier_calls(ratios, case, gaps, fractions, order) -> None:
    """pdf(batch) == pdf of each point on a fresh CaseLaw == pdf(reversed batch) to 4 ulp;
    mass, cdf and dof after that batch equal a fresh CaseLaw's."""
    used = CaseLaw(case, ratios)
    lo, hi = used.intervals()[-1]
    xs = near_edge_points(lo, hi, gaps) + [lo + (hi - lo) * f for f in fractions]
    order.shuffle(xs)
    xs = np.array(xs)
    batch = used.pdf(xs)
    assert close(batch, CaseLaw(case, ratios).pdf(xs[::-1])[::-1])
    assert close(batch, [CaseLaw(case, ratios).pdf(float(x)) for x in xs])
    mid = (lo + hi) / 2
    fresh = CaseLaw(case, ratios)
    assert close(used.mass(), fresh.mass())
    assert close(used.cdf(mid), CaseLaw(case, ratios).cdf(mid))
    assert close(readout.dof(used, 0.1), readout.dof(CaseLaw(case, ratios), 0.1))
