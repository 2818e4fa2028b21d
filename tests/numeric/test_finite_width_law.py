"""The finite-width law (freege/numeric/finite_width_law.py, theory §2.3, issue 39)."""

from __future__ import annotations

import numpy as np
import pytest

from freege.numeric.finite_width_law import finite_width_law, profile
from freege.params import Dims


def _symbolic_moments(case: str, dims: Dims) -> list[float]:
    import mpmath
    import sympy as sp

    from freege.symbolic import finite_width
    from freege.symbolic.symbols import beta, gK, gO, gV, h

    r = dims.ratios
    f = sp.lambdify((beta, h, gK, gV, gO, finite_width.dK), finite_width.moments(case),
                    "mpmath")
    with mpmath.workdps(30):
        args = [mpmath.mpf(x.numerator) / x.denominator if hasattr(x, "numerator")
                else mpmath.mpf(x) for x in (r.beta, r.h, r.gK, r.gV, r.gO, dims.dK)]
        return [float(m) for m in f(*args)]


@pytest.mark.parametrize(("case", "dims"), [
    ("mha", Dims(n=512, h=1, dK=32, dV=32, dO=256, beta=1, sharing="none")),  # closed form
    ("mha", Dims(n=261, h=16, dK=64, dV=64, dO=1024, beta=1, sharing="none")),  # dinov3-l16
    ("mha", Dims(n=512, h=12, dK=64, dV=64, dO=768, beta=1, sharing="none")),  # bert-base
    ("mha", Dims(n=2048, h=71, dK=64, dV=64, dO=4544, beta=1, sharing="mqa")),  # falcon-7b
    ("mha-tied", Dims(n=2048, h=32, dK=64, dV=64, dO=2048, beta=1, sharing="tied")),  # kayyam
    ("attention", Dims(n=512, h=4, dK=32, dV=32, dO=256, beta=1, sharing="none")),
])
def test_m1_m2_equal_the_symbolic_finite_width_moments(case: str, dims: Dims) -> None:
    law = finite_width_law(case, dims, row="infinite-n")
    want = _symbolic_moments(case, dims)
    got = [float(law.moment(1)), float(law.moment(2))]
    assert got == pytest.approx(want, rel=1e-12, abs=0)


def test_m1_m2_with_the_finite_n_coefficient_equal_the_validation_moments() -> None:
    from freege.validation.finite_width import finite_n_moments
    dims = Dims(n=256, h=4, dK=32, dV=32, dO=256, beta=1, sharing="none")
    law = finite_width_law("mha", dims)  # row finite-n: theta_n of 256 keys
    want = finite_n_moments(dims)  # trapezoid on 8001 points: ~1e-6 relative
    assert [float(law.moment(1)), float(law.moment(2))] == pytest.approx(want, rel=1e-5)


def test_profile_pdf_integrates_to_one_and_has_mean_one() -> None:
    import mpmath

    for op in (profile(1.0, 16, 1), profile(1.0, 64, 12)):
        xs = np.linspace(op.a, op.b, 4001)
        p = op.pdf_f64(xs)
        mass = np.trapezoid(p, xs)
        assert np.all(p >= 0)
        with mpmath.workdps(20):
            mean = float(op.moments_mp(1)[0])
        # the kernel mixture's pdf is normalised by construction; the closed form by the
        # operand (its f is the truncated density: mass 1 - 1e-17)
        assert mass == pytest.approx(1.0, abs=1e-4)  # the trapezoid rule on 4001 points
        assert mean == pytest.approx(1.0, abs=1e-12)


def test_lattice_profile_matches_the_closed_form() -> None:
    """The lattice route (used for h heads and theta_n) at h = 1 against the closed form:
    W1 below 1e-2 of the profile's standard deviation (measured: 6.5e-3)."""
    exact, lattice = profile(1.0, 32, 1), profile(1.0, 32, 1, coefficient=np.expm1)
    lo, hi = exact.a, exact.b
    xs = np.linspace(lo, min(hi, 8.0), 3001)
    c1 = np.cumsum(exact.pdf_f64(xs)) * (xs[1] - xs[0])
    c2 = np.cumsum(lattice.pdf_f64(xs)) * (xs[1] - xs[0])
    w1 = np.sum(np.abs(c1 / c1[-1] - c2 / c2[-1])) * (xs[1] - xs[0])
    sd = float(np.sqrt(exact.moments_mp(2)[1] - 1))
    assert w1 < 1e-2 * sd


