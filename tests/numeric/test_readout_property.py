"""Property test over ill-conditioned setups (issue 7, theory §5, §7): ratios close to each
other, to 1 and to h, w near w_max (tiny lam), small h, beta in [0.1, 3], independent and
tied. dps 30 agrees with dps 60 to >= 28 digits; float64 is within 1e-12 of dps 60."""

from __future__ import annotations

from fractions import Fraction

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from freege.numeric import readout
from freege.numeric.case_law import CaseLaw
from freege.params import Ratios


@st.composite
def setups(draw: st.DrawFn) -> tuple[str, Ratios, Fraction, Fraction]:
    tied = draw(st.booleans())
    h = draw(st.integers(1, 6))
    base = draw(st.sampled_from([Fraction(1), Fraction(h), Fraction(1, 2), Fraction(3, 10)]))
    nudge = st.sampled_from([Fraction(0), Fraction(1, 10**6), Fraction(-1, 10**4),
                             Fraction(1, 10**3)])
    g_k, g_v, g_o = (base + draw(nudge) for _ in range(3))
    if tied:
        g_v = g_k
    beta = draw(st.sampled_from([Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(3)]))
    lam = draw(st.sampled_from([Fraction(1, 10**12), Fraction(1, 10**6), Fraction(1, 10**3),
                                Fraction(2)]))
    sigma2 = draw(st.sampled_from([Fraction(0), Fraction(1, 10)]))
    ratios = Ratios(beta=beta, h=h, gK=g_k, gV=g_v, gO=g_o, sharing="tied" if tied else "none")
    return ("mha-tied" if tied else "mha"), ratios, lam, sigma2


@settings(max_examples=15)
@given(setups())
def test_dps30_dps60_and_float64_agree(setup: tuple[str, Ratios, Fraction, Fraction]) -> None:
    case, ratios, lam, sigma2 = setup
    laws = {dps: CaseLaw(case, ratios, True, dps) for dps in (None, 30, 60)}
    for fn, args in ((readout.dof, (lam,)), (readout.dof_derivative, (lam,)),
                     (readout.ridge_error, (lam, sigma2))):
        f64, lo, hi = (fn(laws[d], *args) for d in (None, 30, 60))
        with mpmath.workdps(80):
            assert abs(lo - hi) <= mpmath.mpf(10) ** -28 * abs(hi), (fn.__name__, lo, hi)
            assert abs(mpmath.mpf(f64) - hi) <= 1e-12 * abs(hi), (fn.__name__, f64, hi)
