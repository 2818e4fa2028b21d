"""First and second empirical moments of every theory §4 case against the exact layer.

Tolerance per moment (relative): a Student-t 99.9% half-width over the draws plus a
finite-n bias bound. The GE model's moments have O(1/n) corrections with O(1)
coefficients (its mean is exact); the softmax model adds the bias of the random row
normalizers, whose first-order (delta-method) relative effect on theta1 is
``-e^{b^2} (2 (e^{2 b^2} - 1) - 3 theta1) / (theta1 n)`` (from E[X/Y^2] for the row
mean Y of the exponentials and X of their squares), plus the finite-dK effect
``~ b^4 e^{b^2} / (theta1 dK)``; the bound doubles the sum of their sizes (and doubles
it again for the second moment, which is quadratic in theta1).
"""

import math

import numpy as np
import pytest
import sympy as sp
from scipy import stats

from freege.params import Dims
from freege.symbolic.symbols import gK, gO, gV, h, theta1, theta2
from freege.validation.sampling.limits import limiting_moments
from freege.validation.sampling.sample import CASES, case_eigenvalues

DRAWS = 10
BETA = 0.5
DIMS = Dims(n=160, h=4, dK=40, dV=40, dO=200, beta=BETA)


def _bias_bound(model: str, q: int) -> float:
    b2 = BETA**2
    t1 = math.expm1(b2)
    ge = 4.0 / DIMS.n
    if model == "ge":
        return q * ge
    soft = 2 * math.exp(b2) * abs(2 * math.expm1(2 * b2) - 3 * t1) / (t1 * DIMS.n)
    soft += 2 * b2**2 * math.exp(b2) / (t1 * DIMS.dK)
    return q * (ge + soft)


@pytest.mark.parametrize("model", ["softmax", "ge"])
@pytest.mark.parametrize("case", CASES)
def test_first_two_moments_match_the_limit(case, model):
    limits = limiting_moments(case, DIMS, 2)
    eigs = [case_eigenvalues(case, DIMS, seed=(3, s), model=model) for s in range(DRAWS)]
    t = stats.t.ppf(0.9995, DRAWS - 1)
    for q in (1, 2):
        rel = np.array([np.mean(e**q) for e in eigs]) / limits[q - 1] - 1
        half = t * rel.std(ddof=1) / math.sqrt(DRAWS)
        assert abs(rel.mean()) <= half + _bias_bound(model, q), (q, rel.mean(), half)


def test_tied_mha_raw_gram_has_the_dilated_mean():
    """theory §4: the tied MHA law D_{1/gK}(pi(mu_KV, h) ⊠ pi_gO) has mean
    gO (theta1 + h theta2/gK), the mean of the raw MHA^perp Gram (no extra scaling)."""
    r = DIMS.ratios
    t1, t2 = math.expm1(BETA**2), BETA**2
    expected = float(r.gO) * (t1 + r.h * t2 / float(r.gK))
    assert limiting_moments("mha-tied", DIMS, 1)[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("case", "closed_form"), [
    ("attention", None),
    ("mha", 1 / h + 1 / gV + 1 / gO + (theta2 / theta1) ** 2 / gK),
    ("value", 1 / h + 1 / gV + (theta2 / theta1) ** 2 / gK),
])
def test_spec_closed_forms_agree_with_the_exact_layer(case, closed_form):
    """theory §4 closed forms, typed in: attention m2 and normalized mbar2 - 1."""
    r = DIMS.ratios
    vals = {theta1: math.expm1(BETA**2), theta2: BETA**2, h: r.h, gK: float(r.gK),
            gV: float(r.gV), gO: float(r.gO)}
    m1, m2 = limiting_moments(case, DIMS, 2)
    if closed_form is None:
        spec_m2 = theta1**2 * (1 + 1 / h) + theta2**2 / gK
        assert m2 == pytest.approx(float(spec_m2.subs(vals)), rel=1e-12)
    else:
        assert m2 / m1**2 - 1 == pytest.approx(float(sp.sympify(closed_form).subs(vals)),
                                               rel=1e-12)