def test_law_pdf_integrates_to_one() -> None:
    dims = Dims(n=256, h=4, dK=32, dV=32, dO=256, beta=1, sharing="none")
    law = finite_width_law("attention", dims, row="infinite-n")
    from freege.numeric import law as case_law

    top = 3 * float(case_law("attention", dims).support()[1])  # the tail beyond: < 1e-4
    xs = np.linspace(top * 1e-9, top, 500)
    p = np.maximum(-law.root.cauchy_f64(xs + 0j)[0].imag / np.pi, 0)
    assert np.trapezoid(p, xs) == pytest.approx(1.0, abs=3e-3)


def test_tends_to_the_plain_law_as_dk_grows() -> None:
    """The relative gaps of m1, m2 and m3 (the engine's moments) between the
    finite-width law and the plain attention law decrease in dK, toward 0."""
    from freege.numeric import law as case_law

    gaps = []
    for dk in (16, 64, 256):
        dims = Dims(n=256, h=1, dK=dk, dV=dk, dO=256, beta=1, sharing="none")
        plain = case_law("attention", dims)
        fw = finite_width_law("attention", dims, row="infinite-n")
        gaps.append(max(abs(float(fw.moment(q)) / float(plain.moment(q)) - 1)
                        for q in (1, 2, 3)))
    assert gaps[0] > gaps[1] > gaps[2]
    assert gaps[2] < 0.25 * gaps[0]


def test_refusals() -> None:
    with pytest.raises(ValueError, match="case"):
        finite_width_law("head-average", Dims(n=64, h=1, dK=16, dV=16, dO=64, beta=1))
    with pytest.raises(ValueError, match="row"):
        finite_width_law("mha", Dims(n=64, h=1, dK=16, dV=16, dO=64, beta=1), row="n")
    with pytest.raises(ValueError, match="dps"):
        finite_width_law("mha", Dims(n=64, h=1, dK=16, dV=16, dO=64, beta=1), dps=20)
    with pytest.raises(ValueError, match="dK"):
        finite_width_law("mha", Dims(n=64, h=1, dK=4, dV=4, dO=64, beta=1, sharing="none"))
    # theta_n at n = 8, dK = 2 lies below theta2 = beta^2: no shifted temperature (was a
    # ZeroDivisionError in the bisection)
    with pytest.raises(ValueError, match="must exceed theta2"):
        finite_width_law("mha", Dims(n=8, h=1, dK=2, dV=2, dO=8, beta=0.5))


def test_pickles_by_its_recipe_and_answers_the_same() -> None:
    import pickle

    from freege.numeric import law as case_law

    dims = Dims(n=256, h=4, dK=32, dV=32, dO=256, beta=1, sharing="none")
    law = finite_width_law("mha", dims, row="infinite-n")
    again = pickle.loads(pickle.dumps(law))
    assert again == law
    zs = np.array([1.0 + 0.5j, 3.0 + 0.01j])
    assert np.array_equal(again.stieltjes(zs), law.stieltjes(zs))
    # no expression: it composes with nothing (freege.numeric.law_composition)
    with pytest.raises(TypeError, match="FiniteWidthLaw has no known expression"):
        law + 1
    with pytest.raises(TypeError, match="FiniteWidthLaw has no known expression"):
        case_law("mha", dims) * law


def test_grid_quantiles_find_mass_one_and_refuse_a_short_grid() -> None:
    from freege.errors import ConvergenceError
    from freege.numeric import law as case_law
    from freege.numeric.finite_width_law import grid_quantiles

    dims = Dims(n=256, h=4, dK=32, dV=32, dO=256, beta=1, sharing="none")
    fw = finite_width_law("mha", dims, row="infinite-n")
    top = 2.5 * float(case_law("mha", dims).support()[1])
    qs = (np.arange(100) + 0.5) / 100
    q, mass = grid_quantiles(fw, qs, top, points=150)
    assert abs(mass - 1) <= 1e-3 and np.all(np.diff(q) >= 0) and q[-1] < top
    atom = float(sum(fw.atoms().values()))  # rank h dV = 128 of n = 256: mass 1/2 at 0
    assert atom == pytest.approx(0.5, abs=1e-9)
    assert np.all(q[qs < atom] == 0) and np.all(q[qs > atom] > 0)
    # the law's mean from its quantiles (midpoint rule in q) near its exact m1
    assert float(np.mean(q)) == pytest.approx(float(fw.mean()), rel=1e-2)
    with pytest.raises(ConvergenceError, match="mass"):
        grid_quantiles(fw, [0.5], 0.3 * float(fw.mean()), points=50)
