"""A real head count h (theory §6.4: curves in h interpolate the proportional-limit
formulas): the law at h = 3/10 has the atom 1 - h of its MP_{1/h} factor, and float64
agrees with 30 digits on the ridge error (an independent route)."""

from fractions import Fraction

import pytest

from freege.numeric import readout
from freege.numeric.case_law import law
from freege.params import Ratios


def test_law_at_a_real_head_count_below_one():
    r = Ratios(beta=1, h=Fraction(3, 10), gK=Fraction(3, 5), gV=Fraction(1, 2), gO=2)
    fast, exact = law("mha", r, normalized=True), law("mha", r, normalized=True, dps=30)
    assert float(list(exact.atoms().values())[0]) == pytest.approx(0.7, abs=1e-25)
    lam, s2 = Fraction(1, 10_000), Fraction(1, 10)
    assert readout.ridge_error(fast, lam, s2) == pytest.approx(
        float(readout.ridge_error(exact, lam, s2)), rel=1e-12)


def test_error_is_continuous_between_integer_head_counts():
    g = Fraction(64, 4096)
    errs = [readout.ridge_error(law("mha", Ratios(beta=1, h=h, gK=h * g, gV=h * g,
                                                  gO=Fraction(1, 2)), normalized=True),
                                Fraction(1, 10_000), Fraction(1, 10))
            for h in (Fraction(80), Fraction(161, 2), Fraction(81))]
    assert min(errs[0], errs[2]) < errs[1] < max(errs[0], errs[2])
