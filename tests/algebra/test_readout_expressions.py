"""Theory §5 readouts of expression laws (issue 32): Marchenko-Pastur against its closed
Stieltjes transform, and the attention/MHA laws built by the algebra against the case
route (ridge polynomial, quadrature, Stehfest)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from freege import algebra
from freege.numeric import readout
from freege.numeric.case_law import law
from freege.params import Ratios
from freege.symbolic.cases import case_expression


def _mp_closed(c: Fraction, lam: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``(w, w')`` of MP with ratio ``c`` (mean 1): ``G = G(-lam)`` is the negative root of
    ``c z G^2 - (z + c - 1) G + 1 = 0`` at ``z = -lam`` (the roots' product ``1/(c z)`` is
    negative), ``w = 1 + lam G``, ``w' = G - lam G'`` with ``G'`` by implicit
    differentiation."""
    c = mpmath.mpf(c.numerator) / c.denominator
    z = -lam
    a, b = c * z, -(z + c - 1)
    disc = mpmath.sqrt(b * b - 4 * a)
    g = min((-b + disc) / (2 * a), (-b - disc) / (2 * a))
    g_prime = -(c * g * g - g) / (2 * c * z * g - (z + c - 1))
    return 1 + lam * g, g - lam * g_prime


@pytest.mark.parametrize("ratio", [Fraction(1, 2), Fraction(2)])
@pytest.mark.parametrize("dps", [None, 30])
def test_mp_dof_and_ridge_error_match_the_closed_form(ratio, dps):
    the_law = algebra.marchenko_pastur(str(ratio)).law(dps)
    tol = 4e-16 if dps is None else mpmath.mpf(10) ** -28
    for lam in ("1/1000", "3/10", "7", "20000"):
        with mpmath.workdps(40):
            w, w_prime = _mp_closed(ratio, mpmath.mpf(Fraction(lam).numerator)
                                    / Fraction(lam).denominator)
            lam_m = mpmath.mpf(Fraction(lam).numerator) / Fraction(lam).denominator
            err = 1 - w / 3 + (lam_m / 3 - mpmath.mpf("0.1")) * w_prime
        assert abs(readout.dof(the_law, lam) - w) <= tol * abs(w)
        assert abs(readout.dof_derivative(the_law, lam) - w_prime) <= tol * abs(w_prime)
        assert abs(readout.ridge_error(the_law, lam, "0.1", gO=3) - err) <= 4 * tol


def test_mp_flow_loss_matches_the_closed_density():
    c = 0.5
    lo, hi = (1 - c**0.5) ** 2, (1 + c**0.5) ** 2
    the_law = algebra.marchenko_pastur("1/2").law()
    for t in (0.1, 1.5):
        with mpmath.workdps(30):
            ref = mpmath.quad(lambda x, t=t: mpmath.exp(-2 * t * x)
                              * mpmath.sqrt((hi - x) * (x - lo)) / (2 * mpmath.pi * c * x),
                              [lo, hi])
        assert abs(readout.flow_loss(the_law, t) - ref) <= 1e-15
    arrival = readout.arrival_time(the_law, 0.25)
    assert abs(readout.flow_loss(the_law, arrival) - 0.25) <= 1e-14


def _attention_pair(case: str) -> tuple:
    """The case law at ``beta = 1/2`` and the algebra's expression with ``theta1 = e^(1/4)
    - 1`` rounded to 30 digits (a 1e-30 perturbation, far below the tolerances)."""
    ratios = Ratios(beta=Fraction(1, 2), h=2, gK=Fraction(1, 2), gV=Fraction(3, 2), gO=2)
    theta1 = sp.Rational(str(sp.N(sp.exp(sp.Rational(1, 4)) - 1, 30)))
    expr = case_expression(case).subs({"theta1": theta1, "theta2": sp.Rational(1, 4),
                                       "h": 2, "gK": sp.Rational(1, 2),
                                       "gV": sp.Rational(3, 2), "gO": 2})
    return law(case, ratios), expr.law()


def test_attention_expression_agrees_with_the_case_route():
    case_law, expr_law = _attention_pair("attention")
    for lam in (0.01, 0.3, 5.0):
        for fn in (readout.dof, readout.dof_derivative):
            a, b = fn(case_law, lam), fn(expr_law, lam)
            assert abs(a - b) <= 1e-13 * abs(a)
    for t in (0.1, 2.0):
        a, b = readout.flow_loss(case_law, t), readout.flow_loss(expr_law, t)
        assert abs(a - b) <= 1e-13 * abs(a)


def test_mha_ridge_error_agrees_with_the_case_route():
    case_law, expr_law = _attention_pair("mha")
    for lam in (0.05, 2.0):
        a = readout.ridge_error(case_law, lam, 0.2)
        b = readout.ridge_error(expr_law, lam, 0.2, gO=2)
        assert abs(a - b) <= 1e-13 * abs(a)
    estimate = readout.estimate_ridge_error(expr_law, 0.3, 0.2, gO=2)
    assert estimate.error <= 1e-13


def test_refusals():
    with pytest.raises(ValueError, match=r"\[0, inf\)"):
        readout.dof(algebra.semicircle(1).law(), 1)
    mp_law = algebra.marchenko_pastur(2).law()
    with pytest.raises(ValueError, match="gO"):
        readout.ridge_error(mp_law, 1, 0)
    with pytest.raises(ValueError, match="gO"):
        readout.ridge_error(law("mha", Ratios(beta=1, h=2, gK=1, gV=1, gO=1)), 1, 0, gO=2)
