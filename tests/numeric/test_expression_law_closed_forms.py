"""The closed-form densities of :mod:`freege.numeric.expression_closed_forms` (MP, the
semicircle, free Poisson with a point jump, affine images) against the law's Cauchy
polynomial route at 50 digits: the float64 density within a few units in the last place
at interior points and at points 1e-14 of the width from an edge, the 50-digit density
and the edges to 50 digits."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from freege import algebra
from freege.numeric import roots

#: every kind of closed form, with atoms, a pole at an edge (mp(1)), reflections
TEXTS = ("mp(0.523417)", "mp(2)", "mp(1)", "semicircle(3/7)", "poisson(2/3)",
         "poisson(2, atoms((-3, 1)))", "2*mp(1/3) - 1", "-semicircle(1) + 2")
#: units in the last place allowed: each of the four roundings of the float64 formula
#: (two differences, two square roots, a quotient) counts half a unit
ULPS = 4


@pytest.mark.parametrize("text", TEXTS)
def test_closed_form_is_the_polynomial_route(text):
    law = algebra.parse(text).law()
    assert law._closed_form(30) is not None
    (a, b), = law.intervals()
    w = b - a
    near = np.array([1e-14, 1e-9, 1e-4])
    xs = np.concatenate([a + w * near, np.linspace(a, b, 12)[1:-1], b - w * near])
    exact = law.with_dps(50)
    with mpmath.workdps(50):
        points = [mpmath.mpf(float(x)) for x in xs]
        ref = [-mpmath.im(g) / mpmath.pi for g in exact._stieltjes_mp_batch(points)]
        assert max(abs(p - q) / q for p, q in zip(exact.pdf(points), ref, strict=True)
                   ) < mpmath.mpf(10) ** -48
        lo, hi = exact._intervals_mp()[0]
        edges = roots.support_intervals(exact.equation, 50, exact._bounds_mp())
        assert abs(lo - edges[0][0]) + abs(hi - edges[-1][1]) < mpmath.mpf(10) ** -48
    ref64 = np.array([float(v) for v in ref])
    assert np.max(np.abs(law.pdf(xs) - ref64) / ref64) <= ULPS * np.finfo(float).eps
    assert list(law.pdf([a, b, a - 1, b + 1])) == [0, 0, 0, 0]
    assert np.isnan(law.pdf(np.nan))


def test_laws_without_a_closed_form_keep_the_polynomial_route():
    assert algebra.parse("mp(1/2) * mp(1/2)").law()._closed_form(30) is None
    assert algebra.parse("poisson(1, atoms((1, 1/2), (2, 1/2)))").law()._closed_form(30) is None
