"""Far-shifted laws answered through the unshifted law (docs/algebra.md, "Numbers": far
shifts; ``freege/numeric/edge_move.py``; issue 40): ``mp(1/2) + 10^k`` has the cdf,
quantiles and readouts of ``mp(1/2)`` moved by ``10^k``.

The references are independent of the numeric law: the Marchenko-Pastur density in
closed form, integrated by mpmath. The shifted law must also give the very numbers of
the unshifted one at the moved points (a far shift is an exact float64 difference near
the support), which fails when the shifted law is answered on its own: there the cdf's
panels sit at ``10^k`` and lose digits (``1e-13`` off at ``10^5``, after a minute)."""

from __future__ import annotations

import pickle

import mpmath
import numpy as np
import pytest

from freege import algebra
from freege.numeric import readout
from freege.numeric.edge_move import FAR_SHIFT
from tests.cli.helpers import run_cli

LO, HI = (1 - 0.5**0.5) ** 2, (1 + 0.5**0.5) ** 2  # float64 edges of MP_{1/2}
#: points of the unshifted support, exact in float64 and after a shift by 10^5 or 10^6
POINTS = np.array([0.125, 0.25, 0.5, 1.0, 1.5, 2.0, 2.75])
SHIFTS = (10**5, 10**6)


def mp_integral(fn, upper=None) -> mpmath.mpf:
    """``int_lo^upper fn(y) pdf(y) dy`` for MP_{1/2}, its density in closed form
    ``sqrt((hi - y)(y - lo)) / (2 pi c y)`` (theory §3), by mpmath at 40 digits."""
    with mpmath.workdps(40):
        ratio = mpmath.mpf(1) / 2
        lo, hi = (1 - mpmath.sqrt(ratio)) ** 2, (1 + mpmath.sqrt(ratio)) ** 2
        top = hi if upper is None else min(mpmath.mpf(upper), hi)
        if top <= lo:
            return mpmath.mpf(0)
        return +mpmath.quad(lambda y: fn(y) * mpmath.sqrt((hi - y) * (y - lo))
                            / (2 * mpmath.pi * ratio * y), [lo, 1, top] if top > 1
                            else [lo, top])


@pytest.fixture(scope="module")
def unshifted():
    return algebra.parse("mp(1/2)").law()


@pytest.mark.parametrize("shift", SHIFTS)
def test_the_far_shifted_cdf_is_the_unshifted_cdf(unshifted, shift):
    law = algebra.parse(f"mp(1/2) + {shift}").law()
    assert law._affine_image() is not None
    x = shift + POINTS
    assert np.array_equal(x - shift, POINTS)  # the points are exact after the shift
    cdf = law.cdf(x)
    assert np.array_equal(cdf, unshifted.cdf(POINTS))
    for y, value in zip(POINTS, cdf, strict=True):
        assert abs(value - float(mp_integral(lambda _: 1, y))) < 1e-14
    assert np.array_equal(law.sf(x), unshifted.sf(POINTS))
    assert law.cdf(shift) == 0.0 and law.cdf(shift + 3.0) == 1.0


@pytest.mark.parametrize("shift", SHIFTS)
def test_the_far_shifted_quantiles_and_moments(unshifted, shift):
    law = algebra.parse(f"mp(1/2) + {shift}").law()
    qs = np.array([0.01, 0.25, 0.5, 0.75, 0.99])
    assert np.array_equal(law.ppf(qs), shift + unshifted.ppf(qs))
    assert abs(law.mean() - (shift + 1)) == 0.0
    assert abs(law.var() - 0.5) < 1e-15 * shift**2  # m2 - m1^2, from the exact moments
    (a, b), = law.intervals()
    assert abs(a - shift - LO) < 1e-9 and abs(b - shift - HI) < 1e-9
    assert law.mass() == unshifted.mass()


def test_a_mirrored_far_shift_is_the_unshifted_law_reflected(unshifted):
    """``10^6 - X``: the cdf at ``10^6 - y`` is ``1 - F(y)`` (no atom)."""
    law = algebra.parse("1000000 - mp(1/2)").law()
    assert law._affine_image() is not None
    x = 10**6 - POINTS
    assert np.allclose(law.cdf(x), 1 - unshifted.cdf(POINTS), rtol=0, atol=1e-15)
    assert np.array_equal(law.ppf([0.5]), 10**6 - unshifted.ppf([0.5]))


def test_the_far_shifted_cdf_at_30_digits():
    law = algebra.parse("mp(1/2) + 1000000").law(dps=30)
    with mpmath.workdps(30):
        for y in ("0.5", "2"):
            value = law.cdf(10**6 + mpmath.mpf(y))
            reference = mp_integral(lambda _: 1, mpmath.mpf(y))
            assert abs(value - reference) < mpmath.mpf(10) ** -22


@pytest.mark.parametrize("shift", SHIFTS)
def test_readouts_of_a_far_shifted_law(shift):
    """dof and the flow loss of the normalized law ``(X + b)/(1 + b)`` against the closed
    form; the normalized law's scale ``1/(1 + b)`` (below the scales' range at 10^6) is
    admitted because its mean is 1, and its text reads back to it."""
    law = algebra.parse(f"mp(1/2) + {shift}").law()
    nbar = law.as_normalized()
    assert nbar.mean() == 1.0 and nbar._affine_image() is not None
    assert algebra.parse(str(nbar)) == nbar.expr
    assert pickle.loads(pickle.dumps(nbar)) == nbar
    m = mpmath.mpf(1 + shift)
    for lam in (0.01, 0.1, 1.0):
        ref = mp_integral(lambda y, lam=lam: ((y + shift) / m) / ((y + shift) / m + lam))
        assert abs(readout.dof(law, lam) - float(ref)) < 1e-13
    for t in (0.5, 2.0):
        ref = mp_integral(lambda y, t=t: mpmath.exp(-2 * t * (y + shift) / m))
        assert abs(readout.flow_loss(law, t) - float(ref)) < 1e-13 * float(ref)


def test_only_a_far_shift_moves():
    """A shift within FAR_SHIFT widths of the enclosure stays the law's own route."""
    near = algebra.parse("mp(1/2) + 3").law()
    width = HI - LO
    assert 3 <= FAR_SHIFT * width and near._affine_image() is None
    assert algebra.parse("mp(1/2) + 12").law()._affine_image() is not None


def test_the_command_line_answers_far_shifted_readouts(capsys):
    code, out, err = run_cli(capsys, "readout", "loss", "--expr", "mp(1/2) + 1000000",
                             "--t", "1", "--format", "json")
    assert code == 0, err
    import json

    (value,) = json.loads(out)["loss"]
    ref = mp_integral(lambda y: mpmath.exp(-2 * (y + 10**6) / mpmath.mpf(10**6 + 1)))
    assert abs(value - float(ref)) < 1e-13
    code, out, err = run_cli(capsys, "law", "--expr", "mp(1/2) + 1000000", "--normalized",
                             "--format", "json")
    assert code == 0, err
    assert json.loads(out)["mean"] == 1.0
